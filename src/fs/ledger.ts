/**
 * What an agent has seen of each file, and the rule that decides whether its write may replace the
 * current text (issue: "fs/write_text_file applies only if the agent's view is still current").
 * Pure; the editor adapter (vscodeFiles.ts) feeds it document versions and texts.
 */
import { sha256Text } from './text';

/** What the agent last saw of a file through us. `version` is set when the file was open. */
export interface ReadRecord {
  version?: number;
  hash: string;
  /** The text itself, kept so a refused write can be offered as a three-way merge (base, current, proposal). */
  text: string;
}

/** The file as it is now, right before the write. */
export interface CurrentFile {
  /** The open document's version, if the file is open. */
  version?: number;
  text: string;
  /** True when the open document has unsaved changes. */
  dirty: boolean;
  /** Disk modification time (ms since epoch) when the file is not open. */
  mtime?: number;
}

/** A refused write: `reason` is a stable word for `data.reason`, `message` a sentence. */
export interface WriteConflict {
  reason: 'version_changed' | 'content_changed' | 'unsaved_changes' | 'changed_on_disk';
  message: string;
}

/** The per-session record of reads and writes. */
export class FileLedger {
  private readonly records = new Map<string, ReadRecord>();
  private turnStartedAt = 0;

  /** Marks the start of a prompt turn (ms since epoch). */
  turnStarted(at: number): void {
    this.turnStartedAt = at;
  }

  /** Records that the agent saw `text` (at document `version` when open). */
  recordRead(path: string, text: string, version?: number): void {
    this.records.set(path, { version, hash: sha256Text(text), text });
  }

  /** Records the result of our own write, so the agent's next write to the file is in sequence. */
  recordWrite(path: string, text: string, version?: number): void {
    this.recordRead(path, text, version);
  }

  get(path: string): ReadRecord | undefined {
    return this.records.get(path);
  }

  /**
   * Decides whether a write may replace `current`. A file read through us must be at the version
   * and hash the agent saw; a file never read through us must have no unsaved changes and must not
   * have changed on disk since the turn began. Returns undefined when the write may proceed.
   */
  checkWrite(path: string, current: CurrentFile): WriteConflict | undefined {
    const seen = this.records.get(path);
    if (seen) {
      if (seen.version !== undefined && current.version !== undefined && current.version !== seen.version) {
        return { reason: 'version_changed', message: `the document changed (version ${seen.version} → ${current.version}) since the agent read it.` };
      }
      if (sha256Text(current.text) !== seen.hash) {
        return { reason: 'content_changed', message: 'the text changed since the agent read it.' };
      }
      return undefined;
    }
    if (current.dirty) return { reason: 'unsaved_changes', message: 'the document has unsaved changes the agent has not read.' };
    if (current.mtime !== undefined && current.mtime > this.turnStartedAt) {
      return { reason: 'changed_on_disk', message: 'the file changed on disk after the turn began and the agent did not read it through the editor.' };
    }
    return undefined;
  }
}

/**
 * The way back from a message in the thread: *Restore checkpoint* puts the files the agent changed
 * in that message's turn and every later turn of the session back as they were before it (the
 * review's Restore Checkpoint, with its checks: a file someone changed since is left alone and
 * named, never overwritten), and *Edit* hands the message's words and attachments to the page,
 * which opens them for editing in place, to go out as a new turn (after that restore, when asked).
 *
 * A message names its turn through the review itself (`ReviewModel.turnOfEntry`, noted when the
 * person's prompt started the turn), never by counting what a page shows. The page holds no
 * authority: every request names an entry, checked here against the session's own state.
 *
 * ACP v1 has no way to take turns out of an agent's context (`session/fork`, unstable, copies the
 * whole conversation): the agent still remembers the turns after the message, and the page says so.
 * No `vscode`: the restore itself is injected.
 */
import path from 'node:path';
import type { SessionState, ThreadEntry } from '../../acp/session/types';
import { isPersonsPrompt } from '../../acp/session/turns';
import { leftAloneText, previewCheckpoint, STILL_WORKING } from '../../edits/checkpointPreview';
import type { ReviewModel } from '../../edits/review';
import { isWithin } from '../../fs/containment';
import type { HostMessage } from './protocol';
import type { SentContext } from './sentContext';

type Preview = Extract<HostMessage, { type: 'checkpointPreview' }>;
type Restored = Extract<HostMessage, { type: 'checkpointRestored' }>;
type ForEdit = Extract<HostMessage, { type: 'messageForEdit' }>;

/** What the actions need from the extension. */
export interface MessageActionsDeps {
  session(key: string): { state: SessionState } | undefined;
  /** The review's model: the turn of a message and the files of a checkpoint. */
  model: ReviewModel;
  /**
   * Restores the checkpoint before `turn` of session `key` as the person confirmed it, without a
   * dialog or a notification of its own; `reasons` gets why each skipped file was left alone.
   */
  restore(key: string, turn: number, reasons: Map<string, string>): Promise<{ restored: string[]; skipped: string[] }>;
  sent: SentContext;
}

/** Answers the page's requests about one of the person's messages. */
export class MessageActions {
  /** Sessions with a restore under way: a second click waits for the first to end. */
  private readonly restoring = new Set<string>();

  constructor(private readonly deps: MessageActionsDeps) {}

  /** What restoring the files to before message `entryId` would do, for the page's confirmation. */
  preview(key: string, entryId: string): Preview {
    const at = this.find(key, entryId);
    if ('refused' in at) return { type: 'checkpointPreview', key, entryId, files: [], laterTurns: 0, refused: at.refused };
    const p = previewCheckpoint(this.deps.model, key, at.turn);
    return {
      type: 'checkpointPreview',
      key,
      entryId,
      files: p.files.map((f) => (f.leftAlone ? { name: nameIn(at.state, f.path), leftAlone: leftAloneText(f.leftAlone) } : { name: nameIn(at.state, f.path) })),
      laterTurns: p.laterTurns,
    };
  }

  /** Restores the files to before message `entryId` (the person confirmed in the page) and says how it went. */
  async restore(key: string, entryId: string): Promise<Restored> {
    const at = this.find(key, entryId);
    const refused = (why: string): Restored => ({ type: 'checkpointRestored', key, entryId, restored: [], skipped: [], refused: why });
    if ('refused' in at) return refused(at.refused);
    if (this.restoring.has(key)) return refused('a restore of this session is already under way.');
    this.restoring.add(key);
    try {
      const reasons = new Map<string, string>();
      const r = await this.deps.restore(key, at.turn, reasons);
      return {
        type: 'checkpointRestored',
        key,
        entryId,
        restored: r.restored.map((p) => nameIn(at.state, p)),
        skipped: r.skipped.map((p) => ({ name: nameIn(at.state, p), why: reasons.get(p) ?? 'it was left alone' })),
      };
    } finally {
      this.restoring.delete(key);
    }
  }

  /**
   * Message `entryId` for editing in place: its text, its attachments as far as they are still
   * known, and how many files a restore to before it would put back (0 for a message that did not
   * start a turn of the person's here).
   */
  forEdit(key: string, entryId: string): ForEdit | undefined {
    const state = this.deps.session(key)?.state;
    const entry = state?.entries.find((e) => e.id === entryId);
    if (!state || entry?.kind !== 'user') return undefined;
    const { items, missing } = this.deps.sent.find(key, entry.text, entry.context ?? []);
    const at = this.find(key, entryId);
    const restorable = 'refused' in at ? 0 : previewCheckpoint(this.deps.model, key, at.turn).files.filter((f) => !f.leftAlone).length;
    return { type: 'messageForEdit', key, entryId, text: entry.text, context: items, missing, restorable };
  }

  /** The session and the turn message `entryId` started, or why there is no checkpoint to go back to now. */
  private find(key: string, entryId: string): { state: SessionState; turn: number } | { refused: string } {
    const state = this.deps.session(key)?.state;
    if (!state) return { refused: 'this session has ended.' };
    const entry: ThreadEntry | undefined = state.entries.find((e) => e.id === entryId);
    const turn = entry && isPersonsPrompt(entry) ? this.deps.model.turnOfEntry(key, entryId) : undefined;
    // A replayed or agent-sent message started no turn here: no files were followed after it.
    if (turn === undefined) return { refused: 'no checkpoint was kept before this message: it did not start a turn in this window (it was replayed from an earlier run, or sent by the agent).' };
    // The agent may still be writing: what it writes after the restore would be lost track of.
    if (state.status === 'prompting' || state.status === 'cancelling') return { refused: STILL_WORKING };
    return { state, turn };
  }
}

/** A file as the thread names it: relative to the session's folder when inside it. */
function nameIn(state: SessionState, file: string): string {
  return isWithin(state.cwd, file) ? path.relative(state.cwd, file) || path.basename(file) : file;
}

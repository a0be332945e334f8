/**
 * The disk side of review baselines: reads a file an agent named through the safe reader (regular
 * files only, a byte cap, no blocking on FIFOs or devices) and tells whether the read can be
 * trusted as what the file held — the same file, size and times before and after the read — and
 * when the file (or, for a missing file, its folder) last changed. No `vscode`.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';
import { lstatOrNull, readRegularFile, UnreadableFileError } from '../fs/safeRead';
import type { DiskRead } from './baselines';

/** Decodes a file's bytes in its encoding; null when they are not text in it. */
export type Decode = (bytes: Uint8Array, absPath: string) => string | null;

/** Points between the steps of a read, for tests that race a writer against it deterministically. */
export interface ReadHooks {
  /** After the first `lstat`, before the file is opened and read. */
  beforeRead?(): Promise<void> | void;
}

/** Why the safe reader refused, without the path (the agent chose it; messages name it elsewhere). */
const WHY: Record<string, string> = {
  too_large: 'it is larger than Agent Switchboard snapshots',
  not_regular: 'it is not a regular file',
  symlink: 'it is a symbolic link',
  error: 'it could not be read',
};

/**
 * Reads `absPath` for a review baseline. Never throws: failures are `unreadable`.
 * @param maxBytes larger files are `unreadable` (not reviewable), not cut.
 */
export async function readForBaseline(absPath: string, maxBytes: number, decode: Decode, hooks: ReadHooks = {}): Promise<DiskRead> {
  try {
    const before = await lstatOrNull(absPath);
    if (!before) return { kind: 'missing', parentChangedAtMs: await folderChangedAt(absPath) };
    if (!before.isFile()) return { kind: 'unreadable', reason: WHY.not_regular };
    if (before.size > maxBytes) return { kind: 'unreadable', reason: `${WHY.too_large} (${size(maxBytes)} at most)` };
    await hooks.beforeRead?.();
    let bytes: Buffer;
    try {
      bytes = (await readRegularFile(absPath, { maxBytes })).bytes;
    } catch (err) {
      // Gone between the stat and the open: something is changing it right now.
      if (err instanceof UnreadableFileError && err.reason === 'missing') return { kind: 'missing', parentChangedAtMs: undefined };
      if (err instanceof UnreadableFileError) return { kind: 'unreadable', reason: err.reason === 'too_large' ? `${WHY.too_large} (${size(maxBytes)} at most)` : WHY[err.reason] };
      return { kind: 'unreadable', reason: WHY.error };
    }
    const after = await lstatOrNull(absPath);
    const stable = !!after && sameFile(before, after) && bytes.byteLength === before.size;
    let text: string | null;
    try {
      text = decode(bytes, absPath);
    } catch {
      text = null;
    }
    return { kind: 'file', bytes, text, stable, changedAtMs: changedAt(before) };
  } catch {
    return { kind: 'unreadable', reason: WHY.error };
  }
}

/** A byte count as a person reads it. */
function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`;
}

/** The same inode, size and times: nobody wrote the file in between (as far as its stat can tell). */
function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && b.isFile();
}

/**
 * The later of mtime and ctime (ms since epoch). On file systems that keep whole seconds (FAT keeps
 * two), a change may be up to that much later than it says: both times without a fraction of a
 * second count as two seconds later.
 */
function changedAt(st: Stats): number {
  const t = Math.max(st.mtimeMs, st.ctimeMs);
  return st.mtimeMs % 1000 === 0 && st.ctimeMs % 1000 === 0 ? t + 2000 : t;
}

/** When the folder of a missing file last changed (an entry added or removed); undefined if unknown. */
async function folderChangedAt(absPath: string): Promise<number | undefined> {
  const dir = await lstatOrNull(path.dirname(absPath)).catch(() => null);
  if (!dir) {
    // A missing folder: its nearest existing ancestor tells when the chain was last changed.
    const up = path.dirname(absPath);
    return up === absPath ? undefined : folderChangedAt(up);
  }
  return dir.isDirectory() ? changedAt(dir) : undefined;
}

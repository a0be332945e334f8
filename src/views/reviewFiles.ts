/**
 * The file side of the Changes view: reading a file as the review sees it (the safe reader, the
 * file's encoding), the open document once it reflects the disk, and the confirmation of a write to
 * a protected path. Used by views/review.ts.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { fileEncoding } from '../config/vscodeSettings';
import { readRegularFileOrNull } from '../fs/safeRead';
import { openDocument as openFileDocument } from '../fs/vscodeFiles';
import { MAX_SNAPSHOT_BYTES } from '../edits/baselines';
import { decodeFile } from '../edits/encoding';
import { VIA_NAME, type UndoWrite } from '../edits/undoGuard';
import { text } from '../common/untrustedText';
import { approvalText } from '../common/approvalText';

/**
 * How long a save counts as under way after its will-save (ms): a save that never reports back
 * (it failed) stops hiding the file's changes from the review after this.
 */
export const SAVE_WINDOW_MS = 10_000;

/** Decodes a file's bytes in its encoding (its BOM, else files.encoding); null when they are not text. */
export function decodeText(bytes: Uint8Array, p: string): string | null {
  try {
    return decodeFile(bytes, fileEncoding(vscode.Uri.file(p))).text;
  } catch {
    return null;
  }
}

/**
 * Reads a file's bytes and decoded text through the safe reader (regular files only, at most
 * {@link MAX_SNAPSHOT_BYTES}, no blocking on special files); null when missing, text null when
 * it is not text in its encoding.
 * @throws {UnreadableFileError} when it is not a regular file, too large or unreadable.
 */
export async function readDisk(p: string): Promise<{ bytes: Uint8Array; text: string | null } | null> {
  const f = await readRegularFileOrNull(p, { maxBytes: MAX_SNAPSHOT_BYTES });
  return f && { bytes: f.bytes, text: decodeText(f.bytes, p) };
}

/** The open document of file `p`, if any. */
export function openDocument(p: string): vscode.TextDocument | undefined {
  return openFileDocument(vscode.Uri.file(p));
}

/**
 * The text of file `p` now, as Undo and Restore plan on it: its open document's (unsaved changes
 * included), except that a document without unsaved changes whose file was deleted still holds the
 * text it had, which is no longer the file: then null, as on disk (else undoing the agent's delete
 * of a file open in an editor was refused as "recreated since").
 */
export async function fileText(doc: vscode.TextDocument | undefined, p: string): Promise<string | null> {
  if (!doc || doc.isClosed) return currentDiskText(p);
  if (!doc.isDirty && (await readDisk(p).catch(() => undefined)) === null) return null;
  return doc.getText();
}

/**
 * The open document of `p`, once it reflects the disk: a document without unsaved changes reloads
 * a file changed on disk asynchronously, so a plan made on its text a moment after an agent wrote
 * the file would be made on the old text. Waits up to `timeoutMs` for that reload.
 * @throws Error when the document still differs from the disk after that.
 */
export async function freshDocument(p: string, timeoutMs = 3000): Promise<vscode.TextDocument | undefined> {
  const doc = openDocument(p);
  if (!doc || doc.isDirty) return doc;
  const disk = await readDisk(p).catch(() => null);
  if (!disk || disk.text === null || disk.text === doc.getText()) return doc;
  const settled = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === doc && doc.getText() === disk.text) done(true);
    });
    function done(ok: boolean) {
      clearTimeout(timer);
      sub.dispose();
      resolve(ok);
    }
  });
  if (!settled) throw new Error('the open document and the file on disk disagree; save or revert it first.');
  return doc.isClosed ? undefined : doc;
}

/**
 * The file's text on disk now; null when it does not exist.
 * @throws Error when it is not a regular text file of at most {@link MAX_SNAPSHOT_BYTES}.
 */
export async function currentDiskText(p: string): Promise<string | null> {
  let s: { text: string | null } | null;
  try {
    s = await readDisk(p);
  } catch {
    throw new Error('the file is not a readable regular file; it was left alone.');
  }
  if (s === null) return null;
  if (s.text === null) throw new Error('the file is not text in its encoding; it was left alone.');
  return s.text;
}

/**
 * Asks the person, in a modal dialog, to confirm one Undo or Restore write to a protected path.
 * The path goes in the dialog's detail (plain text), never in a notification.
 */
export async function confirmProtectedWrite(w: UndoWrite, relPath: string, why: string): Promise<boolean> {
  const act = w.action === 'delete' ? 'Delete' : 'Write';
  // The whole path, as it is, on a line of its own; a path that cannot be shown so is not offered.
  const where = approvalText([relPath], { what: 'Its path' });
  if (!where.ok) {
    void vscode.window.showWarningMessage(text`${VIA_NAME[w.via]} did not ${act.toLowerCase()} a protected file: ${where.reason}`);
    return false;
  }
  const choice = await vscode.window.showWarningMessage(
    text`${VIA_NAME[w.via]} would ${act.toLowerCase()} a protected file. ${act} it?`,
    { modal: true, detail: `${where.text}\n\n${text`${why} ${w.action === 'delete' ? 'It would be deleted' : 'It would get back the content read from disk before the agent changed it'}; the write is recorded in the audit log.`}` },
    act,
  );
  return choice === act;
}

/**
 * The folders of `dirs` that exist now. Undo writes in the worktree of a session that has closed
 * while its changes are still listed (its folder kept), as it did while the session ran; a worktree
 * that was discarded is gone with its folder, and nothing is written there any more.
 */
export function existingDirs(dirs: readonly string[]): string[] {
  return dirs.filter((d) => fs.existsSync(d));
}


/**
 * Version-checked application of a new text to an open document (the editor adapter of the edit
 * model). The check and `workspace.applyEdit` run with no `await` between them, so nothing the
 * person types can slip in after the check; a failed check or a `false` from the editor is a
 * conflict for the caller to report, never a retry over the person's text.
 *
 * Only the changed middle of the text is replaced (common prefix and suffix kept), so cursors,
 * folds and markers outside the change stay where they were.
 */
import * as vscode from 'vscode';
import { changedMiddle } from './model';

/** Documents (URI strings) with one of our own edits in flight, with how many. */
const ownEdits = new Map<string, number>();

/** True while one of our own edits to `uri` is being applied (listeners attribute changes by it). */
export function isOwnEdit(uri: vscode.Uri): boolean {
  return (ownEdits.get(uri.toString()) ?? 0) > 0;
}

/** Why a checked edit was not applied. */
export type ApplyRefusal = { reason: 'version_changed'; from: number; to: number } | { reason: 'content_changed' } | { reason: 'edit_rejected' };

/**
 * Replaces the text of `doc` with `newText` if the document is still at `expected` (its text, and
 * its version when given).
 * @returns undefined when applied (or when nothing needed to change), else the refusal.
 */
export async function replaceChecked(doc: vscode.TextDocument, expected: { text: string; version?: number }, newText: string): Promise<ApplyRefusal | undefined> {
  if (expected.version !== undefined && doc.version !== expected.version) return { reason: 'version_changed', from: expected.version, to: doc.version };
  const current = doc.getText();
  if (current !== expected.text) return { reason: 'content_changed' };
  if (current === newText) return undefined;
  const { start, endOld, endNew } = changedMiddle(current, newText);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(doc.positionAt(start), doc.positionAt(endOld)), newText.slice(start, endNew));
  return (await asOwnEdit(doc.uri, () => vscode.workspace.applyEdit(edit))) ? undefined : { reason: 'edit_rejected' };
}

/** Runs `fn` (an edit, save or write of ours to `uri`) with change listeners told that it is ours. */
export async function asOwnEdit<T>(uri: vscode.Uri, fn: () => Thenable<T>): Promise<T> {
  const key = uri.toString();
  ownEdits.set(key, (ownEdits.get(key) ?? 0) + 1);
  try {
    return await fn();
  } finally {
    const n = (ownEdits.get(key) ?? 1) - 1;
    if (n) ownEdits.set(key, n);
    else ownEdits.delete(key);
  }
}

/** Documents (URI strings) we are saving right now. */
const saving = new Set<string>();

/** True while we save `uri` (changes then come from save participants such as format on save). */
export function isSavingByUs(uri: vscode.Uri): boolean {
  return saving.has(uri.toString());
}

/** Saves `doc`, telling change listeners that edits meanwhile come from save participants. */
export async function saveDocument(doc: vscode.TextDocument): Promise<boolean> {
  const key = doc.uri.toString();
  saving.add(key);
  try {
    return await doc.save();
  } finally {
    saving.delete(key);
  }
}

/**
 * Writes `bytes` to the file at `uri` exactly (no save participant runs on them) so that an open
 * document of it loads them at once: through a WorkspaceEdit that creates the file over itself,
 * whose text file service reloads the file's model. `workspace.fs.writeFile` leaves a document no
 * editor shows holding the old text until a file watcher reports the change, and its next save is
 * refused as "the file is newer".
 * @returns false when the editor refused the edit.
 */
export async function writeBytesInSync(uri: vscode.Uri, bytes: Uint8Array): Promise<boolean> {
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(uri, { overwrite: true, contents: bytes });
  return asOwnEdit(uri, () => vscode.workspace.applyEdit(edit));
}

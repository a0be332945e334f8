/**
 * Client-hosted file system for one session (ACP `fs/read_text_file`, `fs/write_text_file`,
 * https://agentclientprotocol.com/protocol/file-system), on the editor's documents.
 *
 * Reads return the open document's text, unsaved changes included, and record the document version
 * and a content hash of what the agent saw. Writes become a `WorkspaceEdit` applied only if the
 * agent's view is still the current text; the check runs synchronously right before
 * `workspace.applyEdit`, so the person's typing cannot slip in between. A refused write leaves the
 * person's text exactly as it was.
 *
 * Paths are contained before anything is opened, and the disk is read only through one handle on a
 * regular file under a cap (`readContainedFile`): a FIFO, `/dev/zero` or a device is refused without
 * blocking. A write names the file the permission gate checked (its identity); the path must still
 * resolve, inside the workspace, to that same file right before the edit and again right before the
 * save, and a new file is created through one `O_EXCL | O_NOFOLLOW` handle.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type * as acp from '@agentclientprotocol/sdk';
import type { RequestError } from '@agentclientprotocol/sdk';
import { acpSdk } from '../acp/sdk';
import type { FileSystemPort } from '../acp/sessionController';
import { ErrorCodes } from '../acp/extensions';
import { checkContained, isWithin, PathNotAllowedError, realpathAllowMissing } from './containment';
import { createNewFile, fileIdentity, readContainedFile, sameFile, unreadableMessage, type FileIdentity } from './fileIdentity';
import { DEFAULT_MAX_READ_BYTES, UnreadableFileError } from './safeRead';
import { fileEncoding } from '../config/vscodeSettings';
import { decodeFile, encodeFile, UndecodableError } from '../edits/encoding';
import { proposeChange, type ProposedChange } from '../edits/model';
import { asOwnEdit, replaceChecked, saveDocument, writeBytesInSync } from '../edits/vscodeApply';
import { sameText, waitForEditor } from './caughtUp';
import type { Base } from '../edits/review';
import { FileLedger } from './ledger';
import { sliceLines } from './text';

/** Raised as a JSON-RPC error that names the conflict; `data.reason` is machine-readable. */
function conflict(path: string, reason: string, message: string): RequestError {
  return new (acpSdk().RequestError)(ErrorCodes.writeConflict, `Write refused for ${path}: ${message}`, { reason, path });
}

/** A path the client does not open (FIFO, device, directory, over the cap), as a JSON-RPC error. */
function unreadable(p: string, err: UnreadableFileError): RequestError {
  return new (acpSdk().RequestError)(ErrorCodes.notReadable, unreadableMessage(p, err), { reason: err.reason, path: p });
}

function notAllowed(p: string, err: PathNotAllowedError): RequestError {
  return new (acpSdk().RequestError)(ErrorCodes.pathNotAllowed, err.message, { reason: 'path_not_allowed', path: p });
}

/** The session's path, contained: the normalised path (documents are found by it), the resolved one and the resolved roots. */
interface Contained {
  file: string;
  real: string;
  roots: string[];
}

/** The `FileSystemPort` of one session, on the editor's documents. */
export class EditorFiles implements FileSystemPort {
  private readonly ledger = new FileLedger();

  /**
   * @param onConflict receives a refused write whose base the agent read through us, as a proposed
   *   change against that base plus the current text, so the person can take its clean hunks.
   * @param onWritten receives every write we performed: the file, what it replaced (with the disk
   *   bytes when the document had no unsaved changes) and the text now in the document, for review.
   */
  constructor(
    private readonly roots: () => readonly string[],
    private readonly onConflict?: (change: ProposedChange, currentText: string) => void,
    private readonly onWritten?: (absPath: string, base: Base, after: string) => void,
  ) {
    this.ledger.turnStarted(Date.now());
  }

  turnStarted(): void {
    this.ledger.turnStarted(Date.now());
  }

  private async contained(p: string): Promise<Contained> {
    try {
      const file = await checkContained(p, this.roots());
      const roots = await Promise.all(this.roots().map((r) => realpathAllowMissing(path.normalize(r))));
      return { file, real: await realpathAllowMissing(file), roots };
    } catch (err) {
      if (err instanceof PathNotAllowedError) throw notAllowed(p, err);
      throw err;
    }
  }

  async read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const c = await this.contained(params.path);
    const uri = vscode.Uri.file(c.file);
    const doc = openDocument(uri);
    let text: string;
    // A document the editor keeps behind its file is not what the file holds: the disk is read then.
    if (doc && (await caughtUp(doc, c, params.path, 0))) {
      text = doc.getText();
      this.ledger.recordRead(c.file, text, doc.version);
    } else {
      text = await diskText(c, params.path);
      this.ledger.recordRead(c.file, text);
    }
    return { content: sliceLines(text, params.line, params.limit) };
  }

  /**
   * Writes `params.content` to the file, as an edit of its document (saved when it had no unsaved
   * changes) or as a new file.
   * @param expected the file the permission gate decided on (null: no file was there); when given,
   *   the path must still name that same file (device and inode), else nothing is written.
   */
  async write(params: acp.WriteTextFileRequest, expected?: FileIdentity | null): Promise<void> {
    const c = await this.contained(params.path);
    const uri = vscode.Uri.file(c.file);
    let doc = openDocument(uri);
    // The file behind the path, from a handle that neither follows a final symlink nor blocks.
    const target = await identify(c.real, params.path);
    if (target && !target.regular) throw unreadable(params.path, new UnreadableFileError(c.real, 'not_regular', `${params.path} is ${target.kind}.`));
    if (target && target.size > DEFAULT_MAX_READ_BYTES && !doc) throw unreadable(params.path, new UnreadableFileError(c.real, 'too_large', `${params.path} is larger than ${DEFAULT_MAX_READ_BYTES} bytes (${target.size}).`));
    if (expected !== undefined && !sameFile(expected, target)) throw changedUnder(params.path);
    // No file on disk: created there, also when an editor still shows the deleted file without
    // unsaved changes (saving such an orphaned document may not write it, and the agent would be
    // told of a write the disk never got; the editor reloads the new file). An orphan with the
    // person's unsaved text goes through the document below and stays unsaved, as any dirty one.
    if (!target && (!doc || !doc.isDirty)) {
      await this.create(c, params.path, params.content);
      return;
    }
    if (!doc) {
      // Decide on the disk state before opening the file, so a stale file is not even loaded.
      const onDisk = this.ledger.checkWrite(c.file, { text: this.ledger.get(c.file) ? await diskText(c, params.path) : '', dirty: false, mtime: target!.mtimeMs });
      if (onDisk) throw conflict(params.path, onDisk.reason, onDisk.message);
      doc = await vscode.workspace.openTextDocument(uri);
    }
    // A clean document the editor keeps behind its file: the agent's text goes to the file itself.
    if (!(await caughtUp(doc, c, params.path))) return this.writeOverStale(c, params, target, doc);
    // The bytes on disk, so that Undo in the review can put back exactly these bytes.
    const diskBytes = await readContainedFile(c.file, c.roots).then((f) => f?.bytes, () => undefined);
    // The last look at the path before the edit: still the file the gate checked.
    if (!(await stillSame(c, target))) throw changedUnder(params.path);
    // From here to applyEdit() (inside replaceChecked) nothing awaits: check and edit see one document.
    const current = doc.getText();
    const version = doc.version;
    const refused = this.ledger.checkWrite(c.file, { version: this.ledger.get(c.file)?.version === undefined ? undefined : version, text: current, dirty: doc.isDirty });
    if (refused) {
      const seen = this.ledger.get(c.file);
      // One line of context: nearby but separate changes stay separate hunks, so more of them apply.
      if (seen) this.onConflict?.(proposeChange(uri.toString(), seen.text, params.content, seen.version ?? null, 1), current);
      throw conflict(params.path, refused.reason, refused.message);
    }
    const wasDirty = doc.isDirty;
    const refusal = await replaceChecked(doc, { text: current, version }, params.content);
    if (refusal) throw conflict(params.path, refusal.reason, refusal.reason === 'edit_rejected' ? 'the editor rejected the edit.' : 'the document changed while the edit was applied.');
    // The save writes through the path: one more look right before it; if the path changed, the
    // edit is taken back and nothing reaches the disk.
    if (!wasDirty && !(await stillSame(c, target))) {
      await replaceChecked(doc, { text: doc.getText() }, current);
      throw changedUnder(params.path);
    }
    // The agent's text is what the edit left, before any save participant (a formatter) runs: it
    // is recorded before the save, so what the save changes after it is the formatter's.
    const written = doc.getText();
    this.onWritten?.(c.file, { text: current, bytes: wasDirty ? undefined : diskBytes }, written);
    // A clean document is saved so tools reading the disk see the agent's change; a dirty one keeps
    // the person's unsaved work unsaved, for them to save. Format-on-save changes are not ours.
    if (!wasDirty && !(await saveDocument(doc))) await this.saveRefused(c, params.path, doc, current, written);
    this.ledger.recordWrite(c.file, doc.getText(), doc.version);
  }

  /**
   * Writes the agent's text to a file whose clean document the editor has not reloaded (the disk is
   * the truth then): checked against what the agent read, as every write, in the file's own encoding
   * and line endings, and the document loads it.
   */
  private async writeOverStale(c: Contained, params: acp.WriteTextFileRequest, target: FileIdentity | null, doc: vscode.TextDocument): Promise<void> {
    const disk = await readContainedFile(c.file, c.roots);
    if (!disk) throw changedUnder(params.path);
    let decoded: ReturnType<typeof decodeFile>;
    try {
      decoded = decodeFile(disk.bytes, fileEncoding(doc.uri));
    } catch (err) {
      if (err instanceof UndecodableError) throw new (acpSdk().RequestError)(ErrorCodes.notText, `${params.path}: ${err.message}`, { reason: 'not_text', path: params.path });
      throw err;
    }
    const refused = this.ledger.checkWrite(c.file, { text: decoded.text, dirty: false, mtime: target?.mtimeMs });
    if (refused) throw conflict(params.path, refused.reason, refused.message);
    if (!(await stillSame(c, target))) throw changedUnder(params.path);
    if (!(await writeBytesInSync(doc.uri, encodeFile(params.content, decoded.format)))) throw conflict(params.path, 'edit_rejected', 'the editor refused to write the file; nothing was written.');
    this.onWritten?.(c.file, { text: decoded.text, bytes: disk.bytes }, params.content);
    this.ledger.recordWrite(c.file, params.content);
  }

  /**
   * The editor refused to save the agent's edit: it holds the file as older than the disk (a write it
   * had not taken in, such as a Restore of ours to a document no editor shows). A write is never
   * reported made when the disk did not get it: when the disk still holds the text the edit was made
   * on, the agent's text is written to it in the file's own encoding and the editor loads it again;
   * otherwise the edit is taken back out of the document and the write refused.
   */
  private async saveRefused(c: Contained, p: string, doc: vscode.TextDocument, base: string, written: string): Promise<void> {
    const disk = await readContainedFile(c.file, c.roots).catch(() => null);
    let decoded: ReturnType<typeof decodeFile> | undefined;
    try {
      decoded = disk ? decodeFile(disk.bytes, fileEncoding(doc.uri)) : undefined;
    } catch {
      decoded = undefined;
    }
    if (!decoded || !sameText(decoded.text, base)) {
      await replaceChecked(doc, { text: doc.getText() }, base);
      // The review noted the agent's text before the save: it hears that the file went back.
      this.onWritten?.(c.file, { text: written }, base);
      throw conflict(p, 'content_changed', 'the file changed on disk while the agent wrote it; nothing was written.');
    }
    if (!(await writeBytesInSync(doc.uri, encodeFile(written, decoded.format, 'keep')))) {
      await replaceChecked(doc, { text: doc.getText() }, base);
      this.onWritten?.(c.file, { text: written }, base);
      throw conflict(p, 'edit_rejected', 'the editor refused to write the file; nothing was written.');
    }
  }

  /** A new file, written through one exclusive handle (see `createNewFile`). */
  private async create(c: Contained, p: string, content: string): Promise<void> {
    let createdDir: string | undefined;
    try {
      createdDir = await asOwnEdit(vscode.Uri.file(c.file), () => createNewFile(c.real, new TextEncoder().encode(content), c.roots));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' || (err as NodeJS.ErrnoException).code === 'ELOOP') throw conflict(p, 'created_concurrently', 'the file appeared while the agent was creating it.');
      if (err instanceof PathNotAllowedError) throw notAllowed(p, err);
      throw err;
    }
    this.ledger.recordWrite(c.file, content);
    // The folder the write made, as the path the agent named it under (c.real may resolve links).
    const made = createdDir && path.join(path.dirname(c.file), path.relative(path.dirname(c.real), createdDir));
    this.onWritten?.(c.file, { text: null, ...(made ? { createdDir: made } : {}) }, content);
  }
}

function changedUnder(p: string): RequestError {
  return conflict(p, 'target_changed', 'the path no longer names the file the permission gate checked (it was replaced, hard-linked or redirected through a symlink meanwhile); nothing was written.');
}

/** {@link fileIdentity} with its refusals as JSON-RPC errors. */
async function identify(real: string, p: string): Promise<FileIdentity | null> {
  try {
    return await fileIdentity(real);
  } catch (err) {
    if (err instanceof UnreadableFileError) throw unreadable(p, err);
    throw err;
  }
}

/** True when the path still resolves inside the roots to the file `before` (or still to no file). */
async function stillSame(c: Contained, before: FileIdentity | null): Promise<boolean> {
  try {
    const real = await realpathAllowMissing(c.file);
    if (real !== c.real || !c.roots.some((r) => isWithin(r, real))) return false;
    const now = await fileIdentity(real);
    return sameFile(before, now);
  } catch {
    return false;
  }
}

/**
 * The current text of a file as the person sees it: the open document (unsaved changes included),
 * else the file on disk, read only if it resolves inside `realRoots` (the workspace folders,
 * resolved). Null when there is no such file, it is outside the roots, or it is not text.
 * @throws {UnreadableFileError} for a FIFO, device, directory or a file over the cap (never opened
 *   in a way that blocks).
 */
export async function readCurrentText(absPath: string, realRoots: readonly string[]): Promise<string | null> {
  const uri = vscode.Uri.file(absPath);
  const doc = openDocument(uri);
  if (doc) return doc.getText();
  let file;
  try {
    file = await readContainedFile(absPath, realRoots);
  } catch (err) {
    if (err instanceof PathNotAllowedError) return null;
    throw err;
  }
  if (!file) return null;
  try {
    return decodeFile(file.bytes, fileEncoding(uri)).text;
  } catch {
    return null;
  }
}

/** The open (not closed) document of a file, if any. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
}

/**
 * The file's text from disk, through the safe reader.
 * @throws RequestError -32002 when it does not exist, -32014 when not a regular file or over the
 *   cap, -32011 when it moved outside the workspace, -32012 when not text.
 */
/** {@link waitForEditor} on an open document and the file behind it (a look, no wait, with `ms` 0). */
function caughtUp(doc: vscode.TextDocument, c: Contained, p: string, ms?: number): Promise<boolean> {
  return waitForEditor({
    clean: () => !doc.isDirty && !doc.isClosed,
    text: () => doc.getText(),
    disk: () => diskText(c, p).catch(() => undefined),
  }, ms);
}

async function diskText(c: Contained, p: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    const file = await readContainedFile(c.file, c.roots);
    if (!file) throw acpSdk().RequestError.resourceNotFound(p);
    bytes = file.bytes;
  } catch (err) {
    if (err instanceof UnreadableFileError) throw unreadable(p, err);
    if (err instanceof PathNotAllowedError) throw notAllowed(p, err);
    throw err;
  }
  try {
    // A BOM, else the editor's encoding for the file (files.encoding), else strict UTF-8.
    return decodeFile(bytes, fileEncoding(vscode.Uri.file(c.file))).text;
  } catch (err) {
    if (err instanceof UndecodableError) throw new (acpSdk().RequestError)(ErrorCodes.notText, `${p}: ${err.message}`, { reason: 'not_text', path: p });
    throw err;
  }
}

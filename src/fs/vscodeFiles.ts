/**
 * Client-hosted file system for one session (ACP `fs/read_text_file`, `fs/write_text_file`,
 * https://agentclientprotocol.com/protocol/file-system), on the editor's documents.
 *
 * Reads return the open document's text, unsaved changes included, and record the document version
 * and a content hash of what the agent saw. Writes become a `WorkspaceEdit` applied only if the
 * agent's view is still the current text; the check runs synchronously right before
 * `workspace.applyEdit`, so the person's typing cannot slip in between. A refused write leaves the
 * person's text exactly as it was.
 */
import * as vscode from 'vscode';
import type * as acp from '@agentclientprotocol/sdk';
import type { RequestError } from '@agentclientprotocol/sdk';
import { acpSdk } from '../acp/sdk';
import type { FileSystemPort } from '../acp/sessionController';
import { ErrorCodes } from '../acp/extensions';
import { checkContained, PathNotAllowedError } from './containment';
import { fileEncoding } from '../config/vscodeSettings';
import { decodeFile, UndecodableError } from '../edits/encoding';
import { proposeChange, type ProposedChange } from '../edits/model';
import { asOwnEdit, replaceChecked, saveDocument } from '../edits/vscodeApply';
import type { Base } from '../edits/review';
import { FileLedger } from './ledger';
import { sliceLines } from './text';

/** Raised as a JSON-RPC error that names the conflict; `data.reason` is machine-readable. */
function conflict(path: string, reason: string, message: string): RequestError {
  return new (acpSdk().RequestError)(ErrorCodes.writeConflict, `Write refused for ${path}: ${message}`, { reason, path });
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

  private async contained(p: string): Promise<string> {
    try {
      return await checkContained(p, this.roots());
    } catch (err) {
      if (err instanceof PathNotAllowedError) throw new (acpSdk().RequestError)(ErrorCodes.pathNotAllowed, err.message, { reason: 'path_not_allowed', path: p });
      throw err;
    }
  }

  async read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const file = await this.contained(params.path);
    const uri = vscode.Uri.file(file);
    const doc = openDocument(uri);
    let text: string;
    if (doc) {
      text = doc.getText();
      this.ledger.recordRead(file, text, doc.version);
    } else {
      text = await readText(uri, params.path);
      this.ledger.recordRead(file, text);
    }
    return { content: sliceLines(text, params.line, params.limit) };
  }

  async write(params: acp.WriteTextFileRequest): Promise<void> {
    const file = await this.contained(params.path);
    const uri = vscode.Uri.file(file);
    let doc = openDocument(uri);
    const stat = doc ? undefined : await statOrUndefined(uri);
    if (!doc && !stat) {
      await this.create(uri, file, params.content);
      return;
    }
    if (!doc) {
      // Decide on the disk state before opening the file, so a stale file is not even loaded.
      const onDisk = this.ledger.checkWrite(file, { text: this.ledger.get(file) ? await readText(uri, params.path) : '', dirty: false, mtime: stat!.mtime });
      if (onDisk) throw conflict(params.path, onDisk.reason, onDisk.message);
      doc = await vscode.workspace.openTextDocument(uri);
    }
    // The bytes on disk, so that Undo in the review can put back exactly these bytes.
    const diskBytes = await readBytes(uri);
    // From here to applyEdit() (inside replaceChecked) nothing awaits: check and edit see one document.
    const current = doc.getText();
    const version = doc.version;
    const refused = this.ledger.checkWrite(file, { version: this.ledger.get(file)?.version === undefined ? undefined : version, text: current, dirty: doc.isDirty });
    if (refused) {
      const seen = this.ledger.get(file);
      // One line of context: nearby but separate changes stay separate hunks, so more of them apply.
      if (seen) this.onConflict?.(proposeChange(uri.toString(), seen.text, params.content, seen.version ?? null, 1), current);
      throw conflict(params.path, refused.reason, refused.message);
    }
    const wasDirty = doc.isDirty;
    const refusal = await replaceChecked(doc, { text: current, version }, params.content);
    if (refusal) throw conflict(params.path, refusal.reason, refusal.reason === 'edit_rejected' ? 'the editor rejected the edit.' : 'the document changed while the edit was applied.');
    // The agent's text is what the edit left, before any save participant (a formatter) runs.
    this.onWritten?.(file, { text: current, bytes: wasDirty ? undefined : diskBytes }, doc.getText());
    // A clean document is saved so tools reading the disk see the agent's change; a dirty one keeps
    // the person's unsaved work unsaved, for them to save. Format-on-save changes are not ours.
    if (!wasDirty) await saveDocument(doc);
    this.ledger.recordWrite(file, doc.getText(), doc.version);
  }

  private async create(uri: vscode.Uri, file: string, content: string): Promise<void> {
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
    const edit = new vscode.WorkspaceEdit();
    edit.createFile(uri, { overwrite: false, ignoreIfExists: false, contents: new TextEncoder().encode(content) });
    const applied = await asOwnEdit(uri, () => vscode.workspace.applyEdit(edit));
    if (!applied) throw conflict(file, 'created_concurrently', 'the file appeared while the agent was creating it.');
    this.ledger.recordWrite(file, content);
    this.onWritten?.(file, { text: null }, content);
  }
}

/**
 * The current text of a file as the person sees it: the open document (unsaved changes included),
 * else the file on disk; null when there is no such file or it is not UTF-8 text.
 */
export async function readCurrentText(absPath: string): Promise<string | null> {
  const uri = vscode.Uri.file(absPath);
  const doc = openDocument(uri);
  if (doc) return doc.getText();
  try {
    return await readText(uri, absPath);
  } catch {
    return null;
  }
}

/** The open (not closed) document of a file, if any. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
}

async function statOrUndefined(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  try {
    return await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
}

async function readBytes(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
}

/** The file's text from disk. @throws RequestError -32002 when it does not exist, -32012 when not UTF-8. */
async function readText(uri: vscode.Uri, p: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (err) {
    if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') throw acpSdk().RequestError.resourceNotFound(p);
    throw err;
  }
  try {
    // A BOM, else the editor's encoding for the file (files.encoding), else strict UTF-8.
    return decodeFile(bytes, fileEncoding(uri)).text;
  } catch (err) {
    if (err instanceof UndecodableError) throw new (acpSdk().RequestError)(ErrorCodes.notText, `${p}: ${err.message}`, { reason: 'not_text', path: p });
    throw err;
  }
}

/**
 * An in-memory stand-in for the editor's documents, implementing the session's FileSystemPort with
 * the same FileLedger rule as the editor adapter, so ACP tests exercise the write check end to end.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { ErrorCodes } from '../../src/acp/extensions';
import type { FileSystemPort } from '../../src/acp/sessionController';
import { FileLedger } from '../../src/fs/ledger';
import { sliceLines } from '../../src/fs/text';

/** A document: its text, version and whether it has unsaved changes. */
export interface MemoryDoc {
  text: string;
  version: number;
  dirty: boolean;
}

export class MemoryFiles implements FileSystemPort {
  readonly docs = new Map<string, MemoryDoc>();
  readonly ledger = new FileLedger();
  readonly writes: string[] = [];

  /** The person types: the document changes and becomes dirty. */
  personEdits(path: string, text: string): void {
    const d = this.docs.get(path);
    if (!d) throw new Error(`no doc ${path}`);
    this.docs.set(path, { text, version: d.version + 1, dirty: true });
  }

  turnStarted(): void {
    this.ledger.turnStarted(Date.now());
  }

  async read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const d = this.docs.get(params.path);
    if (!d) throw RequestError.resourceNotFound(params.path);
    this.ledger.recordRead(params.path, d.text, d.version);
    return { content: sliceLines(d.text, params.line, params.limit) };
  }

  async write(params: acp.WriteTextFileRequest): Promise<void> {
    const d = this.docs.get(params.path);
    if (d) {
      const refused = this.ledger.checkWrite(params.path, { version: d.version, text: d.text, dirty: d.dirty });
      if (refused) throw new RequestError(ErrorCodes.writeConflict, `Write refused for ${params.path}: ${refused.message}`, { reason: refused.reason });
    }
    const next = { text: params.content, version: (d?.version ?? 0) + 1, dirty: false };
    this.docs.set(params.path, next);
    this.ledger.recordWrite(params.path, next.text, next.version);
    this.writes.push(params.path);
  }
}

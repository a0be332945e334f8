/**
 * "Open audit record" (the trace panel's button on a permission or effect span): one record of the
 * audit log shown as a person reads it (`policy/auditRecordText.ts`), in a read-only document of
 * its own scheme: the log file itself is never opened in an editable tab, where a keystroke would
 * break the chain it is meant to prove. The record's integrity is checked with the whole log (its
 * hash chain and signatures) each time it is shown.
 */
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AuditLog } from '../policy/audit';
import { auditRecordText, locateRecord } from '../policy/auditRecordText';
import { text } from '../common/untrustedText';

/** The scheme of audit record documents (read-only: a content provider, no file system). */
export const AUDIT_RECORD_SCHEME = 'agent-switchboard-audit';

/** Serves audit record documents and opens them. */
export class AuditRecordDocuments implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly audit: Pick<AuditLog, 'file' | 'verify'>) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(AUDIT_RECORD_SCHEME, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: (uri) => this.render(new URLSearchParams(uri.query).get('intent') ?? ''),
    });
  }

  /**
   * Shows the decision about `intentHash` (else the last record naming it), read-only, beside
   * nothing else: a preview tab that the next record replaces. @returns false when the log has none.
   */
  async open(intentHash: string): Promise<boolean> {
    const found = locateRecord(await this.read(), intentHash);
    if (!found) {
      void vscode.window.showInformationMessage(text`The audit log has no record of that decision yet.`);
      return false;
    }
    const uri = vscode.Uri.from({ scheme: AUDIT_RECORD_SCHEME, path: `/Audit record ${found.line}`, query: new URLSearchParams({ intent: intentHash }).toString() });
    // Shown again: its integrity is checked again (the log may have changed since).
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return true;
  }

  private async render(intentHash: string): Promise<string> {
    const found = locateRecord(await this.read(), intentHash);
    if (!found) return 'The audit log has no record of that decision.\n';
    const verification = await this.audit.verify();
    // A signed record is checked against this editor's key (`AuditLog.verify`): a problem names it.
    return auditRecordText(found, { verification, signed: found.record.mac !== undefined }, os.homedir());
  }

  private async read(): Promise<string> {
    try {
      return await fs.promises.readFile(this.audit.file, 'utf8');
    } catch {
      return '';
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

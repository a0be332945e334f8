/**
 * Form-mode elicitation in the editor: when an MCP server asks the person for values
 * (`elicitation/create`), a panel shows the server's name and message and a form generated from
 * the requested schema, with Accept / Decline / Not now. Closing the panel is "cancel"; a server
 * that cancels its request (or stops) withdraws the question. The answer is checked against the
 * schema before it leaves; the decision (never the values, which may be secrets) is audited.
 */
import * as vscode from 'vscode';
import { elicitationProblems, withDefaults, type ElicitationAnswer, type ElicitationRequest } from '../mcp/elicitation';
import type { AuditEntry } from '../policy/audit';
import { createFormPanel, FormMessageSchema } from './toolRun/panel';
import type { ToolRunHostMessage } from './toolRun/protocol';

/** Asks the person in a panel; see the file comment. Resolves with the answer, never rejects. */
export function askInPanel(
  extensionUri: vscode.Uri,
  request: ElicitationRequest,
  signal: AbortSignal,
  audit: (entry: AuditEntry) => void,
  log: (m: string) => void,
): Promise<ElicitationAnswer> {
  return new Promise((resolve) => {
    const panel = createFormPanel(extensionUri, `${request.serverName} asks`);
    const post = (m: ToolRunHostMessage) => void panel.webview.postMessage(m);
    let done = false;
    const finish = (answer: ElicitationAnswer, decidedBy: string) => {
      if (done) return;
      done = true;
      audit({
        sessionId: 'mcp',
        agentId: `mcp:${request.serverId}`,
        event: 'decision',
        decision: `elicitation_${answer.action}`,
        decidedBy,
        detail: { server: request.serverName, message: request.message, fields: answer.action === 'accept' ? Object.keys(answer.content) : [] },
      });
      resolve(answer);
      sub.dispose();
      panel.dispose();
    };
    const onAbort = () => {
      post({ type: 'withdrawn', message: `${request.serverName} no longer needs an answer.` });
      finish({ action: 'cancel' }, 'server');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const sub = panel.webview.onDidReceiveMessage((raw: unknown) => {
      const parsed = FormMessageSchema.safeParse(raw);
      if (!parsed.success) return log(`Elicitation panel: ignored a malformed message (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
      const m = parsed.data;
      if (m.type === 'ready') post({ type: 'elicit', request: { server: request.serverName, message: request.message, requestedSchema: request.requestedSchema } });
      else if (m.type === 'answer') {
        if (m.action !== 'accept') return finish({ action: m.action }, 'person');
        const content = (m.content ?? {}) as Record<string, string | number | boolean | string[]>;
        // Defaults the person left in place count as answered: the SDK sends them (SEP-1034).
        const problems = elicitationProblems(request.requestedSchema, withDefaults(request.requestedSchema, content));
        if (problems.length) return post({ type: 'problems', problems });
        finish({ action: 'accept', content }, 'person');
      }
    });
    panel.onDidDispose(() => {
      signal.removeEventListener('abort', onAbort);
      finish({ action: 'cancel' }, 'person');
    });
  });
}

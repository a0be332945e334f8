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

/** What the panel needs from the editor. */
export interface ElicitationUi {
  extensionUri: vscode.Uri;
  /** Records the decision (never the values) in the audit log. */
  audit(entry: AuditEntry): void;
  log(message: string): void;
}

/** Questions of each server still waiting for the panel: one panel at a time per server. */
const queues = new Map<string, { tail: Promise<unknown>; waiting: number }>();
/** A server that asks more than this many questions at once has the rest declined. */
const MAX_WAITING = 3;

/**
 * Asks the person in a panel; see the file comment. A server's questions are asked one at a time;
 * beyond {@link MAX_WAITING} waiting questions, more are declined (and logged), so a server cannot
 * flood the editor with panels. Resolves with the answer, never rejects.
 */
export function askInPanel(ui: ElicitationUi, request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
  const { log } = ui;
  const q = queues.get(request.serverId) ?? { tail: Promise.resolve(), waiting: 0 };
  if (q.waiting >= MAX_WAITING) {
    log(`${request.serverName} asked more than ${MAX_WAITING} questions at once; declined "${request.message.slice(0, 80)}".`);
    return Promise.resolve({ action: 'decline' });
  }
  q.waiting++;
  queues.set(request.serverId, q);
  const answer = q.tail.then(() => (signal.aborted ? ({ action: 'cancel' } as const) : askNow(ui, request, signal)));
  q.tail = answer.finally(() => {
    q.waiting--;
    if (!q.waiting) queues.delete(request.serverId);
  });
  return answer;
}

function askNow({ extensionUri, audit, log }: ElicitationUi, request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
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

/**
 * The trace panel: one webview panel per session, showing its trace (our spans and the agent's)
 * as a waterfall. It gets a snapshot when the page is ready, then the spans that changed, at most
 * every 100 ms. Clicking a span's button jumps to what it stands for: a permission's audit record
 * (the line with its intent hash), a tool call (the session, and its change in the Changes view),
 * or the session. Messages from the page are validated (zod).
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import type { SpanRecord } from '../../trace/otlp';
import type { TraceStore } from '../../trace/store';
import { openWebviewPanel } from '../webviewPanel';
import type { TraceHostMessage } from './protocol';

const MessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('reveal'), traceId: z.string().max(64), spanId: z.string().max(64) }),
  z.object({ type: z.literal('export') }),
]);

/** What the panel can do in the editor for a span. */
export interface TracePanelActions {
  showSession(sessionKey: string): Promise<void>;
  revealToolCall(sessionKey: string, toolCallId: string): Promise<void>;
  openAuditRecord(intentHash: string): Promise<void>;
  exportTrace(sessionKey: string): Promise<unknown>;
  log(message: string): void;
}

/** Opens (or reveals) the trace panels of sessions. */
export class TracePanels implements vscode.Disposable {
  private readonly open = new Map<string, vscode.WebviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: TraceStore,
    private readonly actions: TracePanelActions,
  ) {}

  /** Shows `sessionKey`'s trace; `title` names the session. @returns the panel. */
  show(sessionKey: string, title: string): vscode.WebviewPanel {
    const existing = this.open.get(sessionKey);
    if (existing) {
      existing.reveal();
      return existing;
    }
    const panel = openWebviewPanel(this.extensionUri, 'agentSwitchboard.trace', `Trace: ${title}`, 'trace');
    const post = (m: TraceHostMessage) => void panel.webview.postMessage(m);
    let ready = false;
    // Spans changed since the last message, by id: a span that changes twice is sent once, as it is last.
    const pendingSpans = new Map<string, SpanRecord>();
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      if (!pendingSpans.size) return;
      // Once the store drops spans the page must drop them too: it gets the whole trace again.
      if (this.store.truncated(sessionKey)) post({ type: 'snapshot', title, spans: this.store.spans(sessionKey), truncated: true });
      else post({ type: 'spans', spans: [...pendingSpans.values()], truncated: false });
      pendingSpans.clear();
    };
    const stop = this.store.onDidChange((key, spans) => {
      if (key !== sessionKey || !ready) return;
      for (const s of spans) pendingSpans.set(`${s.traceId}/${s.spanId}`, s);
      timer ??= setTimeout(flush, 100);
    });
    const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
      const parsed = MessageSchema.safeParse(raw);
      if (!parsed.success) return this.actions.log(`Trace panel: ignored a malformed message (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
      const m = parsed.data;
      if (m.type === 'ready') {
        ready = true;
        post({ type: 'snapshot', title, spans: this.store.spans(sessionKey), truncated: this.store.truncated(sessionKey) });
      } else if (m.type === 'export') {
        await this.actions.exportTrace(sessionKey);
      } else {
        const span = this.store.spans(sessionKey).find((s) => s.spanId === m.spanId && s.traceId === m.traceId);
        const hash = span?.attributes['agent_switchboard.intent.hash'];
        const toolCallId = span?.attributes['gen_ai.tool.call.id'];
        if (typeof hash === 'string') await this.actions.openAuditRecord(hash);
        else if (typeof toolCallId === 'string') {
          await this.actions.showSession(sessionKey);
          await this.actions.revealToolCall(sessionKey, toolCallId);
        } else await this.actions.showSession(sessionKey);
      }
    });
    panel.onDidDispose(() => {
      stop();
      sub.dispose();
      if (timer) clearTimeout(timer);
      this.open.delete(sessionKey);
    });
    this.open.set(sessionKey, panel);
    return panel;
  }

  dispose(): void {
    for (const p of this.open.values()) p.dispose();
  }
}

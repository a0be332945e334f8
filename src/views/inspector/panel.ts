/**
 * The protocol inspector: one webview panel per session showing every JSON-RPC message of its
 * agent connection, both ways, with timestamps — searchable in the page, exportable as redacted
 * JSON Lines (environment values and credentials always removed, file contents unless asked). New
 * messages arrive in batches at most every 100 ms. Messages from the page are validated (zod).
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import type * as acp from '@agentclientprotocol/sdk';
import type { CapabilityMatrix } from '../../acp/capabilities';
import { exportLog, inspectorJson, type ProtocolEntry, type ProtocolLog } from '../../acp/inspector';
import { openWebviewPanel } from '../webviewPanel';
import type { InspectorEntry, InspectorHostMessage } from './protocol';

const MessageSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('ready') }), z.object({ type: z.literal('export'), fileContents: z.boolean() })]);
/** Most characters of one message the page is sent (the export has them all). */
const MAX_JSON = 64 * 1024;
/** Most entries in the first snapshot (the newest). */
const SNAPSHOT = 5_000;

/** Opens (or reveals) the inspector of a session's connection. */
export class InspectorPanels implements vscode.Disposable {
  private readonly open = new Map<string, vscode.WebviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: (message: string) => void,
  ) {}

  /** Shows the messages of `protocol` (the connection of session `key`); `title` names the session. */
  show(key: string, title: string, protocol: ProtocolLog, init: acp.InitializeResponse, capabilities: CapabilityMatrix): vscode.WebviewPanel {
    const existing = this.open.get(key);
    if (existing) {
      existing.reveal();
      return existing;
    }
    const panel = openWebviewPanel(this.extensionUri, 'agentSwitchboard.inspector', `Protocol: ${title}`, 'inspector');
    const post = (m: InspectorHostMessage) => void panel.webview.postMessage(m);
    const view = (e: ProtocolEntry): InspectorEntry => {
      const s = protocol.summary(e);
      // Secrets (the headers of a forwarded HTTP server, env values) are redacted on screen too.
      const json = inspectorJson(e.message, MAX_JSON);
      const m = e.message as { params?: { update?: { sessionUpdate?: unknown } }; error?: { message?: unknown } };
      const detail = typeof m?.params?.update?.sessionUpdate === 'string' ? m.params.update.sessionUpdate : typeof m?.error?.message === 'string' ? m.error.message.slice(0, 200) : undefined;
      return { ...s, json, ...(detail ? { detail } : {}) };
    };
    const matrix = () => capabilities.rows();
    const agent = `${init.agentInfo?.title ?? init.agentInfo?.name ?? title}${init.agentInfo?.version ? ` ${init.agentInfo.version}` : ''} · ACP v${init.protocolVersion}`;
    let ready = false;
    /** Entries the first snapshot left out (older than its window): the page never gets them. */
    let unsent = 0;
    let pending: ProtocolEntry[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      if (!pending.length) return;
      post({ type: 'entries', entries: pending.map(view), dropped: protocol.dropped + unsent, capabilities: matrix() });
      pending = [];
    };
    const stop = protocol.onRecord((e) => {
      if (!ready) return;
      pending.push(e);
      timer ??= setTimeout(flush, 100);
    });
    const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
      const parsed = MessageSchema.safeParse(raw);
      if (!parsed.success) return this.log(`Protocol inspector: ignored a malformed message (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
      const m = parsed.data;
      if (m.type === 'ready') {
        ready = true;
        pending = [];
        unsent = Math.max(0, protocol.all().length - SNAPSHOT);
        post({ type: 'snapshot', title, agent, entries: protocol.all().slice(-SNAPSHOT).map(view), dropped: protocol.dropped + unsent, capabilities: matrix() });
      } else {
        const content = exportLog(protocol.all(), { fileContents: m.fileContents });
        // JSON Lines where VS Code knows the language, plain text where it does not.
        const doc = await vscode.workspace.openTextDocument({ content, language: 'jsonl' }).then(undefined, () => vscode.workspace.openTextDocument({ content }));
        await vscode.window.showTextDocument(doc, { preview: false });
      }
    });
    panel.onDidDispose(() => {
      stop();
      sub.dispose();
      if (timer) clearTimeout(timer);
      this.open.delete(key);
    });
    this.open.set(key, panel);
    return panel;
  }

  dispose(): void {
    for (const p of this.open.values()) p.dispose();
  }
}

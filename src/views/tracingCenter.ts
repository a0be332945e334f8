/**
 * Tracing in the editor, one owner: the trace store and our tracer, the loopback OTLP receiver (a
 * token per sender: each session's agent, each MCP server we launch), the spans of MCP requests we
 * send, the trace panels, live export to a collector (`agentSwitchboard.tracing.exportEndpoint`),
 * and closed sessions' traces saved on disk (*Open Saved Trace…*). Commands: *Export Trace*,
 * *Open Saved Trace…*, *Show MCP Server Trace*.
 */
import * as vscode from 'vscode';
import { registerGuardedCommand } from './guardedCommands';
import { toOtlpJson, type SpanRecord } from '../trace/otlp';
import { OtlpReceiver } from '../trace/receiver';
import { TraceStore } from '../trace/store';
import { Tracing } from '../trace/tracing';
import { McpSpans, mcpTraceKey } from '../trace/mcpSpans';
import { TraceForwarder } from '../trace/forwarder';
import { TraceArchive } from '../trace/archive';
import { TracePanels, type TracePanelActions } from './trace/panel';
import { readSetting } from '../config/vscodeSettings';
import { inert, text } from '../common/untrustedText';

/** What tracing needs from the app. */
export interface TracingHost extends Omit<TracePanelActions, 'exportTrace'> {
  /** The folder saved traces live in. */
  archiveDir: string;
  version: string;
  /** An MCP server's name, for its trace's title. */
  mcpServerName(serverId: string): string;
  /** The key of the session in view (the newest without one), for commands given no key. */
  sessionInView(): string | undefined;
}

/** Owns the window's tracing. */
export class TracingCenter implements vscode.Disposable {
  /** Our spans and the agents' (through the OTLP receiver), by session. */
  readonly traces = new TraceStore();
  readonly tracing: Tracing;
  readonly mcpSpans: McpSpans;
  readonly panels: TracePanels;
  // Each sender adds only to its own traces: a session's agent to its session's, an MCP server we
  // launched to the server's own trace (`mcp:<id>`, the store key of that trace).
  // Each sender's bytes are budgeted by the store: past its session's budget a request is 413 unread.
  private readonly otlp = new OtlpReceiver({
    onSpans: (spans, sender) => this.traces.accept(storeKey(sender), spans),
    budgetLeft: (sender) => this.traces.budgetLeft(storeKey(sender)),
  });
  private forwarder: TraceForwarder | undefined;
  private readonly archive: TraceArchive;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(extensionUri: vscode.Uri, private readonly host: TracingHost) {
    this.tracing = new Tracing(this.traces, host.version);
    this.mcpSpans = new McpSpans(this.tracing);
    this.archive = new TraceArchive(host.archiveDir);
    this.panels = new TracePanels(extensionUri, this.traces, { ...host, exportTrace: (key) => this.exportTrace(key) });
    this.disposables.push(
      { dispose: () => this.otlp.dispose() },
      { dispose: () => this.mcpSpans.dispose() },
      { dispose: () => void this.tracing.dispose() },
      // A reopened saved trace was exported when it happened; it is not sent again.
      { dispose: this.traces.onDidChange((key, spans) => !key.startsWith('saved:') && this.forwarder?.add(spans)) },
      { dispose: () => this.forwarder?.dispose() },
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('agentSwitchboard.tracing.exportEndpoint') && this.configureExport()),
      registerGuardedCommand('agentSwitchboard.exportTrace', (key?: unknown) => this.exportTrace(typeof key === 'string' ? key : undefined)),
      registerGuardedCommand('agentSwitchboard.openSavedTrace', (file?: unknown) => this.openSavedTrace(typeof file === 'string' ? file : undefined)),
      this.panels,
    );
    this.configureExport();
  }

  /** Shows the trace of `serverId`'s requests (the person's Run Tool and MCP Apps). */
  showMcpTrace(serverId: string): void {
    this.panels.show(mcpTraceKey(serverId), `MCP server ${this.host.mcpServerName(serverId)}`);
  }

  /**
   * The variables that point a launched agent's or MCP server's OpenTelemetry exporter at our
   * receiver, with a token of `sender`'s own; undefined when turned off or the receiver cannot start.
   */
  async receiverEnv(sender: string): Promise<Record<string, string> | undefined> {
    if (!readSetting('receiveAgentSpans')) return undefined;
    try {
      await this.otlp.start();
      return { ...this.otlp.exporterEnv(sender) };
    } catch (err) {
      // Tracing must never keep a session or a server from starting.
      this.host.log(`The OpenTelemetry receiver could not start; ${sender} gets no tracing variables: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** A fresh receiver token for MCP server `serverId` (a stopped server's token stops working). */
  mcpServerEnv(serverId: string): Promise<Record<string, string> | undefined> {
    this.otlp.revoke(mcpTraceKey(serverId));
    return this.receiverEnv(mcpTraceKey(serverId));
  }

  /** A session ended: its agent's token stops working, its trace is saved and leaves memory. */
  sessionClosed(key: string, title: string): void {
    this.otlp.revoke(`session:${key}`);
    this.save(key, title);
    this.traces.drop(key);
  }

  /** Keeps a session's trace in the extension's storage (Open Saved Trace… shows it again). */
  save(key: string, title: string): void {
    // A transcript shown from the journal has no spans of this window.
    const spans: SpanRecord[] = this.traces.spans(key);
    if (!spans.length) return;
    try {
      this.archive.save(title, spans);
    } catch (err) {
      this.host.log(`The trace of ${title} could not be saved: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Picks a saved trace and opens it in the trace panel. @returns the key it was loaded under. */
  private async openSavedTrace(file?: string): Promise<string | undefined> {
    const saved = this.archive.list();
    let chosen = file;
    if (!chosen) {
      const pick = await vscode.window.showQuickPick(
        saved.map((t) => ({ label: inert(t.title, { max: 120 }), description: `${t.spans} spans`, detail: inert(t.savedAt), file: t.file })),
        { title: 'Open a saved session trace', placeHolder: 'Traces of closed sessions, newest first' },
      );
      chosen = pick?.file;
    }
    if (!chosen) return undefined;
    let spans;
    try {
      spans = this.archive.load(chosen);
    } catch (err) {
      void vscode.window.showWarningMessage(text`That trace could not be read: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
    const key = `saved:${chosen}`;
    for (const traceId of new Set(spans.map((s) => s.traceId))) this.traces.claim(key, traceId);
    this.traces.add(spans);
    this.panels.show(key, saved.find((t) => t.file === chosen)?.title ?? 'saved trace');
    return key;
  }

  /**
   * Opens a session's trace (ours and the agent's spans) as an OTLP/HTTP JSON export request in an
   * untitled document, ready to save or send to a collector. Without a key, the session in view.
   */
  private async exportTrace(key?: string): Promise<unknown> {
    const sessionKey = key ?? this.host.sessionInView();
    if (!sessionKey) return void vscode.window.showInformationMessage(text`There is no session to export a trace of.`);
    const body = toOtlpJson(this.traces.spans(sessionKey));
    const doc = await vscode.workspace.openTextDocument({ language: 'json', content: JSON.stringify(body, null, 2) });
    await vscode.window.showTextDocument(doc, { preview: false });
    return body;
  }

  /** Starts (or stops) live export to the collector named in `agentSwitchboard.tracing.exportEndpoint`. */
  private configureExport(): void {
    this.forwarder?.dispose();
    this.forwarder = undefined;
    // The person's own endpoint only: a workspace must not send the traces (command lines, paths) elsewhere.
    const url = readSetting('exportEndpoint');
    if (!url) return;
    try {
      this.forwarder = new TraceForwarder({ url, log: (m) => this.host.log(m) });
    } catch (err) {
      void vscode.window.showWarningMessage(text`agentSwitchboard.tracing.exportEndpoint: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** The store key of a receiver sender: `session:<key>` is the session's trace, others (`mcp:<id>`) their own. */
function storeKey(sender: string): string {
  return sender.startsWith('session:') ? sender.slice('session:'.length) : sender;
}

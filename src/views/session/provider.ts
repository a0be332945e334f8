/**
 * The session sidebar (a webview view in the Agent Switchboard activity-bar container).
 *
 * Protocol (protocol.ts): the webview posts `ready`, gets a `snapshot`, then `patches` batched per
 * ~16 ms. While the view is hidden nothing is posted; it gets a fresh snapshot when shown again, so
 * hiding, moving or reloading the view loses nothing. Every webview command is validated and
 * re-checked here.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { isWithin } from '../../fs/containment';
import type { SessionPatch } from '../../acp/session/types';
import type { SessionChange } from '../../acp/sessionController';
import { makeNonce, renderSessionHtml } from './html';
import { parseWebviewMessage } from './messages';
import type { AgentChoice, HostMessage, SessionSummary, WebviewMessage } from './protocol';
import type { SessionController } from '../../acp/sessionController';

/** What the view needs from the app. */
export interface SessionViewHost {
  agents(): AgentChoice[];
  sessions(): SessionController[];
  session(key: string): SessionController | undefined;
  startSession(agentId: string): Promise<string>;
  prompt(key: string, text: string): Promise<unknown>;
  cancel(key: string): Promise<void>;
  answerPermission(key: string, permissionId: string, optionId: string, by: 'person' | 'api', grant?: 'session' | 'workspace' | 'always'): boolean;
  closeSession(key: string): Promise<void>;
  showTerminal(key: string, terminalId: string): void;
  /** Shows the changes a tool call made in the Changes view and the diff editor. */
  reviewToolCall(key: string, toolCallId: string): Promise<void>;
  log(message: string): void;
}

export const SESSION_VIEW_ID = 'agentSwitchboard.session';

/** Summary line of a session for the picker. */
export function summarize(c: SessionController): SessionSummary {
  const s = c.state;
  const firstPrompt = s.entries.find((e) => e.kind === 'user');
  const title = s.title ?? (firstPrompt && 'text' in firstPrompt ? firstPrompt.text.slice(0, 60) : 'New session');
  const waiting = Object.values(s.permissions).filter((p) => p.state === 'waiting').length;
  return { key: s.key, agentName: s.agentName, title, status: s.status, waiting };
}

/** Provides and feeds the session webview view. */
export class SessionViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private currentKey: string | undefined;
  private batch: SessionPatch[] = [];
  private batchRev = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionViewHost,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const root = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [root] };
    const nonce = makeNonce();
    view.webview.html = renderSessionHtml({
      cspSource: view.webview.cspSource,
      nonce,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(root, 'session.js')).toString(),
      codiconCssUri: view.webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicon.css')).toString(),
      title: 'Agent Switchboard',
    });
    const subs = [
      view.webview.onDidReceiveMessage((raw) => void this.onMessage(raw)),
      view.onDidChangeVisibility(() => {
        if (view.visible && this.ready) this.postSnapshot();
      }),
    ];
    view.onDidDispose(() => {
      subs.forEach((d) => d.dispose());
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
    this.updateBadge();
  }

  /** The session shown in the view. */
  get current(): string | undefined {
    return this.currentKey;
  }

  /** Shows `key` in the view and reveals the view. */
  async show(key: string | undefined, reveal = true): Promise<void> {
    this.currentKey = key;
    this.postSnapshot();
    if (reveal) await vscode.commands.executeCommand(`${SESSION_VIEW_ID}.focus`);
  }

  /** Feeds a session change; patches of the shown session are batched to the webview. */
  onSessionChange(change: SessionChange): void {
    if (change.patches.some((p) => p.op === 'permission' || p.op === 'meta')) {
      this.updateBadge();
      this.post({ type: 'sessions', sessions: this.summaries() });
    }
    if (change.key !== this.currentKey || !this.canPost()) return;
    this.batch.push(...change.patches);
    this.batchRev = change.rev;
    this.flushTimer ??= setTimeout(() => this.flush(), 16);
  }

  /** The session list changed (started or closed). */
  onSessionsChange(): void {
    if (this.currentKey && !this.host.session(this.currentKey)) this.currentKey = this.host.sessions().at(-1)?.state.key;
    this.postSnapshot();
    this.updateBadge();
  }

  /** Agents changed (settings). */
  onAgentsChange(): void {
    this.post({ type: 'agents', agents: this.host.agents() });
  }

  /** True when the view is visible; a hidden view learns of waiting requests through the badge. */
  get visible(): boolean {
    return !!this.view?.visible;
  }

  private canPost(): boolean {
    return !!this.view && this.ready && this.view.visible;
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (!this.batch.length || !this.currentKey) return;
    const patches = this.batch;
    this.batch = [];
    this.post({ type: 'patches', key: this.currentKey, rev: this.batchRev, patches });
  }

  private postSnapshot(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.batch = [];
    if (!this.view || !this.ready) return;
    const current = this.currentKey ? this.host.session(this.currentKey)?.state ?? null : null;
    this.post({
      type: 'snapshot',
      agents: this.host.agents(),
      sessions: this.summaries(),
      current,
      workspaceTrusted: vscode.workspace.isTrusted,
      hasWorkspace: !!vscode.workspace.workspaceFolders?.length,
    });
  }

  private summaries(): SessionSummary[] {
    return this.host.sessions().map(summarize);
  }

  private post(message: HostMessage): void {
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage(message);
  }

  private updateBadge(): void {
    if (!this.view) return;
    const waiting = this.host.sessions().reduce((n, c) => n + summarize(c).waiting, 0);
    this.view.badge = waiting ? { value: waiting, tooltip: `${waiting} permission request${waiting > 1 ? 's' : ''} waiting` } : undefined;
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.host.log(`Ignored a malformed message from the session view: ${parsed.error}`);
      return;
    }
    try {
      await this.handle(parsed.message);
    } catch (err) {
      void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    }
  }

  private async handle(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (!this.currentKey) this.currentKey = this.host.sessions().at(-1)?.state.key;
        this.postSnapshot();
        return;
      case 'requestSnapshot':
        this.postSnapshot();
        return;
      case 'startSession':
        await this.host.startSession(m.agentId);
        return;
      case 'selectSession':
        if (this.host.session(m.key)) await this.show(m.key, false);
        return;
      case 'prompt':
        await this.host.prompt(m.key, m.text);
        return;
      case 'cancel':
        await this.host.cancel(m.key);
        return;
      case 'setMode':
        try {
          await this.host.session(m.key)?.setMode(m.modeId);
        } catch (err) {
          void vscode.window.showWarningMessage(`The mode could not be changed: ${err instanceof Error ? err.message : String(err)}`);
        }
        return;
      case 'answerPermission':
        if (!this.host.answerPermission(m.key, m.permissionId, m.optionId, 'person', m.grant)) {
          this.host.log(`Permission answer ignored: ${m.permissionId} is no longer waiting or ${m.optionId} is not one of its options.`);
        }
        return;
      case 'openLocation': {
        // Locations come from the agent: a file outside the workspace opens only after the person confirms.
        const inside = (vscode.workspace.workspaceFolders ?? []).some((f) => isWithin(f.uri.fsPath, path.resolve(m.path)));
        if (!inside || !path.isAbsolute(m.path)) {
          const choice = await vscode.window.showWarningMessage(`The agent points at ${m.path}, which is outside the workspace. Open it anyway?`, { modal: true }, 'Open');
          if (choice !== 'Open') return;
        }
        const uri = vscode.Uri.file(path.resolve(m.path));
        const line = Math.max(0, (m.line ?? 1) - 1);
        await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, 0, line, 0), preview: true });
        return;
      }
      case 'showTerminal':
        this.host.showTerminal(m.key, m.terminalId);
        return;
      case 'reviewToolCall':
        await this.host.reviewToolCall(m.key, m.toolCallId);
        return;
      case 'closeSession':
        await this.host.closeSession(m.key);
        return;
      case 'configureAgents':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'agentSwitchboard.agents');
        return;
    }
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
  }
}

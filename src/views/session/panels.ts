/**
 * Sessions in editor tabs: each session can have a tab of its own (several side by side), fed like
 * the sidebar through a {@link SessionSurface}. A tab follows its session when the session is taken
 * up again under a new key, and closes when its session is gone.
 */
import * as vscode from 'vscode';
import type { SessionChange } from '../../acp/sessionController';
import { openWebviewPanel } from '../webviewPanel';
import { SessionSurface, summarize, type SessionViewHost } from './surface';

/** The editor tabs showing sessions, by session key. */
export class SessionPanels implements vscode.Disposable {
  private readonly open = new Map<string, { panel: vscode.WebviewPanel; surface: SessionSurface }>();
  /** Keys a tab was moved to before their session is listed (a take-up under way). */
  private readonly awaiting = new Set<string>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionViewHost,
  ) {}

  /** Opens (or reveals) the tab of session `key`. */
  show(key: string): vscode.WebviewPanel {
    const existing = this.open.get(key);
    if (existing) {
      existing.panel.reveal();
      return existing.panel;
    }
    const c = this.host.session(key);
    // A second session opens beside the first, so several can be followed at once.
    const column = this.open.size ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
    const panel = openWebviewPanel(this.extensionUri, 'agentSwitchboard.sessionTab', c ? tabTitle(c) : key, 'session', column);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'switchboard.svg');
    const surface = new SessionSurface(panel.webview, this.host, key, () => panel.visible);
    const sub = panel.onDidChangeViewState(() => surface.visibilityChanged());
    const entry = { panel, surface };
    panel.onDidDispose(() => {
      sub.dispose();
      surface.dispose();
      for (const [k, v] of this.open) if (v === entry) this.open.delete(k);
    });
    this.open.set(key, entry);
    return panel;
  }

  /** True when session `key` has a tab that can be seen now. */
  visible(key: string): boolean {
    return !!this.open.get(key)?.panel.visible;
  }

  /** The session keys that have a tab. */
  keys(): string[] {
    return [...this.open.keys()];
  }

  /** Session `from` goes on as `to` (taken up again): its tab follows. */
  retarget(from: string, to: string): void {
    const entry = this.open.get(from);
    if (!entry) return;
    this.open.delete(from);
    this.open.set(to, entry);
    this.awaiting.add(to);
    entry.surface.show(to);
    this.retitle(to);
  }

  onSessionChange(change: SessionChange): void {
    for (const { surface } of this.open.values()) surface.onSessionChange(change);
    // The agent named the session (`session_info_update`): its tab takes the name.
    if (change.patches.some((p) => p.op === 'meta' && 'title' in p.meta)) this.retitle(change.key);
  }

  /** Sets the tab title of session `key` from its state (a retargeted tab too). */
  private retitle(key: string): void {
    const entry = this.open.get(key);
    const c = this.host.session(key);
    if (entry && c) entry.panel.title = tabTitle(c);
  }

  /** Sessions started or closed: a tab whose session is gone closes. */
  onSessionsChange(): void {
    for (const [key, { panel, surface }] of this.open) {
      if (this.host.session(key)) {
        this.awaiting.delete(key);
        this.retitle(key);
        surface.onSessionsChange();
      } else if (!this.awaiting.has(key)) panel.dispose();
    }
  }

  onAgentsChange(): void {
    for (const { surface } of this.open.values()) surface.onAgentsChange();
  }

  dispose(): void {
    for (const { panel } of [...this.open.values()]) panel.dispose();
  }
}

/** A tab's title: the agent's name and the session's (the agent's title, else the first prompt). Text only: VS Code shows a panel title as plain text. */
function tabTitle(c: NonNullable<ReturnType<SessionViewHost['session']>>): string {
  const title = summarize(c).title;
  return `${c.state.agentName}: ${title.length > 60 ? `${title.slice(0, 59)}…` : title}`;
}

/**
 * The session sidebar (a webview view in the Agent Switchboard activity-bar container): one
 * {@link SessionSurface} showing the session in view, and the view's badge (waiting permission
 * requests of every session).
 */
import * as vscode from 'vscode';
import type { SessionChange } from '../../acp/sessionController';
import { makeNonce, renderSessionHtml } from './html';
import type { ContextItem } from '../../acp/promptContext';
import { SessionSurface, summarize, type SessionViewHost } from './surface';
import type { KeyCommand } from './protocol';

export { summarize, summarizeAll, type SessionViewHost } from './surface';

export const SESSION_VIEW_ID = 'agentSwitchboard.session';

/** Provides and feeds the session webview view. */
export class SessionViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private surface: SessionSurface | undefined;
  /** The session in view, kept while the view is not resolved (it is resolved lazily). */
  private key: string | undefined;
  /** Attachments that arrived before the view was resolved. */
  private readonly pendingContext: { item: ContextItem; label: string }[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: SessionViewHost,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const root = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [root] };
    view.webview.html = renderSessionHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(root, 'session.js')).toString(),
      codiconCssUri: view.webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicon.css')).toString(),
      title: 'Agent Switchboard',
    });
    this.surface?.dispose();
    const surface = (this.surface = new SessionSurface(view.webview, this.host, this.key ?? this.host.sessions().at(-1)?.state.key, () => !!view.visible));
    // Attachments that arrived before the view was resolved wait in the surface for its page.
    for (const c of this.pendingContext.splice(0)) surface.addContext(c.item, c.label);
    const sub = view.onDidChangeVisibility(() => surface.visibilityChanged());
    view.onDidDispose(() => {
      sub.dispose();
      surface.dispose();
      if (this.view === view) {
        this.view = undefined;
        this.surface = undefined;
      }
    });
    this.updateBadge();
  }

  /** The session shown in the view. */
  get current(): string | undefined {
    return this.surface?.current ?? this.key;
  }

  /**
   * Shows `key` in the view and reveals the view; with `preserveFocus`, the keyboard focus stays
   * where it is (the person wrote a comment in an editor) once the view has been opened before.
   */
  async show(key: string | undefined, reveal = true, preserveFocus = false): Promise<void> {
    this.key = key;
    this.surface?.show(key);
    if (!reveal) return;
    if (preserveFocus && this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${SESSION_VIEW_ID}.focus`);
  }

  /** Feeds a session change to the view; the badge follows permission requests and the agents' questions. */
  onSessionChange(change: SessionChange): void {
    if (change.patches.some((p) => p.op === 'permission' || p.op === 'meta' || (p.op === 'entry' && p.entry.kind === 'elicitation'))) this.updateBadge();
    this.surface?.onSessionChange(change);
  }

  /** The session list changed (started or closed). */
  onSessionsChange(): void {
    if (this.key && !this.host.session(this.key)) this.key = undefined;
    this.surface?.onSessionsChange();
    this.updateBadge();
  }

  /** Attaches `item` to the sidebar's next prompt and reveals the sidebar. */
  async addContext(item: ContextItem, label: string): Promise<void> {
    await vscode.commands.executeCommand(`${SESSION_VIEW_ID}.focus`);
    // Focusing resolves the view; its page takes the item once it is ready.
    if (this.surface) this.surface.addContext(item, label);
    else this.pendingContext.push({ item, label });
  }

  /**
   * A keyboard command for the sidebar's page (send the box, next / previous card): reveals the
   * view first, since keys act on what the person sees.
   */
  async keyCommand(command: KeyCommand): Promise<void> {
    await vscode.commands.executeCommand(`${SESSION_VIEW_ID}.focus`);
    this.surface?.keyCommand(command);
  }

  /** Agents changed (settings). */
  onAgentsChange(): void {
    this.surface?.onAgentsChange();
  }

  /** True when the view is visible; a hidden view learns of waiting requests through the badge. */
  get visible(): boolean {
    return !!this.view?.visible;
  }

  private updateBadge(): void {
    if (!this.view) return;
    const waiting = this.host.sessions().reduce((n, c) => n + summarize(c).waiting, 0);
    this.view.badge = waiting ? { value: waiting, tooltip: `${waiting} request${waiting > 1 ? 's' : ''} waiting for you (permissions and questions)` } : undefined;
  }

  dispose(): void {
    this.surface?.dispose();
  }
}

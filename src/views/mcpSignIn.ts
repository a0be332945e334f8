/**
 * OAuth sign-in for MCP servers, the editor's side of src/mcp/oauth.ts: credentials in VS Code's
 * SecretStorage, the authorization page opened through `vscode.env.openExternal`, and the redirect
 * received by the extension on a loopback port (passed through `vscode.env.asExternalUri`, so a
 * remote window forwards it). Nothing opens before the person says Sign In; while a sign-in
 * waits, a notification says so and can cancel it.
 */
import * as vscode from 'vscode';
import type { AuthorizationPort, SecretStore } from '../mcp/oauth';
import { LoopbackRedirectReceiver } from '../mcp/oauthRedirect';
import { text } from '../common/untrustedText';
import { urlTarget } from '../elicitation/url';
import { openCheckedUrl } from './openUrl';

/** How long a sign-in may take in the browser before it is given up. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** The editor's OAuth ports for the MCP host (one per window). */
export class McpSignIn implements vscode.Disposable, AuthorizationPort {
  private readonly receiver = new LoopbackRedirectReceiver();
  private url = '';
  readonly store: SecretStore;

  constructor(secrets: vscode.SecretStorage) {
    this.store = { get: (k) => Promise.resolve(secrets.get(k)), store: (k, v) => Promise.resolve(secrets.store(k, v)), delete: (k) => Promise.resolve(secrets.delete(k)) };
  }

  /** Starts the receiver (once) and learns the redirect URI; call before any HTTP server starts. */
  async ready(): Promise<void> {
    if (this.url) return;
    const local = await this.receiver.start();
    this.url = (await vscode.env.asExternalUri(vscode.Uri.parse(local))).toString(true);
  }

  get redirectUrl(): string {
    return this.url;
  }

  /**
   * Asks the person first (a notification naming the sign-in site, with Sign In / Cancel), then
   * opens the page and waits for its redirect. Dismissing the question or Cancel ends the sign-in.
   */
  authorize(url: URL, state: string, signal: AbortSignal): Promise<URLSearchParams> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const answer = this.receiver.waitFor(state, SIGN_IN_TIMEOUT_MS, stop.signal).finally(() => signal.removeEventListener('abort', onAbort));
    answer.catch(() => undefined);
    // Checked where the address is opened too (the one check of untrusted addresses); the host named
    // is the one it goes to (no user name in front of it).
    const target = urlTarget(url.href);
    if (!target.openable) {
      stop.abort();
      return answer;
    }
    void vscode.window.showInformationMessage(text`An MCP server asks you to sign in at ${target.host}.`, 'Sign In', 'Cancel').then(async (choice) => {
      if (choice !== 'Sign In') return stop.abort();
      await openCheckedUrl(target);
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text`Finish signing in at ${target.host} in your browser…`, cancellable: true }, async (_p, token) => {
        token.onCancellationRequested(() => stop.abort());
        await answer.catch(() => undefined);
      });
    });
    return answer;
  }

  dispose(): void {
    this.receiver.dispose();
  }
}

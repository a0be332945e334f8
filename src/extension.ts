/**
 * Agent Switchboard: activate/deactivate only. Activation is cheap: agents start on first use.
 */
import * as vscode from 'vscode';
import { App } from './app';
import type { SwitchboardApi } from './api';
import { setMessageTranslator } from './common/untrustedText';

let app: App | undefined;

/** Builds the app and returns the public API (see api.ts). */
export function activate(context: vscode.ExtensionContext): SwitchboardApi {
  // Every text`…` / markdown`…` message goes through the editor's localization (package.nls.json
  // conventions: `{0}` placeholders); the interpolated values are already inert text.
  context.subscriptions.push({ dispose: setMessageTranslator((message, args) => vscode.l10n.t(message, ...args)) });
  app = new App(context);
  context.subscriptions.push(app);
  return app.api();
}

/** Ends every agent and terminal process group. */
export async function deactivate(): Promise<void> {
  await app?.manager.dispose();
  app = undefined;
}

/**
 * Agent Switchboard: activate/deactivate only. Activation is cheap: agents start on first use.
 */
import type * as vscode from 'vscode';
import { App } from './app';
import type { SwitchboardApi } from './api';

let app: App | undefined;

/** Builds the app and returns the public API (see api.ts). */
export function activate(context: vscode.ExtensionContext): SwitchboardApi {
  app = new App(context);
  context.subscriptions.push(app);
  return app.api();
}

/** Ends every agent and terminal process group. */
export async function deactivate(): Promise<void> {
  await app?.manager.dispose();
  app = undefined;
}

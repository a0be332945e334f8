/**
 * Agent Switchboard: activate/deactivate only. Activation is cheap (issue 22, PF6): it registers
 * stand-ins for the contributed commands and views (src/activation/vscodeDeferredStart.ts); the extension
 * itself (`src/app.ts`, bundled as `dist/app.js`) is loaded when one of them is first used or the
 * API is first called. Agents start on first use after that.
 */
import type * as vscode from 'vscode';
import type { SwitchboardApi } from './api';
import { DeferredStart } from './activation/vscodeDeferredStart';

let start: DeferredStart | undefined;

/** Registers the stand-ins and returns the public API (see api.ts), which loads the extension on first use. */
export function activate(context: vscode.ExtensionContext): SwitchboardApi {
  start = new DeferredStart(context, (registrar) => {
    // esbuild.mjs maps this to `./app.js`, a bundle of its own, required only here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
    const { App } = require('./app') as typeof import('./app');
    return new App(context, registrar);
  });
  return start.api;
}

/** Ends every agent and terminal process group. */
export async function deactivate(): Promise<void> {
  await start?.shutdown();
  start = undefined;
}

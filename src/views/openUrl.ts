/**
 * Opening an address that an agent, an MCP server or app, or a remote agent chose: checked by
 * `urlTarget` (src/elicitation/url.ts: https, or http on this computer; no user name or password;
 * an address the prompt can show whole), then a modal that names who asks and the host and shows the
 * whole address, then `vscode.env.openExternal`. The address opened is the one shown.
 */
import * as vscode from 'vscode';
import { urlTarget, type UrlTarget } from '../elicitation/url';
import { text } from '../common/untrustedText';

/** An address `urlTarget` found openable. */
export type OpenableUrl = Extract<UrlTarget, { openable: true }>;

/**
 * Asks the person, in a modal naming `asker` and the host with the whole address below, whether to
 * open `target`. @returns true when they chose Open.
 */
export async function askToOpenUrl(asker: string, target: OpenableUrl): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    text`${asker} asks you to open a page on ${target.host}. Open it in your browser?`,
    // The whole address, as `urlTarget` checked it shows (never cut: no `text` cap here).
    { modal: true, detail: target.href },
    'Open',
  );
  return choice === 'Open';
}

/** Opens an address `urlTarget` found openable, exactly as checked. */
export async function openCheckedUrl(target: OpenableUrl): Promise<void> {
  await vscode.env.openExternal(vscode.Uri.parse(target.href, true));
}

/**
 * Checks `url`, asks, and opens it. @returns `opened`, `declined`, or the reason it was refused
 * without asking.
 */
export async function checkAskAndOpen(asker: string, url: string): Promise<'opened' | 'declined' | { refused: string }> {
  const target = urlTarget(url);
  if (!target.openable) return { refused: target.reason };
  if (!(await askToOpenUrl(asker, target))) return 'declined';
  await openCheckedUrl(target);
  return 'opened';
}

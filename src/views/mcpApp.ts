/**
 * An MCP App in the editor: a tool's `ui://` view, opened in a webview panel after the tool ran.
 * The MCP Apps host is `AppBridge` from `@modelcontextprotocol/ext-apps` (PROTOCOLS.md §3), running
 * here in the extension host and talking to the view through the panel's relay page
 * (webview/appHost), which keeps the view in a sandboxed iframe under the policies of
 * src/mcp/apps.ts. Everything the view asks for is decided here:
 * - tool calls go to the view's own server only, and only for tools whose visibility includes
 *   "app" (others are refused with a sentence that says why);
 * - resource reads and lists go to the same server;
 * - links open in the browser only after the person agrees, in the modal of src/views/openUrl.ts
 *   that shows the whole address (https, or http on this computer; no user name or password);
 * - `ui/message` and model-context updates are not offered (there is no chat to post into).
 */
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { mcpApps } from '../mcp/sdk';
import type { CallToolResult } from '@modelcontextprotocol/client';
import * as vscode from 'vscode';
import * as z from 'zod';
import { appCsp, appResourceFrom, callableFromApp, createAppBridge, hostCsp, prepareAppHtml, ViewTransport } from '../mcp/apps';
import type { McpServerConnection } from '../mcp/connection';
import type { AppHostMessage } from './appProtocol';
import { makeNonce } from './session/html';
import { text } from '../common/untrustedText';
import { checkAskAndOpen } from './openUrl';

const RelayMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), theme: z.enum(['light', 'dark']), styles: z.record(z.string(), z.string()) }),
  z.object({ type: z.literal('app'), message: z.unknown() }),
]);

/** What the view is opened for: the tool, the arguments it ran with and its result. */
export interface AppRun {
  toolName: string;
  args: Record<string, unknown>;
  result: CallToolResult;
  /** The tool's `ui://` resource. */
  uri: string;
}

/**
 * Opens the view of a tool run in a panel beside the active editor.
 * @throws Error when the view cannot be read or is not an MCP App (before any panel opens).
 */
export async function openAppPanel(extensionUri: vscode.Uri, connection: McpServerConnection, run: AppRun, version: string, log: (m: string) => void): Promise<vscode.WebviewPanel> {
  const read = await connection.readResource(run.uri);
  const app = appResourceFrom(run.uri, read as never, connection.catalog.resources.find((r) => r.uri === run.uri));
  const nonce = makeNonce();
  const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel('agentSwitchboard.mcpApp', text`${run.toolName} · ${connection.name}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true });
  const policy = appCsp(app.csp);
  log(`MCP App ${run.uri} of ${connection.name}: view policy "${policy}".`);
  panel.webview.html = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${hostCsp(nonce, panel.webview.cspSource, app.csp).replace(/"/g, '&quot;')}"><title>MCP App</title></head><body><script nonce="${nonce}" src="${panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'appHost.js')).toString()}"></script></body></html>`;
  const post = (m: AppHostMessage) => void panel.webview.postMessage(m);
  const transport = new ViewTransport((message) => post({ type: 'app', message }));
  transport.onerror = (err) => log(`MCP App ${run.uri}: ${err.message}`);
  let bridge: AppBridge | undefined;

  const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
    const parsed = RelayMessage.safeParse(raw);
    if (!parsed.success) return log(`MCP App panel: ignored a malformed message (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
    const m = parsed.data;
    if (m.type === 'app') return transport.receive(m.message);
    if (bridge) return;
    bridge = createBridge(connection, run, version, { theme: m.theme, styles: m.styles }, log);
    try {
      await bridge.connect(transport);
    } catch (err) {
      log(`MCP App ${run.uri}: the host could not start: ${err instanceof Error ? err.message : String(err)}`);
      return post({ type: 'ended', reason: 'The app could not be started; details are in the Agent Switchboard log.' });
    }
    post({ type: 'load', html: prepareAppHtml(app.html, nonce, policy), allow: mcpApps().buildAllowAttribute(app.permissions), border: app.prefersBorder === true, title: text`${run.toolName} (MCP App)` });
  });
  const onServer = connection.onDidChange(() => {
    if (connection.state.state !== 'running') post({ type: 'ended', reason: `${connection.name} stopped; the app has ended.` });
  });
  panel.onDidDispose(() => {
    sub.dispose();
    onServer.dispose();
    void transport.close();
  });
  return panel;
}

function createBridge(connection: McpServerConnection, run: AppRun, version: string, look: { theme: 'light' | 'dark'; styles: Record<string, string> }, log: (m: string) => void): AppBridge {
  // The host context and the call's input and result reach the view only after it initialized (src/mcp/apps.ts).
  const bridge = createAppBridge({
    toolName: run.toolName,
    tool: connection.catalog.tools.find((t) => t.name === run.toolName),
    args: run.args,
    result: run.result,
    hostVersion: version,
    look: { ...look, locale: vscode.env.language },
    onError: (m) => log(`MCP App ${run.uri}: ${m}`),
  });
  bridge.oncalltool = async (params, extra) => {
    const tool = connection.catalog.tools.find((t) => t.name === params.name);
    if (!callableFromApp(tool)) {
      log(`MCP App ${run.uri}: refused a call to "${params.name}" (${tool ? 'the tool is not visible to apps' : 'no such tool on this server'}).`);
      return { content: [{ type: 'text', text: `"${params.name}" ${tool ? 'is not offered to apps (its visibility does not include "app")' : `is not a tool of ${connection.name}`}` }], isError: true };
    }
    // The view's cancellation (or the panel closing) cancels the call on the server.
    return connection.callTool(params.name, (params.arguments ?? {}) as Record<string, unknown>, extra.mcpReq.signal);
  };
  bridge.onreadresource = async (params) => (await connection.readResource(params.uri)) as never;
  bridge.onlistresources = async () => ({ resources: connection.catalog.resources });
  bridge.onloggingmessage = (p) => log(`MCP App ${run.uri} [${p.level}]: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`);
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
  // The app chose the address: the one check and prompt of every untrusted address (src/views/openUrl.ts).
  bridge.onopenlink = async ({ url }) => {
    const outcome = await checkAskAndOpen(text`The app of ${connection.name}`, url);
    if (typeof outcome === 'object') log(`MCP App ${run.uri}: did not open a link: ${outcome.refused}`);
    return outcome === 'opened' ? {} : { isError: true };
  };
  return bridge;
}

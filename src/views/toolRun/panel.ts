/**
 * The Run Tool panel: a webview with a form generated from an MCP tool's input schema. The person
 * fills it in and runs the call here (cancellable); the result shows below the form. Messages from
 * the webview are validated (zod) and the call goes through the host's connection, never the page.
 */
import * as vscode from 'vscode';
import { inert } from '../../common/untrustedText';
import * as z from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpServerConnection } from '../../mcp/connection';
import { makeNonce, renderSessionHtml } from '../session/html';
import type { ResultBlock, ToolRunHostMessage } from './protocol';

/** Every message the form page may send (validated on arrival; the page holds no authority). */
export const FormMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('run'), args: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('answer'), action: z.enum(['accept', 'decline', 'cancel']), content: z.record(z.string(), z.unknown()).optional() }),
]);

/** Result content reduced to what the panel shows (binary parts as data URIs for images only). */
export function resultBlocks(r: CallToolResult): ResultBlock[] {
  const out: ResultBlock[] = [];
  for (const c of r.content ?? []) {
    if (c.type === 'text') out.push({ type: 'text', text: c.text });
    else if (c.type === 'image') out.push({ type: 'image', mimeType: c.mimeType, data: c.data });
    else if (c.type === 'resource_link') out.push({ type: 'link', uri: c.uri, name: c.name ?? c.uri });
    else if (c.type === 'resource') out.push({ type: 'json', label: `Embedded resource ${c.resource.uri}`, value: 'text' in c.resource ? c.resource.text : `(binary, ${c.resource.blob.length} base64 characters)` });
    else out.push({ type: 'json', label: c.type, value: JSON.stringify(c, null, 2) });
  }
  if (r.structuredContent !== undefined) out.push({ type: 'json', label: 'Structured content', value: JSON.stringify(r.structuredContent, null, 2) });
  return out;
}

/**
 * A webview panel that runs the form page (`dist/webview/toolRun.js`) under the strict CSP with a
 * fresh nonce; used by Run Tool and by elicitation.
 */
export function createFormPanel(extensionUri: vscode.Uri, title: string, preserveFocus = false): vscode.WebviewPanel {
  const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel('agentSwitchboard.toolRun', inert(title, { max: 120 }), { viewColumn: vscode.ViewColumn.Active, preserveFocus }, { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true });
  panel.webview.html = renderSessionHtml({
    cspSource: panel.webview.cspSource,
    nonce: makeNonce(),
    scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'toolRun.js')).toString(),
    codiconCssUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicon.css')).toString(),
    title,
  });
  return panel;
}

/** Opens a Run Tool panel for one tool of one running server. */
export function openToolRunPanel(
  extensionUri: vscode.Uri,
  connection: McpServerConnection,
  toolName: string,
  log: (m: string) => void,
  onResult?: (args: Record<string, unknown>, result: CallToolResult) => void,
): vscode.WebviewPanel {
  const tool = connection.catalog.tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`The server no longer offers the tool "${toolName}".`);
  const panel = createFormPanel(extensionUri, `Run ${tool.title ?? tool.name}`);
  const post = (m: ToolRunHostMessage) => void panel.webview.postMessage(m);
  let running: AbortController | undefined;
  const sub = panel.webview.onDidReceiveMessage(async (raw: unknown) => {
    const parsed = FormMessageSchema.safeParse(raw);
    if (!parsed.success) return log(`Run Tool panel: ignored a malformed message (${parsed.error.issues[0]?.message ?? 'invalid'}).`);
    const m = parsed.data;
    if (m.type === 'ready') {
      post({ type: 'tool', tool: { server: connection.name, name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations } });
    } else if (m.type === 'cancel') {
      running?.abort();
    } else if (m.type === 'run' && !running) {
      running = new AbortController();
      post({ type: 'running' });
      try {
        const r = await connection.callTool(tool.name, m.args, running.signal, (t) => post({ type: 'task', taskId: t.taskId, status: t.status, statusMessage: t.statusMessage }));
        post({ type: 'result', isError: r.isError === true, blocks: resultBlocks(r) });
        onResult?.(m.args, r);
      } catch (err) {
        post({ type: 'failed', message: running.signal.aborted ? 'Cancelled.' : err instanceof Error ? err.message : String(err) });
      } finally {
        running = undefined;
      }
    }
  });
  panel.onDidDispose(() => {
    running?.abort();
    sub.dispose();
  });
  return panel;
}

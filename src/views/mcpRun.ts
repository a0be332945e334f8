/**
 * Using an MCP server's catalog by hand: Run Tool (the form panel, JSON arguments, or arguments
 * given by the API), the tool's MCP App after it ran, Read Resource and Get Prompt. Results open
 * as read-only documents (nothing to save or lose).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import * as vscode from 'vscode';
import { appResourceOf } from '../mcp/apps';
import type { McpServerConnection } from '../mcp/connection';
import type { McpHost } from '../mcp/host';
import { renderToolResult, schemaSkeleton } from '../mcp/render';
import { openAppPanel } from './mcpApp';
import type { McpNode } from './mcpTree';
import { openToolRunPanel } from './toolRun/panel';
import { text } from '../common/untrustedText';

/** The scheme of the read-only result documents. */
const RESULT_SCHEME = 'agent-switchboard-mcp';

/** Runs tools, reads resources and gets prompts of the host's servers. */
export class McpRunner implements vscode.Disposable {
  private readonly results = new Map<string, string>();
  private resultSeq = 0;
  private readonly provider: vscode.Disposable;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: McpHost,
    private readonly log: (message: string) => void,
  ) {
    this.provider = vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, { provideTextDocumentContent: (uri) => this.results.get(uri.path) ?? 'This result is no longer available.' });
  }

  /**
   * Runs a tool by hand: without arguments, opens the Run Tool panel (a form generated from the
   * input schema); in JSON mode, asks for the arguments as JSON prefilled from the schema; with
   * arguments given (API, tests), runs at once. The result of the last two is shown in a read-only
   * document; the call is cancellable from the progress notification.
   * @returns the tool's result, or undefined when the panel was opened or the person cancelled.
   */
  async runTool(n: McpNode, given?: unknown, json = false): Promise<unknown> {
    if (n.type !== 'tool') throw new Error('Run Tool applies to a tool.');
    const connection = this.host.connection(n.serverId);
    const tool = connection.catalog.tools.find((t) => t.name === n.name);
    if (!tool) throw new Error(`The server no longer offers the tool "${n.name}".`);
    let args = given;
    // By hand: a form generated from the tool's input schema, in a panel.
    if (args === undefined && !json) {
      openToolRunPanel(this.context.extensionUri, connection, tool.name, this.log, (a, r) => void this.openApp(connection, tool, a, r));
      return undefined;
    }
    if (args === undefined) {
      const typed = await vscode.window.showInputBox({
        title: text`Run ${tool.name} on ${connection.name}`,
        prompt: 'Arguments as a JSON object',
        value: JSON.stringify(schemaSkeleton(tool.inputSchema)),
        ignoreFocusOut: true,
        validateInput: (v) => {
          try {
            const parsed: unknown = JSON.parse(v);
            return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? undefined : 'Enter a JSON object.';
          } catch (err) {
            return `Not JSON: ${err instanceof Error ? err.message : String(err)}`;
          }
        },
      });
      if (typed === undefined) return undefined;
      args = JSON.parse(typed);
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) throw new Error('Tool arguments must be a JSON object.');
    const ac = new AbortController();
    let result: Awaited<ReturnType<typeof connection.callTool>>;
    try {
      result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text`${tool.name} on ${connection.name}…`, cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => ac.abort());
        // A server that runs the call as a task reports its status as it goes (MCP Tasks extension).
        return connection.callTool(tool.name, args as Record<string, unknown>, ac.signal, (t) => progress.report({ message: text`task ${t.taskId}: ${t.statusMessage ?? t.status}` }));
      });
    } catch (err) {
      if (!ac.signal.aborted) throw err;
      void vscode.window.showInformationMessage(text`${tool.name}: cancelled; the server was told to stop.`);
      return undefined;
    }
    await this.show(`${tool.name}.md`, renderToolResult(connection.name, tool.name, args as Record<string, unknown>, result));
    await this.openApp(connection, tool, args as Record<string, unknown>, result);
    return result;
  }

  /** Opens the tool's MCP App with this run, when the tool has one; a view that cannot be shown is reported. */
  private async openApp(connection: McpServerConnection, tool: Tool, args: Record<string, unknown>, result: CallToolResult): Promise<void> {
    const view = appResourceOf(tool);
    if (view.problem) this.log(view.problem);
    if (!view.uri || result.isError) return;
    try {
      await openAppPanel(this.context.extensionUri, connection, { toolName: tool.name, args, result, uri: view.uri }, String(this.context.extension.packageJSON.version ?? '0.0.0'), this.log);
    } catch (err) {
      void vscode.window.showWarningMessage(text`The app of ${tool.name} could not be shown: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async readResource(n: McpNode): Promise<void> {
    if (n.type !== 'resource') return;
    const r = await this.host.connection(n.serverId).readResource(n.uri);
    const body = r.contents.map((c) => ('text' in c ? c.text : `(binary, ${c.mimeType ?? 'unknown type'}, ${String(c.blob).length} base64 characters)`)).join('\n\n');
    await this.show(`${n.uri.split('/').pop() || 'resource'}.txt`, body);
  }

  async getPrompt(n: McpNode): Promise<void> {
    if (n.type !== 'prompt') return;
    const connection = this.host.connection(n.serverId);
    const prompt = connection.catalog.prompts.find((p) => p.name === n.name);
    const args: Record<string, string> = {};
    for (const a of prompt?.arguments ?? []) {
      const v = await vscode.window.showInputBox({ title: text`${n.name}: ${a.name}`, prompt: text`${a.description}`, ignoreFocusOut: true });
      if (v === undefined) return;
      args[a.name] = v;
    }
    const r = await connection.getPrompt(n.name, args);
    const body = r.messages.map((m) => `**${m.role}**: ${m.content.type === 'text' ? m.content.text : `(${m.content.type})`}`).join('\n\n');
    await this.show(`${n.name}.md`, body);
  }

  /** Shows `content` in a read-only document named `name` (the extension picks the language). */
  private async show(name: string, content: string): Promise<void> {
    const path = `/${++this.resultSeq}/${name.replace(/[\\/]/g, '_')}`;
    this.results.set(path, content);
    // Keep the last results only: they are for reading now, not an archive.
    for (const k of [...this.results.keys()].slice(0, -20)) this.results.delete(k);
    await vscode.window.showTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }), { preview: true });
  }

  dispose(): void {
    this.provider.dispose();
  }
}

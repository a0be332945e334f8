/**
 * The MCP Servers explorer: servers (status, era, protocol version, a startup timer, the stderr
 * tail of a failure) → tools (annotations such as read-only or destructive; the input schema in the
 * tooltip), resources and prompts. Node objects are plain data, validated when a command receives
 * them.
 */
import * as vscode from 'vscode';
import { hardenTreeItem } from './treeItems';
import { issueAll } from '../common/commandArgs';
import { appResourceOf, visibleToModel } from '../mcp/apps';
import * as z from 'zod';
import { inert, markdown, markdownCodeBlock } from '../common/untrustedText';
import type { HostedServer, McpHost } from '../mcp/host';
import { describeDiff, type CatalogDiff } from '../mcp/pinning';
import { describeDefinition } from '../mcp/config';
import { describeProblem } from '../mcp/catalog';

/** A node of the MCP Servers view; also the argument of the MCP commands. */
export type McpNode =
  | { type: 'server'; serverId: string }
  | { type: 'group'; serverId: string; group: 'tools' | 'resources' | 'prompts' }
  | { type: 'tool'; serverId: string; name: string }
  | { type: 'resource'; serverId: string; uri: string }
  | { type: 'prompt'; serverId: string; name: string }
  /** The items the server listed that did not match their schema, and one of them. */
  | { type: 'problems'; serverId: string }
  | { type: 'problem'; serverId: string; index: number };

const NodeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('server'), serverId: z.string() }),
  z.object({ type: z.literal('group'), serverId: z.string(), group: z.enum(['tools', 'resources', 'prompts']) }),
  z.object({ type: z.literal('tool'), serverId: z.string(), name: z.string() }),
  z.object({ type: z.literal('resource'), serverId: z.string(), uri: z.string() }),
  z.object({ type: z.literal('prompt'), serverId: z.string(), name: z.string() }),
  z.object({ type: z.literal('problems'), serverId: z.string() }),
  z.object({ type: z.literal('problem'), serverId: z.string(), index: z.number().int().nonnegative() }),
]);

/**
 * The node an MCP command was invoked with.
 * @throws Error naming the expected shape.
 */
export function parseMcpNode(value: unknown): McpNode {
  const r = NodeSchema.safeParse(value);
  if (!r.success) throw new Error('MCP commands take a node of the MCP Servers view, e.g. {type: "tool", serverId, name}.');
  return r.data;
}

/** Tree data for the MCP Servers view. */
export class McpTree implements vscode.TreeDataProvider<McpNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<McpNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly host: McpHost,
    private readonly catalogChange: (serverId: string) => CatalogDiff | undefined,
    private readonly changeDetails: (serverId: string) => string[] = () => [],
  ) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** The children of `node`, remembered by identity: only these objects drive the view's commands. */
  getChildren(node?: McpNode): McpNode[] {
    return issueAll(this.childrenOf(node));
  }

  private childrenOf(node?: McpNode): McpNode[] {
    if (!node) return this.host.list().map((s) => ({ type: 'server', serverId: s.definition.id }));
    const s = this.server(node.serverId);
    const catalog = s?.connection?.catalog;
    if (!catalog) return [];
    if (node.type === 'server') {
      const groups: McpNode[] = (['tools', 'resources', 'prompts'] as const).filter((g) => catalog[g].length).map((group) => ({ type: 'group', serverId: node.serverId, group }));
      return catalog.problems.length ? [...groups, { type: 'problems', serverId: node.serverId }] : groups;
    }
    if (node.type === 'problems') return catalog.problems.map((_, index) => ({ type: 'problem', serverId: node.serverId, index }));
    if (node.type !== 'group') return [];
    if (node.group === 'tools') return catalog.tools.map((t) => ({ type: 'tool', serverId: node.serverId, name: t.name }));
    if (node.group === 'resources') return catalog.resources.map((r) => ({ type: 'resource', serverId: node.serverId, uri: r.uri }));
    return catalog.prompts.map((p) => ({ type: 'prompt', serverId: node.serverId, name: p.name }));
  }

  getTreeItem(node: McpNode): vscode.TreeItem {
    return hardenTreeItem(this.itemOf(node), 'mcp', JSON.stringify(node));
  }

  private itemOf(node: McpNode): vscode.TreeItem {
    const s = this.server(node.serverId);
    if (!s) return new vscode.TreeItem('(removed)');
    switch (node.type) {
      case 'server':
        return serverItem(s, this.catalogChange(s.definition.id), this.changeDetails(s.definition.id));
      case 'group': {
        const n = s.connection?.catalog[node.group].length ?? 0;
        const item = new vscode.TreeItem(`${node.group[0].toUpperCase()}${node.group.slice(1)} (${n})`, node.group === 'tools' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.serverId}/${node.group}`;
        item.iconPath = new vscode.ThemeIcon({ tools: 'tools', resources: 'file-text', prompts: 'comment' }[node.group]);
        return item;
      }
      case 'tool': {
        const tool = s.connection?.catalog.tools.find((t) => t.name === node.name);
        const item = new vscode.TreeItem(tool?.title ?? node.name);
        item.id = `${node.serverId}/tool/${node.name}`;
        const a = tool?.annotations;
        const view = tool ? appResourceOf(tool) : {};
        const tags = [
          a?.readOnlyHint ? 'read-only' : undefined,
          a?.destructiveHint ? 'destructive' : undefined,
          a?.openWorldHint ? 'open world' : undefined,
          view.uri ? 'app' : undefined,
          tool && !visibleToModel(tool) ? 'for apps only' : undefined,
        ].filter(Boolean);
        item.description = [tool?.title ? node.name : undefined, ...tags].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(a?.destructiveHint ? 'warning' : 'symbol-method');
        item.contextValue = 'mcpTool';
        const md = new vscode.MarkdownString();
        // The server chose the name, description and app URI: escaped, so none renders as Markdown or a link.
        md.appendMarkdown(markdown`**${node.name}**${tags.length ? ` — ${tags.join(', ')}` : ''}\n\n`);
        if (tool?.description) md.appendMarkdown(markdown`${inert(tool.description, { max: 2000 })}\n\n`);
        if (view.uri) md.appendMarkdown(markdown`Shows its result in an app: ${view.uri}\n\n`);
        if (view.problem) md.appendMarkdown(markdown`${view.problem}\n\n`);
        md.appendMarkdown(markdownCodeBlock(JSON.stringify(tool?.inputSchema ?? {}, null, 2).slice(0, 4000), 'json'));
        item.tooltip = md;
        item.command = { command: 'agentSwitchboard.mcp.runTool', title: 'Run Tool…', arguments: [node] };
        return item;
      }
      case 'resource': {
        const r = s.connection?.catalog.resources.find((x) => x.uri === node.uri);
        const item = new vscode.TreeItem(r?.name ?? node.uri);
        item.id = `${node.serverId}/resource/${node.uri}`;
        item.description = [node.uri, r?.mimeType].filter(Boolean).join(' · ');
        item.tooltip = r?.description;
        item.iconPath = new vscode.ThemeIcon('file');
        item.contextValue = 'mcpResource';
        item.command = { command: 'agentSwitchboard.mcp.readResource', title: 'Read Resource', arguments: [node] };
        return item;
      }
      case 'problems': {
        const n = s.connection?.catalog.problems.length ?? 0;
        const item = new vscode.TreeItem(`Left out (${n})`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `${node.serverId}/problems`;
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.tooltip = 'Items the server listed that do not match the MCP schema. The others are available; these are not.';
        return item;
      }
      case 'problem': {
        const p = s.connection?.catalog.problems[node.index];
        // The server wrote the name and, through its schema, the reason: plain text only (TreeItem labels are never Markdown).
        const item = new vscode.TreeItem(p ? `${{ tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resource template' }[p.list]} ${inert(p.name, { max: 200 })}` : '(gone)');
        item.id = `${node.serverId}/problem/${node.index}`;
        item.description = p ? inert(p.reason, { max: 300 }) : undefined;
        item.tooltip = p ? inert(describeProblem(p), { max: 1000 }) : undefined;
        item.iconPath = new vscode.ThemeIcon('circle-slash');
        item.contextValue = 'mcpProblem';
        return item;
      }
      case 'prompt': {
        const p = s.connection?.catalog.prompts.find((x) => x.name === node.name);
        const item = new vscode.TreeItem(node.name);
        item.id = `${node.serverId}/prompt/${node.name}`;
        item.description = p?.arguments?.map((x) => x.name).join(', ');
        item.tooltip = p?.description;
        item.iconPath = new vscode.ThemeIcon('comment');
        item.contextValue = 'mcpPrompt';
        item.command = { command: 'agentSwitchboard.mcp.getPrompt', title: 'Get Prompt…', arguments: [node] };
        return item;
      }
    }
  }

  private server(id: string): HostedServer | undefined {
    return this.host.list().find((s) => s.definition.id === id);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function serverItem(s: HostedServer, change: CatalogDiff | undefined, details: string[]): vscode.TreeItem {
  const d = s.definition;
  const state = s.connection?.state;
  const running = state?.state === 'running';
  const item = new vscode.TreeItem(d.name, running ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
  item.id = `server/${d.id}`;
  const source = d.file ? d.file : d.source === 'settings' ? 'user settings' : d.source;
  // What the definition says (inputs unresolved): secrets never appear in the tree.
  const how = describeDefinition(d);
  let description: string;
  let icon: vscode.ThemeIcon;
  if (!state || s.held) {
    description = s.held ?? 'not started';
    icon = new vscode.ThemeIcon('circle-slash');
    item.contextValue = s.held?.includes('approve') ? 'mcpServer.unapproved' : s.held?.startsWith('needs input') ? 'mcpServer.needsInput' : 'mcpServer.held';
  } else if (state.state === 'running') {
    const c = s.connection!.catalog;
    description = `${state.protocolVersion} (${state.era === 'modern' ? 'stateless' : 'initialize handshake'}) · ${c.tools.length} tool${c.tools.length === 1 ? '' : 's'}${c.problems.length ? ` · ${c.problems.length} left out` : ''}${s.connection!.signedIn ? ' · signed in' : ''}`;
    icon = new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    item.contextValue = 'mcpServer.running';
  } else if (state.state === 'starting' && state.signIn) {
    description = `waiting for you to sign in at ${new URL(state.signIn).host}`;
    icon = new vscode.ThemeIcon('account', new vscode.ThemeColor('notificationsWarningIcon.foreground'));
    item.tooltip = 'The server requires OAuth. Choose Sign In (here or on the notification) to open its sign-in page in your browser.';
    item.contextValue = 'mcpServer.signIn';
  } else if (state.state === 'starting') {
    const secs = Math.round((Date.now() - state.since) / 1000);
    description = state.slow ? `not ready after ${secs} s — still waiting` : `starting… ${secs} s`;
    icon = new vscode.ThemeIcon('loading~spin');
    item.contextValue = 'mcpServer.starting';
  } else if (state.state === 'error') {
    description = state.message.replace(/^MCP server "[^"]*" /, '');
    icon = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    item.contextValue = 'mcpServer.error';
  } else {
    description = 'stopped';
    icon = new vscode.ThemeIcon('circle-outline');
    item.contextValue = 'mcpServer.stopped';
  }
  if (change && state?.state === 'running') {
    // Held back from agents until the person looks: the tooltip says what changed.
    description = `tools changed — not given to agents until you accept · ${description}`;
    icon = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    item.contextValue = 'mcpServer.catalogChanged';
  }
  item.description = description;
  item.iconPath = icon;
  const md = new vscode.MarkdownString();
  // Names, versions and the catalog details come from the configuration or the server: escaped.
  md.appendMarkdown(markdown`**${d.name}** (${d.transport.type}) from ${source}\n\n`);
  md.appendMarkdown(markdown`It ${how}.`);
  if (state?.state === 'running') md.appendMarkdown(markdown`\n\n${state.serverName} ${state.serverVersion}, protocol ${state.protocolVersion} (${state.era === 'modern' ? '2026-07-28 stateless' : '2025 handshake'})`);
  if (change && state?.state === 'running') {
    md.appendMarkdown(markdown`\n\n**${describeDiff(change)}.** Check what changed, then *Accept Tool Changes* to give it to agents again:\n\n`);
    // The server wrote these: shown as plain text, never as Markdown.
    for (const line of details) md.appendMarkdown(markdown`• ${line}  \n`);
  }
  // The server's stderr may hold fences of its own: in a block it cannot close.
  if (state?.state === 'error' && state.stderrTail.length) md.appendMarkdown(markdownCodeBlock(state.stderrTail.slice(-12).join('\n'), 'text'));
  item.tooltip = md;
  return item;
}

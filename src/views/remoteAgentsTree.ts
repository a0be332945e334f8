/**
 * The Remote Agents explorer: each A2A agent the person added (name, version, whether its card's
 * signature was verified) → its skills, interfaces, security schemes and the tasks delegated to it
 * (state, status message, artifacts). Node objects are plain data, validated when a command
 * receives them.
 */
import * as vscode from 'vscode';
import { hardenTreeItem } from './treeItems';
import { issueAll } from '../common/commandArgs';
import * as z from 'zod';
import { markdown } from '../common/untrustedText';
import type { RemoteAgent } from '../a2a/remote';
import { describeSecurityScheme } from '../a2a/describe';
import { INTERRUPTED, TERMINAL } from '../a2a/taskModel';

/** A node of the Remote Agents view; also the argument of the A2A commands. */
export type RemoteNode =
  | { type: 'agent'; agentId: string }
  | { type: 'group'; agentId: string; group: 'skills' | 'interfaces' | 'security' | 'tasks' }
  | { type: 'item'; agentId: string; group: 'skills' | 'interfaces' | 'security'; index: number }
  | { type: 'task'; agentId: string; localId: string }
  | { type: 'artifact'; agentId: string; localId: string; artifactId: string };

const NodeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('agent'), agentId: z.string() }),
  z.object({ type: z.literal('group'), agentId: z.string(), group: z.enum(['skills', 'interfaces', 'security', 'tasks']) }),
  z.object({ type: z.literal('item'), agentId: z.string(), group: z.enum(['skills', 'interfaces', 'security']), index: z.number().int() }),
  z.object({ type: z.literal('task'), agentId: z.string(), localId: z.string() }),
  z.object({ type: z.literal('artifact'), agentId: z.string(), localId: z.string(), artifactId: z.string() }),
]);

/**
 * The node a Remote Agents command was invoked with.
 * @throws Error naming the expected shape.
 */
export function parseRemoteNode(value: unknown): RemoteNode {
  const r = NodeSchema.safeParse(value);
  if (!r.success) throw new Error('Remote agent commands take a node of the Remote Agents view, e.g. {type: "agent", agentId}.');
  return r.data;
}

/** An agent in the list: connected, or the error of its last connection attempt. */
export interface RemoteEntry {
  id: string;
  url: string;
  agent?: RemoteAgent;
  connecting?: boolean;
  error?: string;
  /** The thumbprint of the key that signed the card when the agent was added (pinned). */
  keyThumbprint?: string;
}

const STATE_ICON: Record<string, string> = {
  submitted: 'circle-outline', working: 'sync~spin', 'input-required': 'comment-discussion', 'auth-required': 'key',
  completed: 'pass', failed: 'error', canceled: 'circle-slash', rejected: 'circle-slash', unknown: 'question',
};

/** Tree data for the Remote Agents view. */
export class RemoteAgentsTree implements vscode.TreeDataProvider<RemoteNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RemoteNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly entries: () => RemoteEntry[]) {}

  refresh(): void {
    // Nodes of tasks that are gone must not pile up: a full refresh starts the interned set afresh.
    this.interned.clear();
    this.changed.fire(undefined);
  }

  /** One object per node, so `TreeView.reveal` and the tree agree on which element is which. */
  private readonly interned = new Map<string, RemoteNode>();
  private intern<T extends RemoteNode>(node: T): T {
    const key = JSON.stringify(node);
    let n = this.interned.get(key);
    if (!n) this.interned.set(key, (n = node));
    return n as T;
  }

  /** The children of `node`, remembered by identity: only these objects drive the view's commands. */
  getChildren(node?: RemoteNode): RemoteNode[] {
    return issueAll(this.childrenOf(node));
  }

  private childrenOf(node?: RemoteNode): RemoteNode[] {
    return this.children(node).map((n) => this.intern(n));
  }

  private children(node?: RemoteNode): RemoteNode[] {
    if (!node) return this.entries().map((e) => ({ type: 'agent', agentId: e.id }));
    const agent = this.entry(node.agentId)?.agent;
    if (!agent) return [];
    const card = agent.checked.card;
    if (node.type === 'agent') {
      const groups: RemoteNode[] = [{ type: 'group', agentId: node.agentId, group: 'tasks' }, { type: 'group', agentId: node.agentId, group: 'skills' }, { type: 'group', agentId: node.agentId, group: 'interfaces' }];
      if (Object.keys(servedSchemes(agent)).length) groups.push({ type: 'group', agentId: node.agentId, group: 'security' });
      return groups;
    }
    if (node.type === 'group') {
      if (node.group === 'tasks') return agent.tasks.slice().reverse().map((t) => ({ type: 'task', agentId: node.agentId, localId: t.localId }));
      const n = node.group === 'skills' ? (card.skills ?? []).length : node.group === 'interfaces' ? card.supportedInterfaces.length : Object.keys(servedSchemes(agent)).length;
      return Array.from({ length: n }, (_, index) => ({ type: 'item', agentId: node.agentId, group: node.group as 'skills', index }));
    }
    if (node.type === 'task') {
      const t = agent.task(node.localId);
      return (t?.task.artifacts ?? []).map((a) => ({ type: 'artifact', agentId: node.agentId, localId: node.localId, artifactId: a.artifactId }));
    }
    return [];
  }

  getParent(node: RemoteNode): RemoteNode | undefined {
    if (node.type === 'agent') return undefined;
    if (node.type === 'group') return this.intern({ type: 'agent', agentId: node.agentId });
    if (node.type === 'item') return this.intern({ type: 'group', agentId: node.agentId, group: node.group });
    if (node.type === 'task') return this.intern({ type: 'group', agentId: node.agentId, group: 'tasks' });
    return this.intern({ type: 'task', agentId: node.agentId, localId: node.localId });
  }

  /** The interned form of `node` (for reveal). */
  node<T extends RemoteNode>(node: T): T {
    return this.intern(node);
  }

  /** Forgets the nodes of an agent that left the list. */
  forget(agentId: string): void {
    for (const [k, n] of this.interned) if (n.agentId === agentId) this.interned.delete(k);
  }

  getTreeItem(node: RemoteNode): vscode.TreeItem {
    return hardenTreeItem(this.itemOf(node), 'remoteAgents', JSON.stringify(node));
  }

  private itemOf(node: RemoteNode): vscode.TreeItem {
    const entry = this.entry(node.agentId);
    if (node.type === 'agent') return this.agentItem(entry);
    const agent = entry?.agent;
    if (!agent) return new vscode.TreeItem('(gone)');
    const card = agent.checked.card;
    if (node.type === 'group') {
      const labels = { tasks: `Tasks (${agent.tasks.length})`, skills: `Skills (${(card.skills ?? []).length})`, interfaces: 'Interfaces', security: 'Security schemes' };
      // Open at first: the skills, interfaces and schemes are what the person judges an agent by.
      const item = new vscode.TreeItem(labels[node.group], node.group !== 'tasks' || agent.tasks.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.iconPath = new vscode.ThemeIcon({ tasks: 'tasklist', skills: 'tools', interfaces: 'plug', security: 'shield' }[node.group]);
      item.contextValue = `remote.group.${node.group}`;
      return item;
    }
    if (node.type === 'item') {
      if (node.group === 'skills') {
        const s = (card.skills ?? [])[node.index];
        const item = new vscode.TreeItem(s?.name ?? '?');
        item.description = s?.description;
        // Text from the card is shown as text, never as Markdown (it could forge lines or links).
        item.tooltip = plain([`${s?.name} (${s?.id})`, s?.description ?? '', s?.tags?.length ? `Tags: ${s.tags.join(', ')}` : '', ...(s?.examples ?? []).map((x) => `Example: ${x}`)]);
        item.iconPath = new vscode.ThemeIcon('symbol-method');
        return item;
      }
      if (node.group === 'interfaces') {
        const i = card.supportedInterfaces[node.index];
        const chosen = i?.url === agent.checked.chosen.url && i?.protocolBinding === agent.checked.chosen.protocolBinding;
        const item = new vscode.TreeItem(`${i?.protocolBinding} ${i?.protocolVersion || ''}`.trim());
        item.description = `${i?.url}${chosen ? ' · in use' : ''}`;
        item.iconPath = new vscode.ThemeIcon(chosen ? 'debug-connected' : 'plug');
        return item;
      }
      // Described from the card as served: the SDK's normalised form loses some scheme shapes.
      const [name, scheme] = Object.entries(servedSchemes(agent))[node.index] ?? ['?', undefined];
      const item = new vscode.TreeItem(name);
      item.description = describeSecurityScheme(scheme);
      item.iconPath = new vscode.ThemeIcon('key');
      return item;
    }
    if (node.type === 'task') {
      const t = agent.task(node.localId);
      if (!t) return new vscode.TreeItem('(gone)');
      const item = new vscode.TreeItem(oneLine(t.task.request, 60), t.task.artifacts.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      // A new id once artifacts arrive: the tree keeps the old "no children" state of an id it knows.
      item.id = `${node.agentId}/${node.localId}/${t.task.artifacts.length ? 'artifacts' : 'none'}`;
      item.description = `${t.task.state}${t.task.statusText ? ` · ${oneLine(t.task.statusText, 80)}` : ''}${t.error ? ` · ${t.error}` : ''}`;
      item.iconPath = new vscode.ThemeIcon(t.error ? 'warning' : (STATE_ICON[t.task.state] ?? 'question'));
      item.tooltip = plain([`Task ${t.task.taskId || '(not named yet)'} · context ${t.task.contextId || '-'}`, `State: ${t.task.state}${t.busy ? ' (following)' : ''}${t.task.truncated ? ' · some of what the agent sent was dropped (over 16 MB)' : ''}`, t.error ? `Error: ${t.error}` : '', ...t.task.messages.slice(-6).map((m) => `${m.role}: ${oneLine(m.text, 200)}`)]);
      const waits = INTERRUPTED.has(t.task.state) ? '.waiting' : TERMINAL.has(t.task.state) ? '.ended' : '.running';
      item.contextValue = `remote.task${waits}`;
      return item;
    }
    const t = agent.task(node.localId);
    const a = t?.task.artifacts.find((x) => x.artifactId === node.artifactId);
    const item = new vscode.TreeItem(a?.name ?? node.artifactId);
    item.description = a?.description;
    item.iconPath = new vscode.ThemeIcon('file');
    item.contextValue = 'remote.artifact';
    item.command = { command: 'agentSwitchboard.a2a.openArtifact', title: 'Open Artifact', arguments: [node] };
    return item;
  }

  private agentItem(entry: RemoteEntry | undefined): vscode.TreeItem {
    if (!entry) return new vscode.TreeItem('(gone)');
    const agent = entry.agent;
    if (!agent) {
      const item = new vscode.TreeItem(entry.url);
      item.description = entry.connecting ? 'reading its card…' : `not connected: ${entry.error ?? ''}`;
      item.iconPath = new vscode.ThemeIcon(entry.connecting ? 'loading~spin' : 'error');
      item.tooltip = entry.error;
      item.contextValue = 'remote.agent.error';
      return item;
    }
    const card = agent.checked.card;
    const sig = agent.checked.signature;
    const item = new vscode.TreeItem(card.name, vscode.TreeItemCollapsibleState.Expanded);
    // "Verified" says the card is intact and signed by the key its host serves (pinned when added),
    // not who runs the agent; an unsigned card is never shown as trusted.
    const trust = sig.state === 'verified' ? `signed, key ${sig.sameOrigin ? 'from the same host' : `from ${new URL(sig.keyUrl).host}`} · pinned` : sig.state === 'unchecked' ? 'unverified (v0.3 signature not checked)' : 'unverified (unsigned card)';
    item.description = `v${card.version || '?'} · ${trust}`;
    item.iconPath = new vscode.ThemeIcon(sig.state === 'verified' ? 'verified-filled' : 'unverified');
    item.tooltip = plain([
      `${card.name} ${card.version ? `v${card.version}` : ''}`,
      card.description ?? '',
      `Card: ${agent.checked.cardUrl}`,
      card.provider?.organization ? `Provider: ${card.provider.organization}` : '',
      sig.state === 'verified'
        ? `Signature: valid, with key ${sig.kid} from ${sig.keyUrl} (thumbprint ${sig.thumbprint}). The card has not changed since it was signed; a card later signed with another key is refused.`
        : sig.state === 'unchecked'
          ? `Signature: not checked (${sig.reason}). The card is unverified.`
          : 'Signature: none. The card is unverified: whoever controls this address controls what it says.',
      `Streaming: ${card.capabilities?.streaming ? 'yes' : 'no'}`,
    ]);
    item.contextValue = 'remote.agent';
    return item;
  }

  private entry(id: string): RemoteEntry | undefined {
    return this.entries().find((e) => e.id === id);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function servedSchemes(agent: RemoteAgent): Record<string, unknown> {
  const raw = agent.checked.raw.securitySchemes;
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : (agent.checked.card.securitySchemes ?? {});
}

/** A tooltip of plain text lines (remote text is never read as Markdown). */
function plain(lines: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  lines.filter(Boolean).forEach((l, i) => {
    if (i) md.appendMarkdown('\n\n');
    md.appendMarkdown(markdown`${l}`);
  });
  return md;
}

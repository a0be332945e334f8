/**
 * The Sessions view: per agent, its live sessions, the sessions of our journal (past windows and
 * closed sessions) and the ones the agent itself lists (`session/list`, asked for on demand). It
 * re-reads the manager and the journal on change and holds only the agent's last answer.
 */
import * as vscode from 'vscode';
import { hardenTreeItem } from './treeItems';
import { availabilityBadge, type AgentAvailability } from '../config/agentProblems';
import { issueAll } from '../common/commandArgs';
import type { SessionInfo } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import type { SessionManager } from '../acp/sessionManager';
import { JOURNAL_ID, type JournalEntry, type SessionJournal } from '../acp/session/journal';
import type { SessionState } from '../acp/session/types';
import { boardLine, distinctTitles, type BoardChanges } from '../acp/session/board';
import type { WorktreeRecord } from '../worktrees/worktrees';

/** A node of the Sessions view (also what its commands receive). */
export type SessionsNode =
  | { kind: 'agent'; agentId: string; agentName: string }
  | { kind: 'live'; key: string }
  | { kind: 'past'; journalId: string }
  | { kind: 'listed'; agentId: string; sessionId: string; cwd: string; title?: string }
  | { kind: 'note'; agentId: string; text: string }
  /** The worktrees whose session ended (issue 20): still on disk until applied, committed or discarded. */
  | { kind: 'worktrees' }
  | { kind: 'worktree'; id: string };

/** Validates a node handed to a command (from the view, a keybinding or another extension). */
export const SessionsNodeSchema: z.ZodType<SessionsNode> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('agent'), agentId: z.string().max(200), agentName: z.string().max(500) }),
  z.object({ kind: z.literal('live'), key: z.string().max(100) }),
  z.object({ kind: z.literal('past'), journalId: z.string().regex(JOURNAL_ID) }),
  z.object({ kind: z.literal('listed'), agentId: z.string().max(200), sessionId: z.string().max(500), cwd: z.string().max(4096), title: z.string().max(2000).optional() }),
  z.object({ kind: z.literal('note'), agentId: z.string().max(200), text: z.string().max(2000) }),
  z.object({ kind: z.literal('worktrees') }),
  z.object({ kind: z.literal('worktree'), id: z.string().regex(/^[0-9a-f]{8}$/) }),
]);

/** What the board shows beside the sessions: what each changed, and the worktrees whose session ended. */
export interface BoardSource {
  changes(key: string): BoardChanges | undefined;
  /** Worktrees on disk (newest first), as last read. */
  worktrees(): readonly WorktreeRecord[];
  onDidChange(listener: () => void): { dispose(): void };
}

const STATUS_ICON: Record<SessionState['status'], string> = {
  starting: 'loading~spin',
  ready: 'comment-discussion',
  prompting: 'sync~spin',
  cancelling: 'debug-stop',
  closed: 'history',
  error: 'error',
};

/** Tree data for the Sessions view. */
export class SessionsTree implements vscode.TreeDataProvider<SessionsNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** What each agent last answered to `session/list` (or why it could not). */
  private readonly listed = new Map<string, { sessions: SessionInfo[] } | { note: string }>();
  private readonly subs: { dispose(): void }[];

  constructor(
    private readonly manager: SessionManager,
    private readonly journal: SessionJournal,
    /** Every configured agent; one that cannot start is listed only when it has sessions, badged with why. */
    private readonly agents: () => (AgentAvailability & { id: string })[],
    private readonly board?: BoardSource,
  ) {
    this.subs = [
      manager.onDidChangeSessions(() => this.refresh()),
      manager.onDidChangeSession((c) => {
        // The board follows status, title, usage and waiting requests as they change.
        if (c.patches.some((p) => p.op === 'permission' || (p.op === 'meta' && ('status' in p.meta || 'title' in p.meta || 'updatedAt' in p.meta || 'usage' in p.meta || 'lastStopReason' in p.meta || 'worktree' in p.meta)))) this.refresh();
      }),
      ...(board ? [board.onDidChange(() => this.refresh())] : []),
    ];
  }

  /** Worktrees whose session is no longer live in this window. */
  private orphanWorktrees(): readonly WorktreeRecord[] {
    const live = new Set(this.manager.list().flatMap((c) => (c.state.worktree && c.connected ? [c.state.worktree.id] : [])));
    return (this.board?.worktrees() ?? []).filter((w) => !live.has(w.id));
  }

  refresh(): void {
    this.emitter.fire();
  }

  /** Records the agent's own list (or the reason there is none) and shows it. */
  setListed(agentId: string, result: { sessions: SessionInfo[] } | { note: string }): void {
    this.listed.set(agentId, result);
    this.refresh();
  }

  /** Drops a session from the agent's last answer (it was deleted). */
  forgetListed(agentId: string, sessionId: string): void {
    const l = this.listed.get(agentId);
    if (l && 'sessions' in l) this.listed.set(agentId, { sessions: l.sessions.filter((s) => s.sessionId !== sessionId) });
  }

  /** The children of `node`, remembered by identity: only these objects drive the view's commands. */
  getChildren(node?: SessionsNode): SessionsNode[] {
    return issueAll(this.childrenOf(node));
  }

  private childrenOf(node?: SessionsNode): SessionsNode[] {
    if (!node) {
      const agents = new Map(this.agents().filter((a) => a.available).map((a) => [a.id, a.name]));
      for (const e of this.journal.list()) if (!agents.has(e.agentId)) agents.set(e.agentId, e.agentName);
      for (const c of this.manager.list()) if (!agents.has(c.state.agentId)) agents.set(c.state.agentId, c.state.agentName);
      const groups: SessionsNode[] = [...agents].map(([agentId, agentName]) => ({ kind: 'agent', agentId, agentName }));
      if (this.orphanWorktrees().length) groups.push({ kind: 'worktrees' });
      return groups;
    }
    if (node.kind === 'worktrees') return this.orphanWorktrees().map((w) => ({ kind: 'worktree', id: w.id }));
    if (node.kind !== 'agent') return [];
    const live = this.manager.list().filter((c) => c.state.agentId === node.agentId);
    const shownJournals = new Set(live.map((c) => this.manager.journalIdOf(c.state.key)).filter(Boolean));
    const shownIds = new Set(live.map((c) => c.state.sessionId).filter(Boolean));
    const out: SessionsNode[] = live.map((c) => ({ kind: 'live', key: c.state.key }));
    for (const e of this.journal.list()) {
      if (e.agentId !== node.agentId || shownJournals.has(e.journalId)) continue;
      out.push({ kind: 'past', journalId: e.journalId });
      if (e.sessionId) shownIds.add(e.sessionId);
    }
    const listed = this.listed.get(node.agentId);
    if (listed && 'note' in listed) out.push({ kind: 'note', agentId: node.agentId, text: listed.note });
    else if (listed) {
      for (const s of listed.sessions) {
        if (!shownIds.has(s.sessionId)) out.push({ kind: 'listed', agentId: node.agentId, sessionId: s.sessionId, cwd: s.cwd, ...(s.title ? { title: s.title } : {}) });
      }
    }
    return out;
  }

  getTreeItem(node: SessionsNode): vscode.TreeItem {
    return hardenTreeItem(this.itemOf(node), 'sessions', JSON.stringify(node));
  }

  private itemOf(node: SessionsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'agent': {
        const item = new vscode.TreeItem(node.agentName, vscode.TreeItemCollapsibleState.Expanded);
        const live = this.manager.list().filter((c) => c.state.agentId === node.agentId && c.connected).length;
        const past = this.journal.list().filter((e) => e.agentId === node.agentId).length;
        item.id = `agent:${node.agentId}`;
        // Why an agent with history cannot start now, in the words every picker uses.
        const agent = this.agents().find((a) => a.id === node.agentId);
        const badge = agent ? availabilityBadge(agent) : 'no longer configured';
        item.description = [badge, live && `${live} live`, past && `${past} in history`].filter(Boolean).join(' · ');
        if (badge) item.tooltip = agent ? `${node.agentName}: ${badge}${agent.problem ? ` (${agent.problem})` : ''}` : `${node.agentName}: no agent of this id is configured now`;
        item.iconPath = new vscode.ThemeIcon('hubot');
        item.contextValue = 'agent';
        return item;
      }
      case 'live': {
        const c = this.manager.get(node.key);
        const s = c?.state;
        // Parallel runs of one prompt share a title: the row says which is which (worktree, folder).
        const siblings = s ? this.manager.list().filter((x) => x.state.agentId === s.agentId).map((x) => x.state) : [];
        const item = new vscode.TreeItem(s ? (distinctTitles(siblings).get(s.key) ?? node.key) : node.key);
        item.id = `live:${node.key}`;
        // The board: live status (waiting requests counted), worktree or folder, files changed,
        // tokens and cost; then the agent's own "last activity" (`session_info_update.updatedAt`).
        const line = s ? boardLine(s, this.board?.changes(node.key)) : undefined;
        item.description = s && line ? `${s.status === 'closed' ? 'transcript' : line.text}${s.updatedAt ? ` · ${relativeTime(s.updatedAt)}` : ''}` : '';
        item.iconPath = line?.status === 'waiting' ? new vscode.ThemeIcon('bell-dot') : new vscode.ThemeIcon(s ? STATUS_ICON[s.status] : 'circle-outline');
        item.tooltip = s ? `${s.agentName} · ${line?.statusText ?? s.status}${s.sessionId ? `\nsession ${s.sessionId}` : ''}${s.worktree ? `\nworktree ${s.worktree.dir} (branch ${s.worktree.branch})` : ''}\n${s.cwd}` : undefined;
        // `.worktree`: Apply / Commit / Discard; `.waiting`: the oldest waiting request is answered from the row.
        item.contextValue = `${s && c?.connected ? 'session-live' : 'session-closed'}${s?.worktree ? '.worktree' : ''}${line?.status === 'waiting' && c?.connected ? '.waiting' : ''}`;
        item.command = { command: 'agentSwitchboard.sessions.open', title: 'Show', arguments: [node] };
        return item;
      }
      case 'past': {
        const e = this.journal.get(node.journalId);
        const item = new vscode.TreeItem(e?.title ?? 'Untitled session');
        item.id = `past:${node.journalId}`;
        item.description = e ? `${relativeTime(e.updatedAt)} · ${e.turns} turn${e.turns === 1 ? '' : 's'}` : '';
        item.tooltip = e ? tooltipOf(e) : undefined;
        item.iconPath = new vscode.ThemeIcon('history');
        item.contextValue = 'session-past';
        item.command = { command: 'agentSwitchboard.sessions.open', title: 'Show transcript', arguments: [node] };
        return item;
      }
      case 'listed': {
        const item = new vscode.TreeItem(node.title || node.sessionId);
        item.id = `listed:${node.agentId}:${node.sessionId}`;
        item.description = 'listed by the agent';
        item.tooltip = `Known to the agent only (session/list): load it to see its transcript.\nsession ${node.sessionId}\n${node.cwd}`;
        item.iconPath = new vscode.ThemeIcon('cloud');
        // Loading starts the agent: a button to press, not a row to click.
        item.contextValue = 'session-listed';
        return item;
      }
      case 'note': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
      case 'worktrees': {
        const n = this.orphanWorktrees().length;
        const item = new vscode.TreeItem('Worktrees', vscode.TreeItemCollapsibleState.Expanded);
        item.id = 'worktrees';
        item.description = `${n} whose session ended`;
        item.tooltip = 'Worktrees stay on disk until you apply, commit or discard them: closing a window never deletes one.';
        item.iconPath = new vscode.ThemeIcon('git-branch');
        return item;
      }
      case 'worktree': {
        const w = this.board?.worktrees().find((x) => x.id === node.id);
        const item = new vscode.TreeItem(w?.branch ?? node.id);
        item.id = `worktree:${node.id}`;
        item.description = w ? `${w.state} · ${w.agentId} · ${relativeTime(w.createdAt)}` : '';
        item.tooltip = w ? `${w.dir}\nfrom ${w.base.slice(0, 12)} of ${w.repo}` : undefined;
        item.iconPath = new vscode.ThemeIcon('git-branch');
        item.contextValue = 'worktree';
        return item;
      }
    }
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    this.emitter.dispose();
  }
}

function tooltipOf(e: JournalEntry): string {
  return `${e.agentName}\nstarted ${new Date(e.createdAt).toLocaleString()}, last update ${new Date(e.updatedAt).toLocaleString()}${e.sessionId ? `\nsession ${e.sessionId}` : ''}\n${e.cwd}`;
}

/** "5 min ago", "3 h ago", "2 d ago". */
export function relativeTime(at: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

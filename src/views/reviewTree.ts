/**
 * The "Changes" view: agents' changes by session (its agent and title), turn (its number and what was
 * asked), file and hunk, each with Keep and Undo inline, the
 * file opening the native diff editor (the agent's base as a read-only virtual document on the
 * left, the file as it is now on the right). Node objects are plain data, so the same commands
 * serve tree clicks, the command palette and tests.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hardenTreeItem } from './treeItems';
import { issueAll } from '../common/commandArgs';
import * as z from 'zod';
import { markdown, markdownCodeBlock } from '../common/untrustedText';
import type { FileChange, HunkDecision, ReviewModel, TurnChanges } from '../edits/review';
import { shownDiff } from '../edits/shownDiff';
import { hunkTitle } from '../edits/hunkTitle';
import { pendingCounts, pendingWords, sessionLabel, turnLabel, type ReviewSessionInfo } from '../edits/reviewSessions';

/** A node of the Changes view; also the argument of the review commands. */
export type ReviewNode =
  | { type: 'session'; sessionKey: string }
  | { type: 'turn'; sessionKey: string; turn: number }
  | { type: 'file'; changeId: string }
  | { type: 'hunk'; changeId: string; hunk: number };

/** Validates a command argument as a {@link ReviewNode} (commands can be invoked with anything). */
export const ReviewNodeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('session'), sessionKey: z.string() }),
  z.object({ type: z.literal('turn'), sessionKey: z.string(), turn: z.number().int().positive(), confirmed: z.boolean().optional() }),
  z.object({ type: z.literal('file'), changeId: z.string() }),
  z.object({ type: z.literal('hunk'), changeId: z.string(), hunk: z.number().int().nonnegative() }),
]);

/**
 * The node a review command was invoked with.
 * @throws Error naming the expected shape when `value` is not a node.
 */
export function parseReviewNode(value: unknown): ReviewNode & { confirmed?: boolean } {
  const r = ReviewNodeSchema.safeParse(value);
  if (!r.success) throw new Error('Review commands take a node of the Changes view: {type: "session", sessionKey} | {type: "turn", sessionKey, turn} | {type: "file", changeId} | {type: "hunk", changeId, hunk}.');
  return r.data;
}

/** The view's badge: the file changes still to review (a kept or undone change is decided, not counted). */
export function pendingBadge(model: ReviewModel): vscode.ViewBadge | undefined {
  const n = pendingCounts(model).files;
  return n ? { value: n, tooltip: `${n} file change${n === 1 ? '' : 's'} by agents to review` } : undefined;
}

const STATE_ICON: Record<HunkDecision, vscode.ThemeIcon> = {
  pending: new vscode.ThemeIcon('circle-outline', new vscode.ThemeColor('charts.yellow')),
  kept: new vscode.ThemeIcon('pass', new vscode.ThemeColor('charts.green')),
  undone: new vscode.ThemeIcon('discard', new vscode.ThemeColor('disabledForeground')),
};
const STATE_WORD: Record<HunkDecision, string> = { pending: 'to review', kept: 'kept', undone: 'undone' };
const LATER_WORD = { person: 'you', formatter: 'a formatter', other: 'another program' } as const;

/** Tree data for the Changes view. */
export class ReviewTree implements vscode.TreeDataProvider<ReviewNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ReviewNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: { dispose(): void };

  constructor(
    private readonly model: ReviewModel,
    /** What a session is called (remembered after it closed). */
    private readonly sessionInfo: (sessionKey: string) => ReviewSessionInfo,
    /** Where files are named from: the workspace folders and the worktrees (also of closed sessions). */
    private readonly roots: () => readonly string[],
  ) {
    this.sub = model.onDidChange(() => this.changed.fire(undefined));
  }

  /** Draws every row again (a session's name changed). */
  refresh(): void {
    this.changed.fire(undefined);
  }

  /** The children of `node`, remembered by identity: only these objects drive the view's commands. */
  getChildren(node?: ReviewNode): ReviewNode[] {
    return issueAll(this.childrenOf(node));
  }

  private childrenOf(node?: ReviewNode): ReviewNode[] {
    if (!node) {
      // The session changed last first; each session's newest turn first.
      const latest = new Map<string, number>();
      for (const t of this.model.turns()) for (const f of t.files) latest.set(t.sessionKey, Math.max(latest.get(t.sessionKey) ?? 0, f.updatedAt));
      return [...latest].sort((a, b) => b[1] - a[1]).map(([sessionKey]) => ({ type: 'session', sessionKey }));
    }
    if (node.type === 'session') return this.model.turns(node.sessionKey).reverse().map((t) => ({ type: 'turn', sessionKey: t.sessionKey, turn: t.turn }));
    if (node.type === 'turn') return (this.turnOf(node)?.files ?? []).map((f) => ({ type: 'file', changeId: f.id }));
    if (node.type === 'file') {
      const c = this.model.get(node.changeId);
      // A moved file is kept or undone whole (both its paths): its diff is not its hunks'.
      return !c || this.model.moveOf(c) ? [] : c.hunks.map((_, hunk) => ({ type: 'hunk', changeId: node.changeId, hunk }));
    }
    return [];
  }

  getParent(node: ReviewNode): ReviewNode | undefined {
    if (node.type === 'session') return undefined;
    if (node.type === 'turn') return { type: 'session', sessionKey: node.sessionKey };
    const c = this.model.get(node.changeId);
    if (!c) return undefined;
    return node.type === 'hunk' ? { type: 'file', changeId: c.id } : { type: 'turn', sessionKey: c.sessionKey, turn: c.turn };
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    return hardenTreeItem(this.itemOf(node), 'changes', JSON.stringify(node));
  }

  private itemOf(node: ReviewNode): vscode.TreeItem {
    if (node.type === 'session') return this.sessionItem(node.sessionKey);
    if (node.type === 'turn') return this.turnItem(node);
    const c = this.model.get(node.changeId);
    if (!c) return new vscode.TreeItem('(cleared)');
    return node.type === 'file' ? this.fileItem(c) : this.hunkItem(c, node.hunk);
  }

  private turnOf(node: { sessionKey: string; turn: number }): TurnChanges | undefined {
    return this.model.turns(node.sessionKey).find((t) => t.turn === node.turn);
  }

  /** "Demo agent · Fix the login bug", with what is still to review and, in a worktree, its branch. */
  private sessionItem(key: string): vscode.TreeItem {
    const info = this.sessionInfo(key);
    const item = new vscode.TreeItem(sessionLabel(info), vscode.TreeItemCollapsibleState.Expanded);
    const pending = pendingCounts(this.model, key).files;
    // What waits comes first: a narrow view cuts the end of the row.
    item.description = [pendingWords(pending), info.worktree ? `⎇ ${info.worktree.branch}` : ''].filter(Boolean).join(' · ');
    item.contextValue = 'session';
    item.iconPath = new vscode.ThemeIcon('comment-discussion');
    item.tooltip = `${info.agentName}: ${info.title}${info.worktree ? `\nIn the worktree ${info.worktree.branch} (${info.worktree.dir})` : ''}\n${pending ? `${pending} file change${pending === 1 ? '' : 's'} to review` : 'Every change is kept or undone'}.`;
    item.id = `session:${key}`;
    return item;
  }

  /** "Turn 2 · Number the list instead." — the prompt in one readable line, never raw JSON. */
  private turnItem(node: Extract<ReviewNode, { type: 'turn' }>): vscode.TreeItem {
    const t = this.turnOf(node);
    const item = new vscode.TreeItem(turnLabel(node.turn, t?.prompt ?? ''), vscode.TreeItemCollapsibleState.Expanded);
    const files = t?.files ?? [];
    const pending = pendingCounts(this.model, node.sessionKey, node.turn).files;
    item.description = pending ? pendingWords(pending) : `${files.length} file${files.length === 1 ? '' : 's'} · reviewed`;
    item.contextValue = 'turn';
    item.iconPath = new vscode.ThemeIcon('comment');
    const prompt = (t?.prompt ?? '').trim();
    item.tooltip = `Turn ${node.turn} of ${sessionLabel(this.sessionInfo(node.sessionKey))}.\n${prompt.length > 600 ? `${prompt.slice(0, 599)}…` : prompt}\n\nRestore Checkpoint puts every file this turn (and later turns) changed back as it was before the turn.`;
    item.id = `turn:${node.sessionKey}#${node.turn}`;
    return item;
  }

  private fileItem(c: FileChange): vscode.TreeItem {
    // The counts are those of the diff Open Diff shows (shownDiff gives both).
    const d = shownDiff(this.model, c);
    const item = new vscode.TreeItem(path.basename(c.path), c.hunks.length && !d.moved ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = `file:${c.id}`;
    item.resourceUri = vscode.Uri.file(c.path);
    const counts = `+${d.added} −${d.removed}${d.lineEndings ? ` · ${d.lineEndings}` : ''}`;
    const other = c.moved?.from ?? c.moved?.to ?? c.path;
    // A base we are not sure of is named as such: Undo refuses it, so no "created" or counts suggest otherwise.
    const moved = d.moved ? `moved ${c.moved?.from ? 'from' : 'to'} ${this.nameOf(other, c.path)}` : '';
    const what = d.what === 'base unknown' ? `base unknown${moved && ` · ${moved}`}` : d.what === 'moved' ? `${moved} · ${counts}` : d.what === 'changed' ? counts : d.what;
    const later = c.later.length ? ` · then changed by ${c.later.map((l) => LATER_WORD[l.by]).join(', ')}` : '';
    const kept = c.decisions.filter((d) => d === 'kept').length;
    const undone = c.decisions.filter((d) => d === 'undone').length;
    const state = kept && undone && kept + undone === c.hunks.length ? `${kept} kept, ${undone} undone` : STATE_WORD[c.fileDecision];
    // "base unknown" leads, so a narrow view still shows it.
    item.description = c.base.uncertain !== undefined ? `${what} · ${this.relativeDir(c.path)}${state}${later}` : `${this.relativeDir(c.path)}${what} · ${state}${later}`;
    item.iconPath = STATE_ICON[c.fileDecision];
    item.contextValue = `file.${c.fileDecision}`;
    // The agent chose the path: escaped, so it never renders as Markdown or a link.
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(markdown`**${c.path}**\n\n`);
    if (c.via === 'client') tip.appendMarkdown('Written by Agent Switchboard for the agent (`fs/write_text_file`), after the gate allowed it.');
    else tip.appendMarkdown('The agent wrote this file itself; Agent Switchboard saw the change against a snapshot taken before its tool call.');
    if (d.moved) tip.appendMarkdown(markdown`\n\nMoved in this turn from ${d.beforePath} to ${d.afterPath}: Open Diff shows its text at the old path before the turn against the new one now; Keep and Undo act on both paths.`);
    if (d.lineEndings) tip.appendMarkdown(markdown`\n\nIts line endings changed (${d.lineEndings}); the diff editor does not show line endings, the counts include them.`);
    if (c.base.uncertain !== undefined) tip.appendMarkdown(markdown`\n\nBase unknown: what the file held before is not known for certain (${c.base.uncertain}). Undo and Restore Checkpoint leave it alone; Open Diff shows what was read.`);
    if (c.later.length) tip.appendMarkdown(markdown`\n\nChanged afterwards by ${c.later.map((l) => LATER_WORD[l.by]).join(', ')}; Undo reverts only hunks whose lines are still the agent's.`);
    item.tooltip = tip;
    item.command = { command: 'agentSwitchboard.review.openDiff', title: 'Open Diff', arguments: [{ type: 'file', changeId: c.id } satisfies ReviewNode] };
    return item;
  }

  private hunkItem(c: FileChange, i: number): vscode.TreeItem {
    const h = c.hunks[i];
    const decision = c.decisions[i];
    // Named by the lines it changes, not its context; one that only removes, by the lines it removed.
    const added = h.lines.filter((l) => l[0] === '+').length;
    const removed = h.lines.filter((l) => l[0] === '-').length;
    const item = new vscode.TreeItem(hunkTitle(h));
    item.id = `hunk:${c.id}#${i}`;
    // Undo of a hunk is planned from the base: with the base unknown it refuses, and says so here.
    item.description = `${c.base.uncertain !== undefined ? 'base unknown · ' : ''}+${added} −${removed} · ${STATE_WORD[decision]}`;
    item.iconPath = STATE_ICON[decision];
    item.contextValue = `hunk.${decision}`;
    // The agent's lines in a fence they cannot close (appendCodeblock's can be, by a context line).
    const shown = h.lines.slice(0, 40).map((l) => l.replace(/\r$/, ''));
    item.tooltip = new vscode.MarkdownString().appendMarkdown(markdownCodeBlock(shown.join('\n') + (h.lines.length > 40 ? `\n… ${h.lines.length - 40} more lines` : ''), 'diff'));
    item.command = { command: 'agentSwitchboard.review.openDiff', title: 'Open Diff', arguments: [{ type: 'hunk', changeId: c.id, hunk: i } satisfies ReviewNode] };
    return item;
  }

  /** `p` as short as it can be next to `beside`: its name in the same folder, else its path in a root. */
  private nameOf(p: string, beside: string): string {
    if (path.dirname(p) === path.dirname(beside)) return path.basename(p);
    return `${this.relativeDir(p).replace(/ · $/, '/')}${path.basename(p)}`;
  }

  private relativeDir(p: string): string {
    for (const r of this.roots()) {
      const rel = path.relative(r, path.dirname(p));
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel ? `${rel} · ` : '';
    }
    return `${path.dirname(p)} · `;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

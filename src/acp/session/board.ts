/**
 * One session as the Sessions board says it (issue 20): its live status in words — working, waiting
 * for you (with how many requests wait), done, failed, closed —, where it works (its worktree's
 * branch, or its folder), what it changed (files, +/− lines), and its tokens and cost when the agent
 * sends `usage_update`. Pure: the Sessions view (and anything else) draws these words.
 */
import path from 'node:path';
import type { SessionState } from './types';
import { formatTokens } from './usage';
import { sessionTitle } from './promptSummary';

/** A session's status on the board. */
export type BoardStatus = 'starting' | 'working' | 'waiting' | 'stopping' | 'done' | 'ready' | 'failed' | 'closed';

/** What the session changed that is still to review (kept and undone changes are not counted). */
export interface BoardChanges {
  files: number;
  added: number;
  removed: number;
}

/** The board's words for one session. */
export interface BoardLine {
  status: BoardStatus;
  /** "waiting for you (2)", "working", "done"… */
  statusText: string;
  /** Requests that wait for the person: permission requests and the agent's questions. */
  waiting: number;
  /** "⎇ switchboard/demo-1a2b3c4d" for a worktree, else the folder's name. */
  where: string;
  /** "3 files to review +12 −4", or empty. */
  changes: string;
  /** "53k tokens · 0.42 USD", or empty. */
  usage: string;
  /** Everything above, joined with " · " (the tree row's description). */
  text: string;
}

/** The board's line for `s`; `changes` from the review of its turns, when known. */
export function boardLine(s: Pick<SessionState, 'status' | 'permissions' | 'worktree' | 'cwd' | 'usage' | 'lastStopReason' | 'entries'>, changes?: BoardChanges): BoardLine {
  // A question of the agent (elicitation) waits for the person as a permission request does.
  const waiting = Object.values(s.permissions).filter((p) => p.state === 'waiting').length + s.entries.filter((e) => e.kind === 'elicitation' && e.elicitation.state === 'waiting').length;
  const status: BoardStatus =
    s.status === 'closed' ? 'closed'
    : s.status === 'error' ? 'failed'
    : waiting > 0 ? 'waiting'
    : s.status === 'prompting' ? 'working'
    : s.status === 'cancelling' ? 'stopping'
    : s.status === 'starting' ? 'starting'
    : s.lastStopReason || s.entries.some((e) => e.kind === 'turn_end') ? 'done'
    : 'ready';
  const statusText = status === 'waiting' ? `waiting for you (${waiting})` : status;
  const where = s.worktree ? `⎇ ${s.worktree.branch}` : path.basename(s.cwd) || s.cwd;
  const changed = changes && changes.files ? `${changes.files} file${changes.files === 1 ? '' : 's'} to review +${changes.added} −${changes.removed}` : '';
  const cost = s.usage?.cost ? `${s.usage.cost.amount.toFixed(s.usage.cost.amount !== 0 && s.usage.cost.amount < 0.01 ? 4 : 2)} ${s.usage.cost.currency}` : '';
  const usage = [s.usage && s.usage.used > 0 ? `${formatTokens(s.usage.used)} tokens` : '', cost].filter(Boolean).join(' · ');
  return { status, statusText, waiting, where, changes: changed, usage, text: [statusText, where, changed, usage].filter(Boolean).join(' · ') };
}

/**
 * The row label of each session in `sessions` (in the order they started), told apart where titles
 * collide: parallel runs of one prompt, in worktrees or not, all take their title from it. A
 * session alone with its title keeps it; of those that share one, a worktree's leads with its
 * branch's own part ("⎇ demo-1a2b3c4d · Fix the bug") and one in the main folder with "main folder";
 * two in the same place are numbered in the order they started ("Fix the bug (2)").
 */
export function distinctTitles(sessions: readonly Pick<SessionState, 'key' | 'title' | 'entries' | 'worktree'>[]): Map<string, string> {
  const byTitle = new Map<string, Pick<SessionState, 'key' | 'title' | 'entries' | 'worktree'>[]>();
  for (const s of sessions) {
    const t = sessionTitle(s);
    byTitle.set(t, [...(byTitle.get(t) ?? []), s]);
  }
  const out = new Map<string, string>();
  for (const [title, group] of byTitle) {
    if (group.length === 1) {
      out.set(group[0].key, title);
      continue;
    }
    const seen = new Map<string, number>();
    for (const s of group) {
      const where = s.worktree ? `⎇ ${s.worktree.branch.split('/').pop() || s.worktree.branch}` : 'main folder';
      const n = (seen.get(where) ?? 0) + 1;
      seen.set(where, n);
      out.set(s.key, `${where} · ${title}${n > 1 ? ` (${n})` : ''}`);
    }
  }
  return out;
}

/**
 * Who made the changes the Changes view lists, and how much of them waits for the person: each
 * session by its agent and title (and its worktree's branch), remembered past the session's end so
 * a closed session's changes still say whose they are; each turn by its number and what was asked;
 * and the counts of what is still to review (kept and undone changes are decided: not counted).
 *
 * Pure: no `vscode`.
 */
import { labelOf, promptSummary, sessionTitle } from '../acp/session/promptSummary';
import type { SessionState } from '../acp/session/types';
import type { FileChange, ReviewModel } from './review';
import { shownDiff } from './shownDiff';

/** What the Changes view names a session by. */
export interface ReviewSessionInfo {
  agentName: string;
  /** The agent's title, else the first prompt in words. */
  title: string;
  /** The worktree it worked in, when it had one of its own. */
  worktree?: { dir: string; branch: string };
}

/** Changes still to review: files, and the lines added and removed in their undecided hunks. */
export interface PendingCounts {
  files: number;
  added: number;
  removed: number;
}

/** The names of the sessions whose changes are reviewed, kept after a session closes. */
export class ReviewSessions {
  private readonly infos = new Map<string, ReviewSessionInfo>();

  /**
   * Notes what session `s` is called now.
   * @returns true when that changed (the view's labels are to be drawn again).
   */
  note(s: Pick<SessionState, 'key' | 'agentName' | 'title' | 'entries' | 'worktree'>): boolean {
    const info: ReviewSessionInfo = { agentName: s.agentName, title: sessionTitle(s), ...(s.worktree ? { worktree: { dir: s.worktree.dir, branch: s.worktree.branch } } : {}) };
    const was = this.infos.get(s.key);
    if (was && was.agentName === info.agentName && was.title === info.title && was.worktree?.dir === info.worktree?.dir) return false;
    this.infos.set(s.key, info);
    return true;
  }

  get(key: string): ReviewSessionInfo | undefined {
    return this.infos.get(key);
  }

  /** The worktree folders of the sessions noted (their files are shown relative to them). */
  worktreeDirs(): string[] {
    return [...this.infos.values()].flatMap((i) => (i.worktree ? [i.worktree.dir] : []));
  }
}

/** A session's row: "Demo agent · Fix the login bug" (its worktree's branch is the row's description). */
export function sessionLabel(info: ReviewSessionInfo): string {
  return labelOf(info.agentName, info.title);
}

/** A turn's row: "Turn 2 · Number the list instead." (the prompt in one readable line). */
export function turnLabel(turn: number, prompt: string): string {
  const said = promptSummary(prompt, 48);
  return said ? `Turn ${turn} · ${said}` : `Turn ${turn}`;
}

/** "2 to review", or "reviewed" once every change is kept or undone. */
export function pendingWords(n: number): string {
  return n ? `${n} to review` : 'reviewed';
}

/**
 * What is still to review in `model` (of one session, and one turn of it, when given). A file moved
 * in a turn is one file, as the view shows it; a change partly decided counts the lines of its
 * undecided hunks only.
 */
export function pendingCounts(model: ReviewModel, sessionKey?: string, turn?: number): PendingCounts {
  const counts: PendingCounts = { files: 0, added: 0, removed: 0 };
  for (const t of model.turns(sessionKey)) {
    if (turn !== undefined && t.turn !== turn) continue;
    for (const c of t.files) add(counts, model, c);
  }
  return counts;
}

function add(counts: PendingCounts, model: ReviewModel, c: FileChange): void {
  if (c.fileDecision !== 'pending') return;
  const move = model.moveOf(c);
  // The two halves of a move are one file: counted at its new path.
  if (move && move.from === c) return;
  counts.files++;
  if (move) {
    const d = shownDiff(model, c);
    counts.added += d.added;
    counts.removed += d.removed;
    return;
  }
  c.hunks.forEach((h, i) => {
    if (c.decisions[i] !== 'pending') return;
    for (const l of h.lines) {
      if (l[0] === '+') counts.added++;
      else if (l[0] === '-') counts.removed++;
    }
  });
}

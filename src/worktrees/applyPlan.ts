/**
 * "Apply to Main Folder" (issue 20), decided file by file before anything is written: what a
 * worktree changed against its base, carried onto the main folder as it is now (the open document's
 * unsaved text included). A file nobody touched in the main folder since the base takes the
 * worktree's version; one the person changed is merged three ways when the agent's hunks and the
 * person's edits do not overlap (their unsaved edit survives), and goes to the merge editor when
 * they do: never a silent overwrite. Pure.
 */
import { hunksOf, mergeOnto, proposeChange } from '../edits/model';

/** One changed file: its text at the base, in the worktree, and in the main folder now (null: no file). */
export interface ApplyInput {
  /** Path relative to the repository. */
  rel: string;
  base: string | null;
  worktree: string | null;
  main: string | null;
  /** Not text (a NUL byte, or not UTF-8): carried only when the main folder still holds the base bytes. */
  binary?: boolean;
  /** Why this file is never carried over (a symlink, a special file, a path leading elsewhere). */
  special?: string;
}

/** What applying does to one file. */
export type ApplyStep =
  /** Write `text` into the main folder's file (create it when `create`). `how`: the main file was as at the base, or the two sides merged cleanly. */
  | { rel: string; kind: 'write'; text: string; create: boolean; how: 'take' | 'merged' }
  /** Delete the main folder's file (the worktree deleted it; the main file was as at the base). */
  | { rel: string; kind: 'delete' }
  /** Copy the worktree's bytes (a binary file the main folder still holds as at the base, or lacks). */
  | { rel: string; kind: 'copy' }
  /** Nothing to do: the main folder already holds what the worktree holds. */
  | { rel: string; kind: 'same' }
  /** Both sides changed the same lines (or a side deleted what the other changed): the merge editor. */
  | { rel: string; kind: 'conflict'; why: string };

/** Decides each file (see the module comment). */
export function planApply(files: readonly ApplyInput[]): ApplyStep[] {
  return files.map((f) => step(f));
}

function step(f: ApplyInput): ApplyStep {
  const { rel } = f;
  if (f.special) return { rel, kind: 'conflict', why: `not applied: ${f.special}` };
  if (f.main === f.worktree) return { rel, kind: 'same' };
  if (f.binary) return f.main === f.base ? (f.worktree === null ? { rel, kind: 'delete' } : { rel, kind: 'copy' }) : { rel, kind: 'conflict', why: 'a file that is not text, changed in the main folder too' };
  if (f.worktree === null) return f.main === f.base ? { rel, kind: 'delete' } : { rel, kind: 'conflict', why: 'the agent deleted a file you changed' };
  if (f.main === f.base) return { rel, kind: 'write', text: f.worktree, create: f.main === null, how: 'take' };
  if (f.main === null) return { rel, kind: 'conflict', why: 'you deleted a file the agent changed' };
  if (f.base === null) return { rel, kind: 'conflict', why: 'you and the agent both created this file' };
  // Both changed it. Changes at the same or neighbouring lines (two insertions at one place
  // included, whose order nobody chose) are for the person to merge, as git's own merge says.
  const near = touching(f.base, f.worktree, f.main);
  if (near) return { rel, kind: 'conflict', why: `${near} of the agent's changes ${near === 1 ? 'touches' : 'touch'} lines you changed` };
  // Apart: the agent's hunks (base → worktree) carried onto the main text, each only where none of
  // its lines (context included) was touched by the person.
  const merged = mergeOnto(proposeChange(`file:///${rel}`, f.base, f.worktree, null), f.main);
  if (merged.conflicts.length === 0) return { rel, kind: 'write', text: merged.text, create: false, how: 'merged' };
  return { rel, kind: 'conflict', why: `${merged.conflicts.length} of the agent's changes overlap yours` };
}

/**
 * How many of the agent's changes (base → theirs) touch a change of the person's (base → mine): in
 * the base's lines, each change covers its lines and the line on either side, so adjacent changes and
 * insertions at one place count as touching.
 */
function touching(base: string, theirs: string, mine: string): number {
  const spans = (to: string) => hunksOf(base, to, 0).map((h) => [h.oldStart - 1, h.oldStart + h.oldLines] as const);
  const ours = spans(mine);
  return spans(theirs).filter(([s, e]) => ours.some(([s2, e2]) => s <= e2 && s2 <= e)).length;
}

/** One line for the person: how many files are written, merged, deleted, already the same, in conflict. */
export function applySummary(steps: readonly ApplyStep[]): string {
  const n = (k: ApplyStep['kind'], how?: 'take' | 'merged') => steps.filter((s) => s.kind === k && (!how || (s.kind === 'write' && s.how === how))).length;
  const parts = [
    [n('write', 'take') + n('copy'), 'taken as the agent left them'],
    [n('write', 'merged'), 'merged with your changes'],
    [n('delete'), 'deleted'],
    [n('same'), 'already the same'],
    [n('conflict'), 'to merge by hand'],
  ] as const;
  return parts.filter(([count]) => count > 0).map(([count, what]) => `${count} ${count === 1 ? 'file' : 'files'} ${what}`).join(', ') || 'nothing to apply';
}

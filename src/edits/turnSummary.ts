/**
 * The end-of-turn summary of a session's changes, as the thread shows it: per turn, the files the
 * agent changed (a moved file once), each with the counts of the diff the review opens and what
 * the person decided about it. Derived from the {@link ReviewModel} every time it is asked: the
 * review keeps the one record of what is kept or undone, this is only its reading for the thread.
 *
 * Pure: no `vscode`.
 */
import * as path from 'node:path';
import type { FileChange, ReviewModel } from './review';
import { shownDiff, type ShownDiff } from './shownDiff';

/**
 * What the person decided about a file of a turn: `partly` when some of its hunks were kept and
 * others undone (every change of the file in the turn counted).
 */
export type TurnFileState = 'pending' | 'kept' | 'undone' | 'partly';

/** One file of a turn's summary. */
export interface TurnFileSummary {
  /** The change a click opens in the diff editor (for a moved file, the one at its new path). */
  changeId: string;
  /** The file's name, and its folder relative to the session's roots ('' at a root; absolute outside them). */
  name: string;
  dir: string;
  /** For a file moved in the turn: the name it had before. */
  movedFrom?: string;
  what: ShownDiff['what'];
  added: number;
  removed: number;
  state: TurnFileState;
  /** A later turn of the same session changed the file again: the first such turn. */
  laterTurn?: number;
}

/** One turn's row in the thread. */
export interface TurnSummary {
  turn: number;
  /**
   * The entry of the person's prompt that began this turn, and of the one that began the next
   * (the row goes just before it); both absent where the thread has no such entry.
   */
  promptEntryId?: string;
  endsBefore?: string;
  files: TurnFileSummary[];
  /** When the last change of the turn was recorded (ms since the epoch). */
  updatedAt: number;
}

/**
 * The summaries of `sessionKey`'s turns with changes, oldest first.
 * @param promptEntryIds the entries of the person's prompts in the session, in order: turn n began
 *   with the n-th (see `acp/session/turns.ts`)
 * @param running the newest turn is still running: it gets its row once it ended
 * @param roots the folders names are shown relative to
 */
export function turnSummaries(model: ReviewModel, sessionKey: string, promptEntryIds: readonly string[], running: boolean, roots: readonly string[]): TurnSummary[] {
  const turns = model.turns(sessionKey);
  // The turns in which each path changed, to say that a later turn changed a file again.
  const turnsOf = new Map<string, number[]>();
  for (const t of turns) for (const f of t.files) turnsOf.set(f.path, [...(turnsOf.get(f.path) ?? []), t.turn]);
  const out: TurnSummary[] = [];
  for (const t of turns) {
    if (running && t.turn >= promptEntryIds.length) continue;
    // A file changed twice in one turn (someone else edited between the agent's writes) is one
    // file of the row; a moved file is one file, at its new path.
    const byPath = new Map<string, FileChange[]>();
    for (const f of t.files) {
      const move = model.moveOf(f);
      if (move && move.from === f) continue;
      byPath.set(f.path, [...(byPath.get(f.path) ?? []), f]);
    }
    const files = [...byPath.values()].map((changes) => fileSummary(model, changes, roots, turnsOf.get(changes[0].path)?.find((n) => n > t.turn)));
    out.push({
      turn: t.turn,
      ...(promptEntryIds[t.turn - 1] !== undefined ? { promptEntryId: promptEntryIds[t.turn - 1] } : {}),
      ...(promptEntryIds[t.turn] !== undefined ? { endsBefore: promptEntryIds[t.turn] } : {}),
      files,
      updatedAt: Math.max(...t.files.map((f) => f.updatedAt)),
    });
  }
  return out;
}

function fileSummary(model: ReviewModel, changes: FileChange[], roots: readonly string[], laterTurn: number | undefined): TurnFileSummary {
  const first = changes[0];
  const shown = changes.map((c) => shownDiff(model, c));
  const d = shown[0];
  const move = model.moveOf(first);
  // A move is one decision on both its paths: its state is read from both.
  const decided = move ? [move.from, move.to] : changes;
  return {
    changeId: first.id,
    name: path.basename(first.path),
    dir: relativeDir(first.path, roots),
    ...(d.moved ? { movedFrom: path.basename(d.beforePath) } : {}),
    what: shown.some((s) => s.what === 'base unknown') ? 'base unknown' : d.what,
    added: shown.reduce((n, s) => n + s.added, 0),
    removed: shown.reduce((n, s) => n + s.removed, 0),
    state: stateOf(decided),
    ...(laterTurn !== undefined ? { laterTurn } : {}),
  };
}

/** All pending, kept or undone; `partly` for a mix of kept and undone with nothing left to decide. */
function stateOf(changes: FileChange[]): TurnFileState {
  const states = new Set<TurnFileState>();
  for (const c of changes) {
    if (c.fileDecision === 'pending') states.add('pending');
    else if (c.fileDecision === 'undone') states.add('undone');
    else states.add(c.decisions.some((d) => d === 'undone') ? 'partly' : 'kept');
  }
  if (states.has('pending')) return 'pending';
  if (states.size === 1) return [...states][0];
  return 'partly';
}

/** The folder of `p` relative to the first root that holds it ('' at the root itself), else its absolute folder. */
function relativeDir(p: string, roots: readonly string[]): string {
  for (const r of roots) {
    const rel = path.relative(r, path.dirname(p));
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return path.dirname(p);
}

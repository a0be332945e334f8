/**
 * What the review shows for one change: the file's text before the turn (the diff editor's left
 * side), where that text was, and the lines added and removed. The Changes view's counts, its hover
 * and the diff's "before" document all come from here, so the numbers a person reads are the diff
 * they open.
 *
 * Pure: no `vscode`.
 */
import { detectEol } from './encoding';
import { hunksOf, type Hunk } from './model';
import type { FileChange, ReviewModel } from './review';

/** The review's view of one change. */
export interface ShownDiff {
  /**
   * The file's text before the turn: its base, or for a moved file the base at its old path; '' when
   * there was no file (created) or nothing could be read (then `what` is `base unknown`).
   */
  before: string;
  /** Where `before` was: the change's own path, or the path the file was moved from. */
  beforePath: string;
  /** Where the file is after the turn (differs from `beforePath` for a move). */
  afterPath: string;
  /** The file was moved in the turn (`what` says `base unknown` when either path's base is uncertain). */
  moved: boolean;
  what: 'base unknown' | 'created' | 'deleted' | 'moved' | 'changed';
  /** The hunks the counts are taken from: the change's own, or for a move, old text → new text. */
  hunks: Hunk[];
  added: number;
  removed: number;
  /** The line endings changed too (e.g. `CRLF → LF`): the diff editor does not show that. */
  lineEndings?: string;
}

const EOL_NAME = { '\n': 'LF', '\r\n': 'CRLF' } as const;

/** What the review shows for change `c` of `model` (see {@link ShownDiff}). */
export function shownDiff(model: ReviewModel, c: FileChange): ShownDiff {
  const move = model.moveOf(c);
  const before = move ? move.from.base.text : c.base.text;
  const after = move ? move.to.after : c.after;
  const hunks = move ? hunksOf(before ?? '', after ?? '') : c.hunks;
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l[0] === '+') added++;
      else if (l[0] === '-') removed++;
    }
  }
  // A move is as certain as both its paths: nothing was at the new one, this was at the old one.
  const uncertain = move ? move.from.base.uncertain !== undefined || move.to.base.uncertain !== undefined : c.base.uncertain !== undefined;
  const what = uncertain ? 'base unknown' : move ? 'moved' : before === null ? 'created' : after === null ? 'deleted' : 'changed';
  const eols = before?.includes('\n') && after?.includes('\n') ? [detectEol(before), detectEol(after)] : undefined;
  return {
    before: before ?? '',
    beforePath: move ? move.from.path : c.path,
    afterPath: move ? move.to.path : c.path,
    moved: move !== undefined,
    what,
    hunks,
    added,
    removed,
    ...(eols && eols[0] !== eols[1] ? { lineEndings: `${EOL_NAME[eols[0]]} → ${EOL_NAME[eols[1]]}` } : {}),
  };
}

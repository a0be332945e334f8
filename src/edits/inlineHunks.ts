/**
 * The agents' changes of one file as the editor shows them inline: where each hunk still to review
 * is in the text as it is now (after the person typed, saved, or undid other hunks), which lines
 * the agent wrote there, what it removed, and whether Undo can still take it out.
 *
 * A hunk is the review's own (`FileChange.hunks`, from the base to what the agent left, by the
 * `diff` package), so Keep and Undo act on exactly the hunk the Changes view lists. It is placed in
 * the current text with the same line map Undo plans with (`lineMap`, `carryHunk`): a hunk is
 * `intact` exactly when Undo would revert it, and `edited` when someone changed any of its lines
 * (context included) since — then Undo refuses it and the editor does not offer it.
 *
 * Pure: no `vscode`. The editor side is views/inlineReview.ts.
 */
import { carryHunk, invertHunk, lineMap, type Hunk } from './model';
import type { FileChange, ReviewModel } from './review';

/** One run of changed lines of a hunk, placed in the current text. */
export interface InlineBlock {
  /** 0-based line of the current text where the lines the agent wrote here start (or, when `count` is 0, before which it removed lines). */
  start: number;
  /** How many lines of the current text stand where the agent wrote (0: the agent only removed lines here). */
  count: number;
  /** The lines the agent removed here, without their line endings. */
  removed: string[];
}

/**
 * Whether a hunk's lines are still as the agent left them: `intact` (Undo reverts it) or `edited`
 * (someone changed one of its lines or their context since; Undo refuses it, Keep still takes it).
 */
export type InlineHunkState = 'intact' | 'edited';

/** One hunk still to review, placed in the current text. */
export interface InlineHunk {
  changeId: string;
  /** The hunk's index in its change: what Keep and Undo take. */
  hunk: number;
  blocks: InlineBlock[];
  /** 0-based line of the current text its actions sit above (its first block). */
  line: number;
  state: InlineHunkState;
  /** Undo can revert it now: intact, and its change's base is known for certain. */
  undoable: boolean;
  /** Set on an edited hunk whose lines a later agent change (still there) rewrote: Undo that one first. */
  brokenByLater?: true;
}

/** What the agent did to the file as a whole, when that is the only thing to show (no hunks inline). */
export type WholeFileWhat = 'created' | 'deleted' | 'moved';

/** One change of the file still to review. */
export interface InlineChange {
  changeId: string;
  /** `changed`: its hunks are shown inline; otherwise the file is kept or undone as a whole. */
  what: WholeFileWhat | 'changed';
  /** Set when Undo refuses every hunk of this change: what the file held before is not known for certain. */
  baseUnknown: boolean;
  /** Hunks still to review, in file order (empty unless `what` is `changed`). */
  hunks: InlineHunk[];
}

/** The inline review of one file. */
export interface InlineView {
  /** Changes of the file still to review, oldest first. */
  changes: InlineChange[];
  /** Every change's hunks still to review, by line. */
  hunks: InlineHunk[];
}

/** No changes to show. */
export const EMPTY_VIEW: InlineView = Object.freeze({ changes: Object.freeze([]), hunks: Object.freeze([]) }) as unknown as InlineView;

/**
 * The inline review of the file at `path` whose text is now `current`: every change of it still
 * to review (any session, any turn), oldest first, with its pending hunks placed in `current`.
 */
export function inlineView(model: ReviewModel, path: string, current: string): InlineView {
  const changes = model
    .turns()
    .flatMap((t) => t.files)
    .filter((c) => c.path === path && c.fileDecision === 'pending')
    .sort((a, b) => a.at - b.at);
  const out = changes.map((c) => inlineChange(model, c, current));
  return { changes: out, hunks: out.flatMap((c) => c.hunks).sort((a, b) => a.line - b.line) };
}

/** One change placed in `current` (see {@link inlineView}). */
export function inlineChange(model: ReviewModel, c: FileChange, current: string): InlineChange {
  const baseUnknown = c.base.uncertain !== undefined;
  // A move, a created and a deleted file are one decision each: the tree shows no hunks for a move,
  // and a file that is all new (or gone) has no lines to tell apart.
  const whole: WholeFileWhat | undefined = model.moveOf(c) ? 'moved' : c.base.text === null ? 'created' : c.after === null ? 'deleted' : undefined;
  if (whole) return { changeId: c.id, what: whole, baseUnknown, hunks: [] };
  const hunks = placeHunks(c, model.expectedText(c) ?? '', current);
  for (const h of hunks) if (h.state === 'edited' && model.brokenBy(c, h.hunk)) h.brokenByLater = true;
  return { changeId: c.id, what: 'changed', baseUnknown, hunks };
}

/**
 * The pending hunks of `c` placed in `current`, given `expected`, the text the file has when nobody
 * but the review's own undos touched it since the agent (`ReviewModel.expectedText`).
 */
export function placeHunks(c: Pick<FileChange, 'id' | 'hunks' | 'decisions' | 'base'>, expected: string, current: string): InlineHunk[] {
  const same = expected === current;
  const map = same ? undefined : lineMap(expected, current);
  const lineCount = current.split('\n').length;
  const out: InlineHunk[] = [];
  let shift = 0;
  c.hunks.forEach((h, i) => {
    // Where the hunk's new side starts in `expected`: hunks undone before it left their old lines.
    const at = (h.newLines === 0 ? h.newStart : h.newStart - 1) + shift;
    if (c.decisions[i] === 'undone') shift += h.oldLines - h.newLines;
    if (c.decisions[i] !== 'pending') return;
    // The same test Undo makes (ReviewModel.planUndo): its lines, context included, still there.
    const intact = same || carryHunk(current, invertHunk(h), at, map!, false) !== false;
    const blocks = blocksOf(h, at)
      .map((b) => place(b, map, lineCount, at, at + h.newLines))
      .filter((b): b is InlineBlock => b !== undefined);
    if (!blocks.length) return;
    out.push({ changeId: c.id, hunk: i, blocks, line: blocks[0].start, state: intact ? 'intact' : 'edited', undoable: intact && c.base.uncertain === undefined });
  });
  return out;
}

/** A block in the agent's text: the lines it wrote at `start` (0-based, in `expected`), and what it removed there. */
interface ExpectedBlock {
  start: number;
  count: number;
  removed: string[];
}

/** The runs of removed and added lines of `h`, whose new side starts at line `at` of the text. */
function blocksOf(h: Hunk, at: number): ExpectedBlock[] {
  const blocks: ExpectedBlock[] = [];
  let line = at;
  let open: ExpectedBlock | undefined;
  for (const l of h.lines) {
    const kind = l[0];
    // "\ No newline at end of file" belongs to the line before it.
    if (kind === '\\') continue;
    if (kind === ' ') {
      open = undefined;
      line++;
      continue;
    }
    if (!open) blocks.push((open = { start: line, count: 0, removed: [] }));
    if (kind === '-') open.removed.push(l.slice(1).replace(/\r$/, ''));
    else {
      open.count++;
      line++;
    }
  }
  return blocks;
}

/**
 * Places a block of the agent's text in the current one: exactly where its lines went when they
 * are all still there in a row; else between the nearest lines around it that are (looking no
 * further than the hunk, `[lo, hi)` of the agent's text), which then also holds what the person
 * typed in its place. Undefined when nothing around it can be found any more.
 */
function place(b: ExpectedBlock, map: Int32Array | undefined, lineCount: number, lo: number, hi: number): InlineBlock | undefined {
  if (!map) return { start: Math.min(b.start, lineCount - 1), count: b.count, removed: b.removed };
  const first = map[b.start];
  let whole = b.count > 0 && first >= 0;
  for (let k = 1; whole && k < b.count; k++) whole = map[b.start + k] === first + k;
  if (whole) return { start: first, count: b.count, removed: b.removed };
  let before: number | undefined;
  for (let j = b.start - 1; j >= Math.min(lo, b.start - 1) && before === undefined; j--) if (j >= 0 && map[j] >= 0) before = map[j] + 1;
  if (b.start === 0) before = 0;
  let after: number | undefined;
  for (let j = b.start + b.count; j <= Math.max(hi, b.start + b.count) && after === undefined; j++) {
    if (j >= map.length) after = lineCount;
    else if (map[j] >= 0) after = map[j];
  }
  if (before === undefined && after === undefined) return undefined;
  // With one side lost, the block is taken to be as long as the agent wrote it.
  const start = before ?? Math.max(0, after! - b.count);
  const end = after ?? Math.min(lineCount, start + b.count);
  return { start: Math.min(start, lineCount - 1), count: b.count > 0 ? Math.max(0, end - start) : 0, removed: b.removed };
}

/** How many of a hunk's lines its hover shows. */
const HOVER_LINES = 40;

/** What the hover of a hunk says before the hunk itself. */
export function hunkHoverIntro(state: InlineHunkState): string {
  return state === 'edited' ? "The agent's change (its lines were changed since, so Undo leaves it to you):" : "The agent's change, still to review:";
}

/**
 * The hunk as its hover shows it: the agent's unified-diff lines (what it removed and wrote, as the
 * Changes view's hunk shows them), at most {@link HOVER_LINES}. They are the agent's and may hold
 * fences, links or HTML of their own: show them only through `markdownCodeBlock`.
 */
export function hunkHoverCode(lines: readonly string[]): string {
  const shown = lines.filter((l) => l[0] !== '\\').map((l) => l.replace(/\r$/, ''));
  return shown.slice(0, HOVER_LINES).join('\n') + (shown.length > HOVER_LINES ? `\n… ${shown.length - HOVER_LINES} more lines` : '');
}

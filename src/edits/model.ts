/**
 * A proposed change to one file: the text the agent based it on (version and hash), the new text,
 * and its hunks. Expressible as an LSP `TextDocumentEdit` with a `VersionedTextDocumentIdentifier`,
 * so edits that arrive in LSP form take the same path. Conflicts are found against the current
 * text; an agent's hunks are carried onto text the person changed meanwhile where they apply
 * cleanly, and the rest are reported, never forced.
 *
 * Pure: no `vscode`. Hunks from the `diff` package (`structuredPatch`); LSP shapes from
 * `vscode-languageserver-types` (LSP 3.17 §TextDocumentEdit, §VersionedTextDocumentIdentifier).
 */
import { createHash } from 'node:crypto';
import { applyPatch, diffArrays, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { Position, Range, TextDocumentEdit, TextEdit, VersionedTextDocumentIdentifier } from 'vscode-languageserver-types';

/** One hunk: lines removed and added around a place in the base text (1-based line numbers). */
export interface Hunk {
  /** First line of the hunk in the base text (1-based; 0 for an insertion into an empty text). */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Unified-diff lines: ' ' context, '-' removed, '+' added. */
  lines: string[];
}

/** A change the agent proposes to one file. */
export interface ProposedChange {
  uri: string;
  /** Document version the agent saw; null when it read the file from disk (not open). */
  baseVersion: number | null;
  /** SHA-256 (hex) of the text the agent saw. */
  baseHash: string;
  baseText: string;
  newText: string;
  hunks: Hunk[];
}

/** SHA-256 (hex) of a text's UTF-8 bytes. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Builds a proposed change; hunks carry `context` lines around each change (default 3). */
export function proposeChange(uri: string, baseText: string, newText: string, baseVersion: number | null, context = 3): ProposedChange {
  return { uri, baseVersion, baseHash: textHash(baseText), baseText, newText, hunks: hunksOf(baseText, newText, context) };
}

/** The hunks between two texts. */
export function hunksOf(oldText: string, newText: string, context = 3): Hunk[] {
  return structuredPatch('a', 'b', oldText, newText, '', '', { context }).hunks.map((h) => ({ ...h, lines: [...h.lines] }));
}

/** Why the current text is not the agent's base, or undefined when it is. */
export type Staleness = { reason: 'version_changed'; from: number; to: number } | { reason: 'content_changed' };

/**
 * Checks the current document against the change's base: the version when the agent saw an open
 * document, and always the content hash.
 */
export function staleness(change: ProposedChange, current: { version: number | null; text: string }): Staleness | undefined {
  if (change.baseVersion !== null && current.version !== null && current.version !== change.baseVersion) {
    return { reason: 'version_changed', from: change.baseVersion, to: current.version };
  }
  if (textHash(current.text) !== change.baseHash) return { reason: 'content_changed' };
  return undefined;
}

/**
 * The change as an LSP `TextDocumentEdit`: one edit replacing the base text's whole range, tied to
 * the base version (`VersionedTextDocumentIdentifier`), so a client that honours versions refuses it
 * on a changed document. Without a version (file read from disk) the version is 0 (not tracked).
 */
export function toTextDocumentEdit(change: ProposedChange): TextDocumentEdit {
  const end = endPosition(change.baseText);
  return TextDocumentEdit.create(VersionedTextDocumentIdentifier.create(change.uri, change.baseVersion ?? 0), [
    TextEdit.replace(Range.create(Position.create(0, 0), end), change.newText),
  ]);
}

/** The position after the last character of `text` (LSP: 0-based line and UTF-16 character). */
export function endPosition(text: string): Position {
  const lines = text.split(/\r\n|\r|\n/);
  return Position.create(lines.length - 1, lines[lines.length - 1].length);
}

/** Result of carrying a change onto a text that moved on. */
export interface MergeResult {
  /** The current text with every hunk that applied cleanly. */
  text: string;
  applied: Hunk[];
  /** Hunks whose context is no longer in the current text; the person resolves them. */
  conflicts: Hunk[];
}

/**
 * Three-way merge of non-overlapping changes: carries the agent's hunks (base → proposal) onto
 * `current` (base → the person's edits) one at a time, each at the place its lines moved to in
 * `current` and only there (a line diff maps base lines to current lines; no searching elsewhere in
 * the file, where a similar block could be hit). A hunk any of whose lines, context included, the
 * person changed is a conflict and the person's text is kept as is there. `take` selects which
 * hunks to carry (by index), default all.
 */
export function mergeOnto(change: Pick<ProposedChange, 'hunks' | 'baseText'>, current: string, take?: ReadonlySet<number>): MergeResult {
  const map = lineMap(change.baseText, current);
  const same = change.baseText === current;
  let text = current;
  const applied: Hunk[] = [];
  const conflicts: Hunk[] = [];
  // From the last hunk to the first: applying one never shifts the lines of those before it.
  const order = change.hunks.map((h, i) => ({ h, i })).reverse();
  for (const { h, i } of order) {
    if (take && !take.has(i)) continue;
    const next = carryHunk(text, h, h.oldLines === 0 ? h.oldStart : h.oldStart - 1, map, same);
    if (next === false) conflicts.unshift(h);
    else {
      text = next;
      applied.unshift(h);
    }
  }
  return { text, applied, conflicts };
}

/**
 * Where each line of `from` is in `to` (0-based line numbers, lines split on `\n` as the `diff`
 * package does), or -1 for a line that was changed or removed. From `diffArrays`.
 */
export function lineMap(from: string, to: string): Int32Array {
  const a = from.split('\n');
  const b = to.split('\n');
  const map = new Int32Array(a.length).fill(-1);
  let i = 0;
  let j = 0;
  for (const part of diffArrays(a, b)) {
    const n = part.count ?? part.value.length;
    if (part.added) j += n;
    else if (part.removed) i += n;
    else {
      for (let k = 0; k < n; k++) map[i + k] = j + k;
      i += n;
      j += n;
    }
  }
  return map;
}

/**
 * Carries `hunk`, whose old side starts at 0-based line `at` of the text `map` was computed from,
 * onto `to`: only if every one of its old lines (context included) is still there, unchanged and
 * adjacent, and then exactly at the mapped place.
 * @param same true when `to` is the text `map` was computed from (needed for hunks without old lines).
 */
export function carryHunk(to: string, hunk: Hunk, at: number, map: Int32Array, same: boolean): string | false {
  if (hunk.oldLines === 0) return same ? applyHunkAt(to, hunk, at) : false;
  for (let k = 0; k < hunk.oldLines; k++) {
    const m = map[at + k];
    if (m === undefined || m < 0 || (k > 0 && m !== map[at + k - 1] + 1)) return false;
  }
  return applyHunkAt(to, hunk, map[at]);
}

/**
 * Applies `hunk` with its old side at 0-based line `at` of `text` and nowhere else; false when its
 * context and removed lines are not exactly there. (`applyPatch` alone would try other offsets.)
 */
export function applyHunkAt(text: string, hunk: Hunk, at: number): string | false {
  const lo = at + 1;
  const hi = at + hunk.oldLines;
  const placed = { ...hunk, oldStart: hunk.oldLines === 0 ? at : lo } as StructuredPatchHunk;
  const patch: StructuredPatch = { oldFileName: 'a', newFileName: 'b', oldHeader: '', newHeader: '', hunks: [placed] };
  const result = applyPatch(text, patch, { fuzzFactor: 0, compareLine: (line, content, _op, patchContent) => line >= lo && line <= hi && content === patchContent });
  return result === false ? false : result;
}

/** Applies one hunk at its own line numbers (and nowhere else); false when its lines are not there. */
export function applyHunk(text: string, hunk: Hunk): string | false {
  return applyHunkAt(text, hunk, hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1);
}

/**
 * Applies several hunks of one diff to `text` in a single pass (the text is split once, not once
 * per hunk); false when any does not apply exactly. Hunks must be in order and not overlap.
 */
export function applyHunks(text: string, hunks: readonly Hunk[]): string | false {
  if (!hunks.length) return text;
  const patch: StructuredPatch = { oldFileName: 'a', newFileName: 'b', oldHeader: '', newHeader: '', hunks: hunks as StructuredPatchHunk[] };
  const result = applyPatch(text, patch, { fuzzFactor: 0 });
  return result === false ? false : result;
}

/** Reverts one hunk (undo a single accepted hunk): the hunk with its additions and removals swapped. */
export function invertHunk(hunk: Hunk): Hunk {
  return {
    oldStart: hunk.newStart,
    oldLines: hunk.newLines,
    newStart: hunk.oldStart,
    newLines: hunk.oldLines,
    lines: hunk.lines.map((l) => (l.startsWith('+') ? '-' + l.slice(1) : l.startsWith('-') ? '+' + l.slice(1) : l)),
  };
}

/**
 * The span that differs between two texts: `[start, endOld)` in `a` becomes `[start, endNew)` of `b`.
 * Never splits a CRLF pair or a surrogate pair, so the edit's positions are valid in the document.
 */
export function changedMiddle(a: string, b: string): { start: number; endOld: number; endNew: number } {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endOld = a.length;
  let endNew = b.length;
  while (endOld > start && endNew > start && a.charCodeAt(endOld - 1) === b.charCodeAt(endNew - 1)) {
    endOld--;
    endNew--;
  }
  // Back off from the middle of a "\r\n" or a surrogate pair on either end.
  while (start > 0 && (isLow(a.charCodeAt(start)) || (a[start - 1] === '\r' && a[start] === '\n') || (b[start - 1] === '\r' && b[start] === '\n'))) start--;
  while (endOld < a.length && endNew < b.length && (isLow(a.charCodeAt(endOld)) || (a[endOld - 1] === '\r' && a[endOld] === '\n') || (b[endNew - 1] === '\r' && b[endNew] === '\n'))) {
    endOld++;
    endNew++;
  }
  return { start, endOld, endNew };
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

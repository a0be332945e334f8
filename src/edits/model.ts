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
import { applyPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
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
 * Three-way merge of non-overlapping changes: applies the agent's hunks (base → proposal) onto
 * `current` (base → the person's edits) one at a time, each exactly (no fuzz). A hunk whose lines
 * the person changed does not apply and is returned as a conflict; the person's text is kept as is
 * there. `take` selects which hunks to carry (by index), default all.
 */
export function mergeOnto(change: Pick<ProposedChange, 'hunks'>, current: string, take?: ReadonlySet<number>): MergeResult {
  let text = current;
  const applied: Hunk[] = [];
  const conflicts: Hunk[] = [];
  // From the last hunk to the first: applying one never shifts the line numbers of those before it.
  const order = change.hunks.map((h, i) => ({ h, i })).reverse();
  for (const { h, i } of order) {
    if (take && !take.has(i)) continue;
    const next = applyHunk(text, h);
    if (next === false) conflicts.unshift(h);
    else {
      text = next;
      applied.unshift(h);
    }
  }
  return { text, applied, conflicts };
}

/** Applies one hunk to `text`; false when its removed and context lines are not where they were. */
export function applyHunk(text: string, hunk: Hunk): string | false {
  const patch: StructuredPatch = { oldFileName: 'a', newFileName: 'b', oldHeader: '', newHeader: '', hunks: [hunk as StructuredPatchHunk] };
  const result = applyPatch(text, patch, { fuzzFactor: 0 });
  return result === false ? false : result;
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

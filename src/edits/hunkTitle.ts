/**
 * A hunk named as a person looks for it: by the lines it changes, not by its context lines nor by
 * patch(1)'s "@@ -4,2 +4,5 @@". Free of Node's modules: the compare page draws these names too.
 */
/** What naming a hunk reads of it (an edit model's `Hunk`, or the `diff` package's). */
export interface HunkLines {
  oldStart: number;
  newStart: number;
  /** Unified-diff lines: ' ' context, '-' removed, '+' added. */
  lines: string[];
}

/**
 * The lines a hunk changes, without its context lines: the new text's lines it adds, or for a hunk
 * that only removes, the base's lines it removes (1-based, inclusive) — what a person looks for.
 */
export function changedLines(hunk: HunkLines): { first: number; last: number } {
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  const added: number[] = [];
  const removed: number[] = [];
  for (const l of hunk.lines) {
    if (l[0] === '+') added.push(newLine++);
    else if (l[0] === '-') removed.push(oldLine++);
    else {
      oldLine++;
      newLine++;
    }
  }
  const lines = added.length ? added : removed;
  if (!lines.length) return { first: hunk.newStart, last: hunk.newStart };
  return { first: lines[0], last: lines[lines.length - 1] };
}

/** A hunk as a person names it, by the lines it changes (see {@link changedLines}): "Line 7", "Lines 6–8". */
export function hunkTitle(hunk: HunkLines): string {
  const { first, last } = changedLines(hunk);
  return first === last ? `Line ${first}` : `Lines ${first}–${last}`;
}

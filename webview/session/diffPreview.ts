/**
 * A compact unified preview of a tool call's diff: the first ~20 changed lines with one line of
 * context, for reading inside a narrow card (the full diff opens in VS Code's diff editor).
 *
 * DOM-free. Uses the `diff` package's `structuredPatch`, bounded by a time limit so a huge file
 * cannot freeze the webview.
 */
import { hunkTitle } from '../../src/edits/hunkTitle';
import { structuredPatch } from 'diff';

/** One line of the preview. `hunk` lines name the lines the hunk changes ("Lines 6–8"), as the Changes view does. */
export interface PreviewLine {
  type: 'add' | 'del' | 'ctx' | 'hunk';
  text: string;
  /** Line number in the new file (adds and context) or the old file (deletions). */
  line?: number;
}

export interface DiffPreview {
  lines: PreviewLine[];
  /** Changed lines not shown because the preview is capped. */
  moreChanges: number;
  /** True when the diff took too long to compute; nothing is shown but the counts. */
  tooLarge: boolean;
}

/** Default cap on changed lines in a preview. */
export const PREVIEW_CHANGED_LINES = 20;

const cache = new Map<string, { oldText: string | null; newText: string; preview: DiffPreview }>();

/**
 * Computes (or returns the cached) preview for one diff. `cacheKey` identifies the diff's place in
 * the UI (tool call and content index); tool cards are re-rendered on every status change and the
 * same diff must not be recomputed each time.
 */
export function diffPreview(cacheKey: string, oldText: string | null, newText: string, maxChanged = PREVIEW_CHANGED_LINES): DiffPreview {
  const hit = cache.get(cacheKey);
  if (hit && hit.oldText === oldText && hit.newText === newText) return hit.preview;
  const preview = computePreview(oldText, newText, maxChanged);
  cache.set(cacheKey, { oldText, newText, preview });
  if (cache.size > 200) cache.delete(cache.keys().next().value as string);
  return preview;
}

function computePreview(oldText: string | null, newText: string, maxChanged: number): DiffPreview {
  const patch = structuredPatch('a', 'b', oldText ?? '', newText, undefined, undefined, { context: 1, timeout: 250 });
  if (!patch) return { lines: [], moreChanges: 0, tooLarge: true };
  const lines: PreviewLine[] = [];
  let shown = 0;
  let more = 0;
  for (const hunk of patch.hunks) {
    if (shown >= maxChanged) {
      more += hunk.lines.filter((l) => l[0] === '+' || l[0] === '-').length;
      continue;
    }
    if (oldText !== null) lines.push({ type: 'hunk', text: hunkTitle(hunk) });
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const raw of hunk.lines) {
      const sign = raw[0];
      const text = raw.slice(1);
      if (sign === '\\') continue; // "\ No newline at end of file"
      if (sign === '+' || sign === '-') {
        if (shown >= maxChanged) {
          more++;
          continue;
        }
        shown++;
        if (sign === '+') lines.push({ type: 'add', text, line: newLine++ });
        else lines.push({ type: 'del', text, line: oldLine++ });
      } else if (shown < maxChanged) {
        lines.push({ type: 'ctx', text, line: newLine });
        oldLine++;
        newLine++;
      }
    }
  }
  // Drop a trailing context line left after the cap cut a hunk short.
  while (lines.length && lines[lines.length - 1].type !== 'add' && lines[lines.length - 1].type !== 'del' && more > 0) lines.pop();
  return { lines, moreChanges: more, tooLarge: false };
}

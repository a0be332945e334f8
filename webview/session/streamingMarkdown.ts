/**
 * Markdown that grows by streamed chunks, rendered in time proportional to the new part.
 *
 * Re-rendering a whole long message every frame costs ~100 ms for 30 KB (markdown-it + DOMPurify +
 * layout). Instead, text up to the last "stable" block boundary (a blank line outside a code fence,
 * followed by an unindented line) is rendered once and frozen; each frame re-renders only the tail.
 * A tail with no such boundary (one long paragraph, a long code block, 200,000 lines without a blank
 * one: PF8) is frozen at its last line start once it passes {@link MAX_LIVE_CHARS}, a code fence
 * closed in the frozen part and opened again for the tail, so a frame never renders more than that.
 * Rendering blocks separately can differ slightly from rendering the whole (a loose list split in
 * two, a reference link defined later, a paragraph split at a line), so once the stream has been
 * quiet for a moment the whole text is rendered once more ("settle") — up to
 * {@link SETTLE_MAX_CHARS}: a longer text keeps its blockwise rendering rather than stall the page.
 * The text is scanned once: each `set` continues from the last complete line it saw.
 */
import type { Ctx } from './context';

/** Quiet time (ms) after the last chunk before the exact full render. */
export const SETTLE_MS = 400;
/** The longest tail re-rendered per frame before it is frozen at a line start (characters). */
export const MAX_LIVE_CHARS = 8192;
/** The longest text rendered whole when the stream settles (characters; ~20 ms of markdown-it). */
export const SETTLE_MAX_CHARS = 256 * 1024;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Where the line scan of a growing text stands (see {@link MarkdownView}). */
interface Scan {
  /** Start of the first line not scanned yet (the last, unfinished line's start). */
  pos: number;
  /** The open fence's marker, or null outside a fence. */
  fence: string | null;
  /** The open fence's opening line. */
  fenceLine: string;
  prevBlank: boolean;
  /** The last stable block boundary found (a line start outside any fence). */
  best: number;
}

export class MarkdownView {
  readonly el: HTMLElement;
  private readonly live: HTMLElement;
  /** The whole text shown, as the caller gave it; read only to render it whole. */
  private text = '';
  /** Its length (kept apart: the caller's text may be a rope that any read of a character copies). */
  private length = 0;
  /** The text after the frozen part (`text.slice(frozenLen)`), kept by this view as it grows. */
  private tail = '';
  /** Length of the prefix rendered into frozen nodes (always at a line start). */
  private frozenLen = 0;
  /** What the live tail is rendered after: the open fence's line when the frozen part ends inside one. */
  private livePrefix = '';
  private scan: Scan = freshScan();
  private cancelSettle: (() => void) | undefined;

  constructor(private readonly ctx: Ctx, className = 'md') {
    this.live = ctx.h('div', { className: 'md-live' });
    this.el = ctx.h('div', { className }, this.live);
  }

  /**
   * Shows `text`: incrementally if it extends what is shown, else in full.
   * @param appended what was appended to the text last shown to make `text`, when the caller knows
   *   it (a streamed message's chunks since the last frame). The view then works on that part and
   *   its own tail alone, never reading `text`: comparing a long message with the last one, or
   *   slicing it, copied the whole message on every frame (the page's state keeps it as a rope of
   *   chunks). A length that does not add up is taken as a new text.
   */
  set(text: string, appended?: string): void {
    if (appended !== undefined && this.length > 0 && text.length === this.length + appended.length) {
      if (!appended) return;
      this.text = text;
      this.length = text.length;
      this.tail += appended;
    } else {
      if (text === this.text) return;
      if (this.text === '' || !text.startsWith(this.text)) {
        this.renderFull(text);
        if (text.length > 2000) this.scheduleSettle();
        return;
      }
      this.tail += text.slice(this.length);
      this.text = text;
      this.length = text.length;
    }
    this.advance();
    const scan = this.scan;
    if (scan.best > this.frozenLen) this.freeze(scan.best, '', '');
    if (this.length - this.frozenLen > MAX_LIVE_CHARS && scan.pos > this.frozenLen) {
      // No block boundary for too long: freeze at the last line start, fence closed and reopened.
      const inFence = scan.fence !== null;
      this.freeze(scan.pos, inFence ? `${scan.fence}\n` : '', inFence ? `${scan.fenceLine}\n` : '');
    }
    this.live.innerHTML = this.ctx.md(this.livePrefix + this.tail);
    if (this.frozenLen > 0) this.scheduleSettle();
  }

  /** Cancels a pending settle (the view is being dropped). */
  dispose(): void {
    this.cancelSettle?.();
    this.cancelSettle = undefined;
  }

  /** Renders `[frozenLen, end)` once into frozen nodes (after the live prefix, closed by `suffix`). */
  private freeze(end: number, suffix: string, nextPrefix: string): void {
    const part = this.ctx.doc.createElement('div');
    const cut = end - this.frozenLen;
    part.innerHTML = this.ctx.md(this.livePrefix + this.tail.slice(0, cut) + suffix);
    const frag = this.ctx.doc.createDocumentFragment();
    while (part.firstChild) frag.appendChild(part.firstChild);
    this.el.insertBefore(frag, this.live);
    this.tail = this.tail.slice(cut);
    this.frozenLen = end;
    this.livePrefix = nextPrefix;
  }

  /** Scans the complete lines added since the last call (see {@link stableBoundary}), in the tail. */
  private advance(): void {
    const scan = this.scan;
    const tail = this.tail;
    const base = this.frozenLen;
    for (;;) {
      const from = scan.pos - base;
      const nl = tail.indexOf('\n', from);
      if (nl < 0) {
        // The last line is still being written, but its first character already tells whether the
        // block before the blank line is finished.
        if (scan.prevBlank && scan.fence === null && /^\S/.test(tail.slice(from, from + 1))) scan.best = Math.max(scan.best, scan.pos);
        return;
      }
      scanLine(scan, tail.slice(from, nl), scan.pos);
      scan.pos = base + nl + 1;
    }
  }

  private renderFull(text: string): void {
    this.text = text;
    this.length = text.length;
    this.tail = text;
    this.frozenLen = 0;
    this.livePrefix = '';
    this.scan = freshScan();
    while (this.el.firstChild !== this.live) this.el.removeChild(this.el.firstChild!);
    this.live.innerHTML = this.ctx.md(text);
  }

  private scheduleSettle(): void {
    this.cancelSettle?.();
    if (this.length > SETTLE_MAX_CHARS) return;
    this.cancelSettle = this.ctx.later(() => {
      this.cancelSettle = undefined;
      if (this.frozenLen > 0) this.renderFull(this.text);
    }, SETTLE_MS);
  }
}

function freshScan(): Scan {
  return { pos: 0, fence: null, fenceLine: '', prevBlank: false, best: 0 };
}

/** One complete line starting at `at`: updates the fence state and the last stable boundary. */
function scanLine(scan: Scan, line: string, at: number): void {
  const blank = line.trim() === '';
  if (!blank && scan.prevBlank && scan.fence === null && !/^[ \t]/.test(line)) scan.best = at;
  const m = FENCE.exec(line);
  if (m) {
    if (scan.fence === null) {
      scan.fence = m[1];
      scan.fenceLine = line;
    } else if (m[1][0] === scan.fence[0] && m[1].length >= scan.fence.length && line.trim() === m[1]) scan.fence = null;
  }
  scan.prevBlank = blank && scan.fence === null;
}

/**
 * The end of the longest prefix of `text` (starting the scan at `from`, a line start outside any
 * fence) that ends with a blank line outside a code fence and is followed by a line that starts
 * with a non-blank character (so it cannot continue the block before).
 * Returns `from` when there is none yet.
 */
export function stableBoundary(text: string, from: number): number {
  const scan: Scan = { ...freshScan(), pos: from, best: from };
  for (;;) {
    const nl = text.indexOf('\n', scan.pos);
    if (nl < 0) {
      if (scan.prevBlank && scan.fence === null && /^\S/.test(text.slice(scan.pos))) scan.best = scan.pos;
      return scan.best;
    }
    scanLine(scan, text.slice(scan.pos, nl), scan.pos);
    scan.pos = nl + 1;
  }
}

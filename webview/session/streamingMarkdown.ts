/**
 * Markdown that grows by streamed chunks, rendered in time proportional to the new part.
 *
 * Re-rendering a whole long message every frame costs ~100 ms for 30 KB (markdown-it + DOMPurify +
 * layout). Instead, text up to the last "stable" block boundary (a blank line outside a code fence,
 * followed by an unindented line) is rendered once and frozen; each frame re-renders only the tail.
 * Rendering blocks separately can differ slightly from rendering the whole (a loose list split in
 * two, a reference link defined later), so once the stream has been quiet for a moment the whole
 * text is rendered once more ("settle").
 */
import type { Ctx } from './context';

/** Quiet time (ms) after the last chunk before the exact full render. */
export const SETTLE_MS = 400;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export class MarkdownView {
  readonly el: HTMLElement;
  private readonly live: HTMLElement;
  private text = '';
  /** Length of the prefix rendered into frozen nodes (always at a line start). */
  private frozenLen = 0;
  private cancelSettle: (() => void) | undefined;

  constructor(private readonly ctx: Ctx, className = 'md') {
    this.live = ctx.h('div', { className: 'md-live' });
    this.el = ctx.h('div', { className }, this.live);
  }

  /** Shows `text`: incrementally if it extends what is shown, else in full. */
  set(text: string): void {
    if (text === this.text) return;
    if (!text.startsWith(this.text) || this.text === '') {
      this.renderFull(text);
      if (text.length > 2000) this.scheduleSettle();
      return;
    }
    this.text = text;
    const boundary = stableBoundary(text, this.frozenLen);
    if (boundary > this.frozenLen) {
      const part = this.ctx.doc.createElement('div');
      part.innerHTML = this.ctx.md(text.slice(this.frozenLen, boundary));
      const frag = this.ctx.doc.createDocumentFragment();
      while (part.firstChild) frag.appendChild(part.firstChild);
      this.el.insertBefore(frag, this.live);
      this.frozenLen = boundary;
    }
    this.live.innerHTML = this.ctx.md(text.slice(this.frozenLen));
    if (this.frozenLen > 0) this.scheduleSettle();
  }

  /** Cancels a pending settle (the view is being dropped). */
  dispose(): void {
    this.cancelSettle?.();
    this.cancelSettle = undefined;
  }

  private renderFull(text: string): void {
    this.text = text;
    this.frozenLen = 0;
    while (this.el.firstChild !== this.live) this.el.removeChild(this.el.firstChild!);
    this.live.innerHTML = this.ctx.md(text);
  }

  private scheduleSettle(): void {
    this.cancelSettle?.();
    this.cancelSettle = this.ctx.later(() => {
      this.cancelSettle = undefined;
      if (this.frozenLen > 0) this.renderFull(this.text);
    }, SETTLE_MS);
  }
}

/**
 * The end of the longest prefix of `text` (starting the scan at `from`, a line start outside any
 * fence) that ends with a blank line outside a code fence and is followed by a line that starts
 * with a non-blank character (so it cannot continue the block before).
 * Returns `from` when there is none yet.
 */
export function stableBoundary(text: string, from: number): number {
  let best = from;
  let fence: string | null = null;
  let pos = from;
  let prevBlank = false;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    // The last line is still being written, but its first character already tells whether the
    // block before the blank line is finished.
    const line = nl < 0 ? text.slice(pos) : text.slice(pos, nl);
    if (nl < 0) {
      if (prevBlank && fence === null && /^\S/.test(line)) best = pos;
      break;
    }
    const blank = line.trim() === '';
    if (!blank && prevBlank && fence === null && !/^[ \t]/.test(line)) best = pos;
    const m = FENCE.exec(line);
    if (m) {
      if (fence === null) fence = m[1];
      else if (m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
    }
    prevBlank = blank && fence === null;
    pos = nl + 1;
  }
  return best;
}

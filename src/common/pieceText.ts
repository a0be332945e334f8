/**
 * Text built from many small appends (a streamed message: 200,000 ten-byte chunks) without keeping
 * each append alive past V8's young generation.
 *
 * V8 keeps `a += b` as a rope: a node per append that holds the two strings until something reads a
 * character and the rope is copied flat. Every such node and chunk that is still in a rope when the
 * young generation is collected is copied to survive it, and once enough bytes have survived V8
 * grows the young generation (16 → 64 MiB a semi-space in a 200,000-chunk turn), which is memory
 * the process keeps until it idles. Here the appends since the last piece (the tail) are made flat
 * every {@link PIECE_CHARS} characters and joined to the text before them (the head, a rope of flat
 * pieces: one node per 4,096 characters), so at most one piece's worth of small strings is alive at
 * a time, and no character is copied more than once. Pure; shared with the webview.
 */

/**
 * Never matches; a regular expression's search makes V8 copy its subject flat first (in place: the
 * rope's node then points at the flat copy and its small strings are free). `charCodeAt(0)`, which
 * did that under Node 20, no longer does in optimised code under Node 24 (VS Code's extension
 * host): a rope "flattened" that way kept 6.95 bytes a character, one searched 1.02.
 */
const NEVER = /[^\s\S]/;

/** Makes V8 hold `s` as one flat string (see {@link NEVER}). */
export function flatten(s: string): void {
  NEVER.test(s);
}

/** How many characters of small appends are made flat into one piece (a 4 KiB copy at most). */
export const PIECE_CHARS = 4096;

/** A string grown by appends; {@link PieceText.text} is the whole of it. */
export class PieceText {
  private head: string;
  private tail = '';

  /** @param start the text before the first append (kept as it is). */
  constructor(start = '') {
    this.head = start;
  }

  /** Appends `s`; O(s) amortised, plus one {@link PIECE_CHARS} copy per piece. */
  append(s: string): void {
    this.tail += s;
    if (this.tail.length < PIECE_CHARS) return;
    flatten(this.tail);
    this.head += this.tail;
    this.tail = '';
  }

  /** The whole text so far (a rope of flat pieces; reading it copies it flat once). */
  get text(): string {
    return this.tail ? this.head + this.tail : this.head;
  }

  /** Its length in UTF-16 code units. */
  get length(): number {
    return this.head.length + this.tail.length;
  }
}

const appended = new WeakMap<object, { full: string; pieces: PieceText }>();

/**
 * Appends `s` to `holder.text` through a {@link PieceText} kept for `holder` (an object: a thread
 * entry). If `holder.text` was set by anything else since the last append, it starts over from it.
 */
export function appendPieces(holder: { text: string }, s: string): void {
  let a = appended.get(holder);
  // The same string object in the common case: a pointer comparison, no characters read.
  if (!a || a.full !== holder.text) {
    a = { full: holder.text, pieces: new PieceText(holder.text) };
    appended.set(holder, a);
  }
  a.pieces.append(s);
  holder.text = a.full = a.pieces.text;
}

/**
 * Lines of a byte stream a child process writes (ACP agents and stdio MCP servers speak JSON, one
 * message per line), framed without copying what came before on every chunk: a line that spans
 * chunks is copied once into a buffer kept for the next long line and decoded once at its end.
 *
 * Why not the SDKs' framing: the MCP SDK's `ReadBuffer` concatenates everything it holds with each
 * new chunk, so a line of n bytes copies ~n²/128 KiB bytes (a 10 MB tool result 0.56 s, 30 MB 3.3–5.1 s
 * of the extension host's thread here); the ACP SDK's `ndJsonStream` copies every chunk into a web
 * stream and its line buffer into a fresh zero-filled array as it doubles (PF10).
 *
 * Pure and vscode-free; unit-tested under plain Node and, for the decoding, in the extension host.
 */

const LF = 0x0a;
const CR = 0x0d;
/** The line buffer's first size, in bytes (a pipe's chunk is at most 64 KiB). */
const MIN_LINE_BUFFER_BYTES = 64 * 1024;
/** A line buffer larger than this, in bytes, is let go once its line is read (a rare huge message does not stay in memory). */
const KEEP_LINE_BUFFER_BYTES = 4 * 1024 * 1024;
/**
 * Longest piece of a line decoded at once, in bytes. The Node of VS Code 1.139's extension host
 * (24; not the unit tests' 20) decodes a longer ASCII run (past Node's `EXTERN_APEX`, 1,031,913
 * bytes) into an external string whose bytes the C allocator holds, not V8's heap. With a 2 MiB
 * line re-sent 200 times (PF10) the allocator's arena (`[heap]` in /proc/self/smaps) was then
 * 59–78 MB larger after the turn and the host's RSS 86–102 MB; decoded in pieces (heap strings,
 * joined into one), 18 MB and 3–62 MB. Pieces under V8's large-object size (128 KiB) left more: the
 * young generation grown to hold them, RSS +102–113 MB.
 */
const DECODE_PIECE_BYTES = 512 * 1024;

/**
 * `buf[start, end)` as UTF-8 text held in V8's heap: decoded in pieces of at most `pieceBytes`
 * (default {@link DECODE_PIECE_BYTES}) and joined. Each piece ends where the decoder starts afresh
 * (before a byte that is not a continuation byte, `10xxxxxx`, or after four continuation bytes in
 * a row, which no character holds), so the text is the one a single decode gives, U+FFFD for
 * invalid bytes included.
 */
export function decode(buf: Buffer, start: number, end: number, pieceBytes = DECODE_PIECE_BYTES): string {
  // A piece must be able to hold a whole character, or a cut could move back to the piece's start.
  pieceBytes = Math.max(4, pieceBytes);
  if (end - start <= pieceBytes) return buf.toString('utf8', start, end);
  const continues = (i: number) => (buf[i] & 0xc0) === 0x80;
  const pieces: string[] = [];
  while (end - start > pieceBytes) {
    const at = start + pieceBytes;
    // A character is at most four bytes: its first byte is at most three before `at`.
    let cut = at;
    while (cut > at - 3 && continues(cut)) cut--;
    if (continues(cut)) cut = at;
    pieces.push(buf.toString('utf8', start, cut));
    start = cut;
  }
  pieces.push(buf.toString('utf8', start, end));
  return pieces.join('');
}

/**
 * Splits bytes into LF-ended lines, each decoded as UTF-8 without its line ending (a CR before the
 * LF is dropped). A line longer than `maxLineBytes` (not counting its ending) stops the framer.
 */
export class LineFramer {
  /** The unfinished line's bytes, `line[0, pending)`. */
  private line: Buffer | undefined;
  private pending = 0;
  private stopped = false;

  /**
   * @param maxLineBytes longest line accepted, in bytes, without its line ending.
   * @param keepBufferBytes largest line buffer kept for the next long line, in bytes; a larger one
   *   is let go once its line is read (default {@link KEEP_LINE_BUFFER_BYTES}).
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly keepBufferBytes = KEEP_LINE_BUFFER_BYTES,
  ) {}

  /**
   * Frames `chunk`: `onLine` is called with each line it completes, in order. Once `onLine` has
   * called {@link stop}, nothing more is read.
   * @returns False when a line is over the limit: the framer has stopped, and the stream cannot be
   *   brought back in step (the caller ends it).
   */
  push(chunk: Buffer, onLine: (text: string) => void): boolean {
    if (this.stopped) return true;
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const length = nl - start;
      // The CR of a CRLF is the chunk's byte before the LF, or the unfinished line's last byte.
      const cr = length ? chunk[nl - 1] === CR : this.pending > 0 && this.line![this.pending - 1] === CR;
      if (this.pending + length - (cr ? 1 : 0) > this.maxLineBytes) return this.tooLarge();
      onLine(this.take(chunk, start, nl));
      if (this.stopped) return true;
      start = nl + 1;
    }
    if (start < chunk.length) {
      // A CR that may be the first half of a CRLF is not counted against the limit yet.
      if (this.pending + chunk.length - start > this.maxLineBytes + 1) return this.tooLarge();
      this.append(chunk, start, chunk.length);
    }
    return true;
  }

  /**
   * The last line when the stream ends without a line ending (decoded, its CR dropped): `undefined`
   * when there is none, `false` when it is over the limit (the framer has stopped).
   */
  end(): string | undefined | false {
    if (this.stopped || !this.pending) return undefined;
    // push() let one byte more wait in case it was the CR of a CRLF; at the end it is one only if it is a CR.
    if (this.pending - (this.line![this.pending - 1] === CR ? 1 : 0) > this.maxLineBytes) return this.tooLarge();
    return this.take(Buffer.alloc(0), 0, 0);
  }

  /** Reads nothing more and lets the line buffer go. */
  stop(): void {
    this.stopped = true;
    this.line = undefined;
    this.pending = 0;
  }

  private tooLarge(): false {
    this.stop();
    return false;
  }

  /** Appends `chunk[start, end)` to the unfinished line, growing its buffer by doubling (never past the limit's need). */
  private append(chunk: Buffer, start: number, end: number): void {
    const need = this.pending + end - start;
    if (!this.line || this.line.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(this.maxLineBytes + 2, Math.max(MIN_LINE_BUFFER_BYTES, (this.line?.length ?? 0) * 2))));
      if (this.line && this.pending) this.line.copy(grown, 0, 0, this.pending);
      this.line = grown;
    }
    chunk.copy(this.line, this.pending, start, end);
    this.pending = need;
  }

  /** The line that ends with `chunk[start, end)`, decoded (its CR dropped); the pending state is emptied. */
  private take(chunk: Buffer, start: number, end: number): string {
    if (!this.pending) return decode(chunk, start, end > start && chunk[end - 1] === CR ? end - 1 : end);
    this.append(chunk, start, end);
    const buf = this.line!;
    const length = this.pending;
    this.pending = 0;
    if (buf.length > this.keepBufferBytes) this.line = undefined;
    return decode(buf, 0, length && buf[length - 1] === CR ? length - 1 : length);
  }
}

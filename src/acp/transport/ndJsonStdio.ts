/**
 * ACP over stdio: newline-delimited JSON-RPC on an agent's stdin and stdout (PROTOCOLS.md §1), read
 * straight from the Node streams. The SDK's `ndJsonStream` takes web streams: Node's adapter copies
 * every chunk the pipe gives, and its line buffer grows by doubling into a fresh zero-filled array,
 * so a tool re-sending a 2 MiB output 200 times (PF10) allocated ~6 MiB outside the heap per
 * message before decoding it. Here a line that spans chunks is copied into one line buffer that
 * this stream keeps (grown by doubling up to the longest line so far, not made anew per message,
 * not zero-filled) and decoded once when its end arrives. In the editor (PF10) the agent then sent
 * its 200 updates in 1.7–2.0 s instead of 3.4–4.1 s (it waited less on its pipe), and the extension
 * host's RSS was back to where it began 12 s after the turn (+33–42 MB with the SDK's framing).
 * Decoding each chunk as it came instead (a rope of 64 KiB strings, flattened for `JSON.parse`)
 * left 2 MiB of young strings per long line for the scavenger to copy and a flattening copy on top:
 * scavenges of 28–46 ms during PF10 in the editor. A line past 512 KiB is decoded in pieces
 * ({@link decode}): in one piece, the extension host's Node makes it an external string.
 *
 * Behaviour is the SDK's (`@agentclientprotocol/sdk` `core/stream.js`): LF or CRLF lines; blank
 * lines and a byte-order mark skipped; invalid UTF-8 replaced; a line that is not JSON answered with
 * a JSON-RPC parse error (-32700, `id: null`), a batch or a non-object with -32600; a line longer
 * than `maxMessageBytes` ends the stream with an error that names the limit. Reading pauses while
 * the connection has not taken what it was given (the agent then waits on its pipe).
 */
import type { Readable, Writable } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from '../sdk';

const LF = 0x0a;
const CR = 0x0d;
/** The line buffer's first size, in bytes (a pipe's chunk is at most 64 KiB). */
const MIN_LINE_BUFFER_BYTES = 64 * 1024;
/**
 * Longest piece of a line decoded at once, in bytes. The Node of VS Code 1.139's extension host
 * (24; not the unit tests' 20) decodes a longer ASCII run (past Node's `EXTERN_APEX`, 1,031,913
 * bytes) into an external string whose bytes the C allocator holds, not V8's heap. With a 2 MiB
 * line re-sent 200 times (PF10) the allocator's arena (`[heap]` in /proc/self/smaps) was then
 * 59–78 MB larger after the turn and the host's RSS 86–102 MB; decoded in pieces (heap strings,
 * joined into one), 18 MB and 3–60 MB. Pieces under V8's large-object size (128 KiB) left more: the
 * young generation grown to hold them, RSS +103–113 MB.
 */
const DECODE_PIECE_BYTES = 512 * 1024;
/** A line buffer larger than this, in bytes, is let go once its line is read (a rare huge message does not stay in memory). */
const KEEP_LINE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * `buf[start, end)` as UTF-8 text held in V8's heap: decoded in pieces of at most `pieceBytes`
 * (default {@link DECODE_PIECE_BYTES}) and joined. Each piece ends where the decoder starts afresh
 * (before a byte that is not a continuation byte, `10xxxxxx`, or after four continuation bytes in
 * a row, which no character holds), so the text is the one a single decode gives, U+FFFD for
 * invalid bytes included.
 */
export function decode(buf: Buffer, start: number, end: number, pieceBytes = DECODE_PIECE_BYTES): string {
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
 * An ACP `Stream` over an agent's stdio: messages written to `writable` go to `output` as JSON
 * lines, in order; lines read from `input` come out of `readable` as objects.
 * @param output the agent's stdin. A failed write rejects that write (the connection reports it).
 * @param input the agent's stdout.
 * @param options.maxMessageBytes longest line accepted, in bytes (without its line ending).
 */
export function ndJsonStdio(output: Writable, input: Readable, options: { maxMessageBytes: number }): acp.Stream {
  const max = options.maxMessageBytes;
  const writeJson = (message: unknown) =>
    new Promise<void>((resolve, reject) => {
      output.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  const answer = (error: InstanceType<ReturnType<typeof acpSdk>['RequestError']>) => void writeJson({ jsonrpc: '2.0', id: null, error: error.toErrorResponse() }).catch(() => {});

  // The unfinished line's bytes, `line[0, pending)`: copied here as they come (a character split
  // between chunks is whole once the line is), decoded once at its end. The buffer is kept for the
  // next long line unless it grew past KEEP_LINE_BUFFER_BYTES.
  let line: Buffer | undefined;
  let pending = 0;
  let done = false;
  let controller!: ReadableStreamDefaultController<acp.AnyMessage>;

  const emit = (text: string) => {
    // trim() also drops a byte-order mark at the start, as the SDK's TextDecoder does.
    const trimmed = text.trim();
    if (!trimmed) return;
    let message: unknown;
    try {
      message = JSON.parse(trimmed);
    } catch {
      answer(acpSdk().RequestError.parseError());
      return;
    }
    if (Array.isArray(message)) answer(acpSdk().RequestError.invalidRequest(undefined, 'JSON-RPC batches are not supported'));
    else if (message !== null && typeof message === 'object') controller.enqueue(message as acp.AnyMessage);
    else answer(acpSdk().RequestError.invalidRequest(message));
  };
  /** Appends `chunk[start, end)` to the unfinished line, growing its buffer by doubling (never past the limit's need). */
  const append = (chunk: Buffer, start: number, end: number) => {
    const need = pending + end - start;
    if (!line || line.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(max + 2, Math.max(MIN_LINE_BUFFER_BYTES, (line?.length ?? 0) * 2))));
      if (line && pending) line.copy(grown, 0, 0, pending);
      line = grown;
    }
    chunk.copy(line, pending, start, end);
    pending = need;
  };
  /** The line that ends with `chunk[start, end)`, decoded (its CR dropped); the pending state is emptied. */
  const take = (chunk: Buffer, start: number, end: number): string => {
    if (!pending) return decode(chunk, start, end > start && chunk[end - 1] === CR ? end - 1 : end);
    append(chunk, start, end);
    const buf = line!;
    const length = pending;
    pending = 0;
    if (buf.length > KEEP_LINE_BUFFER_BYTES) line = undefined;
    return decode(buf, 0, length && buf[length - 1] === CR ? length - 1 : length);
  };
  const stop = () => {
    if (done) return;
    done = true;
    line = undefined;
    pending = 0;
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('error', onError);
  };
  const fail = (err: Error) => {
    stop();
    controller.error(err);
  };
  const tooLarge = () => fail(Object.assign(new Error(`Incoming ACP data exceeds the configured ${max} byte limit`), { name: 'MessageTooLargeError' }));
  const onData = (chunk: Buffer) => {
    if (done) return;
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const length = nl - start;
      if (pending + length - (length && chunk[nl - 1] === CR ? 1 : 0) > max) return tooLarge();
      emit(take(chunk, start, nl));
      if (done) return;
      start = nl + 1;
    }
    if (start < chunk.length) {
      // A CR that may be the first half of a CRLF is not counted against the limit yet.
      if (pending + chunk.length - start > max + 1) return tooLarge();
      append(chunk, start, chunk.length);
    }
    if ((controller.desiredSize ?? 1) <= 0) input.pause();
  };
  const onEnd = () => {
    if (done) return;
    if (pending) emit(take(Buffer.alloc(0), 0, 0));
    stop();
    controller.close();
  };
  const onError = (err: Error) => {
    if (!done) fail(err);
  };

  const readable = new ReadableStream<acp.AnyMessage>({
    start(c) {
      controller = c;
      input.on('data', onData);
      input.on('end', onEnd);
      input.on('error', onError);
    },
    pull() {
      if (!done && input.isPaused()) input.resume();
    },
    cancel() {
      stop();
      input.destroy();
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({ write: (message) => writeJson(message) });
  return { readable, writable };
}

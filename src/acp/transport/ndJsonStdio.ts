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
 * scavenges of 28–46 ms during PF10 in the editor. The framing is `LineFramer`
 * (src/common/lines.ts), shared with the stdio MCP transport; it decodes a line past 512 KiB in
 * pieces (in one piece, the extension host's Node makes it an external string).
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
import { LineFramer } from '../../common/lines';
import type { ObservableStream } from '../protocolLog';

/**
 * An ACP `Stream` over an agent's stdio: messages written to `writable` go to `output` as JSON
 * lines, in order; lines read from `input` come out of `readable` as objects. It reports its
 * messages to an observer (`observe`, the protocol inspector's tap), so the tap adds no web streams
 * of its own: a `TransformStream` per connection cost every streamed message two more queue steps
 * and ~0.2 KB of short-lived objects.
 * @param output the agent's stdin. A failed write rejects that write (the connection reports it).
 * @param input the agent's stdout.
 * @param options.maxMessageBytes longest line accepted, in bytes (without its line ending).
 */
export function ndJsonStdio(output: Writable, input: Readable, options: { maxMessageBytes: number }): ObservableStream {
  const max = options.maxMessageBytes;
  const writeJson = (message: unknown) =>
    new Promise<void>((resolve, reject) => {
      output.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  const answer = (error: InstanceType<ReturnType<typeof acpSdk>['RequestError']>) => void writeJson({ jsonrpc: '2.0', id: null, error: error.toErrorResponse() }).catch(() => {});

  // A line that spans chunks is copied into one buffer the framer keeps, and decoded once at its end.
  const framer = new LineFramer(max);
  let done = false;
  let controller!: ReadableStreamDefaultController<acp.AnyMessage>;
  let observer: ((dir: 'in' | 'out', message: acp.AnyMessage) => void) | undefined;

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
    else if (message !== null && typeof message === 'object') {
      observer?.('in', message as acp.AnyMessage);
      controller.enqueue(message as acp.AnyMessage);
    }
    else answer(acpSdk().RequestError.invalidRequest(message));
  };
  const stop = () => {
    if (done) return;
    done = true;
    framer.stop();
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
    if (!framer.push(chunk, emit)) return tooLarge();
    if (done) return;
    if ((controller.desiredSize ?? 1) <= 0) input.pause();
  };
  const onEnd = () => {
    if (done) return;
    const last = framer.end();
    if (last === false) return tooLarge();
    if (last !== undefined) emit(last);
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
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => {
      observer?.('out', message);
      return writeJson(message);
    },
  });
  return { readable, writable, observe: (o) => void (observer = o) };
}

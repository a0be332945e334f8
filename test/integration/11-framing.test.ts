/**
 * ACP framing in the extension host's own Node (issue 22, PF10). Node 22 and later decode a long
 * ASCII run (past 1,031,913 bytes) into an external string whose bytes the C allocator holds; a
 * 2 MiB tool output re-sent 200 times then left the allocator's arena 59–78 MB larger after the
 * turn. The framing decodes long lines in shorter pieces, into V8's heap; the plain Node of the unit
 * tests (20) cannot show the difference, this host can.
 */
import * as assert from 'assert';
import { PassThrough } from 'stream';
import { ndJsonStdio } from '../../src/acp/transport/ndJsonStdio';
import { decode } from '../../src/common/lines';

/** Bytes held outside V8's heap by JavaScript objects, after `fn` ran and while its result is held. */
function externalGrowth<T>(fn: () => T): { bytes: number; value: T } {
  const before = process.memoryUsage().external;
  const value = fn();
  return { bytes: process.memoryUsage().external - before, value };
}

describe('ACP framing in the extension host', () => {
  it('decodes a 2 MiB line into V8\'s heap, not the C allocator', async () => {
    const text = 'x'.repeat(2 * 1024 * 1024);
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { text } }) + '\n');
    const ours = externalGrowth(() => decode(line, 0, line.length - 1));
    assert.strictEqual(ours.value, line.toString('utf8', 0, line.length - 1));
    assert.ok(ours.bytes < 256 * 1024, `decode held ${ours.bytes} bytes outside the heap (Node ${process.version})`);
    // And through the stream, a pipe's 64 KiB at a time, the message is whole.
    const input = new PassThrough();
    const reader = ndJsonStdio(new PassThrough(), input, { maxMessageBytes: 64 << 20 }).readable.getReader();
    for (let at = 0; at < line.length; at += 65_536) input.write(line.subarray(at, at + 65_536));
    const { value } = await reader.read();
    assert.strictEqual((value as { params: { text: string } }).params.text.length, text.length);
  });
});

/**
 * ACP framing read straight from an agent's Node streams (issue 22, PF10): the same messages and
 * the same answers to bad lines as the SDK's `ndJsonStream` for any split of the bytes, the size
 * limit kept, and the agent made to wait while the connection has not taken what it was given.
 */
import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { ndJsonStdio } from '../../../src/acp/transport/ndJsonStdio';

const enc = new TextEncoder();

/** Everything `readable` yields until it ends, or the error it ends with. */
async function drain(readable: ReadableStream<unknown>): Promise<{ messages: unknown[]; error?: string }> {
  const messages: unknown[] = [];
  const reader = readable.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { messages };
      messages.push(value);
    }
  } catch (err) {
    return { messages, error: String(err) };
  }
}

/** Feeds `bytes` cut at `cuts` through our stream; returns the messages and the answers written back. */
async function ours(bytes: Uint8Array, cuts: number[], maxMessageBytes = 1 << 20) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString('utf8')));
  const stream = ndJsonStdio(output, input, { maxMessageBytes });
  const result = drain(stream.readable);
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    input.write(Buffer.from(bytes.subarray(at, c)));
    at = c;
    await new Promise((r) => setImmediate(r));
  }
  input.end();
  const r = await result;
  await new Promise((r) => setTimeout(r, 20));
  return { ...r, answers: written.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown) };
}

/** The same through the SDK's `ndJsonStream` (the behaviour to match). */
async function sdk(bytes: Uint8Array, cuts: number[], maxMessageBytes = 1 << 20) {
  let written = '';
  const dec = new TextDecoder();
  const output = new WritableStream<Uint8Array>({ write: (c) => void (written += dec.decode(c)) });
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      let at = 0;
      for (const cut of [...cuts, bytes.length]) {
        c.enqueue(bytes.slice(at, cut));
        at = cut;
      }
      c.close();
    },
  });
  const stream = acp.ndJsonStream(output, input, { maxMessageBytes });
  const r = await drain(stream.readable);
  await new Promise((r) => setTimeout(r, 20));
  return { ...r, answers: written.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown) };
}

const LINES = [
  '\uFEFF{"jsonrpc":"2.0","method":"session/update","params":{"text":"café ☕ 𝄞"}}',
  '',
  '   ',
  '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\r',
  '{{{ not json',
  '[1,2,3]',
  '42',
  'null',
  '{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{"path":"/w/a"}}',
  `{"jsonrpc":"2.0","method":"big","params":{"text":"${'y'.repeat(200_000)}"}}`,
  '{"__proto__":{"polluted":true},"jsonrpc":"2.0","method":"m"}',
];

describe('ACP framing on an agent\'s stdio', () => {
  it('gives the SDK\'s messages and answers for any split of the bytes', async () => {
    const bytes = enc.encode(`${LINES.join('\n')}\n{"jsonrpc":"2.0","method":"last, no newline"}`);
    const splits = [[], [1, 2, 3], Array.from({ length: 200 }, (_, i) => i * 7 + 1), [bytes.indexOf(0xe2) + 1, bytes.indexOf(0xf0) + 2], Array.from({ length: 40 }, (_, i) => Math.floor((bytes.length * (i + 1)) / 41))];
    for (const cuts of splits) {
      const got = await ours(bytes, cuts);
      const want = await sdk(bytes, cuts);
      assert.equal(got.error, want.error);
      assert.deepEqual(got.messages, want.messages, `messages for ${cuts.length} cuts`);
      assert.deepEqual(got.answers, want.answers, `answers for ${cuts.length} cuts`);
    }
    const got = await ours(bytes, []);
    assert.equal(got.messages.length, 6);
    assert.deepEqual(got.answers.map((a) => (a as { error: { code: number } }).error.code), [-32700, -32600, -32600, -32600]);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('replaces bytes that are not UTF-8 as the SDK does, wherever the chunks split', async () => {
    const bad = [[0xff], [0xfe, 0xfd], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf]];
    const parts: number[] = [];
    for (const b of bad) parts.push(...enc.encode('{"jsonrpc":"2.0","method":"m","params":{"t":"a'), ...b, ...enc.encode('z"}}\n'));
    const bytes = Uint8Array.from(parts);
    for (const cuts of [[], Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)]) {
      const got = await ours(bytes, cuts);
      const want = await sdk(bytes, cuts);
      assert.deepEqual(got.messages, want.messages, `${cuts.length} cuts`);
    }
  });

  it('gives long lines whole after longer and shorter ones, the line buffer kept or let go', async () => {
    // Lines spanning many chunks are copied into one buffer kept between lines (let go past 4 MiB):
    // a shorter line after a longer one, a character split at every chunk edge, and a line past
    // that size, then small ones, must all come out as the SDK gives them.
    const text = (n: number, seed: string) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? '€' : i % 5 === 0 ? '𝄞' : seed)).join('');
    const msgs = [text(150_000, 'a'), text(40_000, 'b'), 'short', text(1_900_000, 'c'), text(70_000, 'd'), 'end'];
    const bytes = enc.encode(msgs.map((t, i) => JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { i, t } })).join('\r\n') + '\n');
    const cuts: number[] = [];
    for (let at = 1; at < bytes.length; at += 65_536 + (at % 7)) cuts.push(at);
    const got = await ours(bytes, cuts, 64 << 20);
    const want = await sdk(bytes, cuts, 64 << 20);
    assert.equal(got.error, undefined);
    assert.deepEqual(got.messages, want.messages);
    assert.deepEqual((got.messages as { params: { t: string } }[]).map((m) => m.params.t.length), msgs.map((t) => t.length));
  });

  it('ends the stream with a clear error at a line over the limit, and the next stream works', async () => {
    const over = enc.encode(`${JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { text: 'q'.repeat(5000) } })}\n`);
    const got = await ours(over, [100, 2000], 4096);
    assert.deepEqual(got.messages, []);
    assert.match(got.error ?? '', /exceeds the configured 4096 byte limit/);
    // An unterminated line over the limit is caught before its end arrives.
    const input = new PassThrough();
    const s = ndJsonStdio(new PassThrough(), input, { maxMessageBytes: 4096 });
    const r = drain(s.readable);
    input.write('{"a":"' + 'w'.repeat(10_000));
    assert.match((await r).error ?? '', /4096 byte limit/);
    const ok = await ours(enc.encode('{"jsonrpc":"2.0","method":"m"}\n'), [], 4096);
    assert.equal(ok.messages.length, 1);
    // A last line without an ending, one byte over the limit, is refused as the SDK refuses it.
    const last = enc.encode('{"jsonrpc":"2.0","method":"x"}');
    for (const cuts of [[], [last.length - 1]]) {
      const got = await ours(last, cuts, last.length - 1);
      const want = await sdk(last, cuts, last.length - 1);
      assert.deepEqual(got.messages, want.messages);
      assert.match(want.error ?? '', /byte limit/);
      assert.match(got.error ?? '', /byte limit/);
    }
  });

  it('sends what is written as one JSON line each, in order', async () => {
    const output = new PassThrough();
    let written = '';
    output.on('data', (d: Buffer) => (written += d.toString('utf8')));
    const s = ndJsonStdio(output, Readable.from([]), { maxMessageBytes: 1024 });
    const w = s.writable.getWriter();
    for (let i = 0; i < 5; i++) await w.write({ jsonrpc: '2.0', id: i, method: 'm', params: { text: 'line\nbreak' } } as acp.AnyMessage);
    assert.deepEqual(written.trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id), [0, 1, 2, 3, 4]);
    // A write to a closed pipe rejects (the connection reports it), it does not throw.
    const closed = new Writable({ write: (_c, _e, cb) => cb(new Error('EPIPE')) });
    closed.on('error', () => {});
    await assert.rejects(ndJsonStdio(closed, Readable.from([]), { maxMessageBytes: 1024 }).writable.getWriter().write({ jsonrpc: '2.0', method: 'm' } as acp.AnyMessage));
  });

  it('stops reading the agent while the connection has not taken what it was given', async () => {
    const input = new PassThrough({ highWaterMark: 64 * 1024 });
    const s = ndJsonStdio(new PassThrough(), input, { maxMessageBytes: 4 << 20 });
    const line = `${JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { text: 'p'.repeat(1 << 20) } })}\n`;
    // Nobody reads: the agent's writes must come to wait on the pipe, not pile up here.
    let written = 0;
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++) {
      refused = !input.write(line);
      written++;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(refused, `the writer was never told to wait (${written} MiB written)`);
    assert.ok(written < 8, `${written} MiB accepted before it was`);
    // Reading takes everything, in order, and the agent may write again.
    const reader = s.readable.getReader();
    for (let i = 0; i < written; i++) {
      const { value } = await reader.read();
      assert.equal((value as { params: { text: string } }).params.text.length, 1 << 20);
    }
    if (input.writableNeedDrain) await new Promise((r) => input.once('drain', r));
  });
});

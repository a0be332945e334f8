import assert from 'node:assert/strict';
import { DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer } from '../../../src/terminals/outputBuffer';
import { truncateUtf8Front } from '../../../src/terminals/utf8';

/** Small deterministic PRNG so a failure reproduces. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

const alphabet = ['a', 'b', '\n', 'é', '€', '𝄞', 'ж', '中'];

describe('terminals/OutputBuffer', () => {
  it('defaults to a 1 MiB limit', () => {
    assert.equal(new OutputBuffer().limit, 1024 * 1024);
    assert.equal(DEFAULT_OUTPUT_BYTE_LIMIT, 1048576);
  });

  it('returns appended text untouched below the limit', () => {
    const b = new OutputBuffer(100);
    b.append(Buffer.from('hello '));
    b.append(Buffer.from('wörld'));
    assert.deepEqual(b.read(), { text: 'hello wörld', truncated: false });
  });

  it('drops the oldest bytes and repairs a split character at the front', () => {
    const b = new OutputBuffer(5);
    b.append(Buffer.from('ab'));
    b.append(Buffer.from('€€')); // 2 + 6 = 8 bytes; last 5 start inside the first €
    assert.deepEqual(b.read(), { text: '€', truncated: true });
    assert.equal(b.byteLength, 3);
  });

  it('decodes a character that straddles the ring\'s wrap point whole, and matches a plain decode at every rotation', () => {
    // A full ring of 8 bytes rotated by every offset: the stored bytes wrap at a different place each time.
    for (let shift = 0; shift < 8; shift++) {
      const b = new OutputBuffer(8);
      b.append(Buffer.from('x'.repeat(shift)));
      for (const piece of ['€', 'ab', '€']) b.append(Buffer.from(piece)); // 8 bytes, the oldest `shift` dropped
      const expected = truncateUtf8Front(Buffer.from('x'.repeat(shift) + '€ab€'), 8).text;
      assert.equal(b.read().text, expected, `rotation ${shift}`);
      assert.ok(!b.read().text.includes('\uFFFD'), `rotation ${shift}`);
    }
  });

  it('handles a single chunk larger than the limit', () => {
    const b = new OutputBuffer(4);
    b.append(Buffer.from('xyz𝄞'));
    assert.deepEqual(b.read(), { text: '𝄞', truncated: true });
  });

  it('keeps nothing with limit 0 but still reports truncation', () => {
    const b = new OutputBuffer(0);
    assert.deepEqual(b.read(), { text: '', truncated: false });
    b.append(Buffer.from('abc'));
    assert.deepEqual(b.read(), { text: '', truncated: true });
  });

  it('matches truncateUtf8Front of the whole history for random chunking and limits', () => {
    const rand = prng(42);
    for (let round = 0; round < 300; round++) {
      const limit = Math.floor(rand() * 64);
      const b = new OutputBuffer(limit);
      let history = '';
      const chunks = 1 + Math.floor(rand() * 30);
      for (let c = 0; c < chunks; c++) {
        let piece = '';
        const len = Math.floor(rand() * 20);
        for (let k = 0; k < len; k++) piece += alphabet[Math.floor(rand() * alphabet.length)];
        history += piece;
        b.append(Buffer.from(piece));
        const expected = truncateUtf8Front(Buffer.from(history), limit);
        const got = b.read();
        assert.equal(got.text, expected.text, `round ${round} chunk ${c} limit ${limit}`);
        // History only grows, so "ever dropped" is exactly "history exceeds the limit".
        assert.equal(got.truncated, Buffer.byteLength(history) > limit, `round ${round} chunk ${c} truncated`);
      }
    }
  });

  it('never holds more than the limit even for huge output (memory stays bounded)', () => {
    const b = new OutputBuffer(1000);
    const chunk = Buffer.from('€'.repeat(3000));
    for (let i = 0; i < 200; i++) b.append(chunk);
    assert.ok(b.byteLength <= 1000);
    assert.equal(b.bytes().length, b.byteLength);
    assert.ok(b.read().text.length >= 332);
  });

  it('grows lazily instead of allocating the whole limit up front', () => {
    const before = process.memoryUsage().arrayBuffers;
    const b = new OutputBuffer(256 * 1024 * 1024);
    b.append(Buffer.from('ok'));
    const grown = process.memoryUsage().arrayBuffers - before;
    assert.equal(b.read().text, 'ok');
    assert.ok(grown < 8 * 1024 * 1024, `allocated ${grown} bytes for 2 bytes of output`);
  });

  it('clear() empties the buffer', () => {
    const b = new OutputBuffer(10);
    b.append(Buffer.from('abc'));
    b.clear();
    assert.equal(b.read().text, '');
  });
});

/**
 * Lines of a child's output (src/common/lines.ts), shared by the ACP agents' framing and the stdio
 * MCP transport: long lines decoded in pieces to the same text, lines whole across any split of the
 * bytes, CRLF, the limit, and the last line without an ending.
 */
import assert from 'node:assert/strict';
import { decode, LineFramer } from '../../../src/common/lines';

/** Every line `bytes` gives when cut at `cuts`, and whether the framer refused a line. */
function frame(bytes: Buffer, cuts: number[], max: number): { lines: string[]; refused: boolean } {
  const f = new LineFramer(max);
  const lines: string[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    if (!f.push(bytes.subarray(from, at), (l) => lines.push(l))) return { lines, refused: true };
    from = at;
  }
  const last = f.end();
  if (last === false) return { lines, refused: true };
  if (last !== undefined) lines.push(last);
  return { lines, refused: false };
}

describe('lines of a child process\'s output', () => {
  it('decodes a long line in pieces to the text one decode gives, invalid bytes and split characters included', () => {
    // Bytes that start, continue, end or break characters: every piece edge must land where one
    // decode would start afresh, or a character or a U+FFFD would come out differently.
    const alphabet = [0x41, 0x7f, 0x80, 0x8f, 0x90, 0xa0, 0xbf, 0xc0, 0xc3, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 3000; n++) {
      const buf = Buffer.from(Array.from({ length: 1 + (next() % 40) }, () => alphabet[next() % alphabet.length]));
      for (const piece of [4, 5, 6, 7, 9]) assert.equal(decode(buf, 0, buf.length, piece), buf.toString('utf8'), `${buf.toString('hex')} in pieces of ${piece}`);
    }
    const long = Buffer.from('é€𝄞a'.repeat(200_000));
    assert.equal(decode(long, 3, long.length - 2), long.toString('utf8', 3, long.length - 2));
  });
  it('gives each line whole, its CR dropped, for any split of the bytes, and the last line without an ending', () => {
    const text = 'one\r\ntwo€\n\n' + 'x'.repeat(200_000) + '\r\n𝄞 last';
    const bytes = Buffer.from(text);
    const want = ['one', 'two€', '', 'x'.repeat(200_000), '𝄞 last'];
    assert.deepEqual(frame(bytes, [], 1 << 20).lines, want);
    for (const step of [1, 3, 7, 65_536]) {
      const cuts: number[] = [];
      for (let at = step; at < bytes.length; at += step) cuts.push(at);
      assert.deepEqual(frame(bytes, cuts, 1 << 20).lines, want, `cut every ${step} bytes`);
    }
  });

  it('refuses a line over the limit and reads nothing after it; a CR of a CRLF is not counted', () => {
    assert.deepEqual(frame(Buffer.from('12345\r\n123456\nok\n'), [], 5), { lines: ['12345'], refused: true });
    assert.deepEqual(frame(Buffer.from('12345\r\n123456\nok\n'), [6, 7, 9], 5), { lines: ['12345'], refused: true });
    // A line that has not ended yet is refused as soon as it is over the limit.
    const f = new LineFramer(4);
    assert.equal(f.push(Buffer.from('12345'), () => assert.fail('no line')), true);
    assert.equal(f.push(Buffer.from('6'), () => assert.fail('no line')), false);
    assert.equal(f.push(Buffer.from('\nok\n'), () => assert.fail('stopped')), true);
    // The last line, without an ending, is held to the same limit: one byte more waited only in
    // case it was the CR of a CRLF.
    assert.deepEqual(frame(Buffer.from('\na'), [1], 0), { lines: [''], refused: true });
    assert.deepEqual(frame(Buffer.from('12345\n123456'), [], 5), { lines: ['12345'], refused: true });
    assert.deepEqual(frame(Buffer.from('12345\n12345\r'), [], 5), { lines: ['12345', '12345'], refused: false });
  });

  it('decodes in pieces of at least four bytes, whatever size is asked', () => {
    const buf = Buffer.from('f09f9880f09f9880', 'hex');
    for (const piece of [0, 1, 2, 3]) assert.equal(decode(buf, 0, buf.length, piece), buf.toString('utf8'));
  });

  it('reads nothing more once a line\'s reader stops it', () => {
    const f = new LineFramer(100);
    const got: string[] = [];
    f.push(Buffer.from('a\nb\nc'), (l) => {
      got.push(l);
      f.stop();
    });
    assert.deepEqual(got, ['a']);
    assert.equal(f.end(), undefined);
  });
});

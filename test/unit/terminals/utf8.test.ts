import assert from 'node:assert/strict';
import { completeUtf8Prefix, decodeUtf8, truncateUtf8Front, utf8BoundaryAtOrAfter } from '../../../src/terminals/utf8';

const enc = (s: string) => Buffer.from(s, 'utf8');

describe('terminals/utf8 truncateUtf8Front', () => {
  it('keeps everything when the limit is larger than the input', () => {
    const r = truncateUtf8Front(enc('héllo €𝄞'), 100);
    assert.equal(r.text, 'héllo €𝄞');
    assert.equal(r.truncated, false);
  });

  it('keeps everything when the limit equals the input length', () => {
    const input = enc('a€');
    const r = truncateUtf8Front(input, input.length);
    assert.equal(r.text, 'a€');
    assert.equal(r.truncated, false);
  });

  it('keeps nothing with limit 0 and reports truncation only if there was input', () => {
    assert.deepEqual({ ...truncateUtf8Front(enc('abc'), 0), bytes: undefined }, { bytes: undefined, text: '', truncated: true });
    assert.equal(truncateUtf8Front(enc(''), 0).truncated, false);
    assert.equal(truncateUtf8Front(enc(''), 0).text, '');
  });

  it('cuts ASCII exactly at the limit', () => {
    const r = truncateUtf8Front(enc('abcdef'), 4);
    assert.equal(r.text, 'cdef');
    assert.equal(r.bytes.length, 4);
    assert.equal(r.truncated, true);
  });

  // Each case: input, limit, expected kept text. The cut positions land on every byte of the
  // multibyte character at the front so a single off-by-one shows up.
  const cases: Array<[string, number, string]> = [
    // 2-byte é (c3 a9): "xé" + "yz"
    ['xéyz', 4, 'éyz'], // cut lands on the lead byte: keep the whole character
    ['xéyz', 3, 'yz'], // cut lands on the continuation byte: drop the rest of é
    // 3-byte € (e2 82 ac)
    ['x€yz', 5, '€yz'],
    ['x€yz', 4, 'yz'],
    ['x€yz', 3, 'yz'],
    // 4-byte 𝄞 (f0 9d 84 9e)
    ['x𝄞yz', 6, '𝄞yz'],
    ['x𝄞yz', 5, 'yz'],
    ['x𝄞yz', 4, 'yz'],
    ['x𝄞yz', 3, 'yz'],
    // Only multibyte characters: the cut inside the first kept one drops up to 3 bytes.
    ['€€€', 8, '€€'],
    ['€€€', 7, '€€'],
    ['€€€', 6, '€€'],
    ['€€€', 5, '€'],
    ['𝄞𝄞', 7, '𝄞'],
    ['𝄞𝄞', 4, '𝄞'],
    ['𝄞𝄞', 3, ''],
    ['é', 1, ''],
  ];
  for (const [input, limit, expected] of cases) {
    it(`keeps ${JSON.stringify(expected)} of ${JSON.stringify(input)} with limit ${limit}`, () => {
      const r = truncateUtf8Front(enc(input), limit);
      assert.equal(r.text, expected);
      assert.ok(r.bytes.length <= limit);
      assert.equal(r.truncated, true);
      assert.ok(!r.text.includes('\uFFFD'));
    });
  }

  it('never yields U+FFFD or exceeds the limit for any cut of mixed text', () => {
    const input = enc('aé€𝄞b'.repeat(5));
    for (let limit = 0; limit <= input.length + 1; limit++) {
      const r = truncateUtf8Front(input, limit);
      assert.ok(r.bytes.length <= limit, `limit ${limit}`);
      assert.ok(r.bytes.length >= Math.min(limit, input.length) - 3, `limit ${limit} kept too little`);
      assert.ok(!r.text.includes('\uFFFD'), `limit ${limit} produced U+FFFD`);
      assert.ok(input.toString('utf8').endsWith(r.text), `limit ${limit} is not a suffix`);
    }
  });

  it('returns a view of the input, not a copy', () => {
    const input = enc('abcdef');
    const r = truncateUtf8Front(input, 2);
    assert.equal(r.bytes.buffer, input.buffer);
  });

  it('rejects negative and fractional limits', () => {
    assert.throws(() => truncateUtf8Front(enc('a'), -1), RangeError);
    assert.throws(() => truncateUtf8Front(enc('a'), 1.5), RangeError);
  });

  it('skips at most three continuation bytes on malformed input', () => {
    const bad = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x41]);
    assert.equal(utf8BoundaryAtOrAfter(bad, 0), 3);
    assert.equal(utf8BoundaryAtOrAfter(bad, 5), 5);
    assert.equal(utf8BoundaryAtOrAfter(bad, 99), bad.length);
  });

  it('decodes subarrays with an offset correctly', () => {
    const whole = enc('ab€cd');
    assert.equal(decodeUtf8(whole.subarray(2, 5)), '€');
  });
});

describe('terminals/utf8 completeUtf8Prefix', () => {
  const euro = Buffer.from('€', 'utf8'); // e2 82 ac
  const emoji = Buffer.from('😀', 'utf8'); // f0 9f 98 80

  it('holds back a character the chunk ends inside, at every split point', () => {
    for (const ch of [Buffer.from('é'), euro, emoji]) {
      for (let cut = 1; cut < ch.length; cut++) {
        const chunk = Buffer.concat([Buffer.from('ab'), ch.subarray(0, cut)]);
        assert.equal(completeUtf8Prefix(chunk), 2, `${ch.toString()} cut after ${cut} bytes`);
      }
      assert.equal(completeUtf8Prefix(Buffer.concat([Buffer.from('ab'), ch])), 2 + ch.length, 'a whole character stays');
    }
  });

  it('keeps ASCII, empty input and malformed bytes whole (the decoder replaces those)', () => {
    assert.equal(completeUtf8Prefix(Buffer.from('abc')), 3);
    assert.equal(completeUtf8Prefix(Buffer.alloc(0)), 0);
    assert.equal(completeUtf8Prefix(Buffer.from([0x61, 0xff])), 2, 'an invalid lead byte is not waited for');
    assert.equal(completeUtf8Prefix(Buffer.from([0x80, 0x80, 0x80, 0x80])), 4, 'stray continuation bytes are not held');
  });
});

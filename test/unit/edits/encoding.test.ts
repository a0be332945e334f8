import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { chunkDecoder, decodeFile, detectEol, encodeFile, UndecodableError } from '../../../src/edits/encoding';

describe('encodings and line endings', () => {
  it('a CRLF file stays CRLF when the agent writes LF text', () => {
    const { text, format } = decodeFile(Buffer.from('one\r\ntwo\r\n'));
    assert.equal(format.eol, '\r\n');
    assert.equal(text, 'one\r\ntwo\r\n');
    const out = Buffer.from(encodeFile('one\ntwo\nthree\n', format)).toString('utf8');
    assert.equal(out, 'one\r\ntwo\r\nthree\r\n');
    assert.equal(detectEol('a\nb\r\nc\n'), '\n');
  });

  it('UTF-16LE with BOM round-trips in its own encoding', () => {
    const bytes = iconv.encode('héllo\r\nwörld\r\n', 'utf16le', { addBOM: true });
    const { text, format } = decodeFile(bytes);
    assert.deepEqual(format, { encoding: 'utf16le', bom: true, eol: '\r\n' });
    assert.equal(text, 'héllo\r\nwörld\r\n');
    const written = Buffer.from(encodeFile('héllo\nwörld\nnew\n', format));
    assert.deepEqual([...written.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(iconv.decode(written, 'utf16le', { stripBOM: true }), 'héllo\r\nwörld\r\nnew\r\n');
  });

  it('GBK is written back as GBK (given the editor\'s encoding)', () => {
    const bytes = iconv.encode('中文注释\n', 'gbk');
    const { text, format } = decodeFile(bytes, 'gbk');
    assert.equal(text, '中文注释\n');
    const written = Buffer.from(encodeFile('中文注释\n新的一行\n', format));
    assert.deepEqual(written, iconv.encode('中文注释\n新的一行\n', 'gbk'));
  });

  it('refuses bytes that do not decode, and text the encoding cannot store', () => {
    assert.throws(() => decodeFile(Uint8Array.from([0x61, 0xc3, 0x28])), UndecodableError);
    assert.throws(() => encodeFile('emoji 😀\n', { encoding: 'gbk', bom: false, eol: '\n' }), /cannot store/);
  });

  it('a multi-byte character split across chunks decodes whole', () => {
    const bytes = Buffer.from('añ€😀z', 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const d = chunkDecoder('utf8');
      const text = d.write(bytes.subarray(0, cut)) + d.write(bytes.subarray(cut)) + d.end();
      assert.equal(text, 'añ€😀z', `cut at ${cut}`);
    }
    const gbk = iconv.encode('中文', 'gbk');
    const d = chunkDecoder('gbk');
    assert.equal(d.write(gbk.subarray(0, 1)) + d.write(gbk.subarray(1)) + d.end(), '中文');
  });

  it('UTF-8 without iconv-lite behaves as iconv-lite did: BOMs, U+FEFF text, VS Code\'s utf8bom', () => {
    const withBom = Buffer.from('\ufeffhi', 'utf8');
    for (const [a, b] of [[1, 3], [2, 4], [3, 5]]) {
      const ours = chunkDecoder('utf8');
      const theirs = iconv.getDecoder('utf8');
      assert.equal(ours.write(withBom.subarray(0, a)) + ours.write(withBom.subarray(a, b)) + ours.end(), theirs.write(withBom.subarray(0, a)) + theirs.write(withBom.subarray(a, b)) + (theirs.end() ?? ''));
    }
    // Text that starts with U+FEFF cannot be stored without a BOM the file did not have.
    assert.throws(() => encodeFile('\ufeffx', { encoding: 'utf8', bom: false, eol: '\n' }), UndecodableError);
    assert.throws(() => iconvEncodeChecked('\ufeffx'), /differs/);
    assert.deepEqual([...encodeFile('x', { encoding: 'utf8', bom: true, eol: '\n' })], [0xef, 0xbb, 0xbf, 0x78]);
    assert.deepEqual(decodeFile(Buffer.from('é'), 'utf8bom'), { text: 'é', format: { encoding: 'utf8', bom: false, eol: '\n' } });
  });
});

/** What the iconv-lite code did: encode, then decode with the BOM stripped, and compare. */
function iconvEncodeChecked(text: string): Buffer {
  const bytes = iconv.encode(text, 'utf8', { addBOM: false });
  if (iconv.decode(bytes, 'utf8', { stripBOM: true }) !== text) throw new Error('the round trip differs');
  return bytes;
}

import assert from 'node:assert/strict';
import { sliceLines } from '../../../src/fs/text';

describe('sliceLines (fs/read_text_file line + limit)', () => {
  const lf = 'one\ntwo\nthree\nfour\n';
  const crlf = 'one\r\ntwo\r\nthree\r\nfour';
  it('returns the text unchanged without line and limit', () => {
    assert.equal(sliceLines(crlf), crlf);
  });
  it('is 1-based and honours limit', () => {
    assert.equal(sliceLines(lf, 2, 2), 'two\nthree\n');
    assert.equal(sliceLines(lf, 1, 1), 'one\n');
  });
  it('leaves no \\r behind on CRLF text', () => {
    assert.equal(sliceLines(crlf, 2, 2), 'two\nthree\n');
    assert.equal(sliceLines(crlf, 3), 'three\nfour');
    assert.ok(!sliceLines(crlf, 1, 3).includes('\r'));
  });
  it('handles the edges', () => {
    assert.equal(sliceLines(lf, 10), '');
    assert.equal(sliceLines(lf, 0, 1), 'one\n');
    assert.equal(sliceLines(lf, 1, 0), '');
    assert.equal(sliceLines(lf, 4), 'four\n');
    assert.equal(sliceLines('', 1, 5), '');
  });
});

import assert from 'node:assert/strict';
import { diffPreview } from '../../../webview/session/diffPreview';

describe('webview diff preview', () => {
  it('shows changed lines with line numbers and a hunk named by the line it changes', () => {
    const p = diffPreview('t:1', 'a\nb\nc\n', 'a\nB\nc\n');
    assert.deepEqual(p.lines.map((l) => [l.type, l.text, l.line]), [
      ['hunk', 'Line 2', undefined],
      ['ctx', 'a', 1],
      ['del', 'b', 2],
      ['add', 'B', 2],
      ['ctx', 'c', 3],
    ]);
    assert.equal(p.moreChanges, 0);
  });

  it('caps the preview at 20 changed lines and counts the rest', () => {
    const oldText = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const newText = Array.from({ length: 50 }, (_, i) => `LINE ${i}`).join('\n') + '\n';
    const p = diffPreview('t:2', oldText, newText);
    assert.equal(p.lines.filter((l) => l.type === 'add' || l.type === 'del').length, 20);
    assert.equal(p.moreChanges, 80);
  });

  it('treats a null old text as a new file (additions only, no hunk header)', () => {
    const p = diffPreview('t:3', null, 'x\ny\n');
    assert.deepEqual(p.lines.map((l) => l.type), ['add', 'add']);
  });

  it('returns the cached preview for the same texts', () => {
    const a = diffPreview('t:4', 'a\n', 'b\n');
    assert.equal(diffPreview('t:4', 'a\n', 'b\n'), a);
    assert.notEqual(diffPreview('t:4', 'a\n', 'c\n'), a);
  });
});

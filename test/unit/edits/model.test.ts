import assert from 'node:assert/strict';
import { applyHunk, changedMiddle, endPosition, hunksOf, invertHunk, mergeOnto, proposeChange, staleness, textHash, toTextDocumentEdit } from '../../../src/edits/model';
import { changedLines, hunkTitle } from '../../../src/edits/hunkTitle';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('proposed change model', () => {
  it('hunks, hash and the LSP TextDocumentEdit with a versioned identifier', () => {
    const base = 'a\nb\nc\n';
    const c = proposeChange('file:///w/x.txt', base, 'a\nB\nc\n', 7);
    assert.equal(c.baseHash, textHash(base));
    assert.equal(c.hunks.length, 1);
    assert.deepEqual(c.hunks[0].lines, [' a', '-b', '+B', ' c']);
    const edit = toTextDocumentEdit(c);
    assert.deepEqual(edit.textDocument, { uri: 'file:///w/x.txt', version: 7 });
    assert.deepEqual(edit.edits[0].range, { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } });
    assert.equal((edit.edits[0] as { newText: string }).newText, 'a\nB\nc\n');
    assert.deepEqual(endPosition('x\r\nyz'), { line: 1, character: 2 });
  });

  it('detects a changed version or content (conflict)', () => {
    const c = proposeChange('u', 'a\n', 'b\n', 3);
    assert.equal(staleness(c, { version: 3, text: 'a\n' }), undefined);
    assert.deepEqual(staleness(c, { version: 4, text: 'a\n' }), { reason: 'version_changed', from: 3, to: 4 });
    assert.deepEqual(staleness(c, { version: 3, text: 'a!\n' }), { reason: 'content_changed' });
    assert.deepEqual(staleness(proposeChange('u', 'a\n', 'b\n', null), { version: 9, text: 'x' }), { reason: 'content_changed' });
  });

  it('three-way merge: the agent\'s hunks land on the person\'s text where they do not overlap', () => {
    const base = lines(40);
    const agent = base.replace('line 5\n', 'line 5 (agent)\n').replace('line 35\n', 'line 35 (agent)\n');
    const person = base.replace('line 20\n', 'line 20 (person)\n');
    const c = proposeChange('u', base, agent, 1, 1);
    assert.equal(c.hunks.length, 2);
    const m = mergeOnto(c, person);
    assert.equal(m.conflicts.length, 0);
    assert.ok(m.text.includes('line 5 (agent)') && m.text.includes('line 35 (agent)') && m.text.includes('line 20 (person)'));
  });

  it('three-way merge: an overlapping hunk is a conflict and the person\'s lines stay', () => {
    const base = lines(40);
    const agent = base.replace('line 5\n', 'line 5 (agent)\n').replace('line 35\n', 'line 35 (agent)\n');
    const person = base.replace('line 35\n', 'line 35 (person)\n');
    const m = mergeOnto(proposeChange('u', base, agent, 1, 1), person);
    assert.equal(m.applied.length, 1);
    assert.equal(m.conflicts.length, 1);
    assert.ok(m.text.includes('line 5 (agent)'));
    assert.ok(m.text.includes('line 35 (person)') && !m.text.includes('line 35 (agent)'));
  });

  it('takes only the chosen hunks; a hunk and its inverse round-trip (per-hunk undo)', () => {
    const base = lines(30);
    const agent = base.replace('line 2\n', 'two\n').replace('line 28\n', 'twenty-eight\n');
    const c = proposeChange('u', base, agent, 1, 1);
    const only = mergeOnto(c, base, new Set([1]));
    assert.ok(!only.text.includes('two\n') && only.text.includes('twenty-eight'));
    const undone = applyHunk(agent, invertHunk(c.hunks[0]));
    assert.equal(undone, agent.replace('two\n', 'line 2\n'), 'undo of the first hunk keeps the second');
  });

  it('pure deletions, a created file, and a file without a final newline', () => {
    const del = hunksOf('a\nb\nc\n', 'a\nc\n');
    assert.deepEqual(del[0].lines.filter((l) => l.startsWith('-')), ['-b']);
    assert.equal(applyHunk('a\nc\n', invertHunk(del[0])), 'a\nb\nc\n', 'a pure deletion can be undone');
    const created = proposeChange('u', '', 'new\n', null);
    assert.equal(mergeOnto(created, '').text, 'new\n');
    const nonl = proposeChange('u', 'x\ny', 'x\nY', 1);
    assert.equal(mergeOnto(nonl, 'x\ny').text, 'x\nY');
  });
});

describe('changed middle of two texts (minimal document edit)', () => {
  const apply = (a: string, b: string) => {
    const m = changedMiddle(a, b);
    return a.slice(0, m.start) + b.slice(m.start, m.endNew) + a.slice(m.endOld);
  };
  it('replaces only what differs and never splits CRLF or surrogate pairs', () => {
    assert.deepEqual(changedMiddle('abcXdef', 'abcYYdef'), { start: 3, endOld: 4, endNew: 5 });
    for (const [a, b] of [
      ['a\r\nb', 'a\nb'],
      ['a\nb', 'a\r\nb'],
      ['x\r\ny', 'x\r\r\ny'],
      ['😀a', '😁a'],
      ['a😀', 'a😁'],
      ['', 'new'],
      ['same', 'same'],
    ]) {
      const m = changedMiddle(a, b);
      assert.equal(apply(a, b), b, JSON.stringify([a, b]));
      for (const [s, i] of [[a, m.start], [a, m.endOld], [b, m.start], [b, m.endNew]] as const) {
        assert.ok(!(s[i - 1] === '\r' && s[i] === '\n'), `splits CRLF in ${JSON.stringify(s)} at ${i}`);
        assert.ok(!(s.charCodeAt(i) >= 0xdc00 && s.charCodeAt(i) <= 0xdfff), `splits a surrogate pair in ${JSON.stringify(s)} at ${i}`);
      }
    }
  });

  it('names a hunk by the lines it changes, not its context: added, replaced, removed only', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');
    const base = lines(10);
    const [added] = hunksOf(base, base.replace('line 5\n', 'line 5\nnew a\nnew b\nnew c\n'));
    assert.equal(added.newStart, 3, 'the hunk starts at its context');
    assert.deepEqual(changedLines(added), { first: 6, last: 8 });
    const [replaced] = hunksOf(base, base.replace('line 7\n', 'LINE 7\n'));
    assert.deepEqual(changedLines(replaced), { first: 7, last: 7 });
    const [removed] = hunksOf(base, base.replace('line 4\nline 5\n', ''));
    assert.deepEqual(changedLines(removed), { first: 4, last: 5 }, 'the base lines it removed');
    assert.deepEqual([hunkTitle(added), hunkTitle(replaced), hunkTitle(removed)], ['Lines 6–8', 'Line 7', 'Lines 4–5']);
  });
});

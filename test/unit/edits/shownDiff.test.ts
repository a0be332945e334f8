/**
 * What the review shows for a change: the file's text before the turn and the counts of exactly
 * that diff; a file moved in one call is shown from its old path's text, and only a real move is.
 */
import assert from 'node:assert/strict';
import { ReviewModel } from '../../../src/edits/review';
import { shownDiff } from '../../../src/edits/shownDiff';

const text = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}`).join('\n') + '\n';

describe('the diff the review shows', () => {
  it('an edited, a created and a deleted file: the base before the turn, the change\'s own counts', () => {
    const m = new ReviewModel();
    const edited = m.record('s', 1, '/w/a.ts', 'client', { text: text(5) }, text(5) + 'x\ny\nz\n', 't1')!;
    assert.deepEqual({ ...shownDiff(m, edited), hunks: undefined }, { before: text(5), beforePath: '/w/a.ts', afterPath: '/w/a.ts', moved: false, what: 'changed', hunks: undefined, added: 3, removed: 0 });
    const created = m.record('s', 1, '/w/b.ts', 'client', { text: null }, 'b\n', 't2')!;
    assert.equal(shownDiff(m, created).what, 'created');
    assert.equal(shownDiff(m, created).before, '');
    const deleted = m.record('s', 1, '/w/c.ts', 'agent', { text: 'c\n' }, null, 't3')!;
    assert.equal(shownDiff(m, deleted).what, 'deleted');
    assert.equal(shownDiff(m, deleted).before, 'c\n');
    const unknown = m.record('s', 1, '/w/d.ts', 'agent', { text: 'read\n', uncertain: 'it changed while it was read' }, 'new\n', 't4')!;
    assert.equal(shownDiff(m, unknown).what, 'base unknown');
    assert.equal(shownDiff(m, unknown).before, 'read\n', 'what was read is still shown');
  });

  it('line endings that changed are named (the diff editor does not show them)', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/a.ts', 'agent', { text: text(3).replace(/\n/g, '\r\n') }, text(3), 't1')!;
    assert.equal(shownDiff(m, c).lineEndings, 'CRLF → LF');
    const same = m.record('s', 1, '/w/b.ts', 'agent', { text: text(3).replace(/\n/g, '\r\n') }, text(4).replace(/\n/g, '\r\n'), 't2')!;
    assert.equal(shownDiff(m, same).lineEndings, undefined);
  });

  it('one call that removed a file and created one with its lines is a move: both show the old text ↔ the new, counted so', () => {
    const m = new ReviewModel();
    // Recorded in either order (each path is compared on its own).
    const to = m.record('s', 1, '/w/new/b.ts', 'agent', { text: null }, text(9) + 'extra\n', 'mv')!;
    const from = m.record('s', 1, '/w/a.ts', 'agent', { text: text(9) }, null, 'mv')!;
    for (const c of [to, from]) {
      const d = shownDiff(m, c);
      assert.equal(d.what, 'moved');
      assert.equal(d.before, text(9));
      assert.equal(d.beforePath, '/w/a.ts');
      assert.equal(d.afterPath, '/w/new/b.ts');
      assert.deepEqual([d.added, d.removed], [1, 0]);
    }
    assert.deepEqual(to.moved, { from: '/w/a.ts', id: from.id });
    // Undo still plans each path on its own: the new one is removed, the old one restored.
    assert.equal(m.planUndo(to.id, text(9) + 'extra\n').action, 'delete');
    assert.equal(m.planUndo(from.id, null).action, 'restoreBase');
    // Once the new file is gone again in the same turn, it is no move any more.
    m.record('s', 1, '/w/new/b.ts', 'agent', { text: text(9) + 'extra\n' }, null, 'rm');
    assert.equal(shownDiff(m, from).what, 'deleted');
  });

  it('not a move: another call, other text, or more than one candidate', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/a.ts', 'agent', { text: text(9) }, null, 't1');
    const other = m.record('s', 1, '/w/b.ts', 'agent', { text: null }, text(9), 't2')!;
    assert.equal(shownDiff(m, other).what, 'created', 'another call');
    m.record('s', 1, '/w/c.ts', 'agent', { text: text(9) }, null, 't3');
    const unlike = m.record('s', 1, '/w/d.ts', 'agent', { text: null }, text(9, ' rewritten'), 't3')!;
    assert.equal(shownDiff(m, unlike).what, 'created', 'nothing of the old text');
    m.record('s', 1, '/w/e.ts', 'agent', { text: text(9) }, null, 't4');
    m.record('s', 1, '/w/f.ts', 'agent', { text: text(9) }, null, 't4');
    const two = m.record('s', 1, '/w/g.ts', 'agent', { text: null }, text(9), 't4')!;
    assert.equal(shownDiff(m, two).what, 'created', 'two files it could have come from');
  });
});

/**
 * The end-of-turn summary the thread shows is a reading of the review: its files and counts are
 * the review's diffs, its states the person's decisions, a moved file is one file, and a file a
 * later turn changed again says so.
 */
import assert from 'node:assert/strict';
import { ReviewModel } from '../../../src/edits/review';
import { turnSummaries } from '../../../src/edits/turnSummary';

const text = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}`).join('\n') + '\n';
const ROOTS = ['/w'];

describe('the end-of-turn summary', () => {
  it('per ended turn: its files with the review\'s counts, the prompt that began it and the one it ends before', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/src/greet.ts', 'client', { text: text(5) }, text(5) + 'a\nb\nc\n', 't1');
    m.record('s', 1, '/w/new.md', 'agent', { text: null }, 'hi\n', 't2');
    m.record('s', 2, '/w/gone.txt', 'agent', { text: 'x\ny\n' }, null, 't3');
    m.record('other', 1, '/w/x.ts', 'client', { text: 'x\n' }, 'y\n', 'o1');
    const rows = turnSummaries(m, 's', ['e0', 'e7'], false, ROOTS);
    assert.deepEqual(rows.map((r) => [r.turn, r.promptEntryId, r.endsBefore]), [[1, 'e0', 'e7'], [2, 'e7', undefined]]);
    assert.deepEqual(rows[0].files.map((f) => [f.name, f.dir, f.what, f.added, f.removed, f.state]), [
      ['greet.ts', 'src', 'changed', 3, 0, 'pending'],
      ['new.md', '', 'created', 1, 0, 'pending'],
    ]);
    assert.deepEqual(rows[1].files.map((f) => [f.name, f.what, f.added, f.removed]), [['gone.txt', 'deleted', 0, 2]]);
  });

  it('a turn still running has no row yet; earlier ones keep theirs', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/a.ts', 'client', { text: 'a\n' }, 'b\n', 't1');
    m.record('s', 2, '/w/b.ts', 'client', { text: 'a\n' }, 'b\n', 't2');
    assert.deepEqual(turnSummaries(m, 's', ['e0', 'e5'], true, ROOTS).map((r) => r.turn), [1]);
    assert.deepEqual(turnSummaries(m, 's', ['e0', 'e5'], false, ROOTS).map((r) => r.turn), [1, 2]);
  });

  it('states follow the review: kept, undone, partly undone, and pending while any hunk waits', () => {
    const m = new ReviewModel();
    const two = text(20).replace('line 2\n', 'line 2!\n').replace('line 18\n', 'line 18!\n');
    const a = m.record('s', 1, '/w/a.ts', 'client', { text: text(20) }, two, 't1')!;
    const b = m.record('s', 1, '/w/b.ts', 'client', { text: text(20) }, two, 't2')!;
    const c = m.record('s', 1, '/w/c.ts', 'client', { text: text(20) }, two, 't3')!;
    const states = () => turnSummaries(m, 's', ['e0'], false, ROOTS)[0].files.map((f) => f.state);
    assert.deepEqual(states(), ['pending', 'pending', 'pending']);
    m.keep(a.id);
    m.undone(b.id);
    m.undone(c.id, 0);
    assert.deepEqual(states(), ['kept', 'undone', 'pending']);
    m.keep(c.id, 1);
    assert.deepEqual(states(), ['kept', 'undone', 'partly']);
  });

  it('a file moved in the turn is one file, named from where it came; a later turn\'s change of a file is named', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/old.ts', 'agent', { text: text(9) }, null, 'mv');
    const to = m.record('s', 1, '/w/lib/new.ts', 'agent', { text: null }, text(9) + 'x\n', 'mv')!;
    m.record('s', 1, '/w/a.ts', 'client', { text: 'a\n' }, 'b\n', 't1');
    m.record('s', 3, '/w/a.ts', 'client', { text: 'b\n' }, 'c\n', 't2');
    const [first] = turnSummaries(m, 's', ['e0', 'e4', 'e8'], false, ROOTS);
    assert.deepEqual(first.files.map((f) => [f.name, f.movedFrom, f.what, f.added, f.removed, f.laterTurn]), [
      ['new.ts', 'old.ts', 'moved', 1, 0, undefined],
      ['a.ts', undefined, 'changed', 1, 1, 3],
    ]);
    assert.equal(first.files[0].changeId, to.id);
    m.keep(to.id);
    assert.equal(turnSummaries(m, 's', ['e0', 'e4', 'e8'], false, ROOTS)[0].files[0].state, 'pending', 'both paths of a move decide its state');
  });

  it('a base not known for certain is said, and a file outside every root keeps its folder', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/elsewhere/wt/a.ts', 'agent', { text: '', uncertain: 'it was empty when read' }, 'x\n', 't1');
    const [row] = turnSummaries(m, 's', ['e0'], false, ROOTS);
    assert.deepEqual([row.files[0].what, row.files[0].dir], ['base unknown', '/elsewhere/wt']);
  });
});

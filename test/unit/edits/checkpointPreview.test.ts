/**
 * The forecast a checkpoint's confirmation shows: the files that go back to before a turn (that
 * turn's and later turns' changes), the ones already back left out, and the ones the restore will
 * leave alone with why; and the turn a person's message started, as the review numbered it.
 */
import assert from 'node:assert/strict';
import { changedSinceText, leftAloneText, previewCheckpoint } from '../../../src/edits/checkpointPreview';
import { ReviewModel } from '../../../src/edits/review';

function twoTurns(): ReviewModel {
  const m = new ReviewModel();
  m.turnStarted('s', 1, 'first', 'e1');
  m.record('s', 1, '/w/a.txt', 'client', { text: 'a0\n' }, 'a1\n', 't1', 1);
  m.record('s', 1, '/w/n.txt', 'agent', { text: null }, 'new\n', 't2', 2);
  m.turnStarted('s', 2, 'second', 'e5');
  m.record('s', 2, '/w/a.txt', 'client', { text: 'a1\n' }, 'a2\n', 't3', 3);
  m.record('s', 2, '/w/b.txt', 'agent', { text: 'b0\n' }, 'b2\n', 't4', 4);
  return m;
}

describe('checkpoint preview', () => {
  it('maps each of the person\'s messages to the turn it started, in that session only', () => {
    const m = twoTurns();
    assert.equal(m.turnOfEntry('s', 'e1'), 1);
    assert.equal(m.turnOfEntry('s', 'e5'), 2);
    assert.equal(m.turnOfEntry('s', 'e3'), undefined, 'an entry that started no turn');
    assert.equal(m.turnOfEntry('other', 'e1'), undefined);
  });

  it('from the first message: every file of both turns goes back; one later turn is undone with it', () => {
    const p = previewCheckpoint(twoTurns(), 's', 1);
    assert.deepEqual(p.files.map((f) => [f.path, f.leftAlone]), [['/w/a.txt', undefined], ['/w/n.txt', undefined], ['/w/b.txt', undefined]]);
    assert.equal(p.laterTurns, 1);
    const second = previewCheckpoint(twoTurns(), 's', 2);
    assert.deepEqual(second.files.map((f) => f.path), ['/w/a.txt', '/w/b.txt']);
    assert.equal(second.laterTurns, 0);
  });

  it('leaves out files already back as before the turn (undone or restored), so the count is what will change', () => {
    const m = twoTurns();
    const b = m.latest('s', 2, '/w/b.txt')!;
    m.undone(b.id);
    assert.deepEqual(previewCheckpoint(m, 's', 2).files.map((f) => f.path), ['/w/a.txt']);
    m.restored(m.checkpoint('s', 1).flatMap((e) => e.ids));
    assert.deepEqual(previewCheckpoint(m, 's', 1).files, [], 'nothing left to restore');
  });

  it('marks the files the restore will leave alone, and says why', () => {
    const m = twoTurns();
    m.noteLater('/w/b.txt', 'person');
    // Another session wrote n.txt after this one.
    m.record('t', 1, '/w/n.txt', 'agent', { text: 'new\n' }, 'theirs\n', 'x', 10);
    // A base not known for certain.
    m.turnStarted('s', 3, 'third', 'e9');
    m.record('s', 3, '/w/u.txt', 'agent', { text: '', uncertain: 'the file changed while it was read' }, 'u3\n', 't5', 11);
    const p = previewCheckpoint(m, 's', 1);
    const why = Object.fromEntries(p.files.map((f) => [f.path, f.leftAlone && leftAloneText(f.leftAlone)]));
    assert.deepEqual(why, {
      '/w/a.txt': undefined,
      '/w/n.txt': 'another session changed it since',
      '/w/b.txt': 'you changed it since',
      '/w/u.txt': 'what it held before the turn is not known for certain',
    });
    assert.equal(p.laterTurns, 1, 'turn 3 changed only a file that is left alone: nothing of it is undone');
    assert.equal(changedSinceText(m, '/w/b.txt'), 'you changed it since');
    assert.equal(changedSinceText(m, '/w/a.txt'), 'it changed after the agent wrote it');
  });

  it('a file someone changed between the agent\'s turns is left alone (restoring it would take their edit)', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/c.txt', 'client', { text: 'c0\n' }, 'c1\n', 't1', 1);
    m.record('s', 2, '/w/c.txt', 'client', { text: 'c1 and mine\n' }, 'c2\n', 't2', 2);
    assert.deepEqual(previewCheckpoint(m, 's', 1).files.map((f) => f.leftAlone), [{ why: 'interleaved' }]);
  });
});

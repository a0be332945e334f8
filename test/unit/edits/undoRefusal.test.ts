/**
 * A refused Undo says which lines and why: when a later change of the same file by an agent (the
 * same session's next turn, or another session) changed a line of the hunk, it names that change
 * and the way (undo it first), instead of sending the person to undo the lines by hand.
 */
import assert from 'node:assert/strict';
import { leftAloneText, previewCheckpoint } from '../../../src/edits/checkpointPreview';
import { inlineView } from '../../../src/edits/inlineHunks';
import { ReviewModel } from '../../../src/edits/review';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

describe('a refused Undo says why', () => {
  const base = lines(40);
  const a1 = base.replace('line 10\n', 'T1\n');
  // The next change rewrites a line in the first one's context.
  const a2 = a1.replace('line 12\n', 'T2\n');

  it('names the same session\'s later turn that changed the hunk\'s lines, and undoing it first works', () => {
    const m = new ReviewModel();
    const c1 = m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1)!;
    const c2 = m.record('s', 2, '/w/a', 'agent', { text: a1 }, a2, undefined, 2)!;
    const p = m.planUndo(c1.id, a2);
    assert.equal(p.action, 'conflict');
    assert.match((p as { message: string }).message, /^lines 7–13 were changed since by the agent's turn 2; undo that change first/);
    const p2 = m.planUndo(c2.id, a2);
    assert.deepEqual(p2.action === 'restoreBase' && p2.text, a1);
    m.undone(c2.id);
    assert.deepEqual(m.planUndo(c1.id, a1), { action: 'restoreBase', bytes: undefined, text: base, hunks: [0] });
  });

  it('names another session\'s agent', () => {
    const m = new ReviewModel();
    const c1 = m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1)!;
    m.record('t', 1, '/w/a', 'agent', { text: a1 }, a2, undefined, 2);
    assert.match((m.planUndo(c1.id, a2) as { message: string }).message, /changed since by another session's agent; undo that change first/);
  });

  it('names the agent\'s next change in the same turn (the person wrote between its two writes)', () => {
    const m = new ReviewModel();
    const c1 = m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1)!;
    const mine = a1.replace('line 30\n', 'P\n');
    const a2mine = mine.replace('line 12\n', 'T2\n');
    const c2 = m.record('s', 1, '/w/a', 'agent', { text: mine }, a2mine, undefined, 2)!;
    assert.notEqual(c2.id, c1.id, 'a change on a base someone else altered is a change of its own');
    assert.match((m.planUndo(c1.id, a2mine) as { message: string }).message, /changed since by the agent's next change in this turn; undo that change first/);
  });

  it('still says "changed after the agent wrote them" when the person changed them, or a later change is elsewhere in the file', () => {
    const m = new ReviewModel();
    const c1 = m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1)!;
    const person = a1.replace('line 12\n', 'P\n');
    assert.match((m.planUndo(c1.id, person) as { message: string }).message, /^lines 7–13 changed after the agent wrote them; undo them by hand/);
    // A later turn far away, and the person's edit in the hunk: the person is the reason.
    const far = person.replace('line 30\n', 'T2\n');
    m.record('s', 2, '/w/a', 'agent', { text: person }, far, undefined, 2);
    assert.match((m.planUndo(c1.id, far) as { message: string }).message, /changed after the agent wrote them/);
  });
});

describe('a file Restore Checkpoint leaves alone says why', () => {
  const base = lines(40);
  const a1 = base.replace('line 10\n', 'T1\n');
  const a2 = a1.replace('line 30\n', 'T2\n');

  it('the person undid turn 1\'s change of it since but not turn 2\'s: said so, not "someone else changed it"', () => {
    const m = new ReviewModel();
    const c1 = m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1)!;
    m.record('s', 2, '/w/a', 'agent', { text: a1 }, a2, undefined, 2);
    const plan = m.planUndo(c1.id, a2);
    assert.equal(plan.action, 'text');
    m.undone(c1.id, (plan as { hunks: number[] }).hunks);
    const [e] = m.checkpoint('s', 1);
    assert.deepEqual([e.continuous, e.undoneBetween], [false, true]);
    assert.deepEqual(previewCheckpoint(m, 's', 1).files.map((f) => f.leftAlone && leftAloneText(f.leftAlone)), [
      "you undid an earlier turn's change of it since, not the later one made on it; Undo in the Changes view takes both out",
    ]);
  });

  it('someone wrote between the turns: still "someone else changed it between the agent\'s turns"', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1);
    const mine = a1.replace('line 20\n', 'P\n');
    m.record('s', 2, '/w/a', 'agent', { text: mine }, mine.replace('line 30\n', 'T2\n'), undefined, 2);
    const [e] = m.checkpoint('s', 1);
    assert.deepEqual([e.continuous, e.undoneBetween], [false, false]);
    assert.equal(leftAloneText(previewCheckpoint(m, 's', 1).files[0].leftAlone!), "someone else changed it between the agent's turns");
  });
});

describe('the inline review tells a hunk a later agent change rewrote', () => {
  it('marks turn 1\'s hunk broken by turn 2, not one the person typed into', () => {
    const base = lines(40);
    const a1 = base.replace('line 10\n', 'T1\n').replace('line 30\n', 'U1\n');
    const a2 = a1.replace('line 12\n', 'T2\n');
    const m = new ReviewModel();
    m.record('s', 1, '/w/a', 'agent', { text: base }, a1, undefined, 1);
    m.record('s', 2, '/w/a', 'agent', { text: a1 }, a2, undefined, 2);
    const mine = a2.replace('line 32\n', 'P\n');
    const view = inlineView(m, '/w/a', mine);
    assert.deepEqual(view.changes[0].hunks.map((h) => [h.hunk, h.state, h.brokenByLater ?? false]), [
      [0, 'edited', true],
      [1, 'edited', false],
    ]);
    assert.deepEqual(view.changes[1].hunks.map((h) => [h.state, h.undoable]), [['intact', true]]);
  });
});

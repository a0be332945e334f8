/**
 * Issue 17, item 4: an Undo that deleted a file the agent created can be taken back. The model
 * keeps the decisions from before the undo; reinstating them makes the re-created file the change's
 * expected text again, with its hunks to review (and undoable again) as before.
 */
import assert from 'node:assert/strict';
import { ReviewModel } from '../../../src/edits/review';

const body = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('review model: taking back an Undo that deleted a created file', () => {
  it('the only hunk of a created file: delete, then reinstate brings the change back to review', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/new.txt', 'agent', { text: null }, 'hello\n')!;
    const before = m.decisionsOf(c.id);
    const plan = m.planUndo(c.id, 'hello\n', 0);
    assert.equal(plan.action, 'delete', 'undoing the only hunk deletes the file');
    m.undone(c.id, plan.action === 'delete' ? plan.hunks : []);
    assert.equal(m.expectedText(c), null);
    assert.equal(m.pendingCount(), 0);
    let fired = 0;
    m.onDidChange(() => fired++);
    m.reinstate(c.id, before);
    assert.equal(fired, 1);
    assert.deepEqual([c.decisions, c.fileDecision], [['pending'], 'pending']);
    assert.equal(m.expectedText(c), 'hello\n', 'the re-created file is what the change expects');
    assert.equal(m.pendingCount(), 1);
    assert.equal(m.planUndo(c.id, 'hello\n').action, 'delete', 'and it can be undone again');
  });

  it('earlier decisions come back as they were (a hunk undone before, one kept)', () => {
    const m = new ReviewModel();
    const after = body.replace('line 2\n', 'line 2 (agent)\n').replace('line 28\n', 'line 28 (agent)\n');
    const c = m.record('s', 1, '/w/two.txt', 'agent', { text: null }, after)!;
    assert.equal(c.hunks.length, 1, 'a created file is one hunk');
    m.keep(c.id, 0);
    const before = m.decisionsOf(c.id);
    const plan = m.planUndo(c.id, after);
    assert.equal(plan.action, 'delete', 'undoing the whole file reverts even the kept hunk');
    m.undone(c.id, plan.action === 'delete' ? plan.hunks : []);
    m.reinstate(c.id, before);
    assert.deepEqual([c.decisions, c.fileDecision], [['kept'], 'kept']);
    assert.equal(m.expectedText(c), after);
  });

  it('a snapshot of another change is refused', () => {
    const m = new ReviewModel();
    const a = m.record('s', 1, '/w/a.txt', 'agent', { text: body }, body.replace('line 2\n', 'x\n').replace('line 28\n', 'y\n'))!;
    const b = m.record('s', 1, '/w/b.txt', 'agent', { text: null }, 'b\n')!;
    assert.throws(() => m.reinstate(b.id, m.decisionsOf(a.id)), /has 1 hunks, not 2/);
  });
});

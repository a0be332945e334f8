import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ReviewModel, type UndoPlan } from '../../../src/edits/review';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

/** Performs a plan on an in-memory file, as the editor adapter would. */
function perform(plan: UndoPlan, file: { text: string | null }): void {
  if (plan.action === 'text' || plan.action === 'restoreBase') file.text = plan.text;
  else if (plan.action === 'delete') file.text = null;
  else if (plan.action === 'conflict') throw new Error(plan.message);
}

describe('review model', () => {
  const base = lines(40);
  const agent = base.replace('line 3\n', 'line 3 (agent)\n').replace('line 30\n', 'line 30 (agent)\n');

  it('records a change per session, turn and file with its hunks; a second write in the turn keeps the first base', () => {
    const m = new ReviewModel();
    let fired = 0;
    m.onDidChange(() => fired++);
    m.turnStarted('s', 1, 'edit it');
    const c = m.record('s', 1, '/w/a.txt', 'client', { text: base }, base.replace('line 3\n', 'x\n'), 't1')!;
    m.record('s', 1, '/w/a.txt', 'agent', { text: base.replace('line 3\n', 'x\n') }, agent, 't2');
    assert.equal(c.base.text, base);
    assert.equal(c.via, 'client', 'a change we applied stays verified');
    assert.deepEqual(c.toolCallIds, ['t1', 't2']);
    assert.equal(c.hunks.length, 2);
    assert.deepEqual(m.turns().map((t) => [t.turn, t.prompt, t.files.length]), [[1, 'edit it', 1]]);
    assert.equal(m.record('s', 1, '/w/same.txt', 'agent', { text: 'x' }, 'x'), undefined, 'no record for a no-op');
    assert.equal(fired, 2);
  });

  it('undoes one hunk and keeps the other; undoing the rest restores the exact base bytes', () => {
    const m = new ReviewModel();
    const bytes = Buffer.from('\ufeff' + base.replace(/\n/g, '\r\n'));
    const c = m.record('s', 1, '/w/a.txt', 'agent', { text: base, bytes }, agent)!;
    const file = { text: agent as string | null };
    perform(m.planUndo(c.id, file.text, 0), file);
    m.undone(c.id, 0);
    assert.equal(file.text, base.replace('line 30\n', 'line 30 (agent)\n'));
    m.keep(c.id, 1);
    assert.equal(c.fileDecision, 'kept');
    const rest = m.planUndo(c.id, file.text, 1);
    assert.equal(rest.action, 'restoreBase');
    assert.equal((rest as { bytes?: Uint8Array }).bytes, bytes, 'the base bytes themselves');
    perform(rest, file);
    m.undone(c.id, 1);
    assert.equal(file.text, base);
    assert.equal(c.fileDecision, 'undone');
    assert.equal(m.planUndo(c.id, file.text, 1).action, 'none', 'undoing twice does nothing');
  });

  it('undoing turn 2 does not touch turn 1', () => {
    const m = new ReviewModel();
    const t1 = base.replace('line 3\n', 'line 3 (turn 1)\n');
    const t2 = t1.replace('line 30\n', 'line 30 (turn 2)\n');
    m.record('s', 1, '/w/a.txt', 'client', { text: base }, t1);
    const c2 = m.record('s', 2, '/w/a.txt', 'client', { text: t1 }, t2)!;
    m.keep('s#1#/w/a.txt');
    const file = { text: t2 as string | null };
    perform(m.planUndo(c2.id, file.text), file);
    m.undone(c2.id);
    assert.equal(file.text, t1);
    assert.equal(m.get('s#1#/w/a.txt')!.fileDecision, 'kept');
  });

  it('reverts a hunk on text the person changed elsewhere, and refuses when they changed its lines', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/a.txt', 'client', { text: base }, agent)!;
    const person = agent.replace('line 20\n', 'line 20 (person)\n');
    const plan = m.planUndo(c.id, person, 0);
    assert.equal(plan.action, 'text');
    assert.equal((plan as { text: string }).text, person.replace('line 3 (agent)\n', 'line 3\n'));
    const overlapping = agent.replace('line 3 (agent)\n', 'line 3 (person)\n');
    const refused = m.planUndo(c.id, overlapping, 0);
    assert.equal(refused.action, 'conflict');
    assert.match((refused as { message: string }).message, /changed after the agent/);
  });

  it('a created file the person rejects is deleted; an empty created file can be kept', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/new.txt', 'agent', { text: null }, 'hello\n')!;
    assert.deepEqual(m.planUndo(c.id, 'hello\n'), { action: 'delete', hunks: [0] });
    const empty = m.record('s', 1, '/w/empty.txt', 'client', { text: null }, '')!;
    assert.equal(empty.hunks.length, 0);
    m.keep(empty.id);
    assert.equal(empty.fileDecision, 'kept', 'approving an empty file counts');
    assert.equal(m.pendingCount(), 1);
  });

  it('a pure-deletion hunk and a deleted file can be undone', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/a.txt', 'agent', { text: base }, base.replace('line 10\nline 11\n', ''))!;
    assert.deepEqual(c.hunks[0].lines.filter((l) => l[0] === '-'), ['-line 10', '-line 11']);
    const file = { text: c.after };
    perform(m.planUndo(c.id, file.text, 0), file);
    assert.equal(file.text, base);
    const gone = m.record('s', 1, '/w/b.txt', 'agent', { text: 'keep me\n', bytes: Buffer.from('keep me\n') }, null)!;
    assert.equal(m.planUndo(gone.id, null).action, 'restoreBase');
  });

  it('a checkpoint restores every file the turn and later turns changed to its state before the turn', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/a.txt', 'client', { text: 'a0\n' }, 'a1\n');
    m.record('s', 2, '/w/a.txt', 'client', { text: 'a1\n' }, 'a2\n');
    m.record('s', 2, '/w/b.txt', 'agent', { text: null }, 'b2\n');
    m.record('s', 3, '/w/c.txt', 'agent', { text: 'c0\n' }, 'c3\n');
    m.record('other', 2, '/w/d.txt', 'agent', { text: 'd0\n' }, 'd2\n');
    const plan = m.checkpoint('s', 2).map((p) => [p.path, p.base.text, p.expected, p.ids.length, p.continuous]);
    assert.deepEqual(plan, [
      ['/w/a.txt', 'a1\n', 'a2\n', 1, true],
      ['/w/b.txt', null, 'b2\n', 1, true],
      ['/w/c.txt', 'c0\n', 'c3\n', 1, true],
    ]);
    m.restored(m.checkpoint('s', 2).flatMap((p) => p.ids));
    assert.equal(m.get('s#1#/w/a.txt')!.fileDecision, 'pending', 'turn 1 untouched');
    assert.equal(m.get('s#3#/w/c.txt')!.fileDecision, 'undone');
  });

  it('a second write in the turn over text someone else changed is a change of its own; their edit survives its undo', () => {
    const m = new ReviewModel();
    const first = m.record('s', 1, '/w/a.txt', 'client', { text: base }, agent)!;
    const person = agent.replace('line 20\n', 'line 20 (person)\n');
    const again = person.replace('line 38\n', 'line 38 (agent)\n');
    const second = m.record('s', 1, '/w/a.txt', 'client', { text: person }, again)!;
    assert.notEqual(second.id, first.id);
    assert.equal(second.base.text, person);
    const file = { text: again as string | null };
    perform(m.planUndo(second.id, file.text), file);
    assert.equal(file.text, person, 'only the second write is undone');
    const plan = m.planUndo(first.id, file.text);
    perform(plan, file);
    assert.equal(file.text, base.replace('line 20\n', 'line 20 (person)\n'), 'the first write is reverted around the person\'s line');
    assert.equal(m.checkpoint('s', 1)[0].continuous, false, 'a checkpoint would take the person\'s edit: skipped');
  });

  it('undo never lands on a similar block elsewhere (exact positions only)', () => {
    const fn = (name: string, extra: string) => `function ${name}() {\n  a();\n  b();\n${extra}  c();\n}\n`;
    const b0 = '// top\n\n' + fn('handle', '') + '// end\n';
    const a0 = '// top\n\n' + fn('handle', '  v();\n') + '// end\n';
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/f.js', 'agent', { text: b0 }, a0)!;
    const person = '// top\n\n' + fn('copy', '  v();\n') + fn('handle', '  v();\n') + '// end\n';
    const plan = m.planUndo(c.id, person, 0) as { action: string; text: string };
    assert.equal(plan.text, '// top\n\n' + fn('copy', '  v();\n') + fn('handle', '') + '// end\n');
  });

  it('the same change seen twice (watcher, then our own report) is one change, marked as ours', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/new.md', 'agent', { text: null }, 'hi\n', 't1');
    m.record('s', 1, '/w/new.md', 'client', { text: null }, 'hi\n', 't1');
    const files = m.turns()[0].files;
    assert.equal(files.length, 1);
    assert.equal(files[0].via, 'client');
    assert.equal(m.pendingCount(), 1);
  });

  it('undo of a whole file reverts the hunks to review and leaves kept ones; then the kept ones', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/a.txt', 'client', { text: base }, agent)!;
    m.keep(c.id, 0);
    const file = { text: agent as string | null };
    const plan = m.planUndo(c.id, file.text);
    perform(plan, file);
    m.undone(c.id, (plan as { hunks: number[] }).hunks);
    assert.equal(file.text, base.replace('line 3\n', 'line 3 (agent)\n'), 'the kept hunk stays');
    assert.deepEqual(c.decisions, ['kept', 'undone']);
    const again = m.planUndo(c.id, file.text);
    assert.equal(again.action, 'restoreBase');
    perform(again, file);
    m.undone(c.id, (again as { hunks: number[] }).hunks);
    assert.equal(file.text, base);
    assert.equal(c.fileDecision, 'undone');
  });

  it('a base not known for certain is never written back: every undo of it is refused, and listed even when no line differs', () => {
    const m = new ReviewModel();
    const c = m.record('s', 1, '/w/a.txt', 'agent', { text: '', uncertain: 'the file changed while it was read' }, agent)!;
    for (const plan of [m.planUndo(c.id, agent), m.planUndo(c.id, agent, 0), m.planUndo(c.id, 'someone else\'s text\n')]) {
      assert.equal(plan.action, 'conflict');
      assert.match((plan as { message: string }).message, /not known for certain \(the file changed while it was read\); nothing was written/);
    }
    const same = m.record('s', 1, '/w/b.txt', 'agent', { text: 'new\n', uncertain: 'the file already held the agent\'s new text when it was first read' }, 'new\n');
    assert.ok(same && same.hunks.length === 0, 'the agent changed it, from what we cannot tell');
    assert.equal(m.planUndo(same.id, 'new\n').action, 'conflict');
    assert.equal(m.record('s', 1, '/w/c.txt', 'agent', { text: 'x\n' }, 'x\n'), undefined, 'a certain no-op is still no change');
  });

  it('notes who changed a file after the agent', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/a.txt', 'client', { text: base }, agent);
    m.noteLater('/w/a.txt', 'formatter');
    m.noteLater('/w/a.txt', 'formatter');
    m.noteLater('/w/a.txt', 'person');
    assert.deepEqual(m.latestFor('/w/a.txt')!.later.map((l) => l.by), ['formatter', 'person']);
  });
});

describe('review model, property', () => {
  it('undoing any subset of hunks from the agent\'s text gives the base with only the other hunks (10,000 runs)', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '');
    const text = fc.array(line, { maxLength: 30 }).map((ls) => ls.map((l) => l + '\n').join(''));
    fc.assert(
      fc.property(text, text, fc.array(fc.boolean(), { maxLength: 30 }), (base, after, mask) => {
        const m = new ReviewModel();
        const c = m.record('s', 1, '/f', 'agent', { text: base }, after);
        if (!c) return base === after;
        c.hunks.forEach((_, i) => {
          if (mask[i]) m.undone(c.id, i);
        });
        const expected = m.expectedText(c)!;
        // Undoing the remaining hunks one by one, from the text we computed, reaches the base.
        const file = { text: expected as string | null };
        for (let i = 0; i < c.hunks.length; i++) {
          if (mask[i]) continue;
          perform(m.planUndo(c.id, file.text, i), file);
          m.undone(c.id, i);
        }
        return file.text === base;
      }),
      { numRuns: 10_000 },
    );
  });
});

/**
 * The agents' changes placed in the text as it is now, for the inline review in the editor: the
 * review's own hunks (so Keep / Undo act on what the Changes view lists), where they are after the
 * person typed, and whether Undo would take them out — the same answer as `ReviewModel.planUndo`.
 */
import assert from 'node:assert/strict';
import { inlineView, placeHunks } from '../../../src/edits/inlineHunks';
import { ReviewModel } from '../../../src/edits/review';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';
const edit = (text: string, at: number, to: string) => text.replace(`line ${at}\n`, `${to}\n`);
const P = '/w/a.ts';

/** The blocks of a view as plain tuples: [hunk, state, start, count, removed]. */
const shape = (m: ReviewModel, current: string) => inlineView(m, P, current).hunks.map((h) => [h.hunk, h.state, ...h.blocks.flatMap((b) => [b.start, b.count, b.removed.join('|')])]);

describe('the inline review: the agent\'s hunks placed in the text as it is now', () => {
  it('several hunks: each where the agent wrote it, with the lines it replaced', () => {
    const m = new ReviewModel();
    const after = edit(edit(lines(40), 3, 'three (agent)'), 30, 'thirty (agent)\nextra (agent)');
    m.record('s', 1, P, 'client', { text: lines(40) }, after, 't');
    assert.deepEqual(shape(m, after), [
      [0, 'intact', 2, 1, 'line 3'],
      [1, 'intact', 29, 2, 'line 30'],
    ]);
    const v = inlineView(m, P, after);
    assert.deepEqual(v.changes.map((c) => [c.what, c.baseUnknown]), [['changed', false]]);
    assert.ok(v.hunks.every((h) => h.undoable && h.line === h.blocks[0].start));
  });

  it('adjacent changes: within the context of each other they are one hunk of two blocks; just apart, two hunks whose contexts touch', () => {
    const m = new ReviewModel();
    const near = edit(edit(lines(30), 5, 'five'), 12, 'twelve');
    m.record('s', 1, P, 'client', { text: lines(30) }, near, 't');
    assert.deepEqual(shape(m, near), [[0, 'intact', 4, 1, 'line 5', 11, 1, 'line 12']]);

    const m2 = new ReviewModel();
    const apart = edit(edit(lines(30), 5, 'five'), 13, 'thirteen');
    const c = m2.record('s', 1, P, 'client', { text: lines(30) }, apart, 't')!;
    assert.equal(c.hunks.length, 2);
    assert.deepEqual(shape(m2, apart), [
      [0, 'intact', 4, 1, 'line 5'],
      [1, 'intact', 12, 1, 'line 13'],
    ]);
    // Undo the first (as the editor would, through the model): the second stays where it is, intact.
    const plan = m2.planUndo(c.id, apart, 0);
    assert.equal(plan.action, 'text');
    const now = (plan as { text: string }).text;
    m2.undone(c.id, 0);
    assert.deepEqual(shape(m2, now), [[1, 'intact', 12, 1, 'line 13']]);
  });

  it('a hunk that only removes lines is shown where they were, with the removed lines', () => {
    const m = new ReviewModel();
    const after = lines(20).replace('line 10\nline 11\nline 12\n', '');
    m.record('s', 1, P, 'agent', { text: lines(20) }, after, 't');
    assert.deepEqual(shape(m, after), [[0, 'intact', 9, 0, 'line 10|line 11|line 12']]);
    // At the end of a file without a final line break.
    const m2 = new ReviewModel();
    m2.record('s', 1, P, 'agent', { text: 'a\nb\nc' }, 'a\nb', 't');
    const [h] = inlineView(m2, P, 'a\nb').hunks;
    assert.ok(h.blocks.some((b) => b.removed.includes('c')) && h.blocks.every((b) => b.start <= 1), JSON.stringify(h));
  });

  it('CRLF: lines are placed the same, the removed text comes without its line ending', () => {
    const m = new ReviewModel();
    const crlf = (t: string) => t.replace(/\n/g, '\r\n');
    const after = crlf(edit(lines(12), 6, 'six (agent)'));
    m.record('s', 1, P, 'client', { text: crlf(lines(12)) }, after, 't');
    assert.deepEqual(shape(m, after), [[0, 'intact', 5, 1, 'line 6']]);
    // The person types on another line (CRLF kept): still intact, still there.
    const typed = after.replace('line 1\r\n', 'line 1 typed\r\nnew line\r\n');
    assert.deepEqual(shape(m, typed), [[0, 'intact', 6, 1, 'line 6']]);
  });

  it('a created, a deleted and a moved file are decided whole: no hunks inline', () => {
    const m = new ReviewModel();
    m.record('s', 1, '/w/new.ts', 'client', { text: null }, lines(5), 't1');
    m.record('s', 1, '/w/gone.ts', 'agent', { text: lines(5) }, null, 't2');
    m.record('s', 1, '/w/to.ts', 'agent', { text: null }, lines(9), 'mv');
    m.record('s', 1, '/w/from.ts', 'agent', { text: lines(9) }, null, 'mv');
    const what = (p: string, current: string) => inlineView(m, p, current).changes.map((c) => [c.what, c.hunks.length]);
    assert.deepEqual(what('/w/new.ts', lines(5)), [['created', 0]]);
    assert.deepEqual(what('/w/gone.ts', lines(5)), [['deleted', 0]]);
    assert.deepEqual(what('/w/to.ts', lines(9)), [['moved', 0]]);
    assert.deepEqual(what('/w/elsewhere.ts', 'x'), []);
  });

  it('follows the person\'s typing: lines added above move the hunks; a hunk whose lines they changed is "edited" and not undoable', () => {
    const m = new ReviewModel();
    const after = edit(edit(lines(40), 10, 'ten (agent)'), 30, 'thirty (agent)');
    const c = m.record('s', 1, P, 'client', { text: lines(40) }, after, 't')!;
    const typed = 'header\nheader 2\n' + after.replace('thirty (agent)', 'thirty (agent) and mine');
    assert.deepEqual(shape(m, typed), [
      [0, 'intact', 11, 1, 'line 10'],
      [1, 'edited', 31, 1, 'line 30'],
    ]);
    const v = inlineView(m, P, typed);
    assert.deepEqual(v.hunks.map((h) => h.undoable), [true, false]);
    // The same answer Undo gives.
    assert.equal(m.planUndo(c.id, typed, 0).action, 'text');
    assert.equal(m.planUndo(c.id, typed, 1).action, 'conflict');
    // A context line touched counts too (Undo needs it to place the hunk).
    const context = after.replace('line 28\n', 'line 28 mine\n');
    assert.deepEqual(shape(m, context).map((h) => h[1]), ['intact', 'edited']);
    // Lines deleted in the middle of the agent's lines: the block spans what stands there now.
    const m2 = new ReviewModel();
    const block = lines(20).replace('line 8\n', 'a\nb\nc\nd\n');
    m2.record('s', 1, P, 'client', { text: lines(20) }, block, 't');
    assert.deepEqual(shape(m2, block.replace('b\nc\n', '')), [[0, 'edited', 7, 2, 'line 8']]);
  });

  it('kept and undone hunks are not shown; with the base unknown nothing is undoable', () => {
    const m = new ReviewModel();
    const after = edit(edit(lines(40), 10, 'ten (agent)'), 30, 'thirty (agent)');
    const c = m.record('s', 1, P, 'client', { text: lines(40) }, after, 't')!;
    m.keep(c.id, 1);
    assert.deepEqual(shape(m, after), [[0, 'intact', 9, 1, 'line 10']]);
    m.keep(c.id, 0);
    assert.deepEqual(inlineView(m, P, after).changes, [], 'a change kept whole is no longer to review');

    const m2 = new ReviewModel();
    m2.record('s', 1, P, 'agent', { text: lines(20), uncertain: 'it changed while it was read' }, edit(lines(20), 4, 'four'), 't');
    const v = inlineView(m2, P, edit(lines(20), 4, 'four'));
    assert.deepEqual([v.changes[0].baseUnknown, v.hunks[0].state, v.hunks[0].undoable], [true, 'intact', false]);
  });

  it('two turns on one file: both are shown; the first turn\'s hunk the second rewrote is "edited"', () => {
    const m = new ReviewModel();
    const t1 = edit(edit(lines(40), 5, 'five (1)'), 30, 'thirty (1)');
    m.record('s', 1, P, 'client', { text: lines(40) }, t1, 'a');
    const t2 = t1.replace('thirty (1)', 'thirty (2)');
    m.record('s', 2, P, 'client', { text: t1 }, t2, 'b');
    const v = inlineView(m, P, t2);
    assert.deepEqual(v.changes.length, 2);
    assert.deepEqual(v.hunks.map((h) => [h.changeId.split('#')[1], h.hunk, h.state, h.line]), [
      ['1', 0, 'intact', 4],
      ['1', 1, 'edited', 29],
      ['2', 0, 'intact', 29],
    ]);
  });

  it('undoable exactly when Undo would revert the hunk (random edits by the agent and the person)', () => {
    let seed = 7;
    // A linear congruential generator; its low bits repeat with a short period, so the high ones are used.
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    const mutate = (text: string, times: number, tag: string) => {
      const ls = text.split('\n');
      for (let k = 0; k < times; k++) {
        const i = rnd(ls.length - 1);
        const op = rnd(3);
        if (op === 0) ls[i] = `${ls[i]} ${tag}${k}`;
        else if (op === 1 && ls.length > 3) ls.splice(i, 1);
        else ls.splice(i, 0, `${tag} inserted ${k}`);
      }
      return ls.join('\n');
    };
    const seen = { true: 0, false: 0 };
    for (let round = 0; round < 200; round++) {
      const m = new ReviewModel();
      const base = lines(30 + rnd(30));
      const after = mutate(base, 1 + rnd(5), 'agent');
      const c = m.record('s', 1, P, 'client', { text: base }, after, 't');
      if (!c) continue;
      const current = rnd(4) === 0 ? after : mutate(after, 1 + rnd(6), 'person');
      const placed = placeHunks(c, m.expectedText(c) ?? '', current);
      for (const h of placed) {
        const plan = m.planUndo(c.id, current, h.hunk);
        assert.equal(h.undoable, plan.action !== 'conflict', `round ${round}, hunk ${h.hunk}: ${JSON.stringify({ base, after, current })}`);
        seen[`${h.undoable}`]++;
        const now = current.split('\n');
        for (const b of h.blocks) assert.ok(b.start >= 0 && b.start < now.length && b.count >= 0);
        // An intact hunk's blocks are exactly the lines the agent wrote.
        if (h.state === 'intact') assert.deepEqual(h.blocks.flatMap((b) => now.slice(b.start, b.start + b.count)), c.hunks[h.hunk].lines.filter((l) => l[0] === '+').map((l) => l.slice(1)));
      }
    }
    // Both answers came up often enough for the comparison to mean something.
    assert.ok(seen.true > 100 && seen.false > 50, JSON.stringify(seen));
  });
});

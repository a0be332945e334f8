/**
 * `npm run bench`: prints one JSON object of ratios, each against a baseline measured in the same
 * run (machines are noisy; ratios, not absolute times). Run with tsx.
 *
 * - edits50k: propose a change to a 50,000-line file (content hash + hunks) and check it against
 *   the current text, ÷ the `diff` package's structuredPatch alone on the same pair. Goal ≤ 2.
 * - review50k: record the same change for review (hunks) and plan undoing one hunk on the
 *   unchanged file and on a file the person edited elsewhere (the slow path), ÷ structuredPatch
 *   alone. Goal ≤ 3 (it diffs once and applies hunks twice).
 */
import { performance } from 'node:perf_hooks';
import { structuredPatch } from 'diff';
import { proposeChange, staleness, textHash } from '../src/edits/model';
import { ReviewModel } from '../src/edits/review';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => void, runs = 7): number {
  fn(); // warm up
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

const base = Array.from({ length: 50_000 }, (_, i) => `const value${i} = compute(${i}); // line ${i}`).join('\n') + '\n';
// An agent's edit: a few scattered changes, as a real edit would be.
const lines = base.split('\n');
for (const i of [10, 12_000, 25_000, 37_500, 49_990]) lines[i] = `${lines[i]} // edited by the agent`;
const proposal = lines.join('\n');

const baseline = time(() => structuredPatch('a', 'b', base, proposal, '', '', { context: 3 }));
const ours = time(() => {
  const change = proposeChange('file:///bench.ts', base, proposal, 1);
  if (staleness(change, { version: 1, text: base })) throw new Error('unexpected conflict');
  textHash(proposal);
});

const personEdited = proposal.replace('// line 30000\n', '// line 30000 (person)\n');
const review = time(() => {
  const m = new ReviewModel();
  const c = m.record('s', 1, '/bench.ts', 'client', { text: base }, proposal)!;
  if (m.planUndo(c.id, proposal, 2).action !== 'text') throw new Error('unexpected plan');
  if (m.planUndo(c.id, personEdited, 2).action !== 'text') throw new Error('unexpected plan on edited text');
});

const result = {
  machine: { node: process.version, platform: `${process.platform}-${process.arch}` },
  edits50k: { ratio: Number((ours / baseline).toFixed(2)), goal: '<= 2', oursMs: Number(ours.toFixed(1)), diffAloneMs: Number(baseline.toFixed(1)) },
  review50k: { ratio: Number((review / baseline).toFixed(2)), goal: '<= 3', oursMs: Number(review.toFixed(1)), diffAloneMs: Number(baseline.toFixed(1)) },
};
console.log(JSON.stringify(result, null, 2));

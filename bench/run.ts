/**
 * `npm run bench`: prints one JSON object of ratios, each against a baseline measured in the same
 * run (machines are noisy; ratios, not absolute times). Run with tsx.
 *
 * - edits50k: propose a change to a 50,000-line file (content hash + hunks) and check it against
 *   the current text, ÷ the `diff` package's structuredPatch alone on the same pair. Goal ≤ 2.
 */
import { performance } from 'node:perf_hooks';
import { structuredPatch } from 'diff';
import { proposeChange, staleness, textHash } from '../src/edits/model';

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

const result = {
  machine: { node: process.version, platform: `${process.platform}-${process.arch}` },
  edits50k: { ratio: Number((ours / baseline).toFixed(2)), goal: '<= 2', oursMs: Number(ours.toFixed(1)), diffAloneMs: Number(baseline.toFixed(1)) },
};
console.log(JSON.stringify(result, null, 2));

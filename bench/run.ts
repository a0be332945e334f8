/**
 * `npm run bench`: prints one JSON object of ratios, each against a baseline measured in the same
 * run (machines are noisy; ratios, not absolute times). Run with tsx.
 *
 * - edits50k: propose a change to a 50,000-line file (content hash + hunks) and check it against
 *   the current text, ÷ the `diff` package's structuredPatch alone on the same pair. Goal ≤ 2.
 * - review50k: record the same change for review (hunks) and plan undoing one hunk on the
 *   unchanged file and on a file the person edited elsewhere (the slow path), ÷ structuredPatch
 *   alone. Goal ≤ 3 (it diffs once and applies hunks twice).
 * - otlpIngest: OTLP/HTTP JSON trace payloads (20,000 spans with GenAI attributes) read the way the
 *   receiver reads them (JSON.parse, validation, records, into the store), spans/s ÷ spans/s of
 *   `JSON.parse` alone on the same text. Goal ≥ 0.5.
 * - waterfall10k: laying out a 10,000-span trace for the panel (tree order, depth, bars) ÷
 *   `JSON.parse` of the same spans (the cost of merely receiving them). Informative.
 * - updateThroughput, firstPaint20k, chunkHeap, terminal100MB: see ./session.ts.
 * - bundleSize and activation (PF6), streamToScreen (PF8 at 2k, 20k and 200k chunks), replay (PF9),
 *   cumulativeOutput (PF10 in the editor) and board50 (50 sessions streaming): the production build,
 *   and figures measured inside the real VS Code; see ./inEditor.ts and test/integration/99-bench.test.ts.
 *   SWITCHBOARD_BENCH_PF8=0 leaves out the streaming figures (a minute or two).
 * - cumulativeOutputHost (PF10, host side): 200 tool updates re-sending output growing to 2 MiB; see ./cumulative.ts.
 * - worktreeSession: making a session's worktree for 10,000 files ÷ `git worktree add` alone; see ./worktrees.ts.
 * - sandboxCommand: a command's start to first output in the sandbox ÷ unsandboxed; see ./sandbox.ts.
 * - mcpStdioLargeResult: a stdio MCP server's 30 MB tool result handed on ÷ a plain pipe read of it; see ./mcpStdio.ts.
 * - delegation10k: the delegation view of a 10,000-span session (2,500 tool calls, each with a
 *   permission, an effect and an MCP call; 500 remote delegations) ÷ `JSON.parse` of the same spans.
 */
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { structuredPatch } from 'diff';
import { proposeChange, staleness, textHash } from '../src/edits/model';
import { ReviewModel } from '../src/edits/review';
import { parseOtlpJson } from '../src/trace/otlp';
import { TraceStore } from '../src/trace/store';
import { waterfall } from '../webview/trace/waterfall';
import { delegation } from '../webview/trace/delegation';
import type { SpanRecord } from '../src/trace/otlp';
import { sessionBenchmarks } from './session';
import { inEditorBenchmarks } from './inEditor';
import { sandboxBenchmarks } from './sandbox';
import { worktreeBenchmarks } from './worktrees';
import { cumulativeBenchmarks } from './cumulative';
import { mcpStdioBenchmarks } from './mcpStdio';

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

/**
 * Median of per-pair ratios `ours ÷ baseline`, each pair measured back to back, so a slow moment of
 * the machine weighs on both sides of a pair rather than on one measurement.
 */
function pairedRatio(baselineFn: () => void, oursFn: () => void, runs = 9): { ratio: number; baselineMs: number; oursMs: number } {
  baselineFn();
  oursFn();
  const ratios: number[] = [];
  const bs: number[] = [];
  const os: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    baselineFn();
    const b = performance.now() - t0;
    t0 = performance.now();
    oursFn();
    const o = performance.now() - t0;
    ratios.push(o / b);
    bs.push(b);
    os.push(o);
  }
  return { ratio: median(ratios), baselineMs: median(bs), oursMs: median(os) };
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

// OTLP ingest: ten requests of 2,000 spans, one trace, parent links, typical GenAI attributes.
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
const otlpBodies = Array.from({ length: 10 }, (_, b) =>
  JSON.stringify({
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-agent' } }] },
      scopeSpans: [{
        scope: { name: 'agent' },
        spans: Array.from({ length: 2000 }, (_, i) => {
          const n = b * 2000 + i + 1;
          return {
            traceId: hex(1, 32), spanId: hex(n, 16), parentSpanId: hex(Math.max(1, Math.floor(n / 2)), 16), name: `execute_tool Read file ${n}`, kind: 1,
            startTimeUnixNano: String(1795953770531000000n + BigInt(n) * 1000000n), endTimeUnixNano: String(1795953770531000000n + BigInt(n) * 1000000n + 500000n),
            attributes: [
              { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
              { key: 'gen_ai.tool.name', value: { stringValue: 'Read' } },
              { key: 'gen_ai.tool.call.id', value: { stringValue: `toolu_${n}` } },
              { key: 'gen_ai.usage.input_tokens', value: { intValue: String(n % 5000) } },
            ],
            status: { code: n % 50 === 0 ? 2 : 0 },
          };
        }),
      }],
    }],
  }),
);
const ingestPair = pairedRatio(
  () => otlpBodies.forEach((t) => JSON.parse(t)),
  () => {
    const store = new TraceStore();
    store.claim('s', hex(1, 32));
    for (const t of otlpBodies) store.add(parseOtlpJson(JSON.parse(t)).spans);
  },
);

const tenK = (() => {
  const store = new TraceStore();
  store.claim('s', hex(1, 32));
  for (const t of otlpBodies.slice(0, 5)) store.add(parseOtlpJson(JSON.parse(t)).spans);
  return store.spans('s');
})();
const tenKText = JSON.stringify(tenK);
const layoutBase = time(() => JSON.parse(tenKText), 5);
const layout = time(() => waterfall(tenK, Date.now()), 5);

// A session as our tracing writes it: tool calls with their permission, effect and MCP call.
const session10k: SpanRecord[] = (() => {
  const out: SpanRecord[] = [];
  let n = 0;
  const span = (name: string, kind: string, parent: string | undefined, attributes: Record<string, string | string[]> = {}): string => {
    const spanId = hex(++n, 16);
    out.push({ traceId: hex(1, 32), spanId, ...(parent ? { parentSpanId: parent } : {}), name, kind: 'internal', startMs: 1_795_953_770_531 + n, endMs: 1_795_953_770_531 + n + 5, status: { code: 'unset' }, attributes: { 'agent_switchboard.span.kind': kind, ...attributes }, events: [], links: [], service: 'agent-switchboard', scope: 'agent-switchboard' });
    return spanId;
  };
  const root = span('session Bench', 'session', undefined, { 'gen_ai.agent.name': 'Bench', 'agent_switchboard.agent.version': '1.0.0' });
  const turn = span('invoke_agent Bench', 'turn', root);
  for (let i = 0; n < 9_999; i++) {
    const tool = span(`execute_tool Edit f${i}.ts`, 'tool', turn, { 'agent_switchboard.tool.kind': 'edit' });
    span(`permission Edit f${i}.ts`, 'permission', tool, { 'agent_switchboard.decision': 'allow_once', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.intent.hash': 'a'.repeat(64) });
    span(`write f${i}.ts`, 'effect', tool, { 'agent_switchboard.decision.source': 'approval', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.intent.hash': 'a'.repeat(64) });
    if (i % 5 === 0) span('invoke_agent Remote', 'delegation', tool, { 'agent_switchboard.a2a.task.id': `t${i}`, 'agent_switchboard.a2a.task.state': 'completed', 'agent_switchboard.a2a.artifacts': ['a.md'] });
    else span('tools/call diagnostics', 'mcp', tool, { 'server.address': 'editor' });
  }
  return out;
})();
const session10kText = JSON.stringify(session10k);
const delegationBase = time(() => JSON.parse(session10kText), 5);
const delegationTime = time(() => delegation(session10k), 5);

async function main(): Promise<void> {
const result = {
  machine: { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGB: Number((os.totalmem() / 2 ** 30).toFixed(1)) },
  ...(await sessionBenchmarks()),
  ...(await sandboxBenchmarks()),
  ...(await worktreeBenchmarks()),
  ...(await cumulativeBenchmarks()),
  ...(await mcpStdioBenchmarks()),
  ...inEditorBenchmarks(process.env.SWITCHBOARD_BENCH_PF8 !== '0'),
  edits50k: { ratio: Number((ours / baseline).toFixed(2)), goal: '<= 2', oursMs: Number(ours.toFixed(1)), diffAloneMs: Number(baseline.toFixed(1)) },
  review50k: { ratio: Number((review / baseline).toFixed(2)), goal: '<= 3', oursMs: Number(review.toFixed(1)), diffAloneMs: Number(baseline.toFixed(1)) },
  // Throughput ratio: spans/s of ours ÷ spans/s of JSON.parse = JSON.parse time ÷ our time.
  otlpIngest: { ratio: Number((1 / ingestPair.ratio).toFixed(2)), goal: '>= 0.5', spansPerSecond: Math.round(20_000 / (ingestPair.oursMs / 1000)), jsonParseSpansPerSecond: Math.round(20_000 / (ingestPair.baselineMs / 1000)) },
  waterfall10k: { ratio: Number((layout / layoutBase).toFixed(2)), layoutMs: Number(layout.toFixed(1)), jsonParseMs: Number(layoutBase.toFixed(1)) },
  delegation10k: { ratio: Number((delegationTime / delegationBase).toFixed(2)), spans: session10k.length, buildMs: Number(delegationTime.toFixed(1)), jsonParseMs: Number(delegationBase.toFixed(1)) },
};
console.log(JSON.stringify(result, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

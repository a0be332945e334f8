/**
 * The session benchmarks of `npm run bench` (issue 8), each a ratio against a baseline measured in
 * the same run:
 * - PF1 updateThroughput: 20,000 `session/update` chunks through our whole pipeline (our framing of
 *   the agent's stdout, `ndJsonStdio`, our parser of the params — a narrow zod schema for plain text
 *   chunks, the SDK's schema for the rest —, the SDK's routing, the session controller,
 *   reducer, journal, and the sidebar's batching with its serialisation) ÷ a raw SDK connection
 *   (its own `ndJsonStream`) with a no-op handler on the same bytes (goal ≥ 0.8 in each of nine
 *   pairs), and ÷ `JSON.parse` of the same lines (the limit).
 * - PF2 firstPaint20k: the webview's first paint of a 20,000-entry session ÷ a 200-entry one (jsdom;
 *   goal ≤ 1.5: only the newest page is built).
 * - PF3 chunkHeap (./chunkHeap.ts, also under Node 24): heap growth after 1,000,000 ten-byte chunks reduced into one message ÷ the text's
 *   size (goal ≤ 3: chunks coalesce). Needs `--expose-gc`.
 * - PF4 terminal100MB: 100 MB through a client terminal with a 1 MB output limit: RSS growth (goal
 *   ≤ 8 MB) and throughput ÷ the same command into /dev/null (goal ≥ 0.5); also what stays after
 *   a garbage collection, and the floor: Node reading the same pipe with a no-op handler
 *   (`nodePipe`; `vsNodePipe` is our throughput ÷ that floor's).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { chunkHeap } from './chunkHeap';
import { Readable, Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import * as acp from '@agentclientprotocol/sdk';
import { buildClientApp } from '../src/acp/clientHandlers';
import { ndJsonStdio } from '../src/acp/transport/ndJsonStdio';
import { SessionController, type TerminalsPort } from '../src/acp/sessionController';
import { SessionJournal } from '../src/acp/session/journal';
import { PatchBatch } from '../src/acp/session/window';
import { EffectPolicy } from '../src/policy/effectPolicy';
import { TerminalManager } from '../src/terminals/manager';
import type { SessionState } from '../src/acp/session/types';

/** bench/paint.ts, loaded at run time: it brings jsdom's DOM types, which the Node program must not see. */
interface Paint {
  firstPaint(state: SessionState): number;
  sessionOf(entries: number): SessionState;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---------------------------------------------------------------- PF1
const CHUNKS = 20_000;
const pf1Lines = Array.from({ length: CHUNKS }, (_, i) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${String(i).padStart(9, '0')}\n` } } } }),
);
const pf1Bytes = new TextEncoder().encode(pf1Lines.join('\n') + '\n');

/**
 * Feeds the recorded bytes, in 64 KiB chunks as a pipe gives them, to an SDK client app and resolves
 * when `count` updates were handled. `framing`: the SDK's own `ndJsonStream` over web streams (what
 * a raw SDK client uses), or ours, `ndJsonStdio` over a Node stream (what an agent's stdout goes
 * through in the extension: `AgentProcess`).
 */
async function feed(app: acp.ClientApp, handled: () => number, framing: 'sdk' | 'ours'): Promise<number> {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < pf1Bytes.length; i += 65_536) chunks.push(pf1Bytes.subarray(i, i + 65_536));
  const t0 = performance.now();
  let stream: acp.Stream;
  if (framing === 'sdk') {
    const readable = new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
      },
    });
    stream = acp.ndJsonStream(new WritableStream<Uint8Array>({ write() {} }), readable);
  } else {
    stream = ndJsonStdio(new Writable({ write: (_c, _e, done) => done() }), Readable.from(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)), { objectMode: false }), { maxMessageBytes: 64 * 1024 * 1024 });
  }
  const conn = app.connect(stream);
  while (handled() < CHUNKS) await new Promise((r) => setImmediate(r));
  const ms = performance.now() - t0;
  conn.close();
  return ms;
}

async function rawSdk(): Promise<number> {
  let n = 0;
  return feed(acp.client({ name: 'bench' }).onNotification('session/update', () => void n++), () => n, 'sdk');
}

/** What the host pipeline harness returns: the controller, its journal, and the end of the run. */
export interface HostPipeline {
  c: SessionController;
  journal: SessionJournal;
  journalId: string;
  /** Posts what is batched, flushes the journal; returns the characters posted to the page. */
  finish(): number;
}

/**
 * The extension host's session pipeline without an editor: a session controller recording into a
 * journal in `dir`, and the sidebar's batching (patches collected, merged and cut as the page is
 * sent them, serialised once per 16 ms). Shared by PF1 and PF10 (bench/cumulative.ts).
 */
export function hostPipeline(dir: string): HostPipeline {
  const policy = new EffectPolicy({ defaults: () => ({ write: 'ask', command: 'ask', dryRun: false }), roots: () => ['/'], readCurrent: async () => null });
  const terminals: TerminalsPort = { create: async () => '', output: () => ({ output: '', truncated: false }), waitForExit: async () => ({}), kill: async () => {}, release: async () => {}, disposeAll: async () => {}, onDidChange: () => ({ dispose() {} }) };
  const files = { read: async () => ({ content: '' }), write: async () => {}, turnStarted() {} };
  const c = new SessionController({ key: 'k', agentId: 'bench', agentName: 'Bench', cwd: '/' }, files, terminals, policy);
  const journal = new SessionJournal(dir);
  const journalId = journal.create({ agentId: 'bench', agentName: 'Bench', cwd: '/' });
  c.recordWith((a) => journal.record(journalId, a));
  // The sidebar's own batch (src/views/session/surface.ts), serialised as it is posted.
  const batch = new PatchBatch();
  let timer: NodeJS.Timeout | undefined;
  let posted = 0;
  const flush = () => {
    timer = undefined;
    const { fromRev, rev } = batch;
    posted += JSON.stringify({ type: 'patches', key: 'k', fromRev, rev, patches: batch.take() }).length;
  };
  c.onDidChange((change) => {
    batch.push(change.patches, change.rev);
    timer ??= setTimeout(flush, 16);
  });
  return {
    c,
    journal,
    journalId,
    finish: () => {
      clearTimeout(timer);
      flush();
      journal.flush(true);
      return posted;
    },
  };
}

async function ourPipeline(dir: string): Promise<number> {
  const { c, finish } = hostPipeline(dir);
  let n = 0;
  // As the connection routes: one handlers object per session, looked up per message.
  const handlers = { ...handlersOf(c), onUpdate: (u: acp.SessionUpdate) => (c.onUpdate(u), n++) };
  const app = buildClientApp('bench', (sid) => (sid === 'bench' ? handlers : undefined));
  const ms = await feed(app, () => n, 'ours');
  const posted = finish();
  if (!posted || (c.state.entries[0] as { text: string }).text.length !== CHUNKS * 10) throw new Error('the pipeline lost chunks');
  return ms;
}

function handlersOf(c: SessionController) {
  return {
    onUpdate: (u: acp.SessionUpdate) => c.onUpdate(u),
    requestPermission: c.requestPermission.bind(c),
    readTextFile: c.readTextFile.bind(c),
    writeTextFile: c.writeTextFile.bind(c),
    createTerminal: c.createTerminal.bind(c),
    terminalOutput: c.terminalOutput.bind(c),
    waitForTerminalExit: c.waitForTerminalExit.bind(c),
    elicit: c.elicit.bind(c),
    completeElicitation: c.completeElicitation.bind(c),
    killTerminal: c.killTerminal.bind(c),
    releaseTerminal: c.releaseTerminal.bind(c),
  };
}

// ---------------------------------------------------------------- PF3
/** PF3 under Node 24, the extension host's runtime (scripts/setup-tools.sh installs it), or why not. */
function chunkHeapUnderNode24(): Record<string, unknown> {
  try {
    const env = execFileSync('bash', [path.join(__dirname, '..', 'scripts', 'setup-tools.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const node24 = /^export NODE24=(.*)$/m.exec(env)?.[1];
    if (!node24) return { skipped: 'scripts/setup-tools.sh named no Node 24' };
    const out = execFileSync(node24, ['--expose-gc', '--import', 'tsx', path.join(__dirname, 'chunkHeap.ts')], { cwd: path.join(__dirname, '..'), encoding: 'utf8' });
    const h = JSON.parse(out) as ReturnType<typeof chunkHeap>;
    return { ratio: Number(h.ratio.toFixed(2)), heapGrowthMB: Number(h.heapGrowthMB.toFixed(1)) };
  } catch (err) {
    return { skipped: `Node 24 did not run it: ${String(err).split('\n')[0]}` };
  }
}

// ---------------------------------------------------------------- PF4
const HUNDRED_MB = 100 * 1024 * 1024;
const PF4_COMMAND = `head -c ${HUNDRED_MB} /dev/zero | tr '\\0' 'a'`;

export function devNull(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn('/bin/sh', ['-c', `${PF4_COMMAND} > /dev/null`], { stdio: 'ignore' });
    p.on('error', reject);
    p.on('exit', () => resolve(performance.now() - t0));
  });
}

/** 100 MB through a client terminal; exported for bench/pf4 runs of its own. */
export async function throughTerminal(): Promise<{ ms: number; rssGrowth: number; retained: number; kept: number }> {
  const m = new TerminalManager();
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const held0 = heldBytes();
  // As in the editor, someone takes the throttled snapshots (a session shows the terminal's output).
  let seen = 0;
  m.onDidChange((snapshot) => void (seen += snapshot.output.length));
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const id = await m.create({ sessionId: 'bench', command: PF4_COMMAND, outputByteLimit: 1024 * 1024 }, { defaultCwd: os.tmpdir(), baseEnv: process.env });
  await m.waitForExit(id);
  const ms = performance.now() - t0;
  clearInterval(sample);
  const kept = m.output(id).output.length;
  // What the terminal keeps once the garbage of the stream is collected (the terminal still open;
  // Buffers' memory is given back a moment after the collection that frees their objects).
  gc();
  await new Promise((r) => setTimeout(r, 100));
  gc();
  const retained = heldBytes() - held0;
  await m.release(id);
  m.dispose();
  if (!seen) throw new Error('PF4: no terminal snapshot was taken');
  return { ms, rssGrowth: peak - rss0, retained, kept };
}

/** JavaScript heap plus the memory of Buffers and ArrayBuffers, in bytes. */
function heldBytes(): number {
  const u = process.memoryUsage();
  return u.heapUsed + u.external;
}

/**
 * The floor of PF4: Node itself reading the same command's output from a pipe with a no-op
 * handler (no terminal code at all): its time and its peak RSS growth, which is V8's young
 * generation and the 64 KiB read buffers, not anything kept.
 */
export function nodePipe(): Promise<{ ms: number; rssGrowth: number }> {
  return new Promise((resolve, reject) => {
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    const p = spawn('/bin/sh', ['-c', PF4_COMMAND], { stdio: ['ignore', 'pipe', 'ignore'] });
    p.stdout.on('data', () => undefined);
    p.on('error', reject);
    p.on('close', () => {
      clearInterval(sample);
      resolve({ ms: performance.now() - t0, rssGrowth: peak - rss0 });
    });
  });
}

// ---------------------------------------------------------------- run
/** Runs the session benchmarks; returns their part of the JSON result. */
export async function sessionBenchmarks(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
  try {
    // PF1: nine pairs, the two sides back to back; the ratio is the median of the pairs' ratios, so
    // a slow moment of the machine weighs on both sides of a pair rather than on one side. Each side
    // of a pair is the median of three runs, the sides alternating: one run of ~130 ms varied by
    // ±10% here (a collection, the machine), which alone moved single pairs across the goal.
    await rawSdk();
    await ourPipeline(fs.mkdtempSync(path.join(dir, 'j')));
    const raw: number[] = [];
    const ours: number[] = [];
    const pairs: number[] = [];
    const single: number[] = [];
    for (let i = 0; i < 9; i++) {
      const r: number[] = [];
      const o: number[] = [];
      for (let k = 0; k < 3; k++) {
        r.push(await rawSdk());
        o.push(await ourPipeline(fs.mkdtempSync(path.join(dir, 'j'))));
        single.push(r[k] / o[k]);
      }
      raw.push(median(r));
      ours.push(median(o));
      pairs.push(raw[i] / ours[i]);
    }
    const parse: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      for (const l of pf1Lines) JSON.parse(l);
      parse.push(performance.now() - t0);
    }
    const [r, o, p] = [median(raw), median(ours), median(parse)];

    const paintModule = './paint';
    const { firstPaint, sessionOf } = (await import(paintModule)) as Paint;
    firstPaint(sessionOf(200));
    const small = median([0, 1, 2, 3, 4].map(() => firstPaint(sessionOf(200))));
    const large = median([0, 1, 2].map(() => firstPaint(sessionOf(20_000))));

    const heap = chunkHeap();

    await devNull();
    const nullMs = median([await devNull(), await devNull(), await devNull()]);
    // Ours and the floor alternate; the median run of each.
    const terms: Awaited<ReturnType<typeof throughTerminal>>[] = [];
    const pipes: Awaited<ReturnType<typeof nodePipe>>[] = [];
    for (let i = 0; i < 3; i++) {
      (global as { gc?: () => void }).gc?.();
      pipes.push(await nodePipe());
      (global as { gc?: () => void }).gc?.();
      terms.push(await throughTerminal());
    }
    const term = terms.sort((a, b) => a.ms - b.ms)[1];
    const pipe = pipes.sort((a, b) => a.ms - b.ms)[1];

    return {
      // PF1 (issue 22 step 4): the minimum of the nine pairs as well as the median; the goal is every pair.
      updateThroughput: { ratio: Number(median(pairs).toFixed(2)), min: Number(Math.min(...pairs).toFixed(2)), pairsMeetingGoal: `${pairs.filter((x) => x >= 0.8).length}/9`, goal: '>= 0.8 (÷ raw SDK, no-op handler) in every pair (each side of a pair the median of three alternating runs)', singleRuns: { median: Number(median(single).toFixed(2)), min: Number(Math.min(...single).toFixed(2)), meetingGoal: `${single.filter((x) => x >= 0.8).length}/${single.length}` }, vsJsonParse: Number((p / o).toFixed(2)), updatesPerSecond: Math.round(CHUNKS / (o / 1000)), rawSdkPerSecond: Math.round(CHUNKS / (r / 1000)), jsonParsePerSecond: Math.round(CHUNKS / (p / 1000)) },
      firstPaint20k: { ratio: Number((large / small).toFixed(2)), goal: '<= 1.5 (÷ 200 entries)', ms20k: Number(large.toFixed(1)), ms200: Number(small.toFixed(1)) },
      chunkHeap: { ratio: Number(heap.ratio.toFixed(2)), goal: '<= 3 (heap growth ÷ text size), under this Node and under Node 24 (VS Code\'s extension host)', heapGrowthMB: Number(heap.heapGrowthMB.toFixed(1)), textMB: Number(heap.textMB.toFixed(1)), underNode24: chunkHeapUnderNode24() },
      terminal100MB: {
        throughputRatio: Number((nullMs / term.ms).toFixed(2)),
        goal: '>= 0.5 (÷ into /dev/null); RSS growth <= 8 MB',
        rssGrowthMB: Number((term.rssGrowth / 1e6).toFixed(1)),
        retainedMB: Number((term.retained / 1e6).toFixed(1)),
        ms: Math.round(term.ms),
        devNullMs: Math.round(nullMs),
        keptBytes: term.kept,
        // The floor: Node reading the same pipe with a no-op handler.
        nodePipe: { throughputRatio: Number((nullMs / pipe.ms).toFixed(2)), rssGrowthMB: Number((pipe.rssGrowth / 1e6).toFixed(1)), ms: Math.round(pipe.ms) },
        vsNodePipe: Number((pipe.ms / term.ms).toFixed(2)),
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

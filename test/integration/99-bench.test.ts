/**
 * The in-editor figures of `npm run bench` (bench/inEditor.ts), each run only when its result file
 * is named, so `npm test` skips them.
 *
 * PF6 (SWITCHBOARD_PF6_RESULT): our activation ÷ a hello-world extension's, both started by the same
 * VS Code on `onStartupFinished`, read from the performance marks VS Code's extension host sets
 * around loading an extension's code and around its `activate()` call (`code/extHost/
 * willLoadExtensionCode/<id>`, `didLoadExtensionCode`, `willActivateExtension`,
 * `didActivateExtension`; kept in `globalThis.MonacoPerformanceMarks`).
 *
 * PF8 (SWITCHBOARD_PF8_RESULT): stream to screen inside the real VS Code. A scripted agent streams 2,000 and then 20,000 ten-byte `agent_message_chunk`s;
 * the time from Send until the last chunk is visible in the sidebar (Playwright, through the runner)
 * is divided by the agent's own time to send them all. The figures go to SWITCHBOARD_PF8_RESULT.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'perf_hooks';
import { randomUUID } from 'crypto';
import { spawn } from 'child_process';
import * as v8 from 'v8';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { evaluateInFrames, screenshot, timeUntilVisible } from './screenshot';
import { CUMULATIVE_BYTES } from '../../src/demo/scenarios';
import { SHOWN_TEXT_CHARS } from '../../src/acp/session/window';
import { ndJsonStdio } from '../../src/acp/transport/ndJsonStdio';

const HELLO_WORLD_ID = 'agent-switchboard-bench.hello-world';

const round1 = (x: number) => Number(x.toFixed(1));

/**
 * The extension host's garbage collector: the host runs without `--expose-gc`, so the flag is set at
 * run time and `gc` taken from a fresh context (V8 exposes it to contexts made after the flag).
 */
function hostGc(): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('v8') as typeof import('v8')).setFlagsFromString('--expose-gc');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('vm') as typeof import('vm')).runInNewContext('gc') as () => void;
}

/** The extension host's RSS in bytes after two full collections. */
function settledRss(): number {
  return settledMemory().rss;
}

/**
 * The extension host's RSS, V8 heap in use and committed (`heapTotal`), and memory of JavaScript
 * objects held outside the heap (`external`: buffers and their like), in bytes, after two full
 * collections.
 */
function settledMemory(): { rss: number; heapUsed: number; heapTotal: number; external: number; brk: number; newSpace: number } {
  const gc = hostGc();
  gc();
  gc();
  const m = process.memoryUsage();
  // V8's young generation as it is now: it grows while much of what is allocated survives its
  // collections, and is given back only once the isolate idles (see README, PF8).
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, brk: brkRss(), newSpace };
}

/**
 * The resident bytes of the process's `[heap]` mapping (/proc/self/smaps): the C allocator's main
 * arena, where freed native memory stays until the allocator trims it; 0 where there is no /proc.
 */
function brkRss(): number {
  try {
    const smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
    const at = smaps.indexOf(' [heap]\n');
    if (at < 0) return 0;
    const rss = /\nRss:\s+(\d+) kB/.exec(smaps.slice(at, at + 2000));
    return rss ? Number(rss[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** What one stall of the extension host's main thread was made of (see {@link watchLag}), in ms. */
interface Stall {
  /** How late a 10 ms timer ran. */
  lateMs: number;
  /** Time the thread ran on a CPU meanwhile (our code, V8's collector, the host's own work). */
  ranMs: number;
  /** Time the thread was ready to run but waited for a CPU (other processes held both). */
  waitedMs: number;
  /** The rest: the thread was blocked (on the collector's helper threads, or a synchronous call). */
  blockedMs: number;
}

/**
 * The main thread's time on a CPU and waiting for one since it started, in ns: Linux's
 * `/proc/<pid>/task/<tid>/schedstat` (the main thread's id is the process's). Undefined where
 * there is no such file.
 */
function threadSched(): { ranNs: number; waitedNs: number } | undefined {
  try {
    const [ran, waited] = fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return Number.isFinite(ran) && Number.isFinite(waited) ? { ranNs: ran, waitedNs: waited } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time, in ms, that the browser drawing the workbench (Chromium's processes on this machine:
 * the page's renderer among them) has used so far, from `/proc/<pid>/stat` (utime + stime, in
 * the kernel's 100 Hz ticks); undefined where there is no `/proc` or no Chromium. What the page's
 * work costs the CPUs the extension host shares.
 */
function browserCpuMs(): number | undefined {
  let ticks = 0;
  let found = false;
  try {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!/^chrom/i.test(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: the 14th and 15th fields of the line, the 12th and 13th after the name.
      ticks += Number(fields[11]) + Number(fields[12]);
      found = true;
    }
  } catch {
    return undefined;
  }
  return found ? ticks * 10 : undefined;
}

/**
 * Watches the extension host's event loop until `stop()`: the largest delay (`monitorEventLoopDelay`),
 * the collector's pauses (largest, largest of each kind, and summed), and what the stalls were
 * made of. On a machine with as few CPUs as busy processes (this one: 2, for the agent, the
 * extension host, code-server and Chromium drawing the page) a stall is also time the thread was
 * ready but not given a CPU; a 10 ms timer reads the kernel's account of the main thread
 * (`threadSched`) and keeps the most delayed tick's `Stall` (`stalls().worst`), the tick with the
 * largest lateness left once the waiting is taken out (`busiest`: what the host's own work, ours and
 * the collector's, cost at once), and `waitedMs`: all the waiting while watched. `stop()` gives the largest delay in
 * ms (10 ms resolution). With SWITCHBOARD_BENCH_PROFILE_DIR set, the host's CPU is also profiled
 * meanwhile (`<name>.cpuprofile` there, for Chrome DevTools) to say where a stall came from.
 */
function watchLag(name: string): { stop(): number; gc(): { maxPauseMs: number; maxPauseMsByKind: Record<string, number>; pausesMs: number }; stalls(): { worst: Stall; busiest: Stall; waitedMs: number } | undefined } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let maxPause = 0;
  let pauses = 0;
  /** The longest pause of each kind of collection (Node's `detail.kind`: 1 minor, 4 major, 8 incremental, 16 weak callbacks). */
  const maxByKind: Record<string, number> = {};
  const kinds: Record<number, string> = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      maxPause = Math.max(maxPause, e.duration);
      const kind = kinds[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
      maxByKind[kind] = round1(Math.max(maxByKind[kind] ?? 0, e.duration));
      pauses += e.duration;
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  const TICK = 10;
  let worst: Stall = { lateMs: 0, ranMs: 0, waitedMs: 0, blockedMs: 0 };
  let busy = worst;
  let last = { at: performance.now(), sched: threadSched() };
  const first = last.sched;
  const ticker = last.sched
    ? setInterval(() => {
        const now = { at: performance.now(), sched: threadSched() };
        if (now.sched && last.sched) {
          const lateMs = now.at - last.at - TICK;
          const ranMs = (now.sched.ranNs - last.sched.ranNs) / 1e6;
          const waitedMs = (now.sched.waitedNs - last.sched.waitedNs) / 1e6;
          const stall = (): Stall => ({ lateMs: round1(lateMs), ranMs: round1(ranMs), waitedMs: round1(waitedMs), blockedMs: round1(Math.max(0, lateMs + TICK - ranMs - waitedMs)) });
          if (lateMs > worst.lateMs) worst = stall();
          if (lateMs - waitedMs > busy.lateMs - busy.waitedMs) busy = stall();
        }
        last = now;
      }, TICK)
    : undefined;
  let waitedTotal: number | undefined;
  const dir = process.env.SWITCHBOARD_BENCH_PROFILE_DIR;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const session = dir ? new (require('inspector') as typeof import('inspector')).Session() : undefined;
  if (session) {
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: 500 });
    session.post('Profiler.start');
  }
  return {
    gc: () => ({ maxPauseMs: round1(maxPause), maxPauseMsByKind: maxByKind, pausesMs: Math.round(pauses) }),
    stalls: () => (first && waitedTotal !== undefined ? { worst, busiest: busy, waitedMs: Math.round(waitedTotal) } : undefined),
    stop: () => {
      h.disable();
      gc.disconnect();
      if (ticker) clearInterval(ticker);
      const end = threadSched();
      if (first && end) waitedTotal = (end.waitedNs - first.waitedNs) / 1e6;
      session?.post('Profiler.stop', (err, r) => {
        if (!err) fs.writeFileSync(path.join(dir!, `${name}.cpuprofile`), JSON.stringify(r.profile));
        session.disconnect();
      });
      return round1(h.max / 1e6);
    },
  };
}

interface Marks { getMarks(): { name: string; startTime: number }[] }

/** Code loading and `activate()` of one extension, in ms, from VS Code's own marks. */
function activationOf(id: string): { loadMs: number; activateMs: number; totalMs: number } {
  const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks() ?? [];
  const at = (what: string) => {
    const m = marks.find((x) => x.name === `code/extHost/${what}/${id}`);
    if (!m) throw new Error(`VS Code set no ${what} mark for ${id} (marks: ${marks.length})`);
    return m.startTime;
  };
  const loadMs = at('didLoadExtensionCode') - at('willLoadExtensionCode');
  const activateMs = at('didActivateExtension') - at('willActivateExtension');
  return { loadMs, activateMs, totalMs: loadMs + activateMs };
}

describe('PF6: activation', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF6_RESULT) this.skip();
  });

  it('times our activation against a hello-world extension in the same VS Code', async function () {
    const hello = vscode.extensions.getExtension(HELLO_WORLD_ID);
    assert.ok(hello, 'the hello-world baseline is installed (bench/inEditor.ts installs it)');
    await until('both extensions are active', () => hello.isActive && vscode.extensions.getExtension(EXTENSION_ID)?.isActive, 60_000);
    const ours = activationOf(EXTENSION_ID);
    const base = activationOf(HELLO_WORLD_ID);
    // Activation leaves the extension itself to its first use: what that first use costs (loading
    // dist/app.js and building it), timed around the API's first call.
    // (Unless something in the window used it already: then there is nothing left to time.)
    const loadedBefore = Object.keys(require.cache).some((k) => k.endsWith(`${path.sep}dist${path.sep}app.js`));
    const exports = vscode.extensions.getExtension<{ apiVersion: number }>(EXTENSION_ID)!.exports;
    const t0 = performance.now();
    assert.strictEqual(exports.apiVersion, 1);
    const firstUseMs = loadedBefore ? null : performance.now() - t0;
    fs.writeFileSync(process.env.SWITCHBOARD_PF6_RESULT!, JSON.stringify({ ours, helloWorld: base, firstUseMs }));
  });
});

describe('PF8: stream to screen', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF8_RESULT) this.skip();
  });

  it('shows 2,000 and 20,000 streamed chunks in the sidebar, timed against the agent', async function () {
    this.timeout(600_000);
    const a = await api();
    const results: Record<string, unknown> = {};
    // 2,000 chunks take the agent 70-130 ms to send, against a fixed ~150 ms of prompt, batching,
    // painting and polling: that turn runs three times and the median is the figure.
    for (const [n, round] of [[2_000, 0], [2_000, 1], [2_000, 2], [20_000, 0], [200_000, 0]] as const) {
      const id = n === 2_000 ? `chunks${n}#${round}` : `chunks${n}`;
      const before = settledMemory();
      const timing = path.join(os.tmpdir(), `switchboard-pf8-${process.pid}-${n}.json`);
      await setAgents([scenarioAgent(`chunks-${n}`, 'chunks', { SWITCHBOARD_DEMO_CHUNKS: String(n), SWITCHBOARD_DEMO_TIMING_FILE: timing })]);
      await until('the agent is offered', () => a.agents().find((x) => x.id === `chunks-${n}`), 10_000);
      const key = await a.startSession({ agentId: `chunks-${n}`, cwd: workspaceDir() });
      await waitForState(a, key, (s) => s.status === 'ready', 'ready');
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      // The sidebar's page is (re)loaded when it is shown: the clock starts once it shows the session.
      await timeUntilVisible('.session-status.status-ready', () => undefined, 60_000);
      let sentAt = 0;
      const last = String(n).padStart(9, '0');
      const visibleAt = await timeUntilVisible(`.entry.agent .md:has-text("${last}")`, () => {
        sentAt = Date.now();
        a.send(key, 'stream');
      }, 500_000);
      const agent = JSON.parse(fs.readFileSync(timing, 'utf8')) as { chunks: number; sentMs: number };
      assert.strictEqual(agent.chunks, n);
      const toScreenMs = visibleAt - sentAt;
      const text = a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
      assert.strictEqual(text.length, n * 10, 'every chunk arrived, in one message');
      // The extension host's RSS after the turn (after a collection) against before it, ÷ the text's size.
      const after = settledMemory();
      const rssGrowthMB = (after.rss - before.rss) / 1e6;
      // The heap in use tells what the session holds from what V8 keeps of the heap it grew to.
      const heapGrowthMB = (after.heapUsed - before.heapUsed) / 1e6;
      // Where an RSS growth beyond the heap in use is: V8's committed heap, or memory outside it.
      const heapCommittedGrowthMB = round1((after.heapTotal - before.heapTotal) / 1e6);
      const externalGrowthMB = round1((after.external - before.external) / 1e6);
      const mallocArenaGrowthMB = round1((after.brk - before.brk) / 1e6);
      const youngGenerationMB = [round1(before.newSpace / 1e6), round1(after.newSpace / 1e6)];
      results[id] = { ratio: Number((toScreenMs / Math.max(1, agent.sentMs)).toFixed(2)), toScreenMs, agentSendMs: agent.sentMs, rssGrowthMB: round1(rssGrowthMB), rssPerText: round1((rssGrowthMB * 1e6) / (n * 10)), heapGrowthMB: round1(heapGrowthMB), heapPerText: round1((heapGrowthMB * 1e6) / (n * 10)), heapCommittedGrowthMB, externalGrowthMB, mallocArenaGrowthMB, youngGenerationMB };
      if (n === 200_000) {
        // What RSS beyond the heap in use is, right after the turn: V8's freed pages, kept mapped
        // for reuse (a heap-page mapping each, counted in neither heapTotal nor external) until the
        // isolate idles and its memory reducer gives them back. Read again 12 s later.
        await new Promise((r) => setTimeout(r, 12_000));
        (results[id] as Record<string, unknown>).rssGrowthAfter12sMB = round1((settledRss() - before.rss) / 1e6);
      }
      await a.closeSession(key);
      if (n === 200_000) {
        // This host's floor for the RSS: the same turn only framed and parsed, no client (parseFloor).
        const floor = await parseFloor(scenarioAgent(`chunks-${n}`, 'chunks', { SWITCHBOARD_DEMO_CHUNKS: String(n), SWITCHBOARD_DEMO_TIMING_FILE: timing }), 'stream', (u) => u.sessionUpdate === 'agent_message_chunk');
        assert.strictEqual(floor.updates, n);
        (results[id] as Record<string, unknown>).parseFloor = { ...floor, rssPerText: round1((floor.rssGrowthMB * 1e6) / (n * 10)) };
      }
      fs.rmSync(timing, { force: true });
    }
    const rounds = [0, 1, 2].map((r) => results[`chunks2000#${r}`] as { ratio: number });
    for (let r = 0; r < 3; r++) delete results[`chunks2000#${r}`];
    const mid = [...rounds].sort((x, y) => x.ratio - y.ratio)[1];
    fs.writeFileSync(process.env.SWITCHBOARD_PF8_RESULT!, JSON.stringify({ chunks2000: { ...mid, ratios: rounds.map((x) => x.ratio) }, ...results }));
    await setAgents([]);
  });
});

/**
 * PF9 (SWITCHBOARD_PF9_RESULT): `session/load` of a long session in the real VS Code. The demo agent
 * remembers a session of 20,000 updates (50 turns of messages and tool calls, one tool's output
 * 2 MiB) and replays it; the time from its first replayed update until the sidebar shows the last
 * entry is divided by the agent's own time to send the replay (the agent's start and `initialize`,
 * before `session/load`, are reported apart as `fromApiCallMs`). The extension host's largest event-loop delay during
 * the replay is reported too. Goal: ≤ 1.5, lag ≤ 100 ms.
 */
describe('PF9: replay', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF9_RESULT) this.skip();
  });

  it('loads a 20,000-update session into the sidebar, timed against the agent', async function () {
    this.timeout(600_000);
    const a = await api();
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-pf9-'));
    const timing = path.join(stateDir, 'timing.json');
    const sessionId = `demo-${randomUUID()}`;
    const history: unknown[] = [];
    const bigLine = `${'y'.repeat(1023)}\n`;
    for (let t = 1; history.length < 20_000 - 1; t++) {
      history.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `Turn ${t}: look at the build` } });
      for (let c = 0; c < 8 && history.length < 20_000 - 1; c++) {
        const toolCallId = `t${t}-${c}`;
        history.push({ sessionUpdate: 'tool_call', toolCallId, title: `Read src/file${c}.ts`, kind: 'read', status: 'in_progress', rawInput: { path: `src/file${c}.ts` } });
        const text = t === 25 && c === 0 ? bigLine.repeat(2048) : `contents of file ${c}`;
        history.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }] });
      }
      for (let m = 0; m < 380 && history.length < 20_000 - 1; m++) history.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `word${m} ` } });
    }
    history.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'pf9-the-last-entry' } });
    fs.writeFileSync(path.join(stateDir, `${sessionId}.json`), JSON.stringify({ sessionId, cwd: workspaceDir(), title: 'PF9', updatedAt: new Date().toISOString(), history }));
    await setAgents([scenarioAgent('replay', 'echo', { SWITCHBOARD_DEMO_STATE_DIR: stateDir, SWITCHBOARD_DEMO_TIMING_FILE: timing })]);
    await until('the agent is offered', () => a.agents().find((x) => x.id === 'replay'), 10_000);
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    // The page is up before the clock starts (its first load is not the replay's cost).
    await timeUntilVisible('#app .empty-title, #app .composer', () => undefined, 60_000);
    let lag: { stop(): number } | undefined;
    let askedAt = 0;
    let loadedAt = 0;
    let key = '';
    const visibleAt = await timeUntilVisible('.entry.agent .md:has-text("pf9-the-last-entry")', () => {
      askedAt = Date.now();
      lag = watchLag('pf9');
      void a.resumeSession({ agentId: 'replay', sessionId }).then((k) => {
        key = k;
        loadedAt = Date.now();
        return vscode.commands.executeCommand('agentSwitchboard.showSession', k);
      });
    }, 500_000);
    const maxLagMs = lag!.stop();
    const agent = JSON.parse(fs.readFileSync(timing, 'utf8')) as { updates: number; startedAt: number; sentMs: number };
    assert.strictEqual(agent.updates, 20_000);
    // From the agent's first replayed update (session/load under way) until the last entry shows;
    // the agent's start and `initialize` before it are reported apart (fromApiCallMs).
    const toScreenMs = visibleAt - agent.startedAt;
    await until('the session is listed', () => key, 60_000);
    const results = { updates: agent.updates, ratio: Number((toScreenMs / Math.max(1, agent.sentMs)).toFixed(2)), toScreenMs, agentSendMs: agent.sentMs, fromApiCallMs: visibleAt - askedAt, loadAnsweredMs: loadedAt - agent.startedAt, maxLagMs, entries: a.session(key)?.entries.length };
    fs.writeFileSync(process.env.SWITCHBOARD_PF9_RESULT!, JSON.stringify(results));
    await a.closeSession(key);
    await setAgents([]);
    fs.rmSync(stateDir, { recursive: true, force: true });
  });
});

/**
 * Samples the extension host's RSS every 50 ms until `stop()`, which gives the largest growth over
 * `base` seen, in MB.
 */
function watchRssPeak(base: number): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  return {
    stop() {
      clearInterval(timer);
      return round1((Math.max(peak, process.memoryUsage.rss()) - base) / 1e6);
    },
  };
}

/**
 * This host's floor for a streaming figure's memory (PF8 at 200,000 chunks, PF10): the same agent
 * and turn read by a client that does nothing but frame and parse what the agent sends (the
 * extension's own framing, `ndJsonStdio`, each message dropped; a request from the agent answered
 * "method not found").
 * Gives the extension host's RSS growth after the same two collections and its peak during the turn,
 * in MB: what reading the turn from a pipe costs this host whoever reads it (the pipe's chunks are
 * memory outside V8's heap, which the allocator keeps after they are freed); its largest
 * event-loop delay meanwhile, in ms (decoding and parsing each line, and the collections of what
 * that leaves, with no client at all); and how many updates `counts` took.
 * @param prompt the prompt's text (what the scenario is asked)
 * @param counts which session updates to count
 */
async function parseFloor(agent: ReturnType<typeof scenarioAgent>, prompt: string, counts: (update: { sessionUpdate?: string; content?: unknown }) => boolean): Promise<{ rssGrowthMB: number; rssPeakMB: number; maxLagMs: number; gc: ReturnType<ReturnType<typeof watchLag>['gc']>; stalls: ReturnType<ReturnType<typeof watchLag>['stalls']>; updates: number }> {
  const base = settledRss();
  const peak = watchRssPeak(base);
  const lag = watchLag(`floor-${agent.id}`);
  const child = spawn(agent.command, agent.args, { env: { ...process.env, ...agent.env }, stdio: ['pipe', 'pipe', 'ignore'] });
  let updates = 0;
  // The framing the extension uses (ndJsonStdio); each message read and dropped.
  const stream = ndJsonStdio(child.stdin, child.stdout, { maxMessageBytes: 64 * 1024 * 1024 });
  const writer = stream.writable.getWriter();
  const send = (m: object) => void writer.write({ jsonrpc: '2.0', ...m } as never).catch(() => {});
  const reader = stream.readable.getReader();
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the agent exited before its turn ended');
      const m = value as { id?: number; method?: string; result?: { sessionId?: string }; params?: { update?: { sessionUpdate?: string; content?: unknown } } };
      if (m.method && m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
      else if (m.params?.update) updates += counts(m.params.update) ? 1 : 0;
      else if (m.id === 1) send({ id: 2, method: 'session/new', params: { cwd: workspaceDir(), mcpServers: [] } });
      else if (m.id === 2) send({ id: 3, method: 'session/prompt', params: { sessionId: m.result!.sessionId, prompt: [{ type: 'text', text: prompt }] } });
      else if (m.id === 3) break;
    }
  } finally {
    void reader.cancel().catch(() => {});
    child.kill();
  }
  const maxLagMs = lag.stop();
  const rssPeakMB = peak.stop();
  return { rssGrowthMB: round1((settledRss() - base) / 1e6), rssPeakMB, maxLagMs, gc: lag.gc(), stalls: lag.stalls(), updates };
}

/**
 * PF10 in the editor (SWITCHBOARD_PF10_RESULT): the demo agent's `cumulative-output` scenario sends
 * 200 `tool_call_update`s re-sending a tool's output whole, growing to 2 MiB. Reported: the extension
 * host's largest event-loop delay during the turn, its RSS growth after a collection (and its peak
 * during the turn), and how long after the agent's last update the last content is visible in the
 * sidebar (its count of characters not shown: the text grows at its end); beside the RSS, this
 * host's floor (`parseFloor`: the same 200 lines only parsed). Goal: lag ≤ 50 ms, RSS ≤ 64 MB,
 * ≤ 200 ms.
 */
describe('PF10: cumulative tool output', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF10_RESULT) this.skip();
  });

  it('keeps the extension host responsive while a tool re-sends its growing output', async function () {
    this.timeout(600_000);
    const a = await api();
    const timing = path.join(os.tmpdir(), `switchboard-pf10-${process.pid}.json`);
    const agentConfig = scenarioAgent('cumulative', 'cumulative-output', { SWITCHBOARD_DEMO_TIMING_FILE: timing });
    await setAgents([agentConfig]);
    await until('the agent is offered', () => a.agents().find((x) => x.id === 'cumulative'), 10_000);
    const key = await a.startSession({ agentId: 'cumulative', cwd: workspaceDir() });
    await waitForState(a, key, (s) => s.status === 'ready', 'ready');
    await vscode.commands.executeCommand('agentSwitchboard.showSession', key);
    await timeUntilVisible('.session-status.status-ready', () => undefined, 60_000);
    const { rss: rssBefore, heapUsed: heapBefore } = settledMemory();
    let lag: ReturnType<typeof watchLag> | undefined;
    let peak: { stop(): number } | undefined;
    // The last update's count of characters the card does not show (its text grows at its end).
    const lastCount = (CUMULATIVE_BYTES - SHOWN_TEXT_CHARS).toLocaleString('en');
    // The browser's own pace with the session open and nothing happening: what it costs the CPUs anyway.
    const idle0 = browserCpuMs();
    await new Promise((r) => setTimeout(r, 3000));
    const idle1 = browserCpuMs();
    const browserIdleCpuMsPerS = idle0 !== undefined && idle1 !== undefined ? Math.round((idle1 - idle0) / 3) : undefined;
    let browser0: number | undefined;
    const visibleAt = await timeUntilVisible(`.tool-content .content-text:has-text("${lastCount} more characters not shown")`, () => {
      browser0 = browserCpuMs();
      lag = watchLag('pf10');
      peak = watchRssPeak(rssBefore);
      a.send(key, 'build');
      // The probe looks slowly until the agent has sent its last update (its timing file), then every
      // 20 ms: looking through every frame every 20 ms for the whole turn kept the browser at a CPU.
    }, 500_000, () => fs.existsSync(timing));
    const maxLagMs = lag!.stop();
    const browser1 = browserCpuMs();
    const browserCpuMsDuringTurn = browser0 !== undefined && browser1 !== undefined ? browser1 - browser0 : undefined;
    await waitForState(a, key, (s) => s.status === 'ready', 'the turn ended', 120_000);
    const rssPeakMB = peak!.stop();
    // What the card shows of the 2 MiB: the first 100,000 characters and the count of the rest.
    await screenshot('cumulative-output-card', 30_000, { waitForSelector: '.tool-content .content-text:has-text("more characters not shown")', sidebarWidth: 520 });
    // And its end, scrolled to: the count of what is not shown, a block of its own under the text.
    const notice = await evaluateInFrames<{ text: string; gapPx: number }>(
      "const pre = document.querySelector('.tool-content pre.content-text'); pre.scrollTop = pre.scrollHeight; const n = pre.querySelector('.not-shown'); return { text: n.textContent, gapPx: Math.round(n.getBoundingClientRect().top - pre.querySelector('.shown-text').getBoundingClientRect().bottom) };",
      { inFrame: '.tool-content pre.content-text' },
    );
    assert.strictEqual(notice[0]?.text, `… ${lastCount} more characters not shown (Export Session has all of it)`);
    await screenshot('cumulative-output-card-end', 30_000, { waitForSelector: '.tool-content .not-shown', sidebarWidth: 520 });
    const settled = settledMemory();
    const rssGrowthMB = round1((settled.rss - rssBefore) / 1e6);
    // What the session holds after the turn: the 2 MiB and the protocol inspector's bounded log
    // (16 MiB at most per connection), measured at 18.6 MB.
    const heapGrowthMB = round1((settled.heapUsed - heapBefore) / 1e6);
    // The rest of the RSS growth is not V8's heap (its committed size grew only as much as its use):
    // it is memory outside it that the allocator keeps after it is freed, the pipe's chunks among it
    // (see parseFloor), given back a while later: read again 12 s later.
    await new Promise((r) => setTimeout(r, 12_000));
    const rssGrowthAfter12sMB = round1((settledRss() - rssBefore) / 1e6);
    const agent = JSON.parse(fs.readFileSync(timing, 'utf8')) as { updates: number; sentMs: number; lastAt: number };
    assert.strictEqual(agent.updates, 200);
    // Once V8 has given the turn's pages back, the same turn read by a client that only parses it.
    const floor = await parseFloor(agentConfig, 'build', (u) => u.sessionUpdate === 'tool_call_update' && !!u.content);
    assert.strictEqual(floor.updates, 200);
    const results = { updates: agent.updates, maxLagMs, gc: lag!.gc(), stalls: lag!.stalls(), browserCpuMs: browserCpuMsDuringTurn, browserIdleCpuMsPerS, rssGrowthMB, heapGrowthMB, rssPeakMB, lastVisibleAfterMs: visibleAt - agent.lastAt, agentSendMs: agent.sentMs, rssGrowthAfter12sMB, parseFloor: floor };
    fs.writeFileSync(process.env.SWITCHBOARD_PF10_RESULT!, JSON.stringify(results));
    await a.closeSession(key);
    await setAgents([]);
    fs.rmSync(timing, { force: true });
  });
});

/**
 * Runs in a page over `ms`: for each animation frame, the interval since the one before and the
 * frame's work (from its start, the time requestAnimationFrame gives, until a task posted from the
 * frame's callback runs: the frame's callbacks, style, layout and paint, and whatever tasks ran
 * first), in ms, each sorted. An interval cannot be shorter than the display's refresh (16.7 ms at
 * 60 Hz); the work says how much of it the page used.
 */
const FRAME_TIMES = (ms: number) => `
  const intervals = [];
  const work = [];
  const channel = new MessageChannel();
  let frameStart = 0;
  channel.port1.onmessage = () => work.push(performance.now() - frameStart);
  let last = performance.now();
  const end = last + ${ms};
  await new Promise((resolve) => {
    const tick = (now) => {
      intervals.push(now - last);
      last = now;
      frameStart = now;
      channel.port2.postMessage(0);
      if (now < end) requestAnimationFrame(tick); else setTimeout(resolve, 50);
    };
    requestAnimationFrame(tick);
  });
  channel.port1.close();
  return { intervals: intervals.sort((a, b) => a - b), work: work.sort((a, b) => a - b) };`;

type FrameTimes = { intervals: number[]; work: number[] };

/**
 * The Sessions board with 50 live sessions streaming at once (issue 22 step 6,
 * SWITCHBOARD_BOARD_RESULT): 50 demo agents each stream 20,000 chunks while the Sessions view (the
 * board) and the Session view are shown; over 3 s while they stream, each of the workbench page's
 * and the session webview's frames is timed (`FRAME_TIMES`: its work, and the interval since the
 * frame before). Goal: median frame work ≤ 16 ms; the intervals say whether refreshes were missed.
 */
describe('Board: 50 sessions streaming', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_BOARD_RESULT) this.skip();
  });

  it('keeps frames at one per display refresh while 50 sessions stream', async function () {
    this.timeout(600_000);
    const a = await api();
    const n = 50;
    await setAgents([scenarioAgent('board', 'chunks', { SWITCHBOARD_DEMO_CHUNKS: '20000' })]);
    await until('the agent is offered', () => a.agents().find((x) => x.id === 'board'), 10_000);
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push(await a.startSession({ agentId: 'board', cwd: workspaceDir() }));
    await Promise.all(keys.map((k) => waitForState(a, k, (s) => s.status === 'ready', 'ready', 120_000)));
    await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
    await vscode.commands.executeCommand('agentSwitchboard.showSession', keys[0]);
    await timeUntilVisible('.session-status.status-ready', () => undefined, 60_000);
    const idle = (await evaluateInFrames<FrameTimes>(FRAME_TIMES(2000)))[0];
    for (const k of keys) a.send(k, 'stream');
    await until('every session is working', () => keys.every((k) => a.session(k)?.status === 'prompting'), 60_000);
    const [workbench, webview] = await Promise.all([
      evaluateInFrames<FrameTimes>(FRAME_TIMES(3000)),
      evaluateInFrames<FrameTimes>(FRAME_TIMES(3000), { inFrame: '#app .composer' }),
    ]);
    const streamingAtEnd = keys.filter((k) => a.session(k)?.status === 'prompting').length;
    await Promise.all(keys.map((k) => waitForState(a, k, (s) => s.status === 'ready', 'the turn ended', 300_000)));
    const pct = (xs: number[], p: number) => round1(xs[Math.min(xs.length - 1, Math.floor(xs.length * p))]);
    const figures = (t: FrameTimes | undefined) => ({
      frames: t?.intervals.length ?? 0,
      medianMs: pct(t?.work ?? [], 0.5),
      p95Ms: pct(t?.work ?? [], 0.95),
      maxMs: round1(t?.work.at(-1) ?? NaN),
      intervalMedianMs: pct(t?.intervals ?? [], 0.5),
      intervalP95Ms: pct(t?.intervals ?? [], 0.95),
      // Frames that took longer than one refresh and a half (a refresh was missed).
      longIntervals: t?.intervals.filter((x) => x > 25).length ?? 0,
    });
    const results = { sessions: n, streamingAtEnd, idleWorkbench: figures(idle), workbench: figures(workbench[0]), sessionWebview: figures(webview[0]) };
    fs.writeFileSync(process.env.SWITCHBOARD_BOARD_RESULT!, JSON.stringify(results));
    for (const k of keys) await a.closeSession(k);
    await setAgents([]);
  });
});

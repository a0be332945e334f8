/**
 * Taking up a session the agent no longer knows (issue 18, item 6): `session/resume` or
 * `session/load` answered with -32002, or -32602 / -32603 saying the session is unknown, gives one
 * new session in its place, the person is told in the thread, and the dead id is never asked for
 * again. Any other refusal stays an error. The demo agent runs as a real process (it forgets a
 * session when its state folder is emptied); the error variants come from a scripted agent.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionJournal } from '../../src/acp/session/journal';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { AgentConnection } from '../../src/acp/connection';
import { isSessionGone } from '../../src/acp/sessionController';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';
import { badAgent } from '../resilience/acpHarness';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const tempDir = (p: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const texts = (s: { entries: { kind: string }[] }, kind: string) => s.entries.filter((e) => e.kind === kind).map((e) => (e as unknown as { text: string }).text);

describe('a session the agent no longer knows (issue 18, item 6)', function () {
  this.timeout(40_000);
  let workspace: string;
  let journalDir: string;
  let demoState: string;
  let managers: SessionManager[];
  const agents: ResolvedAgent[] = [];
  const sent: { method: string; sessionId?: string }[] = [];
  const realRequest = Object.getOwnPropertyDescriptor(AgentConnection.prototype, 'resumeSession')!;

  function newManager(): SessionManager {
    const files = new MemoryFiles();
    const m = new SessionManager({
      agents: () => agents,
      baseEnv: () => ({ ...process.env, SWITCHBOARD_DEMO_STATE_DIR: demoState, SWITCHBOARD_DEMO_SCENARIO: 'echo' }),
      initializeTimeoutMs: () => 15_000,
      clientInfo: { name: 'forgotten-test', version: '0' },
      filesFor: () => files,
      policy: allowAll(),
      terminalsFor: (_key, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
      journal: new SessionJournal(journalDir),
    });
    managers.push(m);
    return m;
  }

  beforeEach(() => {
    workspace = tempDir('switchboard-forgotten-ws-');
    journalDir = tempDir('switchboard-forgotten-journal-');
    demoState = tempDir('switchboard-forgotten-demo-');
    managers = [];
    sent.length = 0;
    agents.splice(0, agents.length, { id: 'demo', name: 'Demo', command: process.execPath, resolvedCommand: process.execPath, args: ['--import', TSX_LOADER, DEMO_ENTRY], env: {}, source: 'settings', available: true });
    // Every take-up request the client sends, with the id it names.
    for (const method of ['resumeSession', 'loadSession'] as const) {
      const real = AgentConnection.prototype[method];
      (AgentConnection.prototype as unknown as Record<string, unknown>)[method] = function (this: AgentConnection, sessionId: string, ...rest: unknown[]) {
        sent.push({ method, sessionId });
        return (real as (...a: unknown[]) => unknown).call(this, sessionId, ...rest);
      };
      (AgentConnection.prototype as unknown as Record<string, unknown>)[`__real_${method}`] = real;
    }
  });
  afterEach(async () => {
    for (const method of ['resumeSession', 'loadSession']) {
      const proto = AgentConnection.prototype as unknown as Record<string, unknown>;
      proto[method] = proto[`__real_${method}`];
      delete proto[`__real_${method}`];
    }
    assert.equal(Object.getOwnPropertyDescriptor(AgentConnection.prototype, 'resumeSession')!.value, realRequest.value);
    for (const m of managers) await m.dispose();
    for (const d of [workspace, journalDir, demoState]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('resume answered -32002: one new session in its place, the person told, the transcript kept, the dead id never asked for again', async () => {
    const first = newManager();
    const c = await first.start('demo', workspace);
    await c.prompt('before the agent forgot');
    const dead = c.state.sessionId!;
    const journalId = first.journalIdOf(c.state.key)!;
    await first.dispose();
    // The agent loses every session it had.
    for (const f of fs.readdirSync(demoState)) fs.rmSync(path.join(demoState, f), { recursive: true, force: true });

    const second = newManager();
    const taken = await second.takeUp({ journalId });
    assert.equal(taken.state.status, 'ready');
    assert.ok(taken.state.sessionId && taken.state.sessionId !== dead, 'a new session');
    assert.deepEqual(texts(taken.state, 'user'), ['before the agent forgot'], 'the transcript is kept');
    assert.match(texts(taken.state, 'notice').at(-1)!, /no longer knows this session.*new session was started/s);
    assert.ok(!texts(taken.state, 'notice').some((t) => /^Resumed/.test(t)), 'not said to be resumed');
    assert.equal(second.list().length, 1, 'one session');
    await taken.prompt('and now');
    assert.deepEqual(sent, [{ method: 'resumeSession', sessionId: dead }]);

    // The journal names the new session: taking it up again never sends the dead id.
    await second.dispose();
    const third = newManager();
    const again = await third.takeUp({ journalId });
    assert.equal(again.state.sessionId, taken.state.sessionId);
    assert.deepEqual(sent.map((s) => s.sessionId), [dead, taken.state.sessionId]);
  });

  it('load answered "not found" for a session only the agent listed: one new session, said so', async () => {
    const m = newManager();
    const c = await m.takeUp({ agentId: 'demo', sessionId: 'demo-00000000-0000-4000-8000-000000000000', cwd: workspace });
    assert.equal(c.state.status, 'ready');
    assert.notEqual(c.state.sessionId, 'demo-00000000-0000-4000-8000-000000000000');
    assert.match(texts(c.state, 'notice').join('\n'), /no longer knows this session/);
    assert.deepEqual(sent.map((s) => s.method), ['loadSession']);
    assert.equal(m.list().length, 1);
  });

  for (const [label, error, gone] of [
    ['-32602 "Session not found"', { code: -32602, message: 'Invalid params', data: 'Session gone-1 not found' }, true],
    ['-32603 "unknown session"', { code: -32603, message: 'Internal error: unknown session id gone-1' }, true],
    ['-32002 with no words', { code: -32002, message: 'Resource not found' }, true],
    ['-32602 about the cwd', { code: -32602, message: 'Invalid params', data: { cwd: 'relative' } }, false],
    ['-32603 that names no session', { code: -32603, message: 'Internal error: disk full' }, false],
  ] as const) {
    it(`resume answered ${label}: ${gone ? 'a new session' : 'an error, nothing started'}`, async () => {
      let news = 0;
      const a = await badAgent({
        onRequest: (msg, send) => {
          if (msg.method === 'session/resume') send({ jsonrpc: '2.0', id: msg.id, error });
          else if (msg.method === 'session/new') send({ jsonrpc: '2.0', id: msg.id, result: { sessionId: `s${++news}` } });
          else return false;
          return true;
        },
      });
      try {
        assert.equal(isSessionGone(error), gone);
        const attached = a.controller.attach(a.connection, undefined, { how: 'resume', sessionId: 'gone-1' });
        if (gone) {
          assert.equal(await attached, 'new');
          assert.equal(a.controller.state.sessionId, 's2');
          assert.equal(a.controller.state.status, 'ready');
          assert.match(texts(a.controller.state, 'notice').at(-1)!, /no longer knows this session/);
        } else {
          await assert.rejects(attached);
          assert.equal(a.controller.state.status, 'error');
          assert.equal(news, 1, 'no new session');
        }
        assert.equal(a.fromClient.filter((m) => m.method === 'session/resume').length, 1, 'asked once');
      } finally {
        await a.close();
      }
    });
  }
});

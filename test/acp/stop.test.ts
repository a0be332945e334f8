/**
 * Stop and cancellation against agents that do not play along (issue 18, item 4 and "A deaf agent
 * wedges Stop"): the agent side is the test (raw JSON-RPC on the wire, see acpHarness.ts), or the
 * stubborn agent as a real process that ignores `session/cancel` (Restart Agent).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { badAgent, type BadAgent } from '../resilience/acpHarness';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { MemoryFiles } from '../fakes/memoryFiles';
import { allowAll } from '../fakes/policy';
import { scriptedAgent } from '../fakes/inProcessAgent';

type Msg = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { code: number } };
const update = (u: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
const say = (text: string, messageId: string) => update({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } });
const OPTIONS = [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }];
const permission = (id: number, toolCallId: string) => ({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId, title: `Run ${toolCallId}` }, options: OPTIONS } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(10);
  }
}

/** A deaf agent (never answers `session/prompt`) with a turn running; `prompt` is that turn's promise. */
async function deafTurn(): Promise<{ a: BadAgent; prompt: Promise<acp.PromptResponse>; promptId: unknown }> {
  const a = await badAgent();
  const prompt = a.controller.prompt('do the thing');
  const req = (await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt')) as Msg;
  return { a, prompt, promptId: req.id };
}

describe('Stop against a deaf agent (wire)', function () {
  this.timeout(20_000);
  const open: BadAgent[] = [];
  afterEach(async () => {
    for (const a of open.splice(0)) await a.close();
  });

  it('marks the turn cancelled at once, cancels the prompt request both ways, and takes the next prompt without waiting', async () => {
    const { a, prompt, promptId } = await deafTurn();
    open.push(a);
    a.send(say('Starting', 'm1'));
    await until('the message shows', () => a.controller.state.entries.some((e) => e.kind === 'agent'));
    const t0 = Date.now();
    await a.controller.cancel();
    // At once, with no answer from the agent: the turn is over here.
    assert.equal(a.controller.state.status, 'ready');
    assert.equal(a.controller.state.entries.at(-1)?.kind, 'turn_end');
    assert.equal((await prompt).stopReason, 'cancelled');
    assert.ok(Date.now() - t0 < 200, `Stop took ${Date.now() - t0} ms`);
    // On the wire: session/cancel, and $/cancel_request naming the prompt request.
    await a.waitFor((m) => m.method === 'session/cancel', 'session/cancel');
    const cr = (await a.waitFor((m) => m.method === '$/cancel_request', '$/cancel_request')) as Msg;
    assert.equal(cr.params?.requestId, promptId);
    // The capability matrix counts it (and the agent's own, below, apart).
    a.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 999 } });
    await a.alive('after-their-cancel');
    const rows = a.connection.capabilities.rows();
    assert.equal(rows.find((r) => r.capability === '$/cancel_request')?.exercised, 1);
    assert.equal(rows.find((r) => r.capability === '$/cancel_request (from the agent)')?.exercised, 1);
    // The next prompt goes out although the first was never answered.
    const next = a.controller.prompt('next thing');
    await a.waitFor((m) => m.method === 'session/prompt' && m.id !== promptId, 'a second session/prompt');
    assert.equal(a.controller.state.status, 'prompting');
    // A late chunk of the stopped message goes to the stopped turn, not the new one.
    a.send(say(' (late)', 'm1'));
    a.send(say('Fresh', 'm2'));
    await until('the fresh message shows', () => a.controller.state.entries.some((e) => e.kind === 'agent' && e.text === 'Fresh'));
    const kinds = a.controller.state.entries.map((e) => `${e.kind}${'text' in e ? `:${e.text}` : ''}${'late' in e && e.late ? '!' : ''}`);
    // (The liveness marker sent after Stop, before the next prompt, is a late message of the stopped turn.)
    assert.deepEqual(kinds, ['user:do the thing', 'agent:Starting (late)!', 'turn_end', 'agent:after-their-cancel!', 'user:next thing', 'agent:Fresh']);
    // The stopped prompt's answer arrives at last: it settles the stop and does not end the new turn.
    a.send({ jsonrpc: '2.0', id: promptId, result: { stopReason: 'cancelled' } });
    await until('the stop is settled', () => a.controller.state.stopping === undefined);
    assert.equal(a.controller.state.status, 'prompting');
    void next.catch(() => undefined);
  });

  it('Stop while a permission card waits: exactly one "cancelled" answer, the card cancelled, and nothing late revives it', async () => {
    const { a } = await deafTurn();
    open.push(a);
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 'rm', title: 'rm -rf build', kind: 'execute', status: 'pending' }));
    a.send(permission(40, 'rm'));
    await until('the card waits', () => Object.values(a.controller.state.permissions).some((p) => p.state === 'waiting'));
    const p = Object.values(a.controller.state.permissions)[0];
    await a.controller.cancel();
    assert.equal(a.controller.state.permissions[p.permissionId].state, 'cancelled', 'cancelled at once');
    assert.equal(a.controller.state.permissions[p.permissionId].answeredBy, 'cancel');
    const answer = (await a.waitFor((m) => m.id === 40 && 'result' in m, 'the answer to the permission')) as Msg;
    assert.deepEqual(answer.result, { outcome: { outcome: 'cancelled' } });
    // The person's late click, the agent's late updates and a second request change nothing.
    assert.equal(a.controller.answerPermission(p.permissionId, 'yes', 'person'), false);
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 'rm', status: 'in_progress' }));
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 'rm', status: 'pending' }));
    a.send(permission(41, 'rm'));
    const second = (await a.waitFor((m) => m.id === 41 && 'result' in m, 'the answer to the second request')) as Msg;
    assert.deepEqual(second.result, { outcome: { outcome: 'cancelled' } });
    await a.alive('after-late');
    assert.equal(a.controller.state.toolCalls.rm.status, 'cancelled');
    assert.ok(!Object.values(a.controller.state.permissions).some((x) => x.state === 'waiting'), 'no buttons anywhere');
    await sleep(100);
    assert.equal(a.fromClient.filter((m) => m.id === 40).length, 1, 'exactly one answer to the first request');
    // A request for another call before the next prompt is answered "cancelled" too (ACP, after session/cancel).
    a.send(permission(42, 'other'));
    const third = (await a.waitFor((m) => m.id === 42 && 'result' in m, 'the answer to a request after Stop')) as Msg;
    assert.deepEqual(third.result, { outcome: { outcome: 'cancelled' } });
    // The agent answers the stopped turn at last, then asks again about the cancelled call: no card comes back.
    const promptReq = a.fromClient.find((m) => m.method === 'session/prompt') as Msg;
    a.send({ jsonrpc: '2.0', id: promptReq.id, result: { stopReason: 'cancelled' } });
    await until('the stop is settled', () => a.controller.state.stopping === undefined);
    a.send(permission(43, 'rm'));
    const fourth = (await a.waitFor((m) => m.id === 43 && 'result' in m, 'the answer to a late request for the cancelled call')) as Msg;
    assert.deepEqual(fourth.result, { outcome: { outcome: 'cancelled' } });
    assert.equal(a.controller.state.toolCalls.rm.status, 'cancelled');
    assert.ok(!Object.values(a.controller.state.permissions).some((x) => x.state === 'waiting'), 'still no buttons');
  });

  it('offers Restart Agent after the grace period, and takes the offer back when the agent answers after all', async () => {
    const a = await badAgent();
    open.push(a);
    a.controller.cancelGraceMs = () => 150;
    void a.controller.prompt('slow');
    const req = (await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt')) as Msg;
    await a.controller.cancel();
    assert.ok(!a.controller.state.entries.some((e) => e.kind === 'notice' && e.action), 'not offered before the grace period');
    await until('Restart Agent is offered', () => a.controller.state.entries.some((e) => e.kind === 'notice' && e.action === 'restartAgent'), 2000);
    a.send({ jsonrpc: '2.0', id: req.id, error: { code: -32800, message: 'Request cancelled' } });
    await until('the offer is taken back', () => !a.controller.state.entries.some((e) => e.kind === 'notice' && e.action));
    assert.equal(a.controller.state.stopping, undefined);
  });

  it('closing a session sends $/cancel_request for each request still open, before the agent is ended', async () => {
    const { a, promptId } = await deafTurn();
    await a.controller.dispose();
    const cr = a.fromClient.find((m) => m.method === '$/cancel_request') as Msg | undefined;
    assert.ok(cr, 'a $/cancel_request reached the agent');
    assert.equal(cr.params?.requestId, promptId);
    await a.close();
  });

  it('an agent→client request we do not have gets -32601 at once, also while a permission waits', async () => {
    const { a } = await deafTurn();
    open.push(a);
    a.send(permission(50, 'waits'));
    await until('the card waits', () => Object.values(a.controller.state.permissions).some((p) => p.state === 'waiting'));
    const methods = ['editor/format_disk', '_vendor/extension', 'session/unknown', 'terminal/resize', 'fs/delete_file'];
    const t0 = Date.now();
    methods.forEach((method, i) => a.send({ jsonrpc: '2.0', id: 60 + i, method, params: { sessionId: 's1' } }));
    for (let i = 0; i < methods.length; i++) {
      const m = (await a.waitFor((x) => x.id === 60 + i && 'error' in x, `the answer to ${methods[i]}`)) as Msg;
      assert.equal(m.error?.code, -32601, methods[i]);
    }
    assert.ok(Date.now() - t0 < 1000, `answered in ${Date.now() - t0} ms`);
    assert.equal(Object.values(a.controller.state.permissions)[0].state, 'waiting', 'the waiting card is untouched');
  });
});

describe('the agent cancels its own requests ($/cancel_request to us)', function () {
  this.timeout(20_000);

  it('a terminal wait the agent withdraws stops at once with -32800; a withdrawn permission card is cancelled', async () => {
    let waitOutcome: unknown;
    let permissionOutcome: unknown;
    const agent = scriptedAgent(async (t) => {
      const { terminalId } = await t.client.request('terminal/create', { sessionId: t.sessionId, command: 'sleep', args: ['30'] });
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(), 100);
      try {
        await t.client.request('terminal/wait_for_exit', { sessionId: t.sessionId, terminalId }, { cancellationSignal: ac.signal });
        waitOutcome = 'exited';
      } catch (err) {
        waitOutcome = { code: (err as { code?: number }).code, ms: Date.now() - started };
      }
      await t.client.request('terminal/kill', { sessionId: t.sessionId, terminalId });
      const pc = new AbortController();
      setTimeout(() => pc.abort(), 200);
      permissionOutcome = await t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall: { toolCallId: 'w1', title: 'Write' }, options: OPTIONS as acp.PermissionOption[] }, { cancellationSignal: pc.signal });
      return 'end_turn';
    });
    const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const terminals = new SessionTerminals(process.cwd(), () => process.env, { killGraceMs: 200 });
    const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: process.cwd() }, new MemoryFiles(), terminals, allowAll({ roots: [process.cwd()] }));
    await c.attach(conn);
    try {
      await c.prompt('go');
      const w = waitOutcome as { code: number; ms: number };
      assert.equal(w.code, -32800, `the withdrawn wait answered ${JSON.stringify(waitOutcome)}`);
      assert.ok(w.ms < 1000, `stopped waiting in ${w.ms} ms`);
      assert.deepEqual(permissionOutcome, { outcome: { outcome: 'cancelled' } });
      const p = Object.values(c.state.permissions)[0];
      assert.equal(p.state, 'cancelled');
      assert.equal(c.state.toolCalls.w1.status, 'cancelled');
    } finally {
      await c.dispose();
    }
  });
});

describe('the agent withdraws a write while the gate checks it', function () {
  this.timeout(20_000);

  it('nothing is written, the agent hears -32800, and the thread says so', async () => {
    const target = path.join(process.cwd(), 'withdrawn.txt');
    let writeOutcome: unknown;
    const agent = scriptedAgent(async (t) => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      try {
        await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: target, content: 'late text' }, { cancellationSignal: ac.signal });
        writeOutcome = 'written';
      } catch (err) {
        writeOutcome = (err as { code?: number }).code;
      }
      return 'end_turn';
    });
    const base = allowAll({ roots: [process.cwd()] });
    // A gate that takes its time (as one that reads the file from disk would).
    const slow = new Proxy(base, {
      get: (t, k) => {
        const v = (t as unknown as Record<string | symbol, unknown>)[k];
        if (k === 'checkWrite') return async (...args: unknown[]) => (await sleep(200), (v as (...a: unknown[]) => unknown).apply(t, args));
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const files = new MemoryFiles();
    const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: process.cwd() }, files, new SessionTerminals(process.cwd(), () => process.env), slow);
    await c.attach(conn);
    try {
      await c.prompt('write it');
      assert.equal(writeOutcome, -32800);
      assert.deepEqual(files.writes, []);
      assert.equal(files.docs.has(target), false);
      assert.ok(c.state.entries.some((e) => e.kind === 'notice' && /withdrew its write of .*withdrawn\.txt before it was made; nothing was written/.test(e.text)));
    } finally {
      await c.dispose();
    }
  });
});

describe('Restart Agent (a real process that ignores session/cancel)', function () {
  this.timeout(60_000);
  const AGENT = path.resolve(__dirname, '..', 'fakes', 'stubborn-agent.mjs');
  const MARKER = `stop-test-${process.pid}`;
  let manager: SessionManager;
  const cwd = fs.realpathSync(os.tmpdir());

  function managerFor(mode: string[]): SessionManager {
    const agent: ResolvedAgent = { id: 'deaf', name: 'Deaf agent', command: process.execPath, resolvedCommand: process.execPath, args: [AGENT, MARKER, 'deaf', ...mode], env: {}, source: 'settings', available: true };
    return new SessionManager({
      agents: () => [agent],
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 20_000,
      cancelGraceMs: () => 200,
      clientInfo: { name: 'stop-test', version: '0' },
      filesFor: () => new MemoryFiles(),
      policy: allowAll(),
      terminalsFor: (_k, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 200 }),
    });
  }
  afterEach(async () => manager?.dispose());

  for (const [mode, how, said] of [
    [['resume'], 'resume', /resumed this session \(session\/resume\)/],
    [['load'], 'load', /reloaded this session \(session\/load\)/],
    [[], 'new', /in a new session: Deaf agent can neither resume nor load/],
  ] as const) {
    it(`stops at once, offers Restart after the grace period, and restarts in a new process (${how})`, async () => {
      manager = managerFor([...mode]);
      const c = await manager.start('deaf', cwd);
      const firstPid = c.connection!.pid;
      const firstSession = c.state.sessionId;
      void c.prompt('work forever');
      await until('the turn runs', () => c.state.status === 'prompting');
      await c.cancel();
      assert.equal(c.state.status, 'ready', 'the turn is over at once');
      await until('Restart Agent is offered', () => c.state.entries.some((e) => e.kind === 'notice' && e.action === 'restartAgent'), 3000);
      const entriesBefore = c.state.entries.length;
      assert.equal(await manager.restartAgent(c.state.key), how);
      assert.notEqual(c.connection!.pid, firstPid, 'a new process');
      assert.equal(c.state.status, 'ready');
      assert.ok(!c.state.entries.some((e) => e.kind === 'notice' && e.action), 'the offer is gone');
      const last = c.state.entries.at(-1);
      assert.ok(last?.kind === 'notice' && said.test(last.text), JSON.stringify(last));
      if (how === 'new') assert.notEqual(c.state.sessionId, firstSession);
      else assert.equal(c.state.sessionId, firstSession);
      // A load's replay is not shown again: only the restart's notice was added.
      assert.equal(c.state.entries.length, entriesBefore + 1);
      assert.ok(!c.state.entries.some((e) => 'text' in e && e.text.startsWith('replayed')));
      // The old process is gone.
      await until('the old process ended', () => {
        try {
          process.kill(firstPid!, 0);
          return false;
        } catch {
          return true;
        }
      }, 5000);
      // The restarted agent takes a prompt.
      void c.prompt('again');
      await until('the new turn runs', () => c.state.status === 'prompting');
    });
  }
});

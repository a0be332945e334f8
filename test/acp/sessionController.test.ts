/**
 * The ACP client (connection + session controller + terminals + file check) against scripted
 * agents over the SDK's in-memory connection.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as acp from '@agentclientprotocol/sdk';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { allowAll } from '../fakes/policy';
import type { EffectPolicy } from '../../src/policy/effectPolicy';

const clientInfo = { name: 'test-client', version: '0.0.0' };
const cwd = process.cwd();

/**
 * A session with a scripted agent. Unless a test passes its own gate, every effect is let through:
 * these tests are about the protocol; the gate's own cases are in gate.test.ts and below.
 */
async function session(script: (t: TurnContext) => Promise<acp.StopReason>, files = new MemoryFiles(), policy?: EffectPolicy) {
  const conn = await AgentConnection.connect(scriptedAgent(script), { agentName: 'Scripted', clientInfo });
  const terminals = new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 });
  const gate = policy ?? allowAll({ roots: [cwd], readCurrent: async (p) => files.docs.get(p)?.text ?? null });
  const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd }, files, terminals, gate);
  await c.attach(conn);
  return { c, files, conn, terminals };
}

/** Resolves with the first waiting permission id of `c`. */
function nextPermission(c: SessionController): Promise<string> {
  return new Promise((resolve) => {
    const sub = c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          sub.dispose();
          resolve(p.permission.permissionId);
        }
      }
    });
  });
}

const OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** Live (not zombie) processes whose command line is exactly `marker`, from the process table. */
function processesMatching(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim()).filter((l) => !l.startsWith('Z') && l.replace(/^\S+\s+/, '') === marker);
}

describe('ACP client against scripted agents (in-memory)', () => {
  it('streams a message and a tool call, and ends the turn', async () => {
    const { c, conn } = await session(async (t) => {
      await t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' } });
      await t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' }, messageId: 'm1' });
      await t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' }, messageId: 'm1' });
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read', status: 'in_progress' });
      await t.update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' });
      return 'end_turn';
    });
    const res = await c.prompt('hi');
    assert.equal(res.stopReason, 'end_turn');
    assert.deepEqual(c.state.entries.map((e) => e.kind), ['user', 'agent', 'tool_call', 'turn_end']);
    assert.equal((c.state.entries[1] as { text: string }).text, 'Hello');
    assert.equal(c.state.toolCalls.t1.status, 'completed');
    assert.equal(c.state.status, 'ready');
    assert.equal(conn.agentInfo?.name, 'scripted-test-agent');
    await c.dispose();
  });

  for (const [choice, expected] of [['allow', 'allow'], ['reject', 'reject']] as const) {
    it(`permission: the answer carries the chosen optionId (${choice})`, async () => {
      let outcome: acp.RequestPermissionResponse['outcome'] | undefined;
      const { c } = await session(async (t) => {
        await t.update({ sessionUpdate: 'tool_call', toolCallId: 'w', title: 'Write a.txt', kind: 'edit', status: 'pending' });
        const r = await t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall: { toolCallId: 'w' }, options: OPTIONS });
        outcome = r.outcome;
        return 'end_turn';
      });
      const turn = c.prompt('go');
      const pid = await nextPermission(c);
      assert.equal(c.state.toolCalls.w.status, 'awaiting_approval');
      assert.equal(c.answerPermission(pid, 'not-an-option', 'api'), false);
      assert.equal(c.answerPermission(pid, choice, 'api'), true);
      assert.equal(c.answerPermission(pid, choice, 'api'), false, 'a second answer is refused');
      await turn;
      assert.deepEqual(outcome, { outcome: 'selected', optionId: expected });
      assert.equal(c.state.toolCalls.w.status, choice === 'reject' ? 'rejected' : 'pending');
      await c.dispose();
    });
  }

  it('permission: stopping the turn answers open requests "cancelled"', async () => {
    let outcome: acp.RequestPermissionResponse['outcome'] | undefined;
    const { c } = await session(async (t) => {
      const r = await t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall: { toolCallId: 'never-announced', title: 'rm -rf build' }, options: OPTIONS });
      outcome = r.outcome;
      await t.cancelled;
      return 'end_turn';
    });
    const turn = c.prompt('go');
    await nextPermission(c);
    assert.equal(c.state.toolCalls['never-announced'].placeholder, true);
    await c.cancel();
    // Stop ends the turn here at once; the agent hears the "cancelled" answer a moment later.
    const res = await turn;
    assert.equal(res.stopReason, 'cancelled');
    assert.equal(Object.values(c.state.permissions)[0].state, 'cancelled');
    for (let i = 0; i < 100 && !outcome; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(outcome, { outcome: 'cancelled' });
    await c.dispose();
  });

  it('fs write after the document changed is refused and the person\'s text stays', async () => {
    const files = new MemoryFiles();
    const path = `${cwd}/notes.txt`;
    files.docs.set(path, { text: 'v1\n', version: 1, dirty: false });
    let writeError: { code?: number; message?: string; data?: unknown } | undefined;
    let readBack = '';
    const { c } = await session(async (t) => {
      readBack = (await t.client.request('fs/read_text_file', { sessionId: t.sessionId, path })).content;
      files.personEdits(path, 'v1\nmy unsaved work\n');
      try {
        await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path, content: 'agent text\n' });
      } catch (e) {
        writeError = e as typeof writeError;
      }
      return 'end_turn';
    }, files);
    await c.prompt('edit');
    assert.equal(readBack, 'v1\n');
    assert.equal(writeError?.code, -32010);
    assert.match(writeError?.message ?? '', /changed/);
    assert.equal(files.docs.get(path)?.text, 'v1\nmy unsaved work\n');
    assert.deepEqual(files.writes, []);
    await c.dispose();
  });

  it('fs write over what the agent read applies', async () => {
    const files = new MemoryFiles();
    const path = `${cwd}/ok.txt`;
    files.docs.set(path, { text: 'a\r\nb\r\nc\r\n', version: 4, dirty: true });
    let sliced = '';
    const { c } = await session(async (t) => {
      sliced = (await t.client.request('fs/read_text_file', { sessionId: t.sessionId, path, line: 2, limit: 1 })).content;
      await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path, content: 'new\n' });
      await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path, content: 'newer\n' });
      return 'end_turn';
    }, files);
    await c.prompt('edit');
    assert.equal(sliced, 'b\n');
    assert.equal(files.docs.get(path)?.text, 'newer\n');
    await c.dispose();
  });

  it('a terminal whose command starts a grandchild leaves no process after kill and release', async function () {
    this.timeout(20000);
    const marker = `sleep 3${Math.floor(Math.random() * 900 + 100)}`;
    let out: acp.TerminalOutputResponse | undefined;
    let exit: acp.WaitForTerminalExitResponse | undefined;
    const { c } = await session(async (t) => {
      const { terminalId } = await t.client.request('terminal/create', { sessionId: t.sessionId, command: `echo started; ${marker} & ${marker}` });
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 'sh', title: 'shell', kind: 'execute', content: [{ type: 'terminal', terminalId }] });
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(processesMatching(marker).length, 2, 'child and grandchild run');
      await t.client.request('terminal/kill', { sessionId: t.sessionId, terminalId });
      exit = await t.client.request('terminal/wait_for_exit', { sessionId: t.sessionId, terminalId });
      out = await t.client.request('terminal/output', { sessionId: t.sessionId, terminalId });
      await t.client.request('terminal/release', { sessionId: t.sessionId, terminalId });
      return 'end_turn';
    });
    await c.prompt('run');
    assert.deepEqual(processesMatching(marker), []);
    assert.match(out?.output ?? '', /started/);
    assert.ok(exit?.signal || exit?.exitCode !== 0);
    assert.ok(Object.values(c.state.terminals)[0]?.output.includes('started'));
    await c.dispose();
  });

  it('closing the session ends running terminals', async function () {
    this.timeout(20000);
    const marker = `sleep 4${Math.floor(Math.random() * 900 + 100)}`;
    const { c } = await session(async (t) => {
      await t.client.request('terminal/create', { sessionId: t.sessionId, command: 'sh', args: ['-c', `${marker} & ${marker}`] });
      await t.cancelled;
      return 'cancelled';
    });
    const turn = c.prompt('run');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(processesMatching(marker).length, 2);
    await c.cancel();
    await turn;
    await c.dispose();
    assert.deepEqual(processesMatching(marker), []);
  });

  it('requests naming an unknown session get -32002, unknown terminals too', async () => {
    let sessionErr: { code?: number } | undefined;
    let termErr: { code?: number } | undefined;
    const { c } = await session(async (t) => {
      try {
        await t.client.request('fs/read_text_file', { sessionId: 'nope', path: '/x' });
      } catch (e) {
        sessionErr = e as { code?: number };
      }
      try {
        await t.client.request('terminal/output', { sessionId: t.sessionId, terminalId: 'nope' });
      } catch (e) {
        termErr = e as { code?: number };
      }
      return 'end_turn';
    });
    await c.prompt('x');
    assert.equal(sessionErr?.code, -32002);
    assert.equal(termErr?.code, -32002);
    await c.dispose();
  });
});

/**
 * Regression tests for the adversarial review of issue 18's merge (each fails on the code before
 * its fix): approvals of a stopped turn are withdrawn (F2), a closed session performs nothing while
 * it waits for the agent's `session/close` answer (F1), a restart that finds its session closed
 * ends the new process (F6), and a question for stopped work gets no card (F8). The agent side is
 * raw JSON-RPC on the wire (acpHarness.ts) against the real gate (policy `ask`).
 */
import assert from 'node:assert/strict';
import { badAgent, type BadAgent } from '../resilience/acpHarness';

type Msg = Record<string, unknown> & { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string } };
const OPTIONS = [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WRITE = { path: '/w/a.txt', content: 'hi\n' };

/** The agent asks to write /w/a.txt; the person allows it once. */
async function approvedWrite(a: BadAgent, id: number): Promise<void> {
  a.send({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId: `t${id}`, title: 'Write a.txt', kind: 'edit', content: [{ type: 'diff', ...{ path: WRITE.path, oldText: null, newText: WRITE.content } }] }, options: OPTIONS } });
  const deadline = Date.now() + 3000;
  let p: { permissionId: string } | undefined;
  while (!(p = Object.values(a.controller.state.permissions).find((x) => x.toolCallId === `t${id}` && x.state === 'waiting'))) {
    if (Date.now() > deadline) throw new Error('no permission card');
    await sleep(10);
  }
  assert.ok(a.controller.answerPermission(p.permissionId, 'yes', 'person'));
  await a.waitFor((m) => m.id === id && !!m.result, 'the permission answer');
}

/** The agent writes /w/a.txt; resolves with our answer to it. */
async function write(a: BadAgent, id: number): Promise<Msg> {
  a.send({ jsonrpc: '2.0', id, method: 'fs/write_text_file', params: { sessionId: 's1', ...WRITE } });
  return (await a.waitFor((m) => m.id === id && ('result' in m || 'error' in m), 'the write answer')) as Msg;
}

describe('review findings of issue 18 (gate and lifecycle)', function () {
  this.timeout(20_000);
  const open: BadAgent[] = [];
  afterEach(async () => {
    for (const a of open.splice(0)) await a.close().catch(() => undefined);
  });

  it('an approved write is performed when nobody stopped the turn (the control case)', async () => {
    const a = await badAgent();
    open.push(a);
    void a.controller.prompt('go').catch(() => undefined);
    await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt');
    await approvedWrite(a, 1);
    const res = await write(a, 2);
    assert.ok(res.result, JSON.stringify(res));
  });

  it('F2: Stop withdraws the stopped turn\'s unused once-approvals: the agent that ignores Stop cannot still write', async () => {
    const a = await badAgent();
    open.push(a);
    void a.controller.prompt('go').catch(() => undefined);
    await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt');
    await approvedWrite(a, 1);
    await a.controller.cancel();
    const res = await write(a, 2);
    assert.equal(res.error?.code, -32013, JSON.stringify(res));
  });

  it('F1: a session the person closed performs nothing while it waits for the agent\'s session/close answer', async () => {
    const a = await badAgent({
      // An agent that offers session/close and never answers it (the client waits up to 2 s).
      onRequest: (m, send) => {
        if (m.method === 'initialize') {
          send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { close: {} } }, agentInfo: { name: 'bad', version: '1' }, authMethods: [] } });
          return true;
        }
        return m.method === 'session/close';
      },
    });
    open.push(a);
    void a.controller.prompt('go').catch(() => undefined);
    await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt');
    await approvedWrite(a, 1);
    const closing = a.controller.dispose({ agentClose: true });
    await a.waitFor((m) => m.method === 'session/close', 'session/close');
    const res = await write(a, 2);
    assert.ok(res.error, `the write was refused: ${JSON.stringify(res)}`);
    await closing;
  });

  it('F6: a restart that finds its session closed ends the new agent process instead of attaching it', async () => {
    const a = await badAgent();
    const b = await badAgent();
    open.push(a, b);
    await a.controller.dispose();
    await assert.rejects(a.controller.restart(b.connection), /closed while its agent restarted/);
    let disposed = false;
    b.connection.whenDisposed(() => (disposed = true));
    assert.ok(disposed, 'the new connection (and its process) was ended');
  });

  it('F8: a question the agent asks for the turn the person stopped is answered cancel, with no card', async () => {
    const a = await badAgent();
    open.push(a);
    void a.controller.prompt('go').catch(() => undefined);
    await a.waitFor((m) => m.method === 'session/prompt', 'session/prompt');
    await a.controller.cancel();
    a.send({ jsonrpc: '2.0', id: 5, method: 'elicitation/create', params: { sessionId: 's1', mode: 'form', message: 'Your token?', requestedSchema: { type: 'object', properties: { token: { type: 'string' } } } } });
    const res = (await a.waitFor((m) => m.id === 5 && ('result' in m || 'error' in m), 'the question answer')) as Msg;
    assert.deepEqual(res.result, { action: 'cancel' });
    assert.ok(!a.controller.state.entries.some((e) => e.kind === 'elicitation'), 'no card');
  });
});

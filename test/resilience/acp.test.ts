/**
 * Resilience, ACP: what a broken or hostile agent can write to us. Each case gets a clear answer (a
 * JSON-RPC error back to the agent, a notice, or a quiet drop where the protocol says so), nothing
 * crashes, and the connection goes on working (a valid update afterwards is shown).
 */
import assert from 'node:assert/strict';
import { badAgent, type BadAgent } from './acpHarness';

const update = (u: Record<string, unknown>, sessionId = 's1') => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
const chunk = (text: string) => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const request = (id: number | string, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });
const errorFor = (a: BadAgent, id: unknown) => a.waitFor((m) => m.id === id && 'error' in m, `an error answer to request ${String(id)}`) as Promise<{ error: { code: number; message: string } }>;
const permission = (id: number, toolCallId: string) => request(id, 'session/request_permission', { sessionId: 's1', toolCall: { toolCallId, title: `Run ${toolCallId}` }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }] });

let unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

/** One case: a fresh bad agent, what it does, and a check that the connection still works. */
function scenario(name: string, body: (a: BadAgent) => Promise<void>, opts: { maxMessageBytes?: number; stillAlive?: boolean } = {}) {
  it(name, async () => {
    const a = await badAgent(opts);
    try {
      await body(a);
      if (opts.stillAlive !== false) await a.alive(`alive-${name.length}`);
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
    } finally {
      await a.close();
    }
  });
}

describe('resilience: what a bad agent writes', function () {
  this.timeout(30_000);
  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => process.off('unhandledRejection', onUnhandled));
  beforeEach(() => (unhandled = []));

  // Framing and encoding.
  scenario('a line that is not JSON', async (a) => a.send('{{{ not json\n'));
  for (const junk of ['42', '"a string"', '[1,2,3]', 'null', 'true'])
    scenario(`a JSON value that is not a message (${junk})`, async (a) => a.send(`${junk}\n`));
  scenario('a message without "jsonrpc"', async (a) => a.send({ method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } } }));
  scenario('bytes that are not UTF-8', async (a) => a.send(new Uint8Array([0xff, 0xfe, 0xc3, 0x28, 0x0a])));
  scenario('a UTF-8 character split across two writes arrives whole', async (a) => {
    const bytes = new TextEncoder().encode(`${JSON.stringify(chunk('café ☕ ok'))}\n`);
    const cut = bytes.indexOf(0xc3) + 1;
    a.send(bytes.subarray(0, cut));
    await new Promise((r) => setTimeout(r, 20));
    a.send(bytes.subarray(cut));
    await a.alive('after-split');
    assert.ok(a.controller.state.entries.some((e) => e.kind === 'agent' && e.text.includes('café ☕ ok')));
  });
  scenario('CRLF line endings, blank lines and a byte-order mark', async (a) => a.send(`\uFEFF\r\n\r\n   \n${JSON.stringify(chunk('crlf'))}\r\n`));
  scenario('a 50 MB line (one huge chunk) is shown, not fatal', async (a) => {
    a.send(chunk('y'.repeat(50 * 1024 * 1024)));
    await a.alive('after-50mb');
    assert.ok(a.controller.state.entries.some((e) => e.kind === 'agent' && e.text.length >= 50 * 1024 * 1024));
  });
  scenario('a line over the size limit ends the connection with a clear error', async (a) => {
    a.send(chunk('z'.repeat(2 * 1024 * 1024)));
    const deadline = Date.now() + 3000;
    while (a.controller.state.status !== 'error' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(a.controller.state.status, 'error');
    assert.match(a.controller.state.error?.message ?? '', /connection to Bad agent broke: .*(limit|large|bytes)/i);
  }, { maxMessageBytes: 1024 * 1024, stillAlive: false });
  scenario('JSON nested 100,000 deep', async (a) => a.send(`${'['.repeat(100_000)}${']'.repeat(100_000)}\n`));

  // Sessions and ids.
  scenario('an update for a session that does not exist is dropped', async (a) => a.send(chunk('ghost') && update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ghost' } }, 'nope')));
  scenario('a request for a session that does not exist gets "session not found"', async (a) => {
    a.send(request(7, 'fs/read_text_file', { sessionId: 'nope', path: '/w/a.txt' }));
    assert.equal((await errorFor(a, 7)).error.code, -32002);
  });
  scenario('a method we do not have gets "method not found"', async (a) => {
    a.send(request(8, 'editor/format_disk', { sessionId: 's1' }));
    assert.equal((await errorFor(a, 8)).error.code, -32601);
  });
  scenario('params of the wrong type get "invalid params"', async (a) => {
    a.send(request(9, 'fs/write_text_file', { sessionId: 's1', path: 42, content: ['x'] }));
    assert.equal((await errorFor(a, 9)).error.code, -32602);
  });
  scenario('a response to a request never sent is ignored', async (a) => a.send({ jsonrpc: '2.0', id: 999_999, result: { whatever: true } }));
  scenario('an error response to a request never sent is ignored', async (a) => a.send({ jsonrpc: '2.0', id: 'never', error: { code: -32000, message: 'boom' } }));
  scenario('a request with a null id', async (a) => a.send({ jsonrpc: '2.0', id: null, method: 'fs/read_text_file', params: { sessionId: 's1', path: '/w/a.txt' } }));
  scenario('an unknown session update kind is ignored', async (a) => a.send(update({ sessionUpdate: 'from_the_future', payload: 1 })));
  scenario('a session update without its kind is refused by validation', async (a) => a.send(update({ content: { type: 'text', text: 'no kind' } })));
  scenario('a read of a file that does not exist gets an error answer', async (a) => {
    a.send(request(10, 'fs/read_text_file', { sessionId: 's1', path: '/w/missing.txt' }));
    const e = await errorFor(a, 10);
    assert.match(e.error.message, /not found/i);
  });
  scenario('a write nobody approved is refused and said so in the thread', async (a) => {
    a.send(request(11, 'fs/write_text_file', { sessionId: 's1', path: '/w/x.txt', content: 'sneaky' }));
    await errorFor(a, 11);
    assert.ok(a.controller.state.entries.some((e) => e.kind === 'notice' && /Refused/.test(e.text)));
  });
  scenario('terminal output for a terminal that does not exist', async (a) => {
    a.send(request(12, 'terminal/output', { sessionId: 's1', terminalId: 'term-nope' }));
    await errorFor(a, 12);
  });

  // Tool calls and permissions.
  scenario('a tool call update for a call never announced becomes a placeholder', async (a) => {
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 'orphan', status: 'completed' }));
    await a.alive('after-orphan');
    assert.equal(a.controller.state.toolCalls.orphan?.placeholder, true);
  });
  scenario('10,000 tool calls in a burst', async (a) => {
    for (let i = 0; i < 10_000; i++) a.send(update({ sessionUpdate: 'tool_call', toolCallId: `b${i}`, title: `Read ${i}`, kind: 'read', status: 'completed' }));
    await a.alive('after-burst');
    assert.equal(Object.keys(a.controller.state.toolCalls).length, 10_000);
  });
  scenario('a tool call with a 1 MB title and a plan of 10,000 entries', async (a) => {
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 'big', title: 't'.repeat(1024 * 1024), kind: 'other' }));
    a.send(update({ sessionUpdate: 'plan', entries: Array.from({ length: 10_000 }, (_, i) => ({ content: `step ${i}`, priority: 'low', status: 'pending' })) }));
  });
  scenario('a flood of 500 permission requests: all wait, and ending the session cancels every one', async (a) => {
    for (let i = 0; i < 500; i++) a.send(permission(100 + i, `flood${i}`));
    await a.alive('after-flood');
    const deadline = Date.now() + 10_000;
    while (Object.values(a.controller.state.permissions).length < 500 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(Object.values(a.controller.state.permissions).filter((p) => p.state === 'waiting').length, 500);
    await a.controller.dispose();
    assert.ok(Object.values(a.controller.state.permissions).every((p) => p.state === 'cancelled'));
  }, { stillAlive: false });
  scenario('a flood of 500 permission requests leaves the connection working', async (a) => {
    for (let i = 0; i < 500; i++) a.send(permission(1000 + i, `flood${i}`));
  });
  scenario('a permission request the agent withdraws: the answer to it is refused', async (a) => {
    a.send(permission(20, 'withdrawn'));
    // The request is shown once the gate has declared its intent (asynchronously).
    const shownBy = Date.now() + 3000;
    while (!Object.values(a.controller.state.permissions).length && Date.now() < shownBy) await new Promise((r) => setTimeout(r, 10));
    const p = Object.values(a.controller.state.permissions)[0];
    assert.ok(p, 'the request is shown');
    a.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 20 } });
    const deadline = Date.now() + 2000;
    while (a.controller.state.permissions[p.permissionId].state === 'waiting' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(a.controller.state.permissions[p.permissionId].state, 'cancelled');
    assert.equal(a.controller.answerPermission(p.permissionId, 'ok', 'person'), false, 'a stale answer does nothing');
  });
  scenario('a permission request without options', async (a) => {
    a.send(request(21, 'session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 'noopt' }, options: [] }));
  });
  scenario('the same request id used twice at once', async (a) => {
    a.send(permission(30, 'dup-a'));
    a.send(permission(30, 'dup-b'));
  });
  scenario('content blocks of unknown types and bad images', async (a) => {
    a.send(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'hologram', data: 1 } }));
    a.send(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', mimeType: 'image/png', data: '@@not base64@@' } }));
  });
});

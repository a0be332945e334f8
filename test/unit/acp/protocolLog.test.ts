/**
 * The protocol log's columns (issue 22, PF8): a plain text chunk is kept as its text and read back
 * as the message that passed — equal key by key and in the same order —, any message of another
 * shape (an extra key, another order, other content, an object that is not plain) is kept as it
 * passed, and the tap on our own stdio stream records both directions in order without a stream of
 * its own.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { ProtocolLog, tapStream } from '../../../src/acp/protocolLog';
import { ndJsonStdio } from '../../../src/acp/transport/ndJsonStdio';

const chunk = (sessionUpdate: string, text: string, sessionId = 's1') => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate, content: { type: 'text', text } } } });

describe('protocol log', () => {
  it('keeps a plain text chunk of each kind as its text and gives back the same message', () => {
    const log = new ProtocolLog();
    const sent = [chunk('agent_message_chunk', 'Hello'), chunk('agent_thought_chunk', 'hm', 's2'), chunk('user_message_chunk', ''), chunk('agent_message_chunk', 'x'.repeat(10_000))];
    for (const m of sent) log.record('in', m, 1_700_000_000_123);
    const all = log.all();
    assert.deepEqual(all.map((e) => e.message), sent);
    // The same JSON, key order included: what the inspector shows and exports is what passed.
    assert.deepEqual(all.map((e) => JSON.stringify(e.message)), sent.map((m) => JSON.stringify(m)));
    // Kept as the text: the message read back is made anew, not the object that passed.
    assert.ok(all.every((e, i) => e.message !== sent[i]));
    assert.deepEqual(all.map((e) => [e.seq, e.at, e.dir, e.answers]), sent.map((_, i) => [i + 1, 1_700_000_000_123, 'in', undefined]));
    assert.deepEqual(all.map((e) => log.summary(e).method), sent.map(() => 'session/update'));
    assert.equal(log.search('xxxxxxxx').length, 1);
    assert.equal(log.search('agent_thought_chunk')[0].seq, 2);
  });

  it('keeps every other shape as it passed', () => {
    const noProto = Object.assign(Object.create(null) as object, chunk('agent_message_chunk', 'a'));
    const inherited = Object.assign(Object.create({ extra: 1 }) as object, { type: 'text', text: 'b' });
    const others: unknown[] = [
      { ...chunk('agent_message_chunk', 'a'), id: 3 },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, messageId: 'm1' } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a', annotations: { priority: 1 } } } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { text: 'a', type: 'text' } } } },
      { method: 'session/update', jsonrpc: '2.0', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'tool_call_update', content: { type: 'text', text: 'a' } } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'image', text: 'a' } } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 7, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } } },
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 5 } } } },
      { jsonrpc: '1.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } } },
      JSON.parse('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","__proto__":{"x":1}}}}}') as unknown,
      noProto,
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: inherited } } },
      'not an object',
      null,
    ];
    const log = new ProtocolLog();
    for (const m of others) log.record('in', m);
    const all = log.all();
    assert.equal(all.length, others.length);
    all.forEach((e, i) => assert.equal(e.message, others[i], `message ${i} is the object that passed`));
  });

  it('a response still names its request; the newest are kept and the dropped counted, chunks or not', () => {
    const log = new ProtocolLog(100);
    log.record('out', { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: {} });
    for (let i = 0; i < 300; i++) log.record('in', i % 2 ? chunk('agent_message_chunk', String(i)) : { jsonrpc: '2.0', method: 'session/update', params: { i } });
    log.record('in', { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } });
    const all = log.all();
    assert.ok(all.length <= 100);
    assert.equal(log.dropped + all.length, 302);
    assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => 302 - all.length + 1 + i));
    assert.equal(log.summary(all.at(-1)!).method, 'session/prompt');
    assert.deepEqual(all.at(-2)!.message, chunk('agent_message_chunk', '299'));
    assert.deepEqual(all.at(-3)!.message, { jsonrpc: '2.0', method: 'session/update', params: { i: 298 } });
  });

  it('a listener hears each message as it passed, with its sequence number', () => {
    const log = new ProtocolLog();
    const heard: [number, unknown][] = [];
    log.onRecord((e) => heard.push([e.seq, e.message]));
    const a = chunk('agent_message_chunk', 'a');
    const b = { jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: { path: '/x' } };
    log.record('in', a);
    log.record('in', b);
    assert.deepEqual(heard, [[1, a], [2, b]]);
  });

  it('taps our stdio stream through its own observer: both directions, in order, the same stream', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const stream = ndJsonStdio(output, input, { maxMessageBytes: 1 << 20 });
    const log = new ProtocolLog();
    const tapped = tapStream(stream, log);
    assert.equal(tapped, stream, 'no stream of its own');
    const writer = tapped.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } } as acp.AnyMessage);
    input.write(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }) + '\n' + JSON.stringify(chunk('agent_message_chunk', 'hi')) + '\n');
    const reader = tapped.readable.getReader();
    const got = [(await reader.read()).value, (await reader.read()).value];
    assert.deepEqual(got[1], chunk('agent_message_chunk', 'hi'));
    const list = log.all().map((e) => [e.dir, log.summary(e).kind, log.summary(e).method]);
    assert.deepEqual(list, [['out', 'request', 'initialize'], ['in', 'response', 'initialize'], ['in', 'notification', 'session/update']]);
  });

  it('taps any other stream by wrapping it', async () => {
    const log = new ProtocolLog();
    const sent: unknown[] = [];
    const readable = new ReadableStream<acp.AnyMessage>({ start: (c) => (c.enqueue(chunk('agent_message_chunk', 'x') as acp.AnyMessage), c.close()) });
    const tapped = tapStream({ readable, writable: new WritableStream({ write: (m) => void sent.push(m) }) }, log);
    await tapped.writable.getWriter().write({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } } as acp.AnyMessage);
    const r = tapped.readable.getReader();
    await r.read();
    assert.equal(sent.length, 1);
    assert.deepEqual(log.all().map((e) => [e.dir, log.summary(e).method]), [['out', 'session/cancel'], ['in', 'session/update']]);
  });
});

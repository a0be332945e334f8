/**
 * The ACP SDK's client app validates each `session/update` once. Its session router (for the
 * SDK's own session objects, which we do not use) parsed every update with the full schema before
 * the handler that takes it parsed it again: a fifth of the extension host's time in a 20,000-update
 * replay (PF9). `patches/@agentclientprotocol+sdk+*.patch` makes the router parse only when it has a
 * session to route to; this test fails if the patch is not applied (an SDK upgrade without it).
 */
import assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from '../../../src/acp/sdk';

describe('the ACP SDK validates a session/update once', () => {
  it('reads the update of each notification once, for the handler that takes it', async () => {
    const sdk = acpSdk();
    let toClient!: ReadableStreamDefaultController<acp.AnyMessage>;
    const readable = new ReadableStream<acp.AnyMessage>({ start: (c) => void (toClient = c) });
    const writable = new WritableStream<acp.AnyMessage>({ write: () => undefined });
    const got: acp.SessionNotification[] = [];
    const app = sdk.client({ name: 't' }).onNotification(sdk.methods.client.session.update, ({ params }) => void got.push(params));
    const conn = app.connect({ readable, writable });
    let reads = 0;
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } };
    // Every parse of the params reads `update` once: the count is the number of validations.
    const params = new Proxy({ sessionId: 's1', update }, { get: (t, k, r) => (k === 'update' && reads++, Reflect.get(t, k, r)) });
    toClient.enqueue({ jsonrpc: '2.0', method: 'session/update', params } as acp.AnyMessage);
    for (let i = 0; i < 50 && !got.length; i++) await new Promise((r) => setTimeout(r, 2));
    assert.deepEqual(got, [{ sessionId: 's1', update }]);
    assert.equal(reads, 1, `the update was read ${reads} times`);
    // An invalid update still does not reach the handler (the SDK logs that it refused it).
    const error = console.error;
    console.error = () => undefined;
    try {
      toClient.enqueue({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk' } } } as acp.AnyMessage);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      console.error = error;
    }
    assert.equal(got.length, 1);
    conn.close?.();
  });
});

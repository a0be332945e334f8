/**
 * A2A against a real server: test/fakes/a2a-server.mjs, written with @a2a-js/sdk's server side, run
 * as its own process. Card fetch and validation, signature checks (signed, unsigned, tampered), a
 * task that goes working → input-required → completed with an artifact, a cancelled one, a failed
 * one, and the `traceparent` of each request arriving at the server under the task's span.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { cardUrlFor, fetchAgentCard } from '../../src/a2a/card';
import { RemoteAgent } from '../../src/a2a/remote';
import { applyEvent, newTask, stateName } from '../../src/a2a/taskModel';
import { TraceStore } from '../../src/trace/store';
import { Tracing } from '../../src/trace/tracing';
import { SWITCHBOARD } from '../../src/trace/semconv';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { EditorMcpServer, type EditorLanguagePort } from '../../src/mcp/editorServer';
import { SessionSpans } from '../../src/trace/sessionSpans';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

const FAKE = path.join(__dirname, '..', 'fakes', 'a2a-server.mjs');

async function startFake(...args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [FAKE, '--step-ms', '60', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`the fake A2A server exited (${code})`)));
  });
  return { url, proc };
}

describe('A2A remote agents', function () {
  this.timeout(30_000);
  const running: ChildProcess[] = [];
  const fake = async (...args: string[]) => {
    const f = await startFake(...args);
    running.push(f.proc);
    return f.url;
  };
  after(() => running.forEach((p) => p.kill()));

  it('reads the card from the well-known path and shows skills, interfaces and security schemes', async () => {
    const url = await fake();
    const checked = await fetchAgentCard(url);
    assert.equal(checked.cardUrl, `${url}/.well-known/agent-card.json`);
    assert.equal(checked.card.name, 'Fake Research Agent');
    assert.equal(checked.card.version, '1.2.0');
    assert.deepEqual(checked.card.skills.map((s) => s.id), ['summarise', 'long-job']);
    assert.deepEqual(checked.chosen, { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    assert.ok(checked.card.securitySchemes.apiKey);
    assert.deepEqual(checked.signature, { state: 'unsigned' });
  });

  it('verifies a signed card with the key its jku names, and refuses a card changed after signing', async () => {
    const signed = await fake('--sign');
    const ok = await fetchAgentCard(signed);
    assert.equal(ok.signature.state, 'verified');
    assert.deepEqual({ ...ok.signature, thumbprint: undefined }, { state: 'verified', kid: 'fake-key-1', keyUrl: `${signed}/.well-known/jwks.json`, sameOrigin: true, thumbprint: undefined });
    assert.match(ok.signature.state === 'verified' ? ok.signature.thumbprint : '', /^[\w-]{43}$/, 'an RFC 7638 SHA-256 thumbprint');
    // The key the person trusted when adding the agent is pinned: another key is refused.
    await assert.rejects(RemoteAgent.connect('s', signed, {}, { expectedThumbprint: 'x'.repeat(43) }), /now signed with a different key than when you added it/);
    const again = await RemoteAgent.connect('s', signed, {}, { expectedThumbprint: ok.signature.state === 'verified' ? ok.signature.thumbprint : '' });
    again.dispose();
    const tampered = await fake('--tamper');
    const bad = await fetchAgentCard(tampered);
    assert.equal(bad.signature.state, 'failed');
    await assert.rejects(RemoteAgent.connect('t', tampered), /signature does not match/);
  });

  it('gives clear errors for URLs and cards it cannot use', async () => {
    assert.throws(() => cardUrlFor('ftp://agent.example'), /must be reached over https/);
    assert.throws(() => cardUrlFor('http://agent.example'), /plain http only on this machine/);
    assert.throws(() => cardUrlFor('not a url'), /is not a URL/);
    assert.equal(cardUrlFor('https://agent.example/cards/a.json'), 'https://agent.example/cards/a.json');
    // A server that is not an A2A agent, one that sends garbage, and one whose card lacks interfaces.
    const bodies: Record<string, string> = { '/garbage/.well-known/agent-card.json': '{not json', '/empty/.well-known/agent-card.json': JSON.stringify({ name: 'x', supportedInterfaces: [] }), '/grpc/.well-known/agent-card.json': JSON.stringify({ name: 'g', description: '', version: '1', supportedInterfaces: [{ url: 'http://127.0.0.1:1', protocolBinding: 'GRPC', protocolVersion: '1.0' }], skills: [] }) };
    const server = createServer((req, res) => {
      const body = bodies[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await assert.rejects(fetchAgentCard(`${base}/none`), /answered HTTP 404 \(is this an A2A agent\?/);
      await assert.rejects(fetchAgentCard(`${base}/garbage`), /is not JSON/);
      await assert.rejects(fetchAgentCard(`${base}/empty`), /not valid: supportedInterfaces: the card lists no supportedInterfaces/);
      await assert.rejects(fetchAgentCard(`${base}/grpc`), /offers only GRPC; Agent Switchboard speaks JSON-RPC and HTTP\+JSON/);
    } finally {
      server.close();
    }
  });

  it('follows a task through working and input-required to completed with an artifact, traced end to end', async () => {
    const url = await fake();
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const agent = await RemoteAgent.connect('fake', url, { tracing });
    const states: string[] = [];
    agent.onDidChange((e) => e && states.at(-1) !== e.task.state && states.push(e.task.state));
    const entry = await agent.delegate('Summarise the release notes', { traceKey: 'remote:fake' });
    assert.equal(entry.error, undefined);
    assert.equal(entry.task.state, 'input-required');
    assert.equal(entry.task.statusText, 'Short or long?');
    await agent.reply(entry.localId, 'short');
    assert.equal(entry.task.state, 'completed');
    assert.deepEqual(states.filter((s, i) => states.indexOf(s) === i), ['submitted', 'working', 'input-required', 'completed']);
    assert.equal(entry.task.artifacts.length, 1);
    assert.equal(entry.task.artifacts[0].name, 'summary.md');
    assert.deepEqual(entry.task.artifacts[0].parts.map((p) => (p.type === 'text' ? p.text : '')), ['# Summary (short)\n\n', 'The fake agent read the request and wrote this.\n'], 'the appended chunk joins the artifact');

    // One trace: the task span with its id, state and artifacts; each request a child whose traceparent the server saw.
    const spans = store.spans('remote:fake');
    const task = spans.find((s) => s.attributes[SWITCHBOARD.spanKind] === 'delegation')!;
    assert.equal(task.name, 'invoke_agent Fake Research Agent');
    assert.equal(task.attributes[SWITCHBOARD.a2aTaskId], entry.task.taskId);
    assert.equal(task.attributes[SWITCHBOARD.a2aTaskState], 'completed');
    assert.deepEqual(task.attributes[SWITCHBOARD.a2aArtifacts], ['summary.md']);
    assert.ok(task.endMs, 'the task span ends with the task');
    const calls = spans.filter((s) => s.attributes[SWITCHBOARD.spanKind] === 'a2a');
    assert.deepEqual(calls.map((s) => s.name), ['SendStreamingMessage', 'SendStreamingMessage']);
    assert.ok(calls.every((c) => c.parentSpanId === task.spanId && c.traceId === task.traceId));
    const seen = (await (await fetch(`${url}/debug/requests`)).json()) as { traceparent: string | null; a2aVersion: string | null }[];
    assert.deepEqual(seen.map((r) => r.traceparent), calls.map((c) => `00-${c.traceId}-${c.spanId}-01`), 'each request carried its own span as traceparent');
    assert.ok(seen.every((r) => r.a2aVersion === '1.0'));
    agent.dispose();
    await tracing.dispose();
  });

  it('cancels a long task (CancelTask) and reports a failed one', async () => {
    const url = await fake();
    const agent = await RemoteAgent.connect('fake', url);
    const running = agent.delegate('cancel-me please', { traceKey: 'remote:fake' });
    const entry = await new Promise<ReturnType<typeof agent.task>>((resolve) => agent.onDidChange((e) => e?.task.statusText?.startsWith('Step 2') && resolve(e)));
    await agent.cancel(entry!.localId);
    await running;
    assert.equal(entry!.task.state, 'canceled');
    assert.match(entry!.task.statusText ?? '', /^Cancelled at step \d+ of 20\.$/);
    await assert.rejects(agent.cancel(entry!.localId), /already canceled/);
    const failed = await agent.delegate('fail now', { traceKey: 'remote:fake' });
    assert.equal(failed.task.state, 'failed');
    assert.equal(failed.task.statusText, 'The fake agent was told to fail.');
    await assert.rejects(agent.reply(failed.localId, 'again'), /only a task that waits for input takes a reply/);
    agent.dispose();
  });

  it('a remote agent that is not there is an error on the task, not a crash', async () => {
    const url = await fake();
    const agent = await RemoteAgent.connect('gone', url);
    running.forEach((p) => p.kill());
    await new Promise((r) => setTimeout(r, 200));
    const entry = await agent.delegate('Summarise', { traceKey: 'remote:gone' });
    assert.match(entry.error ?? '', /^SendStreamingMessage failed: /);
    assert.equal(entry.busy, false);
    agent.dispose();
  });

  it('without streaming: SendMessage answers at once, GetTask follows, and the task span ends with the task', async () => {
    const url = await fake('--no-streaming');
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const agent = await RemoteAgent.connect('plain', url, { tracing, pollMs: 50 });
    const entry = await agent.delegate('Summarise', { traceKey: 'remote:plain' });
    assert.equal(entry.task.state, 'input-required', entry.error);
    await agent.reply(entry.localId, 'long');
    assert.equal(entry.task.state, 'completed', entry.error);
    assert.equal(entry.task.artifacts[0]?.name, 'summary.md');
    const spans = store.spans('remote:plain');
    assert.ok(spans.find((s) => s.attributes[SWITCHBOARD.spanKind] === 'delegation')?.endMs, 'the task span ended');
    assert.ok(spans.some((s) => s.name === 'SendMessage') && spans.some((s) => s.name === 'GetTask'), spans.map((s) => s.name).join(', '));
    // A task that waits for input can be cancelled.
    const waiting = await agent.delegate('Summarise again', { traceKey: 'remote:plain' });
    assert.equal(waiting.task.state, 'input-required');
    await agent.cancel(waiting.localId);
    assert.equal(waiting.task.state, 'canceled');
    agent.dispose();
    await tracing.dispose();
  });

  it('a stalled stream is dropped after its idle time; a task the agent never named can still be cancelled', async () => {
    const url = await fake('--silent-stream');
    const agent = await RemoteAgent.connect('stalled', url, { streamIdleMs: 300 });
    const stalled = await agent.delegate('Summarise', { traceKey: 'remote:stalled' });
    assert.match(stalled.error ?? '', /^SendStreamingMessage failed: no event for 300 ms/);
    assert.equal(stalled.busy, false);
    const slow = await RemoteAgent.connect('stalled2', url, { streamIdleMs: 60_000 });
    const opened = new Promise<NonNullable<ReturnType<typeof slow.task>>>((resolve) => slow.onDidChange((e) => e?.busy && resolve(e)));
    const running = slow.delegate('Summarise', { traceKey: 'remote:stalled2' });
    const entry = await opened;
    await slow.cancel(entry.localId);
    await running;
    assert.equal(entry.task.state, 'canceled');
    assert.equal(entry.error, undefined, 'cancelled here is not an error of the agent');
    assert.equal(entry.busy, false);
    agent.dispose();
    slow.dispose();
  });

  it('refuses cards that would turn the editor against this machine, redirect, flood memory or carry too many signatures', async () => {
    const card = (over: Record<string, unknown> = {}) => ({ name: 'Remote', description: '', version: '1', supportedInterfaces: [{ url: 'https://agent.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], capabilities: {}, skills: [], ...over });
    const serve = (body: unknown, init: ResponseInit = {}): typeof fetch => async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' }, ...init });
    await assert.rejects(fetchAgentCard('https://agent.example', { fetch: serve(card({ supportedInterfaces: [{ url: 'http://127.0.0.1:4318/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] })) }), /points at this machine \(127\.0\.0\.1:4318\), but the card came from elsewhere/);
    const viaLoopbackKey = await fetchAgentCard('https://agent.example', { fetch: serve(card({ signatures: [{ protected: Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k', typ: 'JOSE', jku: 'http://localhost:8080/admin' })).toString('base64url'), signature: 'x' }] })) });
    assert.equal(viaLoopbackKey.signature.state, 'failed');
    assert.match(viaLoopbackKey.signature.state === 'failed' ? viaLoopbackKey.signature.reason : '', /points at this machine/);
    const many = await fetchAgentCard('https://agent.example', { fetch: serve(card({ signatures: Array.from({ length: 6 }, () => ({ protected: 'e30', signature: 'x' })) })) });
    assert.match(many.signature.state === 'failed' ? many.signature.reason : '', /carries 6 signatures; at most 5/);
    await assert.rejects(fetchAgentCard('https://agent.example', { fetch: serve('', { status: 302, headers: { location: 'http://192.0.2.2/internal' } }) }), /redirects to http:\/\/192\.0\.2\.2\/internal; give that URL instead/);
    let sent = 0;
    const endless: typeof fetch = async () => new Response(new ReadableStream({ pull(c) { sent += 65536; c.enqueue(new Uint8Array(65536)); } }), { status: 200 });
    await assert.rejects(fetchAgentCard('https://agent.example', { fetch: endless, maxBytes: 1024 * 1024 }), /larger than 1048576 bytes/);
    assert.ok(sent < 4 * 1024 * 1024, `stopped reading early (${sent} bytes)`);
    // A v0.3 card's signature is not relied on: the 1.0 check would not cover its endpoint.
    const legacy = await fetchAgentCard('https://agent.example', { fetch: serve({ name: 'Old', description: '', version: '1', url: 'https://agent.example/a2a', preferredTransport: 'JSONRPC', protocolVersion: '0.3', capabilities: {}, skills: [], defaultInputModes: [], defaultOutputModes: [], signatures: [{ protected: 'e30', signature: 'x' }] }) });
    assert.equal(legacy.signature.state, 'unchecked');
    assert.equal(legacy.chosen.url, 'https://agent.example/a2a');
    // The interface the client uses is the one shown: 1.0 before 0.3, bindings without case.
    const mixed = await fetchAgentCard('https://agent.example', { fetch: serve(card({ supportedInterfaces: [{ url: 'https://old.example', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }, { url: 'https://new.example', protocolBinding: 'jsonrpc', protocolVersion: '1.0' }] })) });
    assert.deepEqual(mixed.chosen, { url: 'https://new.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
  });

  it('an agent delegates through the editor\'s MCP server only when the person allows it; the task hangs under the agent\'s tool call', async () => {
    const url = await fake();
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const remote = await RemoteAgent.connect('r1', url, { tracing });
    const none = async () => [];
    const port: EditorLanguagePort = { diagnostics: none, definition: none, references: none, documentSymbols: none, workspaceSymbols: none, hover: none, openDocuments: none, selection: async () => null };
    const session: { c?: SessionController } = {};
    // The glue the extension has (RemoteAgentsCenter.delegateForSession), reduced to what is tested here.
    const editor = new EditorMcpServer(port, () => undefined, '0.0.0', {
      list: async () => [{ id: 'r1', name: remote.name }],
      delegate: async (key, a) => {
        let out: unknown;
        await session.c!.hostToolCall({ title: `Delegate to ${remote.name}: ${a.message}`, kind: 'other' }, async (parent) => {
          const e = await remote.delegate(a.message, { traceKey: key, parent }, { kind: 'agent', sessionKey: key, agentName: 'Scripted' });
          out = { state: e.task.state, status: e.task.statusText };
          return JSON.stringify(out);
        });
        return out;
      },
    });
    const mcpUrl = await editor.start();
    const results: unknown[] = [];
    const agent = scriptedAgent(async (t) => {
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 'tc1', title: 'Ask the research agent', kind: 'other', status: 'in_progress' });
      // The editor's own cards are not the agent's to write or to ask about.
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 'editor-forged', title: 'forged', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: '/w/x', oldText: null, newText: 'x' }] });
      await assert.rejects(t.client.request('session/request_permission', { sessionId: t.sessionId, toolCall: { toolCallId: 'editor-forged' }, options: [{ optionId: 'y', name: 'Y', kind: 'allow_once' }] }), /belongs to the editor/);
      const mcp = new McpClient({ name: 'agent', version: '0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${editor.tokenFor('k')}` } } }));
      for (const message of ['Summarise the changelog', 'Refused one']) {
        const r = await mcp.callTool({ name: 'delegate_to_remote_agent', arguments: { agentId: 'r1', message } });
        results.push(r.isError ? { error: (r.content as { text: string }[])[0].text } : (r.structuredContent as { result: unknown }).result);
      }
      await mcp.close();
      await t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'completed' });
      return 'end_turn';
    });
    const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' }, new MemoryFiles(), new SessionTerminals('/w', () => process.env), testPolicy({ roots: ['/w'], readCurrent: async () => null }));
    session.c = c;
    c.traceWith(new SessionSpans(tracing, c.state));
    // The person allows the first delegation and refuses the second.
    let asked = 0;
    c.onDidChange(() => {
      const waiting = Object.values(c.state.permissions).find((p) => p.state === 'waiting');
      if (waiting) queueMicrotask(() => c.answerPermission(waiting.permissionId, asked++ === 0 ? 'allow' : 'reject', 'person'));
    });
    try {
      await c.attach(conn);
      await c.prompt('delegate');
      assert.deepEqual(results, [{ state: 'input-required', status: 'Short or long?' }, { error: 'The person refused it.' }]);
      assert.equal(remote.tasks.length, 1, 'nothing was sent for the refused one');
      assert.equal(c.state.toolCalls['editor-forged'], undefined);
      const cards = Object.values(c.state.toolCalls).filter((tc) => tc.toolCallId.startsWith('editor-'));
      assert.deepEqual(cards.map((tc) => [tc.title, tc.status]), [['Delegate to Fake Research Agent: Summarise the changelog', 'completed'], ['Delegate to Fake Research Agent: Refused one', 'rejected']]);
      const spans = store.spans('k');
      const agentTool = spans.find((x) => x.name === 'execute_tool Ask the research agent')!;
      const hosted = spans.find((x) => x.name === 'execute_tool Delegate to Fake Research Agent: Summarise the changelog')!;
      const task = spans.find((x) => x.attributes[SWITCHBOARD.spanKind] === 'delegation')!;
      assert.equal(hosted.parentSpanId, agentTool.spanId, 'the hosted call hangs under the agent\'s tool call that caused it');
      assert.equal(task.parentSpanId, hosted.spanId);
      assert.equal(task.attributes[SWITCHBOARD.requestedBy], 'agent:Scripted');
      assert.equal(task.attributes[SWITCHBOARD.decidedBy], undefined, 'decided on the hosted card, not here');
      const permission = spans.find((x) => x.parentSpanId === hosted.spanId && x.attributes[SWITCHBOARD.spanKind] === 'permission')!;
      assert.equal(permission.attributes[SWITCHBOARD.decidedBy], 'person');
    } finally {
      await c.dispose();
      await editor.dispose();
      remote.dispose();
      await tracing.dispose();
    }
  });

  it('folds stream events: JSON enum names, appended artifacts, bare messages', () => {
    assert.equal(stateName('TASK_STATE_INPUT_REQUIRED'), 'input-required');
    assert.equal(stateName('nonsense'), 'unknown');
    const t = newTask('hi');
    applyEvent(t, { payload: { $case: 'statusUpdate', value: { taskId: 't1', contextId: 'c1', status: { state: 4, message: undefined, timestamp: undefined }, metadata: undefined } } });
    assert.equal(t.state, 'failed');
    assert.equal(t.taskId, 't1');
    applyEvent(t, { payload: undefined });
    assert.equal(t.state, 'failed');
  });
});

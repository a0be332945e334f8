/**
 * One trace per session across the client and the agent: our spans (session, turn, tool call,
 * permission wait with its decision) and the spans a scripted agent exports itself — with the
 * OpenTelemetry SDK, to our OTLP receiver, under the `traceparent` it received in
 * `session/prompt._meta` — end up in one tree in the trace store.
 */
import assert from 'node:assert/strict';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { OtlpReceiver } from '../../src/trace/receiver';
import { SessionSpans } from '../../src/trace/sessionSpans';
import { reduce, type SessionAction } from '../../src/acp/session/reducer';
import { createSessionState } from '../../src/acp/session/types';
import { TraceStore } from '../../src/trace/store';
import { Tracing } from '../../src/trace/tracing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EditorMcpServer, type EditorLanguagePort } from '../../src/mcp/editorServer';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';
import path from 'node:path';
import { McpServerConnection } from '../../src/mcp/connection';
import { McpSpans, mcpTraceKey } from '../../src/trace/mcpSpans';

describe('tracing a session across client and agent', () => {
  it('puts a turn\'s own tokens on its invoke_agent span (gen_ai.usage.*), never the context window\'s', () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const state = createSessionState({ key: 'u', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    const spans = new SessionSpans(tracing, state);
    const step = (a: SessionAction) => spans.observe(reduce(state, a));
    step({ type: 'ready', sessionId: 'acp-u' });
    step({ type: 'update', update: { sessionUpdate: 'usage_update', used: 90_000, size: 100_000 } });
    step({ type: 'promptSent', text: 'one' });
    step({ type: 'turnEnded', stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 340, cachedReadTokens: 800, cachedWriteTokens: 20 } });
    step({ type: 'promptSent', text: 'two' });
    step({ type: 'turnEnded', stopReason: 'end_turn' });
    const turns = store.spans('u').filter((x) => x.name.startsWith('invoke_agent'));
    assert.equal(turns.length, 2);
    assert.equal(turns[0].attributes['gen_ai.usage.input_tokens'], 1200);
    assert.equal(turns[0].attributes['gen_ai.usage.output_tokens'], 340);
    assert.equal(turns[0].attributes['gen_ai.usage.cache_read.input_tokens'], 800);
    assert.equal(turns[0].attributes['gen_ai.usage.cache_creation.input_tokens'], 20);
    assert.equal(turns[1].attributes['gen_ai.usage.input_tokens'], undefined, 'a turn without usage has none (not the context\'s 90,000)');
  });

  it('the agent\'s own spans join our session, turn, tool call and permission spans in one tree', async () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const receiver = new OtlpReceiver({ onSpans: (s) => store.add(s) });
    await receiver.start();
    const env = receiver.exporterEnv();
    let received: string | undefined;
    const agent = scriptedAgent(async (t) => {
      received = t.meta?.traceparent as string | undefined;
      // The agent's side: the OpenTelemetry SDK exporting to the endpoint and headers it was given.
      const exporter = new OTLPTraceExporter({ url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, headers: { authorization: decodeURIComponent(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS.split('=')[1]) } });
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const parent = new W3CTraceContextPropagator().extract(ROOT_CONTEXT, t.meta ?? {}, { get: (c, k) => c[k] as string | undefined, keys: (c) => Object.keys(c) });
      const llm = provider.getTracer('scripted-agent').startSpan('chat scripted-model', { attributes: { 'gen_ai.operation.name': 'chat' } }, parent);
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 'tc1', title: 'Edit notes.md', kind: 'edit', status: 'pending', locations: [{ path: '/w/notes.md' }] });
      const answer = await t.client.request('session/request_permission', {
        sessionId: t.sessionId,
        toolCall: { toolCallId: 'tc1' },
        options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
      });
      // The approved effect, hosted by the client.
      if (answer.outcome.outcome === 'selected') await t.client.request('fs/write_text_file', { sessionId: t.sessionId, path: '/w/notes.md', content: 'notes\n' });
      await t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: answer.outcome.outcome === 'selected' ? 'completed' : 'failed' });
      llm.end();
      await provider.forceFlush();
      await provider.shutdown();
      return 'end_turn';
    });
    const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' }, new MemoryFiles(), new SessionTerminals('/w', () => process.env), testPolicy({ roots: ['/w'], readCurrent: async () => null }));
    c.traceWith(new SessionSpans(tracing, c.state));
    c.onDidChange(() => {
      const waiting = Object.values(c.state.permissions).find((p) => p.state === 'waiting');
      if (waiting) queueMicrotask(() => c.answerPermission(waiting.permissionId, 'yes', 'person'));
    });
    try {
      await c.attach(conn);
      await c.prompt('edit my notes');
      const spans = store.spans('k');
      const one = (name: RegExp) => {
        const found = spans.filter((s) => name.test(s.name));
        assert.equal(found.length, 1, `${name}: ${spans.map((s) => s.name).join(', ')}`);
        return found[0];
      };
      const session = one(/^session Scripted$/);
      const turn = one(/^invoke_agent Scripted$/);
      const tool = one(/^execute_tool Edit notes\.md$/);
      const permission = one(/^permission Edit notes\.md$/);
      const llm = one(/^chat scripted-model$/);
      assert.ok(spans.every((s) => s.traceId === session.traceId), 'one trace');
      assert.equal(turn.parentSpanId, session.spanId);
      assert.equal(tool.parentSpanId, turn.spanId);
      assert.equal(permission.parentSpanId, tool.spanId);
      assert.equal(llm.parentSpanId, turn.spanId, "the agent's span hangs under the turn whose traceparent it received");
      assert.equal(received, `00-${turn.traceId}-${turn.spanId}-01`);
      assert.notEqual(llm.service, 'agent-switchboard', "the agent's spans keep their own service");
      assert.deepEqual(turn.attributes['gen_ai.response.finish_reasons'], ['end_turn']);
      assert.equal(turn.kind, 'client');
      assert.equal(permission.attributes['agent_switchboard.decision'], 'allow_once');
      assert.equal(permission.attributes['agent_switchboard.decided_by'], 'person');
      assert.match(String(permission.attributes['agent_switchboard.intent.hash']), /^[0-9a-f]{64}$/);
      assert.equal(tool.attributes['agent_switchboard.tool.status'], 'completed');
      assert.ok(turn.endMs !== undefined && tool.endMs !== undefined && permission.endMs !== undefined);
      assert.equal(session.endMs, undefined, 'the session span is live until the session closes');
      // The write the person approved: an effect span under the tool call, with the approval's intent hash.
      const effect = one(/^write notes\.md$/);
      assert.equal(effect.parentSpanId, tool.spanId);
      assert.equal(effect.attributes['agent_switchboard.decision.source'], 'approval');
      assert.equal(effect.attributes['agent_switchboard.decided_by'], 'person');
      assert.equal(effect.attributes['agent_switchboard.intent.hash'], permission.attributes['agent_switchboard.intent.hash']);
      assert.equal(effect.status.code, 'unset');
    } finally {
      await c.dispose();
      receiver.dispose();
    }
    assert.ok(store.spans('k').every((s) => s.endMs !== undefined), 'closing the session ends its spans');
  });

  it('a call the agent makes to the editor\'s MCP server during a tool call is a server span under that tool call', async () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const none = async () => [];
    const port: EditorLanguagePort = { diagnostics: none, definition: none, references: none, documentSymbols: none, workspaceSymbols: none, hover: none, openDocuments: none, selection: async () => null };
    const session: { c?: SessionController } = {};
    const editor = new EditorMcpServer(port, (_key, tool, _args, outcome, call) => call && session.c?.traceEditorToolCall(tool, call, outcome), '0.0.0');
    const url = await editor.start();
    const agent = scriptedAgent(async (t) => {
      await t.update({ sessionUpdate: 'tool_call', toolCallId: 'tc2', title: 'Check diagnostics', kind: 'read', status: 'in_progress' });
      const mcp = new Client({ name: 'agent', version: '0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${editor.tokenFor('k')}` } } }));
      await mcp.callTool({ name: 'diagnostics', arguments: {} });
      await mcp.close();
      await t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'tc2', status: 'completed' });
      return 'end_turn';
    });
    const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
    const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' }, new MemoryFiles(), new SessionTerminals('/w', () => process.env), testPolicy({ roots: ['/w'], readCurrent: async () => null }));
    session.c = c;
    c.traceWith(new SessionSpans(tracing, c.state));
    try {
      await c.attach(conn);
      await c.prompt('check');
      const spans = store.spans('k');
      const tool = spans.find((s) => s.name === 'execute_tool Check diagnostics');
      const server = spans.find((s) => s.name === 'tools/call diagnostics');
      assert.ok(tool && server, spans.map((s) => s.name).join(', '));
      assert.equal(server.parentSpanId, tool.spanId);
      assert.equal(server.kind, 'server');
      assert.equal(server.attributes['mcp.method.name'], 'tools/call');
      assert.ok(server.startMs >= tool.startMs && server.endMs! <= tool.endMs!);
    } finally {
      await c.dispose();
      await editor.dispose();
    }
  });

  it('an MCP request we send carries its span in _meta; a server we launch gets TRACEPARENT and its own receiver token', async () => {
    const store = new TraceStore();
    const tracing = new Tracing(store, '0.0.0');
    const receiver = new OtlpReceiver({ onSpans: (s) => store.add(s) });
    await receiver.start();
    const spans = new McpSpans(tracing);
    const fake = path.join(__dirname, '..', 'fakes', 'mcp-server.mjs');
    const c = new McpServerConnection('s1', 'fake', { type: 'stdio', command: process.execPath, args: [fake], env: {} }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env, tracer: spans, otelEnv: async (id) => ({ ...receiver.exporterEnv(`mcp:${id}`) }) });
    try {
      await c.start();
      assert.equal(c.state.state, 'running');
      const text = async (name: string, args: Record<string, unknown>) => ((await c.callTool(name, args)).content[0] as { text: string }).text;
      // Two calls, two spans: each request carries its own.
      const metas = [JSON.parse(await text('meta', {})), JSON.parse(await text('meta', {}))];
      assert.notEqual(metas[0].traceparent, metas[1].traceparent);
      const meta = metas[1];
      const env = (name: string) => text('env', { name });
      const traceparent = await env('TRACEPARENT');
      const endpoint = await env('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
      const sent = store.spans(mcpTraceKey('s1'));
      const server = sent.find((x) => x.name === 'mcp server fake')!;
      const calls = sent.filter((x) => x.name === 'tools/call meta');
      assert.equal(calls.length, 2);
      assert.ok(calls.every((x) => x.parentSpanId === server.spanId && x.kind === 'client' && x.attributes['mcp.method.name'] === 'tools/call'));
      assert.match(meta.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      assert.deepEqual(metas.map((m) => m.traceparent), calls.map((x) => `00-${x.traceId}-${x.spanId}-01`), 'the server received the span of each request');
      assert.match(traceparent, new RegExp(`^00-${server.traceId}-${server.spanId}-01$`), 'TRACEPARENT names the server\'s span');
      assert.equal(endpoint, receiver.exporterEnv('mcp:s1').OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
      assert.notEqual(receiver.exporterEnv('mcp:s1').OTEL_EXPORTER_OTLP_TRACES_HEADERS, receiver.exporterEnv('session:k').OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'each sender has its own token');
      await assert.rejects(c.callTool('nope', {}));
      assert.equal(store.spans(mcpTraceKey('s1')).find((x) => x.name === 'tools/call nope')?.status.code, 'error');
    } finally {
      await c.stop();
      receiver.dispose();
    }
    assert.ok(store.spans(mcpTraceKey('s1')).find((x) => x.name === 'mcp server fake')?.endMs, 'the server span ends when it stops');
  });
});

import assert from 'node:assert/strict';
import type { SpanRecord } from '../../../src/trace/otlp';
import { deciderText, delegation, type Hop } from '../../../webview/trace/delegation';

let seq = 0;
function span(name: string, attributes: SpanRecord['attributes'], parent?: SpanRecord, extra: Partial<SpanRecord> = {}): SpanRecord {
  seq++;
  return { traceId: 't'.repeat(32), spanId: seq.toString(16).padStart(16, '0'), ...(parent ? { parentSpanId: parent.spanId } : {}), name, kind: 'internal', startMs: 1000 + seq, endMs: 2000 + seq, status: { code: 'unset' }, attributes, events: [], links: [], service: 'agent-switchboard', scope: 'agent-switchboard', ...extra };
}
const K = 'agent_switchboard.span.kind';
const find = (h: Hop, label: string): Hop => {
  if (h.label === label) return h;
  for (const c of h.children) {
    try {
      return find(c, label);
    } catch { /* next */ }
  }
  throw new Error(`no hop ${label}`);
};
const notes = (h: Hop) => Object.fromEntries(h.notes.map((n) => [n.label, n.value]));

describe('delegation view', () => {
  it('chains the person, the client, the agent and what it did, with who decided each hop', () => {
    const session = span('session Claude Code', { [K]: 'session', 'gen_ai.agent.name': 'Claude Code', 'agent_switchboard.agent.version': '0.9.1' });
    const turn = span('invoke_agent Claude Code', { [K]: 'turn' }, session);
    const edit = span('execute_tool Edit notes.md', { [K]: 'tool', 'agent_switchboard.tool.kind': 'edit', 'agent_switchboard.tool.status': 'completed' }, turn);
    const hash = 'a'.repeat(64);
    const permission = span('permission Edit notes.md', { [K]: 'permission', 'agent_switchboard.decision': 'allow_once', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.intent.hash': hash }, edit);
    const write = span('write notes.md', { [K]: 'effect', 'agent_switchboard.decision.source': 'approval', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.intent.hash': hash, 'agent_switchboard.grant.scope': 'once' }, edit);
    const read = span('execute_tool Read README.md', { [K]: 'tool', 'agent_switchboard.tool.kind': 'read' }, turn);
    const mcp = span('tools/call diagnostics', { [K]: 'mcp', 'server.address': 'editor' }, read);
    const test = span('execute_tool Run tests', { [K]: 'tool', 'agent_switchboard.tool.kind': 'execute' }, turn);
    const run = span('run npm test', { [K]: 'effect', 'agent_switchboard.decision.source': 'grant', 'agent_switchboard.decided_by': 'grant:person', 'agent_switchboard.grant.id': 'g1', 'agent_switchboard.grant.scope': 'workspace', 'agent_switchboard.grant.expires_at': '2026-12-01T10:00:00.000Z' }, test);
    const remote = span('invoke_agent Fake Research Agent', { [K]: 'delegation', 'gen_ai.agent.name': 'Fake Research Agent', 'agent_switchboard.agent.version': '1.2.0', 'agent_switchboard.a2a.card.signature': 'unsigned', 'agent_switchboard.requested_by': 'agent:Claude Code', 'agent_switchboard.a2a.task.id': 'task-7', 'agent_switchboard.a2a.task.state': 'completed', 'agent_switchboard.a2a.artifacts': ['summary.md'] }, mcp);
    // The agent's own spans (another service) are not hops.
    const own = span('chat claude', {}, turn, { service: 'claude-code', received: true });
    const root = delegation([own, remote, run, test, mcp, read, write, permission, edit, turn, session].reverse());

    assert.equal(root.kind, 'subject');
    assert.equal(root.children[0].kind, 'client');
    const agent = root.children[0].children[0];
    assert.deepEqual([agent.kind, agent.label, agent.detail], ['agent', 'Claude Code', 'v0.9.1']);
    assert.deepEqual(agent.children.map((c) => c.label), ['Edit notes.md', 'Read README.md', 'Run tests'], 'tool calls in start order, turns skipped');

    const e = find(root, 'Edit notes.md');
    assert.equal(notes(e)['decided by'], 'you');
    assert.equal(notes(e).decision, 'allow_once');
    assert.equal(notes(e).intent, `${'a'.repeat(12)}…`);
    assert.deepEqual(notes(find(root, 'write notes.md')), { 'allowed by': 'you', grant: 'scope once', intent: `${'a'.repeat(12)}…` });

    const r = find(root, 'Read README.md');
    assert.equal(notes(r)['decided by'], 'the agent, on its own (no permission asked)');
    assert.equal(r.children[0].label, 'MCP server editor');
    const remoteHop = r.children[0].children[0];
    assert.equal(remoteHop.label, 'remote agent Fake Research Agent');
    assert.equal(remoteHop.detail, 'v1.2.0 · unverified card');
    assert.deepEqual(notes(remoteHop), { 'requested by': 'the agent Claude Code', task: 'task-7', state: 'completed', artifacts: 'summary.md' });

    assert.deepEqual(notes(find(root, 'run npm test')), { 'allowed by': 'a standing grant', grant: 'g1 · scope workspace · until 2026-12-01 10:00' });
    assert.equal(notes(find(root, 'Run tests'))['decided by'], undefined, 'a call whose effect names its grant is not "on its own"');
  });

  it('a delegation the person made from the panel hangs under the client; a failed one says so', () => {
    const task = span('invoke_agent Fake', { [K]: 'delegation', 'gen_ai.agent.name': 'Fake', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.a2a.task.state': 'not started' }, undefined, { status: { code: 'error', message: 'SendMessage failed' } });
    const call = span('SendStreamingMessage', { [K]: 'a2a' }, task);
    const root = delegation([task, call]);
    const hop = root.children[0].children[0];
    assert.equal(hop.kind, 'remote');
    assert.equal(hop.status, 'error');
    assert.equal(hop.children.length, 0, 'the requests are in the waterfall, not hops');
    assert.equal(hop.notes.find((n) => n.label === 'state')?.tone, 'error');
    assert.equal(notes(hop)['decided by'], 'you');
  });

  it('a permission that sorts before its tool call (same millisecond) still annotates that call', () => {
    const session = span('session A', { [K]: 'session' });
    const outer = span('execute_tool Ask', { [K]: 'tool' }, session);
    const hosted = span('execute_tool Delegate', { [K]: 'tool' }, outer);
    const permission = span('permission Delegate', { [K]: 'permission', 'agent_switchboard.decision': 'allow_once', 'agent_switchboard.decided_by': 'person' }, hosted);
    permission.startMs = hosted.startMs;
    const root = delegation([session, outer, permission, hosted]);
    assert.equal(notes(find(root, 'Delegate'))['decided by'], 'you');
    assert.equal(notes(find(root, 'Ask'))['decided by'], 'the agent, on its own (no permission asked)');
  });

  it('a received span of another trace that reuses our turn\'s span id takes nothing over', () => {
    const session = span('session A', { [K]: 'session', 'gen_ai.agent.name': 'A' });
    const turn = span('invoke_agent A', { [K]: 'turn' }, session);
    const tool = span('execute_tool Edit', { [K]: 'tool' }, turn);
    // The agent knows the turn's span id (from the traceparent it got) and exports a span with it, elsewhere.
    const forged = span('forged', {}, undefined, { traceId: 'f'.repeat(32), spanId: turn.spanId, received: true, service: 'agent' });
    const root = delegation([session, turn, forged, tool]);
    assert.deepEqual(root.children[0].children.map((h) => h.label), ['A']);
    assert.deepEqual(root.children[0].children[0].children.map((h) => h.label), ['Edit'], 'the tool call stays under its agent');
  });

  it('a deep chain of received spans with our spans under it is walked once', () => {
    const session = span('session A', { [K]: 'session', 'gen_ai.agent.name': 'A' });
    let parent = span('invoke_agent A', { [K]: 'turn' }, session);
    const all = [session, parent];
    for (let i = 0; i < 20_000; i++) all.push((parent = span(`hop ${i}`, {}, parent, { received: true, service: 'agent' })));
    for (let i = 0; i < 2_000; i++) all.push(span('tools/call x', { [K]: 'mcp', 'server.address': 'editor' }, parent));
    const agent = delegation(all).children[0].children[0];
    assert.equal(agent.children.length, 2_000);
  });

  it('an effect that ran a process says whether it was sandboxed and what the overlay held back', () => {
    const session = span('session Agent', { [K]: 'session', 'gen_ai.agent.name': 'Agent' });
    const tool = span('execute_tool Install', { [K]: 'tool', 'agent_switchboard.tool.kind': 'execute' }, session);
    const boxed = span('run npm install', { [K]: 'effect', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.sandboxed': true, 'agent_switchboard.sandbox.held_back': 2 }, tool);
    const plain = span('run ls', { [K]: 'effect', 'agent_switchboard.decided_by': 'person', 'agent_switchboard.sandboxed': false }, tool);
    const write = span('write a.txt', { [K]: 'effect', 'agent_switchboard.decided_by': 'person' }, tool);
    const root = delegation([session, tool, boxed, plain, write]);
    assert.equal(notes(find(root, 'run npm install')).sandbox, 'sandboxed · 2 held back');
    assert.equal(notes(find(root, 'run ls')).sandbox, 'not sandboxed');
    assert.equal(notes(find(root, 'write a.txt')).sandbox, undefined, 'a write the editor performs has no sandbox');
  });

  it('words for who decided', () => {
    assert.equal(deciderText('api'), 'an extension (API)');
    assert.equal(deciderText('rule'), 'a policy rule');
    assert.equal(deciderText('cancel'), 'nobody (cancelled)');
    assert.equal(deciderText('grant:Always allow npm test'), 'a standing grant');
  });

  it('a parent loop in received spans does not hang the view', () => {
    const a = span('x', {});
    const b = span('y', {}, a);
    a.parentSpanId = b.spanId;
    const tool = span('execute_tool t', { [K]: 'tool' }, b);
    const root = delegation([a, b, tool]);
    assert.equal(root.children[0].children[0].label, 't');
  });
});

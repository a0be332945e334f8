/**
 * The protocol inspector's record: a real agent process (the offline demo agent over stdio) and
 * every JSON-RPC message both ways, in order, with responses named by their request's method;
 * search; and an export that removes a planted secret (an MCP server's env value, a bearer token
 * in a string) and file contents unless asked to keep them.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentConnection } from '../../src/acp/connection';
import { exportLog, ProtocolLog, redact, redactText } from '../../src/acp/inspector';
import { capabilityMatrix } from '../../src/acp/capabilities';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { MemoryFiles } from '../fakes/memoryFiles';
import { testPolicy } from '../fakes/policy';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const SECRET = 'sk-live-planted-secret-0123456789abcdef';

describe('protocol inspector', () => {
  it('records every message of a real agent connection, both ways, in order', async function () {
    this.timeout(30_000);
    const conn = await AgentConnection.start(
      { command: process.execPath, args: ['--import', TSX_LOADER, DEMO_ENTRY], env: { ...process.env, SWITCHBOARD_DEMO_SCENARIO: 'echo' } as Record<string, string>, cwd: ROOT },
      { agentName: 'demo', clientInfo: { name: 't', version: '0' } },
    );
    try {
      const handlers = { onUpdate: () => undefined } as unknown as Parameters<typeof conn.newSession>[1];
      const { sessionId } = await conn.newSession(ROOT, handlers, [{ name: 'db', command: '/bin/db-mcp', args: [], env: [{ name: 'DB_TOKEN', value: SECRET }] }]);
      await conn.prompt(sessionId, [{ type: 'text', text: `hello Bearer ${SECRET}` }]);
      const log = conn.protocol;
      const list = log.all().map((e) => log.summary(e));
      assert.deepEqual(list.slice(0, 2).map((s) => [s.dir, s.kind, s.method]), [['out', 'request', 'initialize'], ['in', 'response', 'initialize']]);
      assert.ok(list.some((s) => s.dir === 'out' && s.method === 'session/new' && s.kind === 'request'));
      assert.ok(list.some((s) => s.dir === 'in' && s.method === 'session/new' && s.kind === 'response'));
      assert.ok(list.filter((s) => s.dir === 'in' && s.method === 'session/update' && s.kind === 'notification').length >= 3, 'the echo streams in chunks');
      assert.deepEqual(list.map((s) => s.seq), list.map((_, i) => i + 1), 'in order, none lost');
      assert.ok(list.every((s, i) => i === 0 || s.at >= list[i - 1].at), 'timestamps never go back');
      // The capability matrix from what went over the wire.
      const matrix = capabilityMatrix(conn.init, log.all().map((entry) => ({ entry, summary: log.summary(entry) })));
      const row = (c: string) => matrix.find((r) => r.capability === c)!;
      assert.equal(row('session/prompt').exercised, 1);
      assert.equal(row('session/new').exercised, 1);
      assert.ok(row('session/update: agent_message_chunk').exercised >= 3);
      assert.equal(row('fs/write_text_file').exercised, 0, 'the echo scenario writes nothing');
      assert.equal(row('promptCapabilities.image').declared, conn.init.agentCapabilities?.promptCapabilities?.image === true);
      // Search finds by method and by text.
      assert.ok(log.search('session/prompt').length >= 2);
      assert.ok(log.search('DB_TOKEN').some((e) => log.summary(e).method === 'session/new'));
      // Export: the planted secret is gone, wherever it was.
      const exported = exportLog(log.all());
      assert.ok(!exported.includes(SECRET), 'no planted secret in the export');
      assert.ok(exported.includes('"name":"DB_TOKEN","value":"[redacted]"'));
      assert.equal(exported.trim().split('\n').length, log.all().length);
    } finally {
      await conn.dispose();
    }
  });

  it('session modes: the demo agent offers three, session/set_mode switches, an unknown mode is refused before it is sent', async function () {
    this.timeout(30_000);
    const conn = await AgentConnection.start(
      { command: process.execPath, args: ['--import', TSX_LOADER, DEMO_ENTRY], env: { ...process.env, SWITCHBOARD_DEMO_SCENARIO: 'echo' } as Record<string, string>, cwd: ROOT },
      { agentName: 'demo', clientInfo: { name: 't', version: '0' } },
    );
    const c = new SessionController({ key: 'm', agentId: 'demo', agentName: 'Demo', cwd: ROOT }, new MemoryFiles(), new SessionTerminals(ROOT, () => process.env), testPolicy({ roots: [ROOT], readCurrent: async () => null }));
    try {
      await c.attach(conn);
      assert.deepEqual(c.state.availableModes?.map((m) => m.id), ['default', 'plan', 'autoEdit']);
      assert.equal(c.state.currentModeId, 'default');
      await c.setMode('plan');
      assert.equal(c.state.currentModeId, 'plan');
      await assert.rejects(c.setMode('yolo'), /offers no mode "yolo"/);
      const sent = conn.protocol.all().map((e) => conn.protocol.summary(e)).filter((x) => x.method === 'session/set_mode');
      assert.deepEqual(sent.map((x) => [x.dir, x.kind]), [['out', 'request'], ['in', 'response']], 'only the valid mode went over the wire');
      assert.equal(conn.capabilities.rows().find((r) => r.capability === 'session/set_mode')?.exercised, 1);
    } finally {
      await c.dispose();
    }
  });

  it('redacts env values, headers, credential keys, token formats and (unless kept) file contents', () => {
    const write = { jsonrpc: '2.0', id: 3, method: 'fs/write_text_file', params: { sessionId: 's', path: '/w/a.ts', content: 'const password = "hunter2";' } };
    assert.deepEqual(redact(write), { ...write, params: { ...write.params, content: '[27 characters]' } });
    // Kept file contents are still scrubbed of credentials.
    assert.deepEqual(redact(write, { fileContents: true }), { ...write, params: { ...write.params, content: 'const password = [redacted];' } });
    assert.deepEqual(redact({ params: { content: 'plain text' } }, { fileContents: true }), { params: { content: 'plain text' } });
    const terminal = { method: 'terminal/create', params: { command: 'deploy', env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: 'x' }], headers: { Authorization: 'Basic abc' } } };
    assert.deepEqual(redact(terminal), { method: 'terminal/create', params: { command: 'deploy', env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: '[redacted]' }], headers: { Authorization: '[redacted]' } } });
    const embedded = { method: 'session/prompt', params: { prompt: [{ type: 'text', text: 'look at this' }, { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'secret code' } }] } };
    assert.deepEqual(redact(embedded), { method: 'session/prompt', params: { prompt: [{ type: 'text', text: 'look at this' }, { type: 'resource', resource: { uri: 'file:///w/a.ts', text: '[11 characters]' } }] } });
    assert.deepEqual(redact({ content: [{ type: 'diff', path: '/w/a', oldText: 'a', newText: 'bb' }] }), { content: [{ type: 'diff', path: '/w/a', oldText: '[1 characters]', newText: '[2 characters]' }] });
    assert.deepEqual(redact({ apiKey: 'k', nested: { refresh_token: 't', note: 'use ghp_abcdefghijklmnopqrstuvwxyz0123 or AKIAABCDEFGHIJKLMNOP' } }), { apiKey: '[redacted]', nested: { refresh_token: '[redacted]', note: 'use [redacted] or [redacted]' } });
  });

  it('redacts credentials in commands, URLs, headers and key formats, and file contents wherever they sit', () => {
    const cases: [string, string][] = [
      ['export GITHUB_TOKEN=abcdef123456 && curl -u admin:hunter2 https://x.example/api?access_token=zzz999&page=2', 'export GITHUB_TOKEN=[redacted] && curl -u [redacted] https://x.example/api?access_token=[redacted]&page=2'],
      ['git clone https://bob:s3cr3t@git.example/repo.git', 'git clone https://[redacted]@git.example/repo.git'],
      ['curl -H "X-Api-Key: 123456789" -H "Authorization: token gho_abcdefghijklmnopqrstuvwxyz012345"', 'curl -H "X-Api-Key: [redacted]" -H "Authorization: [redacted]"'],
      ['sk_live_abcdefghij1234 npm_abcdefghijklmnopqrstuvwxyz0123456789 AIzaSyA1234567890abcdefghijklmnopqrstu glpat-abcdefghijklmnop1234 ASIAABCDEFGHIJKLMNOP', '[redacted] [redacted] [redacted] [redacted] [redacted]'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB\n-----END RSA PRIVATE KEY-----', '[redacted private key]'],
      ['AccountName=a;AccountKey=abc123==;EndpointSuffix=core', 'AccountName=a;AccountKey=[redacted];EndpointSuffix=core'],
      ['DB_PASSWORD=hunter2 --api-key=supersecretvalue123 SECRET_KEY: abc', 'DB_PASSWORD=[redacted] --api-key=[redacted] SECRET_KEY: [redacted]'],
      // Ordinary words stay.
      ['I used 500 tokens: fine. author: Ada. token limit exceeded. Basic authentication works.', 'I used 500 tokens: fine. author: Ada. token limit exceeded. Basic authentication works.'],
    ];
    for (const [text, want] of cases) assert.equal(redactText(text), want);
    const mcp = redact({ params: { mcpServers: [{ type: 'http', url: 'https://u:p@host/mcp?token=abc123', headers: [{ name: 'A', value: 'b' }] }, { command: 'x', args: ['--api-key=supersecretvalue123'] }], _meta: { secret: { a: 'b' }, token: 5 } } });
    assert.deepEqual(mcp, { params: { mcpServers: [{ type: 'http', url: 'https://[redacted]@host/mcp?token=[redacted]', headers: [{ name: 'A', value: '[redacted]' }] }, { command: 'x', args: ['--api-key=[redacted]'] }], _meta: { secret: '[redacted]', token: '[redacted]' } } });
    // A file the agent read itself, an embedded resource anywhere, an Edit tool's strings.
    const state = redact({ t: { kind: 'read', content: [{ type: 'content', content: { type: 'text', text: 'DB=1' } }], rawOutput: { output: 'body' } }, attachments: [{ type: 'resource', uri: 'file:///a', text: 'FILE' }], rawInput: { old_string: 'a', new_string: 'bb', file_path: '/x' } });
    assert.deepEqual(state, { t: { kind: 'read', content: [{ type: 'content', content: { type: 'text', text: '[4 characters]' } }], rawOutput: { output: '[4 characters]' } }, attachments: [{ type: 'resource', uri: 'file:///a', text: '[4 characters]' }], rawInput: { old_string: '[1 characters]', new_string: '[2 characters]', file_path: '/x' } });
  });

  it('names a response by the request it answered when it passed, even when an id is used again', () => {
    const log = new ProtocolLog();
    log.record('in', { jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: {} });
    log.record('out', { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'not found' } });
    log.record('in', { jsonrpc: '2.0', id: 1, method: 'session/request_permission', params: {} });
    log.record('out', { jsonrpc: '2.0', id: 1, result: { outcome: { outcome: 'cancelled' } } });
    assert.deepEqual(log.all().map((e) => log.summary(e).method), ['fs/read_text_file', 'fs/read_text_file', 'session/request_permission', 'session/request_permission']);
    const m = capabilityMatrix({ protocolVersion: 1 }, log.all().map((entry) => ({ entry, summary: log.summary(entry) })));
    assert.equal(m.find((r) => r.capability === 'session/request_permission')!.failed, 0);
    assert.equal(m.find((r) => r.capability === 'fs/read_text_file')!.failed, 1);
  });

  it('keeps within its byte budget; a huge message is kept as a stub', () => {
    const log = new ProtocolLog(1_000, 1_000_000);
    for (let i = 0; i < 50; i++) log.record('in', { jsonrpc: '2.0', method: 'session/update', params: { text: 'x'.repeat(50_000) } });
    assert.ok(log.all().length < 21 && log.all().length > 10, `${log.all().length} entries kept`);
    log.record('out', { jsonrpc: '2.0', id: 9, method: 'fs/write_text_file', params: { content: 'y'.repeat(500_000) } });
    assert.match(JSON.stringify(log.all().at(-1)!.message), /"method":"fs\/write_text_file","id":9,"note":"a message of about \d+ bytes, too large to keep"/);
  });

  it('keeps no copy of a tool output re-sent whole 200 times at 2 MiB (PF10): each is a stub', () => {
    const log = new ProtocolLog();
    const text = 'x'.repeat(2 * 1024 * 1024);
    for (let i = 0; i < 200; i++) log.record('in', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 't', content: [{ type: 'content', content: { type: 'text', text } }] } } });
    assert.equal(log.all().length, 200);
    assert.ok(log.all().every((e) => e.size === 256 && /too large to keep/.test(JSON.stringify(e.message))), 'every 2 MiB message is a stub');
    // A message under a sixteenth of the budget is kept whole.
    log.record('in', { jsonrpc: '2.0', method: 'session/update', params: { text: 'y'.repeat(512 * 1024) } });
    assert.equal((log.all().at(-1)!.message as { params: { text: string } }).params.text.length, 512 * 1024);
  });

  it('the capability matrix counts failures either way and what was declared but never used', () => {
    const log = new ProtocolLog();
    log.record('out', { jsonrpc: '2.0', id: 1, method: 'session/load', params: {} });
    log.record('in', { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    log.record('in', { jsonrpc: '2.0', id: 7, method: 'fs/read_text_file', params: { path: '/nope' } });
    log.record('out', { jsonrpc: '2.0', id: 7, error: { code: -32002, message: 'Resource not found: /nope' } });
    log.record('out', { jsonrpc: '2.0', method: 'session/cancel', params: {} });
    const m = capabilityMatrix({ protocolVersion: 1, agentCapabilities: { loadSession: true, promptCapabilities: { image: true } }, authMethods: [{ id: 'login', name: 'Log in' }] }, log.all().map((entry) => ({ entry, summary: log.summary(entry) })));
    const row = (c: string) => m.find((r) => r.capability === c)!;
    assert.deepEqual([row('session/load').declared, row('session/load').failed, row('session/load').lastError], [true, 1, 'Method not found']);
    assert.deepEqual([row('fs/read_text_file').exercised, row('fs/read_text_file').failed, row('fs/read_text_file').lastError], [1, 1, 'Resource not found: /nope']);
    assert.equal(row('session/cancel').exercised, 1);
    assert.deepEqual([row('promptCapabilities.image').declared, row('promptCapabilities.audio').declared], [true, false]);
    assert.equal(row('authMethods: login').declared, true);
  });

  it('keeps the newest messages when full, and counts what it dropped', () => {
    const log = new ProtocolLog(100);
    for (let i = 0; i < 250; i++) log.record('in', { jsonrpc: '2.0', method: 'session/update', params: { i } });
    assert.ok(log.all().length <= 100);
    assert.equal((log.all().at(-1)!.message as { params: { i: number } }).params.i, 249);
    assert.equal(log.dropped + log.all().length, 250);
  });
});

/**
 * Falling back to the 2025 handshake when `server/discover` is refused: over HTTP with a 400 and a
 * JSON-RPC -32000 body (as 2025-era SDK servers answer a request without a session), and over
 * stdio by a server that exits on any request before `initialize` (a fresh process is started for
 * the handshake). And a 2025-era HTTP session the server forgot (404) is re-initialized once, the
 * call retried once, never looped. The servers are scripted (test/fakes/mcp-scripted.mjs).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServerConnection } from '../../../src/mcp/connection';
import type { McpTransportSpec } from '../../../src/mcp/config';

const SCRIPTED = path.join(__dirname, '..', '..', 'fakes', 'mcp-scripted.mjs');
const options = { clientInfo: { name: 'agent-switchboard-test', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env };
type Scripted = { startScriptedHttp: (flags: Record<string, unknown>) => Promise<{ url: string; close: () => Promise<void> }> };
const fake = (): Promise<Scripted> => import(SCRIPTED) as Promise<Scripted>;

describe('MCP era fallback and 2025 session recovery (scripted servers)', function () {
  this.timeout(30_000);
  const open: McpServerConnection[] = [];
  const closers: (() => Promise<void>)[] = [];
  let dir: string;
  let log: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eras-'));
    log = path.join(dir, 'log.jsonl');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
    await Promise.all(closers.splice(0).map((c) => c()));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const connect = (t: McpTransportSpec) => {
    const c = new McpServerConnection(`e${open.length}`, `scripted ${open.length}`, t, options);
    open.push(c);
    return c;
  };
  const lines = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { method?: string; http?: { session: string | null; method: string } });
  const http = async (flags: Record<string, unknown>) => {
    const s = await (await fake()).startScriptedHttp({ log, ...flags });
    closers.push(s.close);
    return connect({ type: 'http', url: s.url, headers: {} });
  };

  it('HTTP: server/discover answered 400 with -32000 falls back to initialize', async () => {
    const c = await http({ era: 'legacy', discoverStatus: 400 });
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    assert.equal((c.state as { era: string }).era, 'legacy');
    assert.deepEqual((await c.callTool('good', {})).content, [{ type: 'text', text: 'good' }]);
    assert.deepEqual(lines().filter((l) => l.http).slice(0, 2).map((l) => l.http!.method), ['server/discover', 'initialize']);
  });

  it('stdio: a server that exits on the probe is started again, fresh, for the 2025 handshake', async () => {
    const c = connect({ type: 'stdio', command: process.execPath, args: [SCRIPTED, '--era', 'legacy', '--exit-on-probe', '--log', log], env: {} });
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    assert.equal((c.state as { era: string }).era, 'legacy');
    assert.deepEqual((await c.callTool('good', {})).content, [{ type: 'text', text: 'good' }]);
    const methods = lines().map((l) => l.method);
    assert.equal(methods[0], 'server/discover', 'the probe reached the first process');
    assert.equal(methods[1], 'initialize', 'the handshake went to a process that had not seen the probe');
    // A restart remembers the verdict: the probe is not sent again.
    await c.restart();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    assert.equal(lines().filter((l) => l.method === 'server/discover').length, 1);
  });

  it('HTTP 2025 session answered 404: re-initialized once and the call retried once', async () => {
    // The server forgets the first session after its catalog was listed (a restart on its side).
    const c = await http({ era: 'legacy', forgetSessionAfter: 5 });
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    const before = lines().filter((l) => l.http?.method === 'initialize').length;
    const results = await Promise.all([c.callTool('good', {}), c.callTool('good', {}), c.callTool('good', {})]);
    for (const r of results) assert.deepEqual(r.content, [{ type: 'text', text: 'good' }]);
    assert.equal(lines().filter((l) => l.http?.method === 'initialize').length, before + 1, 'one new session for all three calls');
    assert.equal(c.state.state, 'running');
  });

  it('HTTP 2025 session lost while a tool call runs: the call that already ran is not sent again (review finding F7)', async () => {
    // The slow call is taken (request 6 of the session) and answers 400 ms later; the good call
    // (request 7) meets the 404 and renews the session. The old code closed the old client at once,
    // cut the slow call off ("connection closed") and sent it again: it ran twice.
    const c = await http({ era: 'legacy', forgetSessionAfter: 6, slowTool: true });
    await c.start();
    const slow = c.callTool('slow', {});
    await new Promise((r) => setTimeout(r, 100));
    const good = await c.callTool('good', {});
    assert.deepEqual(good.content, [{ type: 'text', text: 'good' }]);
    assert.deepEqual((await slow).content, [{ type: 'text', text: 'good' }]);
    const ran = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { http?: unknown; method?: string; params?: { name?: string } }).filter((l) => !l.http && l.method === 'tools/call' && l.params?.name === 'slow');
    assert.equal(ran.length, 1, 'the slow tool ran once');
  });

  it('HTTP 2025 session that keeps answering 404: the call fails after one re-initialization, no loop', async () => {
    const c = await http({ era: 'legacy', forgetSessionAfter: 5, forgetAlways: true });
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    // Every new session is forgotten after 5 requests; a fresh one holds for the relisting, then the call 404s again.
    const before = lines().filter((l) => l.http?.method === 'initialize').length;
    const r = await c.callTool('good', {}).then(() => 'ok', (e: Error) => e.message);
    const after = lines().filter((l) => l.http?.method === 'initialize').length;
    assert.equal(after - before, 1, 'exactly one re-initialization');
    assert.match(r, /Session not found/);
  });
});

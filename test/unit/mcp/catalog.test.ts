/**
 * One bad item never takes a server down: every list (tools, prompts, resources, resource
 * templates) keeps its good items and names each bad one with the reason, in both eras, at start
 * and after `list_changed`; and a server that fails keeps its real reason, not the stop signal that
 * follows. The server is scripted (test/fakes/mcp-scripted.mjs) to send what an SDK server never would.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServerConnection, type McpServerState } from '../../../src/mcp/connection';
import { describeProblem } from '../../../src/mcp/catalog';

const SCRIPTED = path.join(__dirname, '..', '..', 'fakes', 'mcp-scripted.mjs');
const options = { clientInfo: { name: 'agent-switchboard-test', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env };

describe('MCP lists tolerate bad items one by one (scripted server)', function () {
  this.timeout(30_000);
  const open: McpServerConnection[] = [];
  const connect = (args: string[]) => {
    const c = new McpServerConnection(`s${open.length}`, `scripted ${open.length}`, { type: 'stdio', command: process.execPath, args: [SCRIPTED, ...args], env: {} }, options);
    open.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era} era: the good tools, prompts, resources and templates are kept and usable; each bad one is named with its reason`, async () => {
      const c = connect(['--era', era, '--bad-items']);
      await c.start();
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.equal((c.state as { era: string }).era, era);
      assert.deepEqual(c.catalog.tools.map((t) => t.name), ['good', 'stateful']);
      assert.deepEqual(c.catalog.prompts.map((p) => p.name), ['hello']);
      assert.deepEqual(c.catalog.resources.map((r) => r.uri), ['fake://one']);
      assert.deepEqual(c.catalog.resourceTemplates.map((r) => r.uriTemplate), ['fake://t/{id}']);
      const problems = c.catalog.problems.map((p) => [p.list, p.name]);
      assert.deepEqual(problems, [['tools', 'bad-schema'], ['tools', '#3'], ['resources', 'no-uri'], ['resourceTemplates', 'no-template'], ['prompts', 'bad-prompt']]);
      assert.match(describeProblem(c.catalog.problems[0]), /^tool "bad-schema" left out: inputSchema\.type: .*object/);
      assert.match(c.catalog.problems[1].reason, /^name: /);
      assert.match(c.catalog.problems[4].reason, /^arguments: /);
      assert.deepEqual((await c.callTool('good', {})).content, [{ type: 'text', text: 'good' }]);
    });
  }

  it('after tools/list_changed, a list with a bad item keeps its good tools and names the bad one (it was emptied or kept stale before)', async () => {
    const c = connect(['--era', 'legacy']);
    await c.start();
    assert.equal(c.catalog.problems.length, 0);
    await c.callTool('break', {});
    const end = Date.now() + 10_000;
    while (!c.catalog.problems.length && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(c.catalog.tools.map((t) => t.name), ['good', 'stateful']);
    assert.deepEqual(c.catalog.problems.map((p) => p.name), ['bad-schema', '#3']);
    assert.equal(c.state.state, 'running');
  });

  it('2026-07-28 over HTTP: the raw list carries the era envelope; a tool declaring x-mcp-header is left out while the list is invalid as a whole', async () => {
    type Scripted = { startScriptedHttp: (flags: Record<string, unknown>) => Promise<{ url: string; close: () => Promise<void> }> };
    const fake = (await import(SCRIPTED)) as Scripted;
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'log.jsonl');
    const server = await fake.startScriptedHttp({ era: 'modern', badItems: true, headerTool: true, log });
    const c = new McpServerConnection('h', 'http scripted', { type: 'http', url: server.url, headers: {} }, options);
    open.push(c);
    try {
      await c.start();
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.equal((c.state as { era: string }).era, 'modern');
      assert.deepEqual(c.catalog.tools.map((t) => t.name), ['good', 'stateful']);
      assert.deepEqual(c.catalog.prompts.map((p) => p.name), ['hello']);
      const routed = c.catalog.problems.find((p) => p.name === 'routed');
      assert.match(routed?.reason ?? '', /x-mcp-header/);
      assert.deepEqual((await c.callTool('good', {})).content, [{ type: 'text', text: 'good' }]);
      // The second, raw tools/list (our string id) is a 2026-07-28 request like any other: it carries the envelope.
      const raw = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { _meta?: Record<string, unknown> } }).find((m) => m.method === 'tools/list' && typeof m.id === 'string');
      assert.equal(raw?.params?._meta?.['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
      assert.deepEqual(raw?.params?._meta?.['io.modelcontextprotocol/clientInfo'], options.clientInfo);
      assert.ok(raw?.params?._meta?.['io.modelcontextprotocol/clientCapabilities']);
    } finally {
      await c.stop();
      await server.close();
      fs.rmSync(path.dirname(log), { recursive: true, force: true });
    }
  });

  it('over stdio the same x-mcp-header tool is kept (headers are an HTTP matter)', async () => {
    const c = connect(['--era', 'modern', '--bad-items', '--header-tool']);
    await c.start();
    assert.deepEqual(c.catalog.tools.map((t) => t.name), ['good', 'stateful', 'routed']);
  });

  it('a clean server has no problems (the SDK path, unchanged)', async () => {
    const c = connect(['--era', 'modern']);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    assert.deepEqual(c.catalog.problems, []);
    assert.deepEqual(c.catalog.tools.map((t) => t.name), ['good', 'stateful']);
  });

  it('a server whose list fails keeps that reason; the stop signal that follows does not replace it', async () => {
    const c = connect(['--era', 'legacy', '--list-error']);
    await c.start();
    // The close after the failure ends the process; its signal must not become the reason.
    await new Promise((r) => setTimeout(r, 500));
    const s = c.state as Extract<McpServerState, { state: 'error' }>;
    assert.equal(s.state, 'error');
    assert.match(s.message, /tool registry corrupt/);
    assert.doesNotMatch(s.message, /SIGTERM|stopped/);
  });
});

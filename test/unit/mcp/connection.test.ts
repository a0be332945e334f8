/**
 * The host's MCP client against real servers: @modelcontextprotocol/server-everything (npm, 2025
 * era) and the project's fake server written with @modelcontextprotocol/server 2.x in both eras.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { McpServerConnection, type McpServerState } from '../../../src/mcp/connection';
import type { McpTransportSpec } from '../../../src/mcp/config';
import type { ElicitationAnswer, ElicitationRequest } from '../../../src/mcp/elicitation';
import { liveGroupMembersFromProc } from '../../../src/terminals/processGroup';

const FAKE = path.join(__dirname, '..', '..', 'fakes', 'mcp-server.mjs');
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const stdio = (args: string[], env: Record<string, string | null> = {}): McpTransportSpec => ({ type: 'stdio', command: process.execPath, args, env });
const options = { clientInfo: { name: 'agent-switchboard-test', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env };

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('MCP host connection (real servers over stdio)', function () {
  this.timeout(60_000);
  const open: McpServerConnection[] = [];
  const connect = (args: string[], env: Record<string, string | null> = {}, budget = options.startupBudgetMs, elicit?: (r: ElicitationRequest) => Promise<ElicitationAnswer>) => {
    const c = new McpServerConnection(`t${open.length}`, `test ${open.length}`, stdio(args, env), { ...options, startupBudgetMs: budget, elicit });
    open.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });

  it('server-everything: 2025 era, its tools with annotations, resources, prompts, and a tool call', async () => {
    const c = connect([EVERYTHING, 'stdio']);
    await c.start();
    const s = c.state as Extract<McpServerState, { state: 'running' }>;
    assert.equal(s.state, 'running', JSON.stringify(c.state));
    assert.equal(s.era, 'legacy');
    assert.equal(s.protocolVersion, '2025-11-25');
    assert.ok(c.catalog.tools.some((t) => t.name === 'echo' && t.annotations?.readOnlyHint === true));
    assert.ok(c.catalog.resources.length > 0 && c.catalog.prompts.some((p) => p.name === 'simple-prompt'));
    const r = await c.callTool('echo', { message: 'hi' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: hi' }]);
  });

  it('a 2026-07-28 server is spoken to in the modern era; a 2025 one in the legacy era', async () => {
    const modern = connect([FAKE, '--era', 'modern']);
    const legacy = connect([FAKE, '--era', 'legacy']);
    await Promise.all([modern.start(), legacy.start()]);
    assert.deepEqual([modern.state.state, legacy.state.state], ['running', 'running'], JSON.stringify([modern.state, legacy.state]));
    assert.equal((modern.state as { era: string }).era, 'modern');
    assert.equal((modern.state as { protocolVersion: string }).protocolVersion, '2026-07-28');
    assert.equal((legacy.state as { era: string }).era, 'legacy');
    for (const c of [modern, legacy]) {
      assert.deepEqual((await c.callTool('add', { a: 2, b: 3 })).content, [{ type: 'text', text: '2+3=5' }]);
      assert.deepEqual(c.catalog.resources.map((r) => r.uri), ['fake://readme']);
      assert.deepEqual(c.catalog.prompts.map((p) => p.name), ['greet']);
    }
  });

  it('passes the person\'s environment through, with the definition\'s entries overriding or removing', async () => {
    process.env.SWITCHBOARD_MCP_TEST_A = 'from-host';
    process.env.SWITCHBOARD_MCP_TEST_B = 'removed';
    try {
      const c = connect([FAKE, '--era', 'legacy'], { SWITCHBOARD_MCP_TEST_B: null, SWITCHBOARD_MCP_TEST_C: 'from-definition' });
      await c.start();
      const text = async (name: string) => ((await c.callTool('env', { name })).content as { text: string }[])[0].text;
      assert.deepEqual([await text('SWITCHBOARD_MCP_TEST_A'), await text('SWITCHBOARD_MCP_TEST_B'), await text('SWITCHBOARD_MCP_TEST_C')], ['from-host', '(unset)', 'from-definition']);
    } finally {
      delete process.env.SWITCHBOARD_MCP_TEST_A;
      delete process.env.SWITCHBOARD_MCP_TEST_B;
    }
  });

  it('a server that crashes shows its stderr', async () => {
    const c = connect([FAKE, '--crash']);
    await c.start();
    assert.equal(c.state.state, 'error');
    const s = c.state as Extract<McpServerState, { state: 'error' }>;
    assert.ok(s.stderrTail.some((l) => /cannot open database/.test(l)), JSON.stringify(s));
    assert.match(s.message, /could not start \(exit code 3\): fake-mcp: cannot open database/);
  });

  it('a slow server is shown as slow after the budget and registered when it comes up', async function () {
    this.timeout(60_000);
    // The case: a server that needs 20 s to come up, against a 1 s budget.
    const c = connect([FAKE, '--era', 'legacy', '--delay-ms', '20000'], {}, 1000);
    const started = c.start();
    await until('slow', () => c.state.state === 'starting' && (c.state as { slow: boolean }).slow, 5000);
    await started;
    assert.equal(c.state.state, 'running');
    assert.ok(c.catalog.tools.some((t) => t.name === 'add'), 'tools listed late');
  });

  for (const era of ['modern', 'legacy']) {
    it(`follows tools/list_changed (${era} era)`, async () => {
      const c = connect([FAKE, '--era', era]);
      await c.start();
      assert.ok(!c.catalog.tools.some((t) => t.name === 'extra'));
      await c.callTool('grow', {});
      await until('the new tool listed', () => c.catalog.tools.some((t) => t.name === 'extra'), 10_000);
    });
  }

  for (const era of ['modern', 'legacy']) {
    it(`form elicitation (${era} era): the person's answer reaches the server with the schema's defaults; an answer the schema refuses does not`, async () => {
      const asked: ElicitationRequest[] = [];
      let answer: ElicitationAnswer = { action: 'accept', content: { color: 'g', count: 2 } };
      const c = connect([FAKE, '--era', era], {}, options.startupBudgetMs, async (r) => {
        asked.push(r);
        return answer;
      });
      await c.start();
      const text = async () => ((await c.callTool('ask', {})).content[0] as { text: string }).text;
      assert.deepEqual(JSON.parse(await text()), { action: 'accept', content: { color: 'g', count: 2, name: 'Ada' } });
      assert.equal(asked[0].message, 'Which colour should the report use?');
      assert.equal(asked[0].serverName, c.name);
      answer = { action: 'decline' };
      assert.deepEqual(JSON.parse(await text()), { action: 'decline' });
      // A count out of range never leaves: the server's call fails with our sentence instead.
      answer = { action: 'accept', content: { color: 'g', count: 42 } };
      const r = await c.callTool('ask', {}).then((x) => JSON.stringify(x), (e: Error) => e.message);
      assert.match(r, /does not match what the server asked for: count must be <= 9/);
    });
  }

  it('without an elicitor the client does not offer elicitation', async () => {
    const c = connect([FAKE, '--era', 'legacy']);
    await c.start();
    const r = await c.callTool('ask', {}).then((x) => JSON.stringify(x), (e: Error) => e.message);
    assert.match(r, /elicitation/i);
  });

  it('cancelling a long tool call aborts it on the server', async () => {
    const c = connect([FAKE, '--era', 'legacy']);
    await c.start();
    const ac = new AbortController();
    const call = c.callTool('sleep', { ms: 30_000 }, ac.signal);
    setTimeout(() => ac.abort(), 300);
    await assert.rejects(call);
    await until('the server saw the cancellation', () => c.stderrTail.some((l) => /sleep cancelled/.test(l)), 5000);
  });
});

describe('MCP stdio servers run in their own process group', function () {
  this.timeout(30_000);
  it('stopping a server also ends what it started (as npx leaves node behind)', async function () {
    if (process.platform === 'win32') this.skip();
    // The command is a shell that leaves a background child, then becomes the server.
    const c = new McpServerConnection('wrapped', 'wrapped', { type: 'stdio', command: '/bin/sh', args: ['-c', `sleep 300 & exec "${process.execPath}" "${FAKE}" --era legacy`], env: {} }, options);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    const pgid = c.pid!;
    assert.ok((await liveGroupMembersFromProc(pgid))!.length >= 2, 'the server and its background child share a group');
    await c.stop();
    assert.deepEqual(await liveGroupMembersFromProc(pgid), [], 'nothing of the group is left');
  });
});

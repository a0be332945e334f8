/**
 * The editor's MCP server over real HTTP on loopback, with a fake language port: both eras of our
 * own client reach it with a session's bearer token; without one, or from a foreign Host, it refuses.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { EditorMcpServer, type EditorLanguagePort } from '../../../src/mcp/editorServer';
import { McpServerConnection } from '../../../src/mcp/connection';

const port: EditorLanguagePort = {
  diagnostics: async (p) => [{ path: p ?? '/w/a.ts', line: 3, column: 7, severity: 'error', message: "Type 'string' is not assignable to type 'number'.", source: 'ts', code: '2322' }],
  definition: async (p, line) => [{ path: '/w/lib.ts', line: line + 10, column: 17 }],
  references: async () => [],
  documentSymbols: async () => [{ name: 'add', kind: 'Function', line: 1, column: 1 }],
  workspaceSymbols: async () => [],
  hover: async () => ['function add(a: number, b: number): number'],
  openDocuments: async () => [{ path: '/w/a.ts', version: 4, dirty: true, languageId: 'typescript' }],
  selection: async () => null,
};

function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

describe('the editor MCP server', function () {
  this.timeout(30_000);
  const calls: string[] = [];
  const server = new EditorMcpServer(port, (s, tool, _a, outcome) => calls.push(`${s}:${tool}:${outcome}`), '0.0.0');
  let url: string;
  before(async () => {
    url = await server.start();
  });
  after(() => server.dispose());

  it('listens on loopback and answers a session with its token; its calls are recorded for the session', async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const c = new McpServerConnection('editor', 'editor', { type: 'http', url, headers: { Authorization: `Bearer ${server.tokenFor('s1')}` } }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 10_000, baseEnv: {} });
    await c.start();
    try {
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.deepEqual(c.catalog.tools.map((t) => t.name).sort(), ['definition', 'diagnostics', 'document_symbols', 'hover', 'open_documents', 'references', 'selection', 'workspace_symbols']);
      assert.ok(c.catalog.tools.every((t) => t.annotations?.readOnlyHint === true));
      const r = await c.callTool('definition', { path: '/w/a.ts', line: 5, column: 3 });
      assert.deepEqual((r.structuredContent as { result: unknown }).result, [{ path: '/w/lib.ts', line: 15, column: 17 }]);
      assert.ok(calls.includes('s1:definition:ok'));
    } finally {
      await c.stop();
    }
  });

  it('refuses requests without a valid token, with a revoked token, and from a foreign Host', async () => {
    assert.equal(await post(url, {}), 401);
    assert.equal(await post(url, { Authorization: 'Bearer not-a-token' }), 401);
    const token = server.tokenFor('s2');
    server.revoke('s2');
    assert.equal(await post(url, { Authorization: `Bearer ${token}` }), 401);
    assert.equal(await post(url, { Authorization: `Bearer ${server.tokenFor('s3')}`, Host: 'evil.example:80' }), 403);
  });
});

describe('the stdio bridge to the editor MCP server', function () {
  this.timeout(60_000);
  const server = new EditorMcpServer(port, () => undefined, '0.0.0');
  after(() => server.dispose());

  it('relays tools/list and tools/call over stdio with the session token, and refuses to start without it', async () => {
    const url = await server.start();
    const bridge = require.resolve('../../../src/mcp/bridge.ts');
    const tsx = require.resolve('tsx/cli');
    const c = new McpServerConnection('bridge', 'editor', { type: 'stdio', command: process.execPath, args: [tsx, bridge], env: { AGENT_SWITCHBOARD_MCP_URL: url, AGENT_SWITCHBOARD_MCP_TOKEN: server.tokenFor('s9') } }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 20_000, baseEnv: process.env });
    try {
      await c.start();
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.equal(c.catalog.tools.length, 8);
      const r = await c.callTool('hover', { path: '/w/a.ts', line: 1, column: 1 });
      assert.deepEqual((r.structuredContent as { result: unknown }).result, ['function add(a: number, b: number): number']);
    } finally {
      await c.stop();
    }
    const bare = new McpServerConnection('bare', 'editor', { type: 'stdio', command: process.execPath, args: [tsx, bridge], env: { AGENT_SWITCHBOARD_MCP_URL: null, AGENT_SWITCHBOARD_MCP_TOKEN: null } }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 20_000, baseEnv: process.env });
    await bare.start();
    assert.equal(bare.state.state, 'error');
    assert.ok(bare.stderrTail.some((l) => /AGENT_SWITCHBOARD_MCP_URL and AGENT_SWITCHBOARD_MCP_TOKEN must be set/.test(l)), bare.stderrTail.join('\n'));
  });
});

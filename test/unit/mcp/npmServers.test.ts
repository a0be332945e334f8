/**
 * Real MCP servers from npm through the host's connection: server-everything over Streamable HTTP
 * (2025 era, sessions) and over stdio (list_changed, elicitation), server-filesystem and
 * server-memory over stdio.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServerConnection } from '../../../src/mcp/connection';

const options = { clientInfo: { name: 'agent-switchboard-test', version: '0' }, startupBudgetMs: 15_000, baseEnv: process.env };
const bin = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);

describe('real MCP servers from npm', function () {
  this.timeout(60_000);
  const open: McpServerConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });

  it('server-everything over Streamable HTTP: tools listed, a call, a long call cancelled', async () => {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    const proc: ChildProcess = spawn(process.execPath, [bin('server-everything'), 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
        proc.stderr!.on('data', (d: Buffer) => /listening on port/.test(d.toString()) && (clearTimeout(t), resolve()));
      });
      const c = new McpServerConnection('everything-http', 'everything', { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} }, options);
      open.push(c);
      await c.start();
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.ok(c.catalog.tools.some((t) => t.name === 'get-sum'));
      const r = await c.callTool('get-sum', { a: 2, b: 40 });
      assert.match(JSON.stringify(r.content), /42/);
      const ac = new AbortController();
      const long = c.callTool('trigger-long-running-operation', { duration: 30, steps: 5 }, ac.signal);
      setTimeout(() => ac.abort(), 500);
      await assert.rejects(long);
    } finally {
      proc.kill();
    }
  });

  it('server-everything over stdio: a resource it registers mid-session arrives by list_changed; its elicitation is answered', async () => {
    const asked: string[] = [];
    const c = new McpServerConnection('everything-stdio', 'everything', { type: 'stdio', command: process.execPath, args: [bin('server-everything'), 'stdio'], env: {} }, {
      ...options,
      elicit: async (r) => {
        asked.push(r.message);
        return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
      },
    });
    open.push(c);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    const before = c.catalog.resources.length;
    // A data: URI, so nothing is fetched from the network.
    await c.callTool('gzip-file-as-resource', { name: 'note.txt.gz', data: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`, outputType: 'resourceLink' });
    const end = Date.now() + 10_000;
    while (!c.catalog.resources.some((r) => /note\.txt\.gz/.test(r.uri)) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    assert.ok(c.catalog.resources.some((r) => /note\.txt\.gz/.test(r.uri)), `resources: ${before} → ${c.catalog.resources.map((r) => r.uri).join(', ')}`);
    // The tool exists only for clients that offer elicitation.
    assert.ok(c.catalog.tools.some((t) => t.name === 'trigger-elicitation-request'));
    const answer = JSON.stringify((await c.callTool('trigger-elicitation-request', {})).content);
    assert.equal(asked.length, 1);
    assert.match(answer, /Ada Lovelace/);
  });

  it('server-filesystem over stdio reads a file in its allowed folder', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-mcp-fs-')));
    fs.writeFileSync(path.join(dir, 'note.txt'), 'filesystem server works\n');
    const c = new McpServerConnection('fs', 'filesystem', { type: 'stdio', command: process.execPath, args: [bin('server-filesystem'), dir], env: {} }, options);
    open.push(c);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    const tool = c.catalog.tools.find((t) => t.name === 'read_text_file') ?? c.catalog.tools.find((t) => t.name === 'read_file');
    assert.ok(tool, c.catalog.tools.map((t) => t.name).join(', '));
    const r = await c.callTool(tool.name, { path: path.join(dir, 'note.txt') });
    assert.match(JSON.stringify(r.content), /filesystem server works/);
  });

  it('server-memory over stdio keeps an entity and reads it back', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'as-mcp-mem-')), 'memory.jsonl');
    const c = new McpServerConnection('mem', 'memory', { type: 'stdio', command: process.execPath, args: [bin('server-memory')], env: { MEMORY_FILE_PATH: file } }, options);
    open.push(c);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    await c.callTool('create_entities', { entities: [{ name: 'Switchboard', entityType: 'project', observations: ['reviews agents\' changes'] }] });
    const r = await c.callTool('read_graph', {});
    assert.match(JSON.stringify(r.content), /reviews agents/);
  });
});

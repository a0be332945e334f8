/**
 * Resilience, MCP: a server that prints junk on stdout before speaking, one whose tool has a 2 MB
 * description and returns 20 MB and 5,000 content blocks, and tool schemas nobody should write —
 * the connection keeps working, results are rendered bounded, forms are built without throwing.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { McpServerConnection } from '../../src/mcp/connection';
import { renderToolResult, schemaSkeleton } from '../../src/mcp/render';

const FAKE = path.join(__dirname, '..', 'fakes', 'mcp-server.mjs');
const options = { clientInfo: { name: 'resilience', version: '0' }, startupBudgetMs: 15_000, baseEnv: process.env };

describe('resilience: what a bad MCP server sends', function () {
  this.timeout(60_000);
  const open: McpServerConnection[] = [];
  const connect = (args: string[]) => {
    const c = new McpServerConnection(`r${open.length}`, `bad ${open.length}`, { type: 'stdio', command: process.execPath, args: [FAKE, ...args], env: {} }, options);
    open.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });

  for (const era of ['modern', 'legacy']) {
    it(`junk on stdout before a ${era} server speaks is skipped`, async () => {
      const c = connect(['--era', era, '--junk']);
      await c.start();
      assert.equal(c.state.state, 'running', JSON.stringify(c.state));
      assert.deepEqual((await c.callTool('add', { a: 2, b: 3 })).content, [{ type: 'text', text: '2+3=5' }]);
    });
  }

  it('a 2 MB description and a 20 MB result with 5,000 blocks: listed, called, rendered bounded', async () => {
    const c = connect(['--era', 'modern', '--huge']);
    await c.start();
    const tool = c.catalog.tools.find((t) => t.name === 'huge');
    assert.ok(tool && (tool.description ?? '').length >= 2 * 1024 * 1024);
    const r = await c.callTool('huge', {});
    assert.equal(r.content.length, 5001);
    const md = renderToolResult('bad', 'huge', {}, r);
    assert.ok(md.length < 2 * 1024 * 1024, `rendered ${md.length} characters`);
    assert.deepEqual((await c.callTool('add', { a: 1, b: 1 })).content, [{ type: 'text', text: '1+1=2' }], 'and it goes on working');
  });

  const deep: Record<string, unknown> = {};
  let cur = deep;
  for (let i = 0; i < 5000; i++) cur = (cur.properties = { x: { type: 'object' } }).x as Record<string, unknown>;
  const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  for (const [name, schema] of [
    ['a string instead of a schema', 'not a schema'],
    ['null', null],
    ['properties that are an array', { type: 'object', properties: [1, 2] }],
    ['a type that does not exist', { type: 'object', properties: { a: { type: 'quaternion' } } }],
    ['5,000 levels of nesting', { type: 'object', ...deep }],
    ['a schema that contains itself', cyclic],
  ] as [string, unknown][]) {
    it(`a tool schema with ${name} gives a skeleton, not an exception`, () => {
      const s = schemaSkeleton(schema);
      assert.equal(typeof s, 'object');
    });
  }
});

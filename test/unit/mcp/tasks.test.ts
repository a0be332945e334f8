/**
 * Tool calls that run as tasks (MCP Tasks extension, 2026-07-28) against the project's fake tasks
 * server (written with @modelcontextprotocol/server; see test/fakes/mcp-tasks-server.mjs).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { McpServerConnection } from '../../../src/mcp/connection';
import type { TaskProgress } from '../../../src/mcp/tasks';

const TASKS = path.join(__dirname, '..', '..', 'fakes', 'mcp-tasks-server.mjs');
const FAKE = path.join(__dirname, '..', '..', 'fakes', 'mcp-server.mjs');

describe('MCP tool calls as tasks', function () {
  this.timeout(30_000);
  const open: McpServerConnection[] = [];
  const connect = (file: string, args: string[] = []) => {
    const c = new McpServerConnection(`t${open.length}`, 'tasks', { type: 'stdio', command: process.execPath, args: [file, ...args], env: {} }, { clientInfo: { name: 'test', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env });
    open.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
  });

  it('follows a task with tasks/get at the server\'s poll interval, reports its progress, and returns its result', async () => {
    const c = connect(TASKS, ['--step-ms', '250', '--poll-ms', '150']);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    const seen: TaskProgress[] = [];
    const started = Date.now();
    const r = await c.callTool('report', { steps: 4 }, undefined, (t) => seen.push(t));
    const took = Date.now() - started;
    assert.deepEqual(r.content, [{ type: 'text', text: 'report ready (4 steps)' }]);
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.equal(seen[0].status, 'working');
    assert.equal(seen[0].pollIntervalMs, 150);
    assert.ok(seen.some((t) => /step \d of 4/.test(t.statusMessage ?? '')), JSON.stringify(seen));
    const gets = c.stderrTail.filter((l) => /fake-tasks: get /.test(l)).map((l) => Number(/at (\d+)/.exec(l)![1]));
    assert.ok(gets.length >= 2, c.stderrTail.join('\n'));
    // Polls are spaced by the server's interval (not a busy loop), and none went to tasks/result.
    const gaps = gets.slice(1).map((t, i) => t - gets[i]);
    assert.ok(gaps.every((g) => g >= 120), `gaps ${gaps.join(', ')} ms`);
    assert.ok(gets.length <= Math.ceil(took / 120) + 1, `${gets.length} polls in ${took} ms`);
  });

  it('several tasks of one server run at once (one ext-tasks session per connection)', async () => {
    const c = connect(TASKS, ['--step-ms', '150', '--poll-ms', '100']);
    await c.start();
    const results = await Promise.all([c.callTool('report', { steps: 2 }), c.callTool('report', { steps: 3 }), c.callTool('report', { steps: 1 })]);
    assert.deepEqual(results.map((r) => (r.content[0] as { text: string }).text), ['report ready (2 steps)', 'report ready (3 steps)', 'report ready (1 steps)']);
  });

  it('cancelling the call sends tasks/cancel and ends the task as cancelled', async () => {
    const c = connect(TASKS, ['--step-ms', '1000', '--poll-ms', '100']);
    await c.start();
    const ac = new AbortController();
    const call = c.callTool('report', { steps: 20 }, ac.signal, (t) => t.status === 'working' && ac.abort());
    await assert.rejects(call, /cancelled/);
    // The server's stderr line about the cancel arrives on its own pipe, maybe after the call ended.
    for (let waited = 0; !c.stderrTail.some((l) => /fake-tasks: cancel task-1/.test(l)) && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    assert.ok(c.stderrTail.some((l) => /fake-tasks: cancel task-1/.test(l)), c.stderrTail.join('\n'));
  });

  it('a server without the extension is called the ordinary way', async () => {
    const c = connect(FAKE, ['--era', 'modern']);
    await c.start();
    const seen: TaskProgress[] = [];
    assert.deepEqual((await c.callTool('add', { a: 1, b: 2 }, undefined, (t) => seen.push(t))).content, [{ type: 'text', text: '1+2=3' }]);
    assert.equal(seen.length, 0);
  });
});

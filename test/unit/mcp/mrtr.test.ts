/**
 * MCP 2026-07-28 multi round-trip requests with only `requestState` (a server shedding load, no
 * input asked): the host retries with the state echoed byte for byte and a new request id, a
 * bounded number of rounds, and stops when the call is cancelled. The server is scripted
 * (test/fakes/mcp-scripted.mjs) and refuses any state that does not come back exactly.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServerConnection, MRTR_MAX_ROUNDS } from '../../../src/mcp/connection';

const SCRIPTED = path.join(__dirname, '..', '..', 'fakes', 'mcp-scripted.mjs');
const options = { clientInfo: { name: 'agent-switchboard-test', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env };

describe('MCP input_required with only requestState (scripted 2026-07-28 server)', function () {
  this.timeout(30_000);
  const open: McpServerConnection[] = [];
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mrtr-'))));
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const start = async (rounds: number) => {
    const log = path.join(dir, 'log.jsonl');
    const c = new McpServerConnection('m', 'mrtr', { type: 'stdio', command: process.execPath, args: [SCRIPTED, '--era', 'modern', '--mrtr', String(rounds), '--log', log], env: {} }, options);
    open.push(c);
    await c.start();
    assert.equal(c.state.state, 'running', JSON.stringify(c.state));
    assert.equal((c.state as { era: string }).era, 'modern');
    const calls = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { requestState?: string; name?: string } }).filter((m) => m.method === 'tools/call');
    return { c, calls };
  };

  it('retries with the state echoed exactly and a new id each round, until the result is complete', async () => {
    const { c, calls } = await start(3);
    const r = await c.callTool('stateful', {});
    assert.deepEqual(r.content, [{ type: 'text', text: 'done after 3 rounds' }]);
    const seen = calls();
    assert.equal(seen.length, 4);
    assert.deepEqual(seen.map((m) => m.params?.requestState), [undefined, 'state-1:{"opaque":true, "n":1}', 'state-2:{"opaque":true, "n":2}', 'state-3:{"opaque":true, "n":3}']);
    assert.equal(new Set(seen.map((m) => JSON.stringify(m.id))).size, 4, 'a new request id for every round');
  });

  it(`gives up after ${MRTR_MAX_ROUNDS} rounds on a server that never completes`, async () => {
    const { c, calls } = await start(-1);
    await assert.rejects(c.callTool('stateful', {}), /still required input after \d+ rounds/);
    assert.equal(calls().length, MRTR_MAX_ROUNDS + 1, 'the first call and one retry per round, no more');
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(calls().length, MRTR_MAX_ROUNDS + 1, 'nothing after giving up');
  });

  it('stops retrying when the call is cancelled', async () => {
    const { c, calls } = await start(-1);
    const ac = new AbortController();
    const call = c.callTool('stateful', {}, ac.signal);
    const t0 = Date.now();
    while (calls().length < 2 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
    ac.abort(new Error('cancelled by the person'));
    await assert.rejects(call);
    const after = calls().length;
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(calls().length, after, 'no round after the cancel');
    assert.ok(after < MRTR_MAX_ROUNDS);
  });
});

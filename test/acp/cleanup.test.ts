/**
 * Resilience: 200 launch / cancel / kill cycles with an agent that ignores SIGHUP and SIGTERM and
 * forks grandchildren that ignore them too — afterwards no process of theirs is left, checked from
 * the process table. Half the cycles cancel the turn and close the session; the other half kill the
 * agent from outside mid-turn (as a crash would) and then close it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { MemoryFiles } from '../fakes/memoryFiles';
import { allowAll } from '../fakes/policy';

const AGENT = path.resolve(__dirname, '..', 'fakes', 'stubborn-agent.mjs');
const MARKER = `stubborn-${process.pid}-${Date.now()}`;

/** Live (not zombie) processes whose command line carries the marker. */
function leftovers(): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return table.split('\n').map((l) => l.trim()).filter((l) => l.includes(MARKER) && !/^\d+\s+Z/.test(l));
}

describe('process cleanup under launch / cancel / kill cycles', function () {
  this.timeout(600_000);
  it('leaves no agent and no grandchild after 200 cycles with processes that ignore SIGTERM', async () => {
    const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-cleanup-')));
    const agent: ResolvedAgent = { id: 'stubborn', name: 'Stubborn agent', command: process.execPath, resolvedCommand: process.execPath, args: [AGENT, MARKER], env: {}, source: 'settings', available: true };
    const manager = new SessionManager({
      agents: () => [agent],
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 20_000,
      clientInfo: { name: 'cleanup-test', version: '0' },
      filesFor: () => new MemoryFiles(),
      policy: allowAll(),
      terminalsFor: (_k, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 200 }),
    });
    let cancelled = 0;
    let crashed = 0;
    const cycle = async (i: number) => {
      const c = await manager.start('stubborn', cwd);
      const turn = c.prompt(`turn ${i}`).catch(() => undefined);
      if (i % 2 === 0) {
        await c.cancel();
        const res = await turn;
        if (res && res.stopReason === 'cancelled') cancelled++;
      } else {
        // The agent dies mid-turn (as a crash would): the leader only, its group stays behind.
        process.kill(c.connection!.pid!, 'SIGKILL');
        await turn;
        if (c.state.status === 'error' || c.state.entries.some((e) => e.kind === 'notice' && e.severity === 'error')) crashed++;
      }
      await manager.close(c.state.key);
    };
    // Ten at a time: each close waits out the SIGTERM grace period of its stubborn agent.
    for (let i = 0; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => cycle(i + j)));
    await manager.dispose();
    // Orphans are reparented and reaped by PID 1; give that a moment before reading the table.
    let left = leftovers();
    for (let t = 0; t < 20 && left.length; t++) {
      await new Promise((r) => setTimeout(r, 250));
      left = leftovers();
    }
    assert.deepEqual(left, [], `processes left behind:\n${left.join('\n')}`);
    assert.equal(cancelled, 100, 'every cancelled turn ended "cancelled"');
    assert.equal(crashed, 100, 'every killed agent was reported');
    fs.rmSync(cwd, { recursive: true, force: true });
  });
});

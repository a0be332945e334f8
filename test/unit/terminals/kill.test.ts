import assert from 'node:assert/strict';
import os from 'node:os';
import { TerminalManager } from '../../../src/terminals';
import { SESSION, ctx, liveGroupMembers, processTable, waitUntil } from './helpers';

/**
 * Process-tree cleanup, checked against the real process table (`ps`), not only exit events:
 * an orphaned grandchild never produces an exit event for us, so only the table can show it.
 */
describe('terminals/kill, release and disposeAll leave no process behind', function () {
  this.timeout(5000);
  const cwd = os.tmpdir();
  let manager: TerminalManager;

  beforeEach(() => {
    manager = new TerminalManager({ killGraceMs: 300 });
  });
  afterEach(async () => {
    await manager.disposeAll();
  });

  /** Starts `command` and waits until its group has `members` live processes. */
  async function start(m: TerminalManager, command: string, members: number): Promise<{ id: string; pgid: number }> {
    const id = await m.create({ sessionId: SESSION, command }, ctx(cwd));
    const pgid = m.snapshot(id).pid!;
    assert.ok(pgid > 1);
    await waitUntil(() => liveGroupMembers(pgid).length >= members, 2000, `${members} processes in group ${pgid}`);
    return { id, pgid };
  }

  it('runs each terminal as its own process group led by the spawned process', async () => {
    const { pgid } = await start(manager, 'sleep 30 & sleep 30', 3);
    const leader = processTable().find((r) => r.pid === pgid);
    assert.equal(leader?.pgid, pgid);
    assert.notEqual(pgid, process.pid);
  });

  it('kill ends the shell and its background grandchild; the terminal stays readable', async () => {
    // A long grace makes "did not wait for the grace" unambiguous even on a loaded machine.
    manager = new TerminalManager({ killGraceMs: 2000 });
    const { id, pgid } = await start(manager, 'echo before; sleep 30 & sleep 30', 3);
    const t0 = Date.now();
    await manager.kill(id);
    const took = Date.now() - t0;
    assert.deepEqual(liveGroupMembers(pgid), []);
    // Processes that obey SIGTERM must not cost the SIGKILL grace, even when a dead grandchild
    // lingers as an unreaped zombie in the group (this sandbox's init does not reap orphans).
    assert.ok(took < 1000, `kill took ${took} ms`);
    assert.deepEqual(manager.output(id), { output: 'before\n', truncated: false, exitStatus: { exitCode: null, signal: 'SIGTERM' } });
    assert.deepEqual(await manager.waitForExit(id), { exitCode: null, signal: 'SIGTERM' });
    await manager.kill(id); // Killing an exited terminal is a no-op, not an error.
    assert.ok(manager.has(id));
  });

  it('kill escalates to SIGKILL when the whole tree ignores SIGTERM', async () => {
    // An ignored signal stays ignored across fork and exec, so the sleeps ignore TERM too.
    const { id, pgid } = await start(manager, "trap '' TERM; sleep 30 & sleep 30", 3);
    const t0 = Date.now();
    await manager.kill(id);
    const took = Date.now() - t0;
    assert.deepEqual(liveGroupMembers(pgid), []);
    assert.ok(took >= 280, `SIGKILL came after only ${took} ms, before the grace`);
    assert.deepEqual(manager.output(id).exitStatus, { exitCode: null, signal: 'SIGKILL' });
  });

  it('uses a 2 s grace by default before SIGKILL', async () => {
    const m = new TerminalManager();
    try {
      const { id, pgid } = await start(m, "trap '' TERM; sleep 30", 1);
      const t0 = Date.now();
      await m.kill(id);
      const took = Date.now() - t0;
      assert.ok(took >= 1900 && took < 3500, `kill took ${took} ms`);
      assert.deepEqual(liveGroupMembers(pgid), []);
    } finally {
      await m.disposeAll();
    }
  });

  it('kill reaches background processes left behind after the shell already exited', async () => {
    const id = await manager.create({ sessionId: SESSION, command: 'sleep 30 & exit 0' }, ctx(cwd));
    const pgid = manager.snapshot(id).pid!;
    assert.deepEqual(await manager.waitForExit(id), { exitCode: 0, signal: null });
    assert.equal(liveGroupMembers(pgid).length, 1, 'the background sleep should still run');
    await manager.kill(id);
    assert.deepEqual(liveGroupMembers(pgid), []);
  });

  it('release kills a TERM-ignoring tree and forgets the id', async () => {
    const { id, pgid } = await start(manager, "trap '' TERM; sleep 30 & sleep 30", 3);
    await manager.release(id);
    assert.deepEqual(liveGroupMembers(pgid), []);
    assert.equal(manager.has(id), false);
  });

  it('disposeAll ends every terminal of the session, including stubborn ones', async () => {
    const started = await Promise.all([
      start(manager, 'sleep 30', 1),
      start(manager, 'sleep 30 & sleep 30', 3),
      start(manager, "trap '' TERM; sleep 30 & sleep 30", 3),
    ]);
    const failed = await manager.create({ sessionId: SESSION, command: 'no-such-cmd-xyz', args: [] }, ctx(cwd));
    await manager.disposeAll();
    for (const { id, pgid } of started) {
      assert.deepEqual(liveGroupMembers(pgid), [], `group ${pgid} survived`);
      assert.equal(manager.has(id), false);
    }
    assert.equal(manager.has(failed), false);
    assert.deepEqual(manager.snapshots(), []);
    // The manager stays usable for the next turn.
    const id = await manager.create({ sessionId: SESSION, command: 'echo again' }, ctx(cwd));
    await manager.waitForExit(id);
    assert.equal(manager.output(id).output, 'again\n');
  });

  it('sends SIGTERM synchronously, before disposeAll is awaited', async () => {
    const { pgid } = await start(manager, 'sleep 30', 1);
    const done = manager.disposeAll();
    // No await yet: the signal must already be on its way for hosts that cannot wait.
    await waitUntil(() => liveGroupMembers(pgid).length === 0, 1000, 'the group to die');
    await done;
  });
});

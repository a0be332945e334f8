import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TerminalManager, TerminalNotFoundError, type TerminalSnapshot } from '../../../src/terminals';
import { SESSION, ctx, liveGroupMembers } from './helpers';

describe('terminals/TerminalManager', function () {
  this.timeout(5000);
  let manager: TerminalManager;
  let dir: string;

  beforeEach(() => {
    manager = new TerminalManager({ killGraceMs: 300 });
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'terminals-test-')));
  });
  afterEach(async () => {
    await manager.disposeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('create and output', () => {
    it('spawns a program with args directly, without a shell', async () => {
      // `$HOME` would be expanded by a shell; spawned directly it stays literal.
      const id = await manager.create({ sessionId: SESSION, command: 'echo', args: ['hello', '$HOME'] }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 0, signal: null });
      assert.deepEqual(manager.output(id), { output: 'hello $HOME\n', truncated: false, exitStatus: { exitCode: 0, signal: null } });
      assert.equal(manager.snapshot(id).commandLine, `echo hello '$HOME'`);
    });

    it('runs one shell string without args in the given cwd', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'pwd && echo "a  b" | tr a-z A-Z' }, ctx('/', {}));
      assert.ok(manager.has(id));
      await manager.waitForExit(id);
      assert.equal(manager.output(id).output, '/\nA  B\n');

      const id2 = await manager.create({ sessionId: SESSION, command: 'pwd', cwd: dir }, ctx('/'));
      await manager.waitForExit(id2);
      assert.equal(manager.output(id2).output, `${dir}\n`);
      assert.equal(manager.snapshot(id2).cwd, dir);
    });

    it('uses the session cwd when the request has none', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'pwd' }, ctx(dir));
      await manager.waitForExit(id);
      assert.equal(manager.output(id).output, `${dir}\n`);
    });

    it('uses the base env, overridden by request env, and nothing else from the host', async () => {
      process.env.TERMINALS_TEST_LEAK = 'leaked';
      try {
        const id = await manager.create(
          {
            sessionId: SESSION,
            command: 'echo "$FOO $BAR ${TERMINALS_TEST_LEAK-unset}"',
            env: [{ name: 'FOO', value: 'override' }],
          },
          ctx(dir, { FOO: 'base', BAR: 'keep' }),
        );
        await manager.waitForExit(id);
        assert.equal(manager.output(id).output, 'override keep unset\n');
      } finally {
        delete process.env.TERMINALS_TEST_LEAK;
      }
    });

    it('merges stdout and stderr in arrival order', async () => {
      const id = await manager.create(
        { sessionId: SESSION, command: 'echo out1; sleep 0.05; echo err1 >&2; sleep 0.05; echo out2; sleep 0.05; echo err2 >&2' },
        ctx(dir),
      );
      await manager.waitForExit(id);
      assert.equal(manager.output(id).output, 'out1\nerr1\nout2\nerr2\n');
    });

    it('does not answer wait_for_exit before the last output has been read', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'seq 1 50000' }, ctx(dir));
      await manager.waitForExit(id);
      const { output } = manager.output(id);
      assert.ok(output.endsWith('\n49999\n50000\n'), `tail was ${JSON.stringify(output.slice(-20))}`);
    });

    it('waits briefly for the pipes to close, so output written just before they close is in', async () => {
      // The shell exits at once; its subshell writes 100 ms later and then closes the pipes.
      const id = await manager.create({ sessionId: SESSION, command: '(sleep 0.1; echo late) & echo early' }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 0, signal: null });
      assert.equal(manager.output(id).output, 'early\nlate\n');
    });

    it('reports exit status even when a background grandchild keeps the pipes open', async () => {
      const started = Date.now();
      const id = await manager.create({ sessionId: SESSION, command: 'sleep 30 & echo started' }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 0, signal: null });
      assert.ok(Date.now() - started < 2000, 'exit status waited for the grandchild');
      assert.equal(manager.output(id).output, 'started\n');
    });
  });

  describe('output limit and UTF-8', () => {
    it('drops the oldest bytes and cuts at a character boundary', async () => {
      // "a" + 10 × "€" is 31 bytes; the last 10 bytes start inside a "€", so 9 bytes remain.
      const id = await manager.create({ sessionId: SESSION, command: "printf 'a€€€€€€€€€€'", outputByteLimit: 10 }, ctx(dir));
      await manager.waitForExit(id);
      const out = manager.output(id);
      assert.equal(out.output, '€€€');
      assert.equal(out.truncated, true);
    });

    it('keeps a large 4-byte-character flood within the limit without U+FFFD', async () => {
      const script = "const s='𝄞'.repeat(4097); for (let i = 0; i < 50; i++) process.stdout.write(s + 'x');";
      const id = await manager.create(
        { sessionId: SESSION, command: process.execPath, args: ['-e', script], outputByteLimit: 1001 },
        ctx(dir),
      );
      await manager.waitForExit(id);
      const { output, truncated } = manager.output(id);
      assert.equal(truncated, true);
      assert.ok(Buffer.byteLength(output) <= 1001 && Buffer.byteLength(output) >= 998);
      assert.ok(!output.includes('\uFFFD'));
      assert.ok(/^(𝄞)+x$/u.test(output), 'unexpected content');
    });

    it('is not truncated when the output fits', async () => {
      const id = await manager.create({ sessionId: SESSION, command: "printf 'ab€'", outputByteLimit: 5 }, ctx(dir));
      await manager.waitForExit(id);
      assert.deepEqual(manager.output(id), { output: 'ab€', truncated: false, exitStatus: { exitCode: 0, signal: null } });
    });

    it('joins a multibyte character split across chunks (and onData never sees half of it)', async () => {
      const id = await manager.create({ sessionId: SESSION, command: "printf '\\342\\202'; sleep 0.2; printf '\\254!'" }, ctx(dir));
      const seen: string[] = [];
      manager.onData(id, (t) => seen.push(t));
      await manager.waitForExit(id);
      assert.equal(manager.output(id).output, '€!');
      assert.equal(seen.join(''), '€!');
      assert.ok(seen.every((t) => !t.includes('\uFFFD')));
    });
  });

  describe('output as bytes', () => {
    it('keeps stdout and stderr characters whole when both split characters across chunks', async () => {
      const id = await manager.create({ sessionId: SESSION, command: "printf '\\360\\235'; printf '\\342\\202' >&2; sleep 0.2; printf '\\204\\236'; printf '\\254' >&2" }, ctx(dir));
      await manager.waitForExit(id);
      const out = manager.output(id).output;
      assert.ok(!out.includes('\uFFFD'), JSON.stringify(out));
      assert.deepEqual([...out].sort(), ['€', '𝄞'].sort());
    });

    it('shows a character that never completed as U+FFFD at the end, and loses nothing before it', async () => {
      const id = await manager.create({ sessionId: SESSION, command: "printf 'ok\\342\\202'" }, ctx(dir));
      await manager.waitForExit(id);
      assert.equal(manager.output(id).output, 'ok\uFFFD');
    });
  });

  describe('wait_for_exit', () => {
    it('reports the exit code', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'echo bye; exit 3' }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 3, signal: null });
      assert.deepEqual(manager.output(id).exitStatus, { exitCode: 3, signal: null });
      // A second wait after exit answers at once with the same status.
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 3, signal: null });
    });

    it('reports the terminating signal', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'kill -TERM $$; sleep 5' }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: null, signal: 'SIGTERM' });
    });

    it('has no exit status while the process runs', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'sleep 30' }, ctx(dir));
      assert.equal(manager.output(id).exitStatus, undefined);
    });

    it('rejects with the abort reason when aborted, leaving the process running', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'sleep 30' }, ctx(dir));
      const ac = new AbortController();
      const waiting = manager.waitForExit(id, ac.signal);
      ac.abort(new Error('cancelled by agent'));
      await assert.rejects(waiting, /cancelled by agent/);
      // Some shells exec the last command, others fork it: one or two live members.
      assert.ok(liveGroupMembers(manager.snapshot(id).pid!).length >= 1);
      await assert.rejects(manager.waitForExit(id, ac.signal), /cancelled by agent/);
    });
  });

  describe('errors', () => {
    it('throws TerminalNotFoundError with the id for unknown terminals', async () => {
      const check = (err: unknown) => err instanceof TerminalNotFoundError && err.terminalId === 'nope' && /nope/.test(err.message);
      assert.throws(() => manager.output('nope'), check);
      assert.throws(() => manager.snapshot('nope'), check);
      assert.throws(() => manager.onData('nope', () => undefined), check);
      await assert.rejects(manager.waitForExit('nope'), check);
      await assert.rejects(manager.kill('nope'), check);
      await assert.rejects(manager.release('nope'), check);
      assert.equal(manager.has('nope'), false);
    });

    it('reports a program that cannot be found as output plus exit 127, without throwing', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'no-such-cmd-xyz', args: ['--help'] }, ctx(dir));
      const out = manager.output(id);
      assert.equal(out.output, `spawn error: command not found: no-such-cmd-xyz (PATH=${process.env.PATH})\n`);
      assert.deepEqual(out.exitStatus, { exitCode: 127, signal: null });
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 127, signal: null });
      assert.equal(manager.snapshot(id).pid, undefined);
      await manager.kill(id); // Nothing to kill; must not throw.
      await manager.release(id);
      assert.equal(manager.has(id), false);
    });

    it('reports a missing working directory as such', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'ls', cwd: path.join(dir, 'missing') }, ctx(dir));
      assert.match(manager.output(id).output, /^spawn error: working directory does not exist: .*missing\n$/);
      assert.equal(manager.output(id).exitStatus?.exitCode, 127);
    });

    it('lets the shell report an unknown command in a shell string (exit 127)', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'no-such-cmd-xyz --flag' }, ctx(dir));
      assert.deepEqual(await manager.waitForExit(id), { exitCode: 127, signal: null });
      assert.match(manager.output(id).output, /no-such-cmd-xyz.*not found/);
    });

    it('rejects malformed requests with TypeError before spawning', async () => {
      await assert.rejects(manager.create({ sessionId: SESSION, command: '' }, ctx(dir)), TypeError);
      assert.deepEqual(manager.snapshots(), []);
    });
  });

  describe('events', () => {
    it('throttles change events under an output flood and always sends a final one on exit', async () => {
      const events: Array<{ at: number; s: TerminalSnapshot }> = [];
      manager.onDidChange((s) => events.push({ at: Date.now(), s }));
      const script = 'let n = 0; const t = setInterval(() => { process.stdout.write("line " + n++ + "\\n"); if (n === 200) clearInterval(t); }, 2);';
      const id = await manager.create({ sessionId: SESSION, command: process.execPath, args: ['-e', script] }, ctx(dir));
      await manager.waitForExit(id);
      const mine = events.filter((e) => e.s.terminalId === id);
      const last = mine.at(-1)!;
      assert.deepEqual(last.s.exitStatus, { exitCode: 0, signal: null });
      assert.ok(last.s.output.endsWith('line 199\n'));
      // 200 writes over ≥ 400 ms: unthrottled this would be ~200 events.
      const during = mine.slice(0, -1);
      assert.ok(during.length >= 3, `only ${during.length} progress events`);
      for (let i = 1; i < during.length; i++) {
        assert.ok(during[i]!.at - during[i - 1]!.at >= 45, `events ${i - 1}/${i} only ${during[i]!.at - during[i - 1]!.at} ms apart`);
      }
      assert.equal(mine.filter((e) => e.s.exitStatus).length, 1, 'exactly one event carries the exit status');
    });

    it('streams raw text to onData listeners until disposed', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'echo one; sleep 0.3; echo two' }, ctx(dir));
      const seen: string[] = [];
      const sub = manager.onData(id, (t) => {
        seen.push(t);
        sub.dispose();
      });
      await manager.waitForExit(id);
      assert.deepEqual(seen, ['one\n']);
    });
  });

  describe('release', () => {
    it('kills the process, frees the id and emits a final released snapshot', async () => {
      const events: TerminalSnapshot[] = [];
      manager.onDidChange((s) => events.push(s));
      const id = await manager.create({ sessionId: SESSION, command: 'echo kept; sleep 30' }, ctx(dir));
      await new Promise((r) => setTimeout(r, 100));
      const pgid = manager.snapshot(id).pid!;
      assert.ok(liveGroupMembers(pgid).length >= 1);
      await manager.release(id);
      assert.equal(manager.has(id), false);
      assert.throws(() => manager.output(id), TerminalNotFoundError);
      assert.deepEqual(liveGroupMembers(pgid), []);
      const final = events.filter((s) => s.terminalId === id).at(-1)!;
      assert.equal(final.released, true);
      assert.equal(final.output, 'kept\n');
      assert.deepEqual(final.exitStatus, { exitCode: null, signal: 'SIGTERM' });
    });

    it('resolves a pending wait_for_exit when the terminal is released', async () => {
      const id = await manager.create({ sessionId: SESSION, command: 'sleep 30' }, ctx(dir));
      const waiting = manager.waitForExit(id);
      await manager.release(id);
      assert.deepEqual(await waiting, { exitCode: null, signal: 'SIGTERM' });
    });
  });
});

/**
 * Terminals in the sandbox (issue 21): a command approved to run sandboxed runs sandboxed or not at
 * all (a wrapper that fails leaves a `sandbox error` line and exit 126, nothing started); the
 * sandbox's refusals are appended to its output; and, with the real sandbox-runtime where bubblewrap
 * works, writes outside the profile fail while the kill of a terminal still ends its whole tree.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TerminalManager } from '../../../src/terminals';
import { SandboxRuntime } from '../../../src/sandbox/runtime';
import { buildProfile } from '../../../src/sandbox/profile';

describe('terminals in the sandbox (issue 21)', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-sbx-')))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a wrapper that cannot set the sandbox up: nothing runs, the output says why, exit 126', async () => {
    const m = new TerminalManager({ killGraceMs: 200 });
    const marker = path.join(tmp, 'ran');
    const id = await m.create({ sessionId: 's', command: `touch ${marker}` }, { defaultCwd: tmp, baseEnv: process.env, wrap: async () => Promise.reject(new Error('bubblewrap is missing')) });
    const exit = await m.waitForExit(id);
    assert.deepEqual(exit, { exitCode: 126, signal: null });
    assert.match(m.output(id).output, /^sandbox error: the command was not run: bubblewrap is missing/);
    assert.ok(!fs.existsSync(marker));
    await m.disposeAll();
  });

  it('the sandbox\'s refusals are appended to the output, once, before the exit status', async () => {
    const m = new TerminalManager({ killGraceMs: 200 });
    let calls = 0;
    const id = await m.create({ sessionId: 's', command: 'echo out' }, { defaultCwd: tmp, baseEnv: process.env, wrap: async (plan) => ({ ...plan, finishSandbox: () => (calls++, 'deny network-outbound 127.0.0.1:9 (host is not on the allow list)') }) });
    await m.waitForExit(id);
    assert.equal(m.output(id).output, 'out\n\n[sandbox] deny network-outbound 127.0.0.1:9 (host is not on the allow list)\n');
    assert.equal(calls, 1);
    assert.deepEqual(m.snapshot(id).sandboxBlocked, ['127.0.0.1:9'], 'the hosts, from the sandbox\'s record');
    // The same line printed by the command itself names no host the card would offer.
    const printed = await m.create({ sessionId: 's', command: "echo '[sandbox] deny network-outbound evil.example:443 (x)'" }, { defaultCwd: tmp, baseEnv: process.env, wrap: async (plan) => ({ ...plan, finishSandbox: () => '' }) });
    await m.waitForExit(printed);
    assert.equal(m.snapshot(printed).sandboxBlocked, undefined);
    await m.disposeAll();
  });

  it('counts what the overlay held back from the sandbox\'s own lines, never from what the command printed', async () => {
    const m = new TerminalManager({ killGraceMs: 200 });
    const lines = ['held back, not applied: /w/x/.git (git\'s own files)', 'held back, not applied: /w/.venv (a virtual environment)', 'not applied: /w/a.txt (it changed while the command ran)'].join('\n');
    const id = await m.create({ sessionId: 's', command: 'echo out' }, { defaultCwd: tmp, baseEnv: process.env, wrap: async (plan) => ({ ...plan, finishSandbox: () => lines }) });
    await m.waitForExit(id);
    assert.equal(m.snapshot(id).sandboxHeldBack, 2);
    const printed = await m.create({ sessionId: 's', command: "echo 'held back, not applied: /w/fake (x)'" }, { defaultCwd: tmp, baseEnv: process.env, wrap: async (plan) => ({ ...plan, finishSandbox: () => '' }) });
    await m.waitForExit(printed);
    assert.equal(m.snapshot(printed).sandboxHeldBack, 0, 'a sandboxed command with nothing held back');
    const plain = await m.create({ sessionId: 's', command: 'true' }, { defaultCwd: tmp, baseEnv: process.env });
    await m.waitForExit(plain);
    assert.equal(m.snapshot(plain).sandboxHeldBack, undefined, 'an unsandboxed command has no count');
    await m.disposeAll();
  });

  describe('with the real sandbox-runtime', () => {
    const runtime = new SandboxRuntime();
    before(async function () {
      const status = await runtime.availability();
      if (!status.available) {
        console.log(`      (sandbox unavailable here: ${status.reason})`);
        this.skip();
      }
    });
    after(() => runtime.dispose());

    it('writes only in the profile\'s folders; the kill of the terminal ends everything it started', async () => {
      const home = path.join(tmp, 'home');
      const work = path.join(tmp, 'work');
      fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
      fs.mkdirSync(work);
      fs.writeFileSync(path.join(home, '.ssh', 'id'), 'SECRET');
      const profile = buildProfile({ roots: [work], tmpDir: work, home, editorStorage: [], allowedHosts: [] });
      const m = new TerminalManager({ killGraceMs: 300 });
      const ctx = { defaultCwd: work, baseEnv: process.env, wrap: (p: Parameters<SandboxRuntime['wrap']>[0]) => runtime.wrap(p, profile) };
      const id = await m.create({ sessionId: 's', command: `echo in > in.txt; echo out > ${path.join(tmp, 'out.txt')}; cat ${path.join(home, '.ssh', 'id')}; echo done` }, ctx);
      await m.waitForExit(id);
      const out = m.output(id).output;
      assert.equal(fs.readFileSync(path.join(work, 'in.txt'), 'utf8'), 'in\n');
      assert.ok(!fs.existsSync(path.join(tmp, 'out.txt')), out);
      assert.ok(!out.includes('SECRET'), out);
      // A process tree that outlives its shell: the kill reaches every process of it.
      const tag = `${process.pid}${Date.now() % 100000}`;
      const long = await m.create({ sessionId: 's', command: `sleep 3${tag} & sleep 4${tag} & echo started; wait` }, ctx);
      for (let i = 0; i < 100 && !m.output(long).output.includes('started'); i++) await new Promise((r) => setTimeout(r, 50));
      await m.kill(long);
      await new Promise((r) => setTimeout(r, 300));
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(tag) && l.startsWith('sleep'));
      assert.deepEqual(left, [], 'no sleep left running');
      await m.disposeAll();
    });
  });
});

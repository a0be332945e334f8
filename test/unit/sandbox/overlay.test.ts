/**
 * A sandboxed command never leaves a file that runs for the editor, git or an extension to run:
 * it sees its folders through an overlay, and only what the gate's protected classes do not name
 * is carried back when it ends, at any depth, including what did not exist when it started. Runs
 * the real sandbox (bubblewrap, overlayfs in a user namespace); on a Linux CI machine the overlay
 * must be there (the test fails rather than skips).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { TerminalManager } from '../../../src/terminals';
import { Sandboxes } from '../../../src/sandbox/sandboxes';
import { SandboxRuntime } from '../../../src/sandbox/runtime';
import { describeProfile, type SandboxProfile } from '../../../src/sandbox/profile';
import { protectedClass } from '../../../src/policy/protectedPaths';

describe('sandbox: files that run are held back at any depth', function () {
  this.timeout(120_000);
  let tmp: string;
  let work: string;
  let sandboxes: Sandboxes;
  let profile: SandboxProfile;

  before(async function () {
    const status = await new SandboxRuntime().availability();
    if (!status.available || !status.holds) {
      const why = !status.available ? status.reason : status.holdsReason;
      if (process.env.CI && process.platform === 'linux') assert.fail(`the sandbox must hold back files that run on this machine: ${why}`);
      console.log(`      (overlay unavailable here: ${why})`);
      this.skip();
    }
  });

  beforeEach(async () => {
    // In the temp folder, as the editor's tests' workspaces are: the overlay must hold there too.
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-sbx-ovl-')));
    work = path.join(tmp, 'work');
    fs.mkdirSync(path.join(work, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(work, 'dist', 'old.js'), 'old\n');
    fs.writeFileSync(path.join(work, 'keep.txt'), 'before\n');
    fs.writeFileSync(path.join(work, 'gone.txt'), 'x\n');
    sandboxes = new Sandboxes({ settings: () => ({ mode: 'ask', allowedHosts: [], bwrapPath: '' }), workspaceRoots: () => [work], editorStorage: () => [] });
    const p = await sandboxes.profileFor(undefined);
    assert.ok('profile' in p, JSON.stringify(p));
    profile = p.profile;
  });
  afterEach(async () => {
    await sandboxes.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const run = async (command: string, during?: () => void) => {
    const m = new TerminalManager({ killGraceMs: 500 });
    const id = await m.create({ sessionId: 's', command }, { defaultCwd: work, baseEnv: process.env, wrap: sandboxes.wrapper(profile) });
    during?.();
    const exit = await m.waitForExit(id);
    const out = m.output(id).output;
    await m.disposeAll();
    return { exit, out };
  };
  const exists = (rel: string) => fs.existsSync(path.join(work, rel));

  it('the profile says so, and its hash covers it', () => {
    assert.equal(profile.holdsBackRunnable, true);
    assert.match(describeProfile(profile), /files that tools run .* are held back at any depth and listed/);
    assert.doesNotMatch(describeProfile(profile), /cannot hold them back/);
    assert.match(describeProfile({ ...profile, holdsBackRunnable: undefined }), /It can still create files that tools run where none exist yet .*this machine cannot hold them back/);
  });

  it('carries back ordinary changes (new, changed, removed, a folder made anew, links inside) and holds back every file that runs, at any depth', async () => {
    const r = await run([
      'echo plain > plain.txt; mkdir -p src && echo code > src/a.ts; echo after > keep.txt; rm gone.txt',
      'rm -rf dist && mkdir dist && echo new > dist/new.js',
      'ln -s src/a.ts inside-link; ln -s /etc out-link',
      'mkdir -p x/.git && printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > x/.git/config',
      'mkdir -p a/b/c/.git && echo ref > a/b/c/.git/HEAD',
      'mkdir -p bare/refs/heads bare/objects/pack && echo "ref: refs/heads/main" > bare/HEAD',
      'mkdir -p .venv/bin && printf "#!/bin/sh\\n" > .venv/bin/python',
      'mkdir -p node_modules/pkg && echo "module.exports=1" > node_modules/pkg/index.js',
      'mkdir -p deep/er && echo "{}" > deep/er/package.json && echo x > deep/er/.envrc && echo "{}" > deep/.vscode-test.mjs',
      'mkdir -p y/.vscode && echo "{}" > y/.vscode/tasks.json',
    ].join('; '));
    assert.equal(r.exit.exitCode, 0, r.out);
    assert.equal(fs.readFileSync(path.join(work, 'plain.txt'), 'utf8'), 'plain\n');
    assert.equal(fs.readFileSync(path.join(work, 'src', 'a.ts'), 'utf8'), 'code\n');
    assert.equal(fs.readFileSync(path.join(work, 'keep.txt'), 'utf8'), 'after\n');
    assert.ok(!exists('gone.txt'), 'a removal is carried back');
    assert.deepEqual(fs.readdirSync(path.join(work, 'dist')), ['new.js'], 'a folder removed and made again holds only what the command left');
    assert.equal(fs.readlinkSync(path.join(work, 'inside-link')), 'src/a.ts');
    for (const rel of ['out-link', 'x/.git', 'a/b/c/.git', 'bare/HEAD', 'bare/refs/heads', '.venv/bin/python', 'node_modules/pkg', 'deep/er/package.json', 'deep/er/.envrc', 'deep/.vscode-test.mjs', 'y/.vscode']) {
      assert.ok(!exists(rel), `${rel} must not reach the folder:\n${r.out}`);
    }
    for (const rel of ['x/.git', 'a/b/c/.git', '.venv', 'node_modules', 'deep/er/package.json', 'out-link']) {
      assert.ok(r.out.includes(path.join(work, rel)), `the output names what was held back (${rel}):\n${r.out}`);
    }
    assert.ok(!fs.readdirSync(work).some((n) => n.startsWith('.') && n !== '.venv' && fs.statSync(path.join(work, n)).size === 0), 'no placeholder of the sandbox is left');
  });

  it('a workspace in the temp folder: the folders above it never become a repository git finds from it', async () => {
    const r = await run('mkdir -p ../.git 2>/dev/null; echo "[core]" > ../.git/config; echo "ref: refs/heads/main" > ../HEAD; echo "[core]" > /tmp/HEAD; mkdir -p /tmp/.git; true');
    assert.ok(!fs.existsSync(path.join(tmp, '.git', 'config')) && !fs.existsSync(path.join(tmp, 'HEAD')), r.out);
    assert.ok(!fs.existsSync(path.join(os.tmpdir(), 'HEAD')) || fs.statSync(path.join(os.tmpdir(), 'HEAD')).size === 0, r.out);
    assert.ok(!fs.existsSync(path.join(fs.realpathSync(os.tmpdir()), '.git', 'config')), r.out);
  });

  it('folders named like files that run (build, workspace, Makefile) are ordinary folders, also above a workspace in the temp folder', async () => {
    const inner = path.join(work, 'workspace');
    fs.mkdirSync(path.join(inner, 'build'), { recursive: true });
    fs.mkdirSync(path.join(inner, 'Makefile'), { recursive: true });
    const box = new Sandboxes({ settings: () => ({ mode: 'ask', allowedHosts: [], bwrapPath: '' }), workspaceRoots: () => [inner], editorStorage: () => [] });
    try {
      const p = await box.profileFor(undefined);
      assert.ok('profile' in p && p.profile.holdsBackRunnable, JSON.stringify(p));
      const m = new TerminalManager({ killGraceMs: 500 });
      const id = await m.create({ sessionId: 's', command: 'echo a > build/out.js; mkdir -p workspace && echo b > workspace/a.txt; echo c > Makefile/notes.txt; echo d > top.txt' }, { defaultCwd: inner, baseEnv: process.env, wrap: box.wrapper(p.profile) });
      await m.waitForExit(id);
      const out = m.output(id).output;
      await m.disposeAll();
      for (const rel of ['build/out.js', 'workspace/a.txt', 'Makefile/notes.txt', 'top.txt']) assert.ok(fs.existsSync(path.join(inner, rel)), `${rel}:\n${out}`);
    } finally {
      await box.dispose();
    }
  });

  it('a file the person changes while the command runs is not overwritten; the output says so', async () => {
    const r = await run('sleep 1; echo command > keep.txt', () => {
      fs.writeFileSync(path.join(work, 'keep.txt'), 'person\n');
    });
    assert.equal(fs.readFileSync(path.join(work, 'keep.txt'), 'utf8'), 'person\n');
    assert.match(r.out, /not applied: .*keep\.txt \(it changed in the folder while the command ran/);
  });

  it('a command killed midway still has what it wrote before carried back, and held back what runs', async () => {
    const m = new TerminalManager({ killGraceMs: 2000 });
    const id = await m.create({ sessionId: 's', command: 'echo early > early.txt; mkdir -p z/.git && echo x > z/.git/config; sleep 30' }, { defaultCwd: work, baseEnv: process.env, wrap: sandboxes.wrapper(profile) });
    await new Promise((r) => setTimeout(r, 1500));
    await m.kill(id);
    await m.waitForExit(id);
    const out = m.output(id).output;
    await m.disposeAll();
    assert.equal(fs.readFileSync(path.join(work, 'early.txt'), 'utf8'), 'early\n', out);
    assert.ok(!exists('z/.git'), out);
  });

  it('property: whatever paths a sandboxed command writes, none the gate calls a file that runs reaches the folder, and every other one does', async () => {
    const segment = fc.oneof(
      fc.constantFrom('.git', 'node_modules', '.venv', '.vscode', 'package.json', 'Makefile', '.envrc', 'HEAD', 'refs', '.github', 'workflows', 'conftest.py', 'x.config.js', '.npmrc'),
      fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}(\.(txt|ts|md))?$/),
    );
    const relPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((xs) => xs.join('/'));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(relPath, { minLength: 1, maxLength: 12 }), async (rels) => {
        // A path that is a prefix folder of another is written as the file it names only when no other path goes below it.
        const files = rels.filter((p) => !rels.some((q) => q !== p && q.startsWith(`${p}/`)));
        fs.rmSync(work, { recursive: true, force: true });
        fs.mkdirSync(work);
        const script = files.map((p) => `mkdir -p '${path.posix.dirname(p)}' && echo x > '${p}'`).join('; ');
        const r = await run(script);
        for (const p of files) {
          // Each folder on the way is asked about as a folder (a trailing `/`), the path itself as a file.
          const runs = p.split('/').some((_, i, xs) => protectedClass(xs.slice(0, i + 1).join('/') + (i < xs.length - 1 ? '/' : '')) !== undefined);
          assert.equal(exists(p), !runs, `${p} (${runs ? 'runs' : 'plain'}):\n${r.out}`);
        }
      }),
      { numRuns: 15 },
    );
  });
});

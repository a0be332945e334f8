/**
 * A comparison's test command runs the agent's code, so it runs in the sandbox of that session's
 * commands: the worktree folder its root, `ask` sandboxed where the sandbox runs (and saying so where
 * it does not), `always` not at all without it, `off` a plain shell; the card says which. Against the
 * real sandbox-runtime where bubblewrap works here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandboxes } from '../../../src/sandbox/sandboxes';
import { buildProfile, type SandboxMode, type SandboxPlan } from '../../../src/sandbox/profile';
import { runTestCommand } from '../../../src/worktrees/testRun';
import { OFF_WORDS, runWorktreeTest, testPromptWords, testRunMode, wholePieces } from '../../../src/worktrees/testSandbox';
import { text } from '../../../src/common/untrustedText';
import type { SpawnPlan } from '../../../src/terminals/command';

const profile = buildProfile({ roots: ['/s/wt/repo-1a2b3c4d'], tmpDir: '/tmp', home: '/home/p', editorStorage: ['/home/p/.config/Code/User/settings.json'], allowedHosts: ['registry.npmjs.org'], denyWrite: ['/s/wt/repo-1a2b3c4d/.git', '/s/wt/repo-1a2b3c4d/.vscode'] });

describe('the test command of a comparison runs in the session\'s sandbox', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-cmp-')))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('each setting, and the sandbox available or not, decides how it runs; the card says which in the profile\'s words', () => {
    const off = testRunMode({ mode: 'off' });
    assert.equal(off.run, 'plain');
    assert.deepEqual(off.words, { sandboxed: false, text: OFF_WORDS });
    for (const mode of ['ask', 'always'] as const) {
      const m = testRunMode({ mode, profile }, '/home/p');
      assert.ok(m.run === 'sandboxed' && m.profile === profile);
      assert.equal(m.words.sandboxed, true);
      assert.match(m.words.text, /^Sandboxed when the editor runs it: can write only in \/s\/wt\/repo-1a2b3c4d and \/tmp and cannot change \.git and \.vscode; network only to registry\.npmjs\.org;/);
    }
    const ask = testRunMode({ mode: 'ask', unavailable: 'bubblewrap was not found' });
    assert.equal(ask.run, 'plain');
    assert.match(ask.words.text, /^Not sandboxed: the sandbox is not available \(bubblewrap was not found\)/);
    const always = testRunMode({ mode: 'always', unavailable: 'bubblewrap was not found' });
    assert.equal(always.run, 'refused');
    assert.match(always.words.text, /^Will not run: the sandbox is not available \(bubblewrap was not found\), and agentSwitchboard\.sandbox is "always"\./);
  });

  it('the prompt, before any worktree exists, names the worktree as where it writes, and the rest of the profile as it is', () => {
    const main = buildProfile({ roots: ['/w/repo'], tmpDir: '/tmp', home: '/home/p', editorStorage: [], allowedHosts: [], denyWrite: ['/w/repo/.git'] });
    const words = testPromptWords({ mode: 'ask', profile: main }, '/w/repo', '/home/p');
    assert.match(words, /^Runs sandboxed in each worktree, as that session's commands do: can write only in each agent's worktree and \/tmp and cannot change \.git; no network;/);
    assert.ok(!words.includes('/w/repo'), words);
    assert.equal(testPromptWords({ mode: 'always', unavailable: 'no bwrap' }, '/w/repo'), testRunMode({ mode: 'always', unavailable: 'no bwrap' }).words.text);
    assert.equal(testPromptWords({ mode: 'off' }, '/w/repo'), OFF_WORDS);
  });

  it('the prompt shows the words whole, however many hosts the person allowed, or says it cannot (never a cut profile)', () => {
    const hosts = Array.from({ length: 40 }, (_, i) => `mirror-${i}.registry.example.com`);
    const main = buildProfile({ roots: ['/w/repo'], tmpDir: '/tmp', home: '/home/p', editorStorage: [], allowedHosts: hosts });
    const words = testPromptWords({ mode: 'ask', profile: main }, '/w/repo', '/home/p');
    assert.ok(words.length > 1000, 'longer than one value of a message keeps');
    const p = wholePieces(words)!;
    const shown = text`Prompt. ${p[0]} ${p[1]} ${p[2]} ${p[3]}`.trimEnd();
    assert.equal(shown, `Prompt. ${words}`);
    assert.ok(shown.includes('mirror-39.registry.example.com'));
    assert.equal(wholePieces('x'.repeat(501)), undefined);
    assert.equal(wholePieces(Array.from({ length: 400 }, () => 'word').join(' ').repeat(3)), undefined);
  });

  it('always without the sandbox: nothing runs, and the audit says refused', async () => {
    const marker = path.join(tmp, 'ran');
    let wrapped = 0;
    const r = await runWorktreeTest(`touch ${marker}`, tmp, testRunMode({ mode: 'always', unavailable: 'no bwrap' }), { wrapper: () => async (p) => (wrapped++, p) });
    assert.ok(!fs.existsSync(marker));
    assert.equal(wrapped, 0);
    assert.deepEqual([r.exitCode, r.result, r.sandbox], [null, 'refused', 'refused']);
    assert.match(r.refused ?? '', /^Will not run/);
  });

  it('a wrapper that cannot set the sandbox up: nothing runs (never an unsandboxed run instead), the output says why', async () => {
    const marker = path.join(tmp, 'ran');
    const r = await runWorktreeTest(`touch ${marker}`, tmp, testRunMode({ mode: 'ask', profile }), { wrapper: () => () => Promise.reject(new Error('bubblewrap is missing')) });
    assert.ok(!fs.existsSync(marker));
    assert.equal(r.result, 'refused');
    assert.match(r.output, /^sandbox error: the test command was not run: bubblewrap is missing/);
    assert.match(r.sandbox, /^sandboxed [0-9a-f]{64}$/);
  });

  it('the wrapper gets the shell and the command as they are, and what it returns is what runs; its refusals end the output, once', async function () {
    if (process.platform === 'win32') this.skip();
    const seen: SpawnPlan[] = [];
    let finished = 0;
    const r = await runTestCommand('echo "$0" one', tmp, {
      env: { PATH: process.env.PATH, X: '1' },
      wrap: async (p) => {
        seen.push(p);
        return { ...p, args: ['-c', 'echo wrapped'], finishSandbox: () => (finished++, 'deny network-outbound 127.0.0.1:9 (host is not on the allow list)') };
      },
    });
    assert.deepEqual(seen.map((p) => [p.file, p.args, p.cwd, p.viaShell, p.commandLine, p.env.X]), [['/bin/sh', ['-c', 'echo "$0" one'], tmp, true, 'echo "$0" one', '1']]);
    assert.equal(r.output, 'wrapped\n\n[sandbox] deny network-outbound 127.0.0.1:9 (host is not on the allow list)\n');
    assert.equal(finished, 1);
  });

  describe('with the real sandbox-runtime', () => {
    const settings = { mode: 'ask' as SandboxMode, allowedHosts: [] as string[], bwrapPath: '' };
    const sandboxes = new Sandboxes({ settings: () => settings, workspaceRoots: () => [], editorStorage: () => [] });
    const outside = path.join(os.homedir(), `.switchboard-compare-outside-${process.pid}`);
    before(async function () {
      const status = await sandboxes.availability();
      if (!status.available) {
        console.log(`      (sandbox unavailable here: ${status.reason})`);
        this.skip();
      }
    });
    afterEach(() => fs.rmSync(outside, { force: true }));
    after(() => sandboxes.dispose());

    it('the agent\'s test writes in its worktree and the temp folder only, and cannot change the worktree\'s .git', async () => {
      const wt = path.join(tmp, 'wt');
      fs.mkdirSync(path.join(wt, '.git'), { recursive: true });
      fs.writeFileSync(path.join(wt, '.git', 'config'), '[core]\n');
      const plan: SandboxPlan = await sandboxes.plan([wt]);
      assert.ok('profile' in plan, JSON.stringify(plan));
      const command = `echo in > in.txt; echo out > ${outside}; printf '[core]\\n\\tfsmonitor = x\\n' > .git/config; echo done`;
      const r = await runWorktreeTest(command, wt, testRunMode(plan), { wrapper: (p) => sandboxes.wrapper(p) });
      assert.equal(fs.readFileSync(path.join(wt, 'in.txt'), 'utf8'), 'in\n');
      assert.ok(!fs.existsSync(outside), `nothing outside the worktree: ${r.output}`);
      assert.equal(fs.readFileSync(path.join(wt, '.git', 'config'), 'utf8'), '[core]\n', r.output);
      assert.match(r.output, /done\n/);
      assert.match(r.sandbox, /^sandboxed [0-9a-f]{64}$/);
      assert.equal(r.words.sandboxed, true);
    });

    it('the runner itself: a wrapper given runs the command inside it (so a plain shell is never what runs)', async () => {
      const wt = path.join(tmp, 'wt2');
      fs.mkdirSync(wt);
      const plan = await sandboxes.plan([wt]);
      assert.ok('profile' in plan);
      const r = await runTestCommand(`echo out > ${outside}; echo done`, wt, { wrap: sandboxes.wrapper(plan.profile) });
      assert.ok(!fs.existsSync(outside), r.output);
      assert.match(r.output, /done\n/);
      // The time limit still ends everything it started inside the sandbox.
      const tag = `${process.pid}${Date.now() % 100000}`;
      const started = Date.now();
      const slow = await runTestCommand(`sleep 3${tag} & sleep 4${tag}; echo never`, wt, { wrap: sandboxes.wrapper(plan.profile), timeoutMs: 500 });
      assert.equal(slow.stopped, 'timeout');
      assert.ok(Date.now() - started < 5000);
      await new Promise((res) => setTimeout(res, 300));
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(tag) && l.startsWith('sleep'));
      assert.deepEqual(left, []);
    });
  });
});

/**
 * Worktrees for sessions (issue 20) against the real `git` command line in temporary repositories:
 * made outside the repository on a branch of their own, from HEAD or with the uncommitted changes,
 * their changes read back byte for byte, committed, discarded with their branch; and the folders
 * where a worktree would not hold what the folder holds are refused with the reason.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { gitRunner } from '../../../src/worktrees/gitCli';
import { Worktrees } from '../../../src/worktrees/worktrees';
import { applySummary, planApply } from '../../../src/worktrees/applyPlan';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

describe('worktrees for sessions (issue 20)', function () {
  this.timeout(30_000);
  let tmp: string;
  let repo: string;
  let storage: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-wt-')));
    repo = path.join(tmp, 'repo');
    storage = path.join(tmp, 'storage');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'src', 'a.txt'), 'one\ntwo\nthree\n');
    fs.writeFileSync(path.join(repo, 'gone.txt'), 'to delete\n');
    fs.writeFileSync(path.join(repo, 'bin.dat'), Buffer.from([0, 1, 2, 255]));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('makes a worktree outside the repository on a branch of its own; the session folder keeps its place in it', async () => {
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(path.join(repo, 'src'), 'Claude Code', 'head');
    assert.ok(r.dir.startsWith(storage) && !r.dir.startsWith(repo));
    assert.match(r.branch, /^switchboard\/claude-code-[0-9a-f]{8}$/);
    assert.equal(r.cwd, path.join(r.dir, 'src'));
    assert.equal(fs.readFileSync(path.join(r.cwd, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.match(git(repo, 'worktree', 'list'), new RegExp(r.branch.replace(/\//g, '\\/')));
    assert.equal(r.base, git(repo, 'rev-parse', 'HEAD').trim());
    // Kept on disk with its record: a new window knows it.
    assert.deepEqual(new Worktrees(gitRunner(), storage).list().map((x) => x.id), [r.id]);
  });

  it('from HEAD plus the uncommitted changes: the worktree starts with them; the stash list is untouched', async () => {
    fs.writeFileSync(path.join(repo, 'src', 'a.txt'), 'one\nTWO (uncommitted)\nthree\n');
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(repo, 'demo', 'head+changes');
    assert.equal(fs.readFileSync(path.join(r.dir, 'src', 'a.txt'), 'utf8'), 'one\nTWO (uncommitted)\nthree\n');
    assert.notEqual(r.base, git(repo, 'rev-parse', 'HEAD').trim());
    assert.equal(git(repo, 'stash', 'list'), '');
    assert.deepEqual(await w.changes(r.id), [], 'its base holds them: nothing changed yet');
  });

  it('reads back what the worktree changed: modified, added, deleted, binary, byte for byte', async () => {
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(repo, 'demo', 'head');
    fs.writeFileSync(path.join(r.dir, 'src', 'a.txt'), 'one\ntwo!\nthree\n');
    fs.writeFileSync(path.join(r.dir, 'new.txt'), 'new\n');
    fs.rmSync(path.join(r.dir, 'gone.txt'));
    fs.writeFileSync(path.join(r.dir, 'bin.dat'), Buffer.from([0, 1, 2, 254]));
    const c = await w.changes(r.id);
    assert.deepEqual(c.map((f) => [f.rel, f.before === null ? null : f.before.length, f.after === null ? null : f.after.length]), [
      ['bin.dat', 4, 4],
      ['gone.txt', 10, null],
      ['new.txt', null, 4],
      ['src/a.txt', 14, 15],
    ]);
    assert.deepEqual([...c[0].before!], [0, 1, 2, 255], 'binary bytes exactly');
    // The main folder is untouched.
    assert.equal(fs.readFileSync(path.join(repo, 'src', 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
  });

  it('a symlink, a FIFO or a linked folder the agent made in its worktree is named, never followed: never applied', async function () {
    if (process.platform === 'win32') this.skip();
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(repo, 'demo', 'head');
    const secret = path.join(tmp, 'secret.txt');
    fs.writeFileSync(secret, 'do not copy me\n');
    fs.symlinkSync(secret, path.join(r.dir, 'link.txt'));
    fs.symlinkSync(tmp, path.join(r.dir, 'outside'));
    execFileSync('mkfifo', [path.join(r.dir, 'pipe')]);
    const c = await w.changes(r.id);
    const special = Object.fromEntries(c.map((f) => [f.rel, f.special]));
    assert.match(special['link.txt'] ?? '', /symlink/);
    assert.match(special['outside'] ?? '', /symlink|outside the worktree/);
    assert.ok(!('pipe' in special), 'git lists no FIFO: nothing to carry');
    assert.ok(c.every((f) => f.after === null || !f.after.toString().includes('do not copy me')), 'the target was never read');
    const steps = planApply(c.map((f) => ({ rel: f.rel, base: null, worktree: null, main: null, ...(f.special ? { special: f.special } : {}) })));
    assert.ok(steps.filter((s) => s.rel === 'link.txt' || s.rel === 'pipe').every((s) => s.kind === 'conflict'));
  });

  it('commits on its branch (without an author configured), and Discard removes the folder and the branch', async () => {
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(repo, 'demo', 'head');
    fs.writeFileSync(path.join(r.dir, 'new.txt'), 'new\n');
    const sha = await w.commit(r.id, 'Agent work');
    assert.equal(git(repo, 'log', '-1', '--format=%s', r.branch).trim(), 'Agent work');
    assert.equal(git(repo, 'rev-parse', r.branch).trim(), sha);
    assert.deepEqual(await w.losses(r.id), { files: ['new.txt'], commits: 1 });
    await w.discard(r.id);
    assert.ok(!fs.existsSync(r.dir));
    assert.equal(git(repo, 'branch', '--list', r.branch).trim(), '');
    assert.doesNotMatch(git(repo, 'worktree', 'list'), new RegExp(r.id));
    assert.deepEqual(w.list(), []);
  });

  it('reads only the folder the person opened: files elsewhere in the repository are not its changes (review F2)', async () => {
    fs.writeFileSync(path.join(repo, 'top.txt'), 'top\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'top');
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(path.join(repo, 'src'), 'demo', 'head');
    fs.writeFileSync(path.join(r.dir, 'top.txt'), 'changed outside the opened folder\n');
    fs.writeFileSync(path.join(r.dir, 'new-at-top.txt'), 'new\n');
    fs.writeFileSync(path.join(r.cwd, 'a.txt'), 'one\n');
    fs.writeFileSync(path.join(r.cwd, 'b.txt'), 'new inside\n');
    assert.deepEqual((await w.changes(r.id)).map((c) => c.rel), ['src/a.txt', 'src/b.txt']);
    await w.commit(r.id, 'inside only');
    assert.equal(git(r.dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort().join(','), 'src/a.txt,src/b.txt');
  });

  it('git reads the worktree through the folder it made, whatever its .git file says now; no fsmonitor or hook the agent wrote runs (review F4)', async () => {
    const w = new Worktrees(gitRunner(), storage);
    const r = await w.create(repo, 'demo', 'head');
    assert.ok(r.gitDir && r.gitDir.startsWith(path.join(repo, '.git', 'worktrees')), 'the worktree\'s own git folder is kept');
    const ran = path.join(tmp, 'ran');
    // A git folder of the agent's making, with a monitor program and hooks, named by the worktree's .git file.
    const evil = path.join(r.dir, 'evil-git');
    git(tmp, 'init', '-q', '--bare', evil);
    git(evil, 'config', 'core.fsmonitor', `touch ${ran}-fsmonitor; false`);
    fs.writeFileSync(path.join(r.dir, '.git'), `gitdir: ${evil}\n`);
    // And hooks in the real repository's hooks path, relative, inside the worktree (husky-style).
    git(repo, 'config', 'core.hooksPath', '.githooks');
    fs.mkdirSync(path.join(r.dir, '.githooks'));
    for (const hook of ['prepare-commit-msg', 'post-commit', 'pre-commit']) {
      fs.writeFileSync(path.join(r.dir, '.githooks', hook), `#!/bin/sh\ntouch ${ran}-${hook}\n`, { mode: 0o755 });
    }
    fs.writeFileSync(path.join(r.dir, 'src', 'a.txt'), 'changed\n');
    const rels = (await w.changes(r.id)).map((c) => c.rel);
    assert.ok(rels.includes('src/a.txt'), 'the real worktree\'s changes, read through its own git folder');
    await w.commit(r.id, 'commit without hooks');
    assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('ran')), [], 'nothing the agent wrote ran');
  });

  it('no git run of ours starts a monitor program or a hook, whatever the repository configures: the check, a worktree with the uncommitted changes, any command of the runner', async () => {
    const ran = path.join(tmp, 'ran');
    git(repo, 'config', 'core.fsmonitor', `touch ${ran}-fsmonitor; false`);
    git(repo, 'config', 'core.hooksPath', '.githooks');
    fs.mkdirSync(path.join(repo, '.githooks'));
    for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change']) fs.writeFileSync(path.join(repo, '.githooks', hook), `#!/bin/sh\ntouch ${ran}-${hook}\n`, { mode: 0o755 });
    // A tracked file changed: \`stash create\` refreshes the index, which asks the monitor.
    fs.writeFileSync(path.join(repo, 'src', 'a.txt'), 'mine\n');
    const w = new Worktrees(gitRunner(), storage);
    assert.equal((await w.check(repo)).ok, true);
    const r = await w.create(repo, 'demo', 'head+changes');
    assert.equal(fs.readFileSync(path.join(r.dir, 'src', 'a.txt'), 'utf8'), 'mine\n');
    // Any caller of the runner, not only the worktree code: a plain status in the repository.
    await gitRunner().run(['status', '--porcelain'], repo);
    assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.startsWith('ran')), [], 'nothing the repository configured ran');
    // The same configuration does run them for a git of nobody's making: the test would see it.
    git(repo, 'status', '--porcelain');
    assert.ok(fs.existsSync(`${ran}-fsmonitor`));
  });

  it('two windows that each make a worktree keep both records; a folder already gone is forgotten without pruning other worktrees (review F6, F7)', async () => {
    const a = new Worktrees(gitRunner(), storage);
    const b = new Worktrees(gitRunner(), storage);
    const ra = await a.create(repo, 'demo', 'head');
    const rb = await b.create(repo, 'demo', 'head');
    assert.deepEqual(new Worktrees(gitRunner(), storage).list().map((x) => x.id).sort(), [ra.id, rb.id].sort());
    assert.deepEqual(a.list().map((x) => x.id).sort(), [ra.id, rb.id].sort(), 'window A sees B\'s too');
    // The person's own worktree on a drive that is away: its folder is missing for now.
    const mine = path.join(tmp, 'mine');
    git(repo, 'worktree', 'add', '-q', '-b', 'mine', mine);
    const away = path.join(tmp, 'away');
    fs.renameSync(mine, away);
    fs.rmSync(ra.dir, { recursive: true, force: true });
    await a.discard(ra.id);
    fs.renameSync(away, mine);
    assert.equal(git(mine, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'mine', 'the person\'s worktree still works');
    assert.doesNotMatch(git(repo, 'worktree', 'list'), new RegExp(ra.branch.replace(/\//g, '\\/')));
  });

  it('refuses, with the reason, a folder outside git, a repository without commits, submodules, LFS and sparse checkouts', async () => {
    const w = new Worktrees(gitRunner(), storage);
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(plain);
    assert.match((await w.check(plain) as { reason: string }).reason, /not in a git repository/);
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    assert.match((await w.check(empty) as { reason: string }).reason, /no commit yet/);
    fs.writeFileSync(path.join(repo, '.gitattributes'), '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'lfs');
    assert.match((await w.check(repo) as { reason: string }).reason, /Git LFS/);
    git(repo, 'config', 'core.sparseCheckout', 'true');
    assert.match((await w.check(repo) as { reason: string }).reason, /sparse checkout/);
    fs.writeFileSync(path.join(repo, '.gitmodules'), '[submodule "x"]\n');
    assert.match((await w.check(repo) as { reason: string }).reason, /submodules/);
    await assert.rejects(w.create(repo, 'demo', 'head'), /No worktree: the repository has submodules/);
  });

  it('reads the repository and its HEAD right when the repository\'s path holds a newline or ends in a space', async () => {
    const w = new Worktrees(gitRunner(), storage);
    for (const name of ['new\nline', 'HEAD\n--', 'trailing ']) {
      const odd = path.join(tmp, name);
      fs.mkdirSync(odd);
      git(odd, 'init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(odd, 'f.txt'), 'x\n');
      git(odd, 'add', '-A');
      git(odd, 'commit', '-q', '-m', 'base');
      const checked = await w.check(odd);
      assert.deepEqual(checked, { ok: true, repo: odd, head: git(odd, 'rev-parse', 'HEAD').trim() }, JSON.stringify(name));
    }
  });
});

describe('apply to the main folder: decided file by file (issue 20)', () => {
  const base = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const edit = (text: string, n: number, to: string) => text.replace(`line ${n}\n`, `${to}\n`);

  it('changes at one place or on neighbouring lines are the person\'s to merge: two appends at the end, edits of adjacent lines', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const steps = planApply([
      { rel: 'both-append.txt', base: ten, worktree: `${ten}\nagent's block\n`, main: `${ten}my own last line\n` },
      { rel: 'adjacent.txt', base: ten, worktree: ten.replace('line 5\n', 'line 5 (agent)\n'), main: ten.replace('line 6\n', 'line 6 (mine)\n') },
      { rel: 'apart.txt', base: ten, worktree: ten.replace('line 2\n', 'line 2 (agent)\n'), main: ten.replace('line 9\n', 'line 9 (mine)\n') },
    ]);
    assert.deepEqual(steps.map((s) => `${s.rel}:${s.kind}`), ['both-append.txt:conflict', 'adjacent.txt:conflict', 'apart.txt:write']);
    assert.equal((steps[2] as { text: string }).text, ten.replace('line 2\n', 'line 2 (agent)\n').replace('line 9\n', 'line 9 (mine)\n'));
  });

  it('takes the worktree\'s file where the main folder is as at the base; merges around the person\'s edit; the merge editor where they overlap', () => {
    const agent = edit(base, 3, 'line 3 (agent)');
    const steps = planApply([
      { rel: 'untouched.txt', base, worktree: agent, main: base },
      { rel: 'far.txt', base, worktree: agent, main: edit(base, 25, 'line 25 (mine, unsaved)') },
      { rel: 'near.txt', base, worktree: agent, main: edit(base, 3, 'line 3 (mine)') },
      { rel: 'new.txt', base: null, worktree: 'new\n', main: null },
      { rel: 'gone.txt', base, worktree: null, main: base },
      { rel: 'gone-but-mine.txt', base, worktree: null, main: edit(base, 1, 'x') },
      { rel: 'same.txt', base, worktree: agent, main: agent },
      { rel: 'both-new.txt', base: null, worktree: 'a\n', main: 'b\n' },
    ]);
    assert.deepEqual(steps.map((s) => `${s.rel}:${s.kind}${s.kind === 'write' ? `:${s.how}` : ''}`), [
      'untouched.txt:write:take',
      'far.txt:write:merged',
      'near.txt:conflict',
      'new.txt:write:take',
      'gone.txt:delete',
      'gone-but-mine.txt:conflict',
      'same.txt:same',
      'both-new.txt:conflict',
    ]);
    const far = steps[1] as { text: string };
    assert.match(far.text, /line 3 \(agent\)\n/);
    assert.match(far.text, /line 25 \(mine, unsaved\)\n/, 'the person\'s edit survives');
    assert.equal(applySummary(steps), '2 files taken as the agent left them, 1 file merged with your changes, 1 file deleted, 1 file already the same, 3 files to merge by hand');
  });
});

/**
 * The demo's workspace is a git repository with a first commit, so worktrees and Send to Several
 * Agents can be tried from `npm run demo` without a `git init` first.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.join(process.cwd(), 'scripts', 'demo-workspace.sh');
const git = (ws: string, ...args: string[]) => spawnSync('git', ['-C', ws, ...args], { encoding: 'utf8' });

describe('the demo workspace', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'as-demo-ws-'))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is made a repository with a first commit holding its files', () => {
    const ws = path.join(tmp, 'demo');
    execFileSync('bash', [script, ws]);
    assert.equal(git(ws, 'rev-parse', '--verify', 'HEAD').status, 0);
    assert.deepEqual(git(ws, 'ls-files').stdout.trim().split('\n').sort(), ['README.md', 'src/greet.ts']);
    assert.equal(git(ws, 'status', '--porcelain').stdout, '', 'nothing left uncommitted');
  });

  it('one made before it was a repository becomes one; a folder of the person\'s is left as it is', () => {
    const old = path.join(tmp, 'old');
    fs.mkdirSync(old);
    fs.writeFileSync(path.join(old, 'README.md'), '# Agent Switchboard demo workspace\n\nold\n');
    execFileSync('bash', [script, old]);
    assert.equal(git(old, 'rev-parse', '--verify', 'HEAD').status, 0);
    const mine = path.join(tmp, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'notes.txt'), 'mine\n');
    execFileSync('bash', [script, mine]);
    assert.ok(!fs.existsSync(path.join(mine, '.git')));
    assert.deepEqual(fs.readdirSync(mine), ['notes.txt']);
  });
});

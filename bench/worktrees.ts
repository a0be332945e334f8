/**
 * worktreeSession (issue 22 step 6): making a session's worktree for a repository of 10,000 files
 * (`Worktrees.create`: the checks that refuse submodules, LFS and sparse checkouts, `git worktree
 * add` on a branch of its own, the record) ÷ `git worktree add` alone on the same repository, paired
 * back to back, median of 5 pairs. Goal ≤ 1.3.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitRunner } from '../src/worktrees/gitCli';
import { Worktrees } from '../src/worktrees/worktrees';

const FILES = 10_000;

/** The ratio, with both medians in milliseconds. */
export async function worktreeBenchmarks(): Promise<Record<string, unknown>> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-wt-')));
  const repo = path.join(root, 'repo');
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    for (let d = 0; d < 100; d++) {
      const dir = path.join(repo, 'src', `d${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < FILES / 100; f++) fs.writeFileSync(path.join(dir, `f${f}.ts`), `export const v${f} = ${d * 1000 + f};\n`);
    }
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const worktrees = new Worktrees(gitRunner(), path.join(root, 'storage'));
    const plain: number[] = [];
    const ours: number[] = [];
    const pairs: number[] = [];
    for (let i = 0; i < 6; i++) {
      let t0 = performance.now();
      git(repo, 'worktree', 'add', '-q', '-b', `plain-${i}`, path.join(root, `plain-${i}`), 'HEAD');
      const p = performance.now() - t0;
      t0 = performance.now();
      await worktrees.create(repo, 'bench', 'head');
      const o = performance.now() - t0;
      // The first pair warms the file cache for both.
      if (i === 0) continue;
      plain.push(p);
      ours.push(o);
      pairs.push(o / p);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return { worktreeSession: { ratio: Number(med(pairs).toFixed(2)), goal: '<= 1.3', files: FILES, oursMs: Number(med(ours).toFixed(1)), gitWorktreeAddMs: Number(med(plain).toFixed(1)), pairs: pairs.length } };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The `git` command line, for what VS Code's Git extension API does not offer (worktrees, plumbing
 * reads): the same `git` binary that extension uses (its `git.path`), run without a shell, with a
 * time limit and an output cap, never prompting (GIT_TERMINAL_PROMPT=0) and in the C locale so its
 * messages can be read. Every run has the fsmonitor and hooks off ({@link NO_PROGRAMS}): we run git
 * on folders agents write (their worktrees, the person's folder), and a monitor program or a hook
 * would run there outside any sandbox, unasked. No `vscode`.
 */
import { execFile } from 'node:child_process';

/** Runs git commands: `run` resolves with stdout as text, `bytes` with stdout as it came (file contents). */
export interface GitRunner {
  run(args: readonly string[], cwd: string, opts?: { timeoutMs?: number }): Promise<string>;
  bytes(args: readonly string[], cwd: string, opts?: { timeoutMs?: number }): Promise<Buffer>;
}

/** A git command that failed: its exit code and stderr, for a message a person can act on. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.slice(0, 3).join(' ')} failed${exitCode !== null ? ` (exit code ${exitCode})` : ''}: ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`);
  }
}

/**
 * Options before every git command of ours: no fsmonitor program (`git status`, `diff`, `stash
 * create` and `add` would start it) and no hooks (`worktree add` runs `post-checkout`, `commit` its
 * own), whatever a repository's, a worktree's or the person's configuration says (a `core.hooksPath`
 * relative to the working tree names files an agent can write).
 */
export const NO_PROGRAMS: readonly string[] = ['-c', 'core.fsmonitor=false', '-c', `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`];

/** Output git may print before we stop reading (a diff of a huge repository, say): 64 MiB. */
const MAX_OUTPUT = 64 * 1024 * 1024;

/**
 * A {@link GitRunner} for the binary at `gitPath` (from VS Code's Git extension, else `git` on PATH).
 * Each method throws GitError when git exits non-zero, times out (default 60 s) or cannot start.
 */
export function gitRunner(gitPath = 'git', baseEnv: NodeJS.ProcessEnv = process.env): GitRunner {
  const exec = <T extends 'utf8' | 'buffer'>(args: readonly string[], cwd: string, encoding: T, timeoutMs = 60_000) =>
    new Promise<T extends 'utf8' ? string : Buffer>((resolve, reject) => {
      execFile(
        gitPath,
        [...NO_PROGRAMS, ...args],
        { cwd, timeout: timeoutMs, maxBuffer: MAX_OUTPUT, encoding, env: { ...baseEnv, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' }, windowsHide: true },
        (err, stdout, stderr) => {
          if (err) {
            const code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
            reject(new GitError(args, code, String(stderr || err.message)));
          } else resolve(stdout as T extends 'utf8' ? string : Buffer);
        },
      );
    });
  return {
    run: (args, cwd, opts = {}) => exec(args, cwd, 'utf8', opts.timeoutMs),
    bytes: (args, cwd, opts = {}) => exec(args, cwd, 'buffer', opts.timeoutMs),
  };
}

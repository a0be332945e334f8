/**
 * The test command a person names for a comparison (issue 20), run in each worktree: in a shell, in
 * its own process group (the whole group is ended on timeout or cancel), its output kept as a
 * bounded tail. The person typed the command, so it is their approval; the caller audits it. No
 * `vscode`.
 */
import { spawn } from 'node:child_process';

/** How a test run ended. */
export interface TestRunResult {
  exitCode: number | null;
  signal: string | null;
  /** The output's last {@link MAX_TAIL} characters (stdout and stderr together). */
  output: string;
  ms: number;
  /** Ended by the time limit or by cancel. */
  stopped?: 'timeout' | 'cancelled';
}

/** Output kept per run. */
export const MAX_TAIL = 16_000;

/**
 * Runs `command` with `/bin/sh -c` (`cmd /c` on Windows) in `cwd`.
 * @param env the environment (the agents' own, so the same tools are found)
 */
export function runTestCommand(command: string, cwd: string, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<TestRunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const win = process.platform === 'win32';
    const child = spawn(win ? 'cmd.exe' : '/bin/sh', win ? ['/d', '/s', '/c', command] : ['-c', command], { cwd, env: opts.env ?? process.env, detached: !win, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let output = '';
    let stopped: TestRunResult['stopped'];
    const take = (b: Buffer) => {
      output += b.toString('utf8');
      if (output.length > MAX_TAIL * 2) output = output.slice(-MAX_TAIL);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const kill = (why: 'timeout' | 'cancelled') => {
      stopped ??= why;
      try {
        if (!win && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill('timeout'), opts.timeoutMs ?? 10 * 60_000);
    const onAbort = () => kill('cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (exitCode: number | null, signal: string | null) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, output: output.slice(-MAX_TAIL), ms: Date.now() - started, ...(stopped ? { stopped } : {}) });
    };
    child.on('error', (err) => {
      output += `\n${err.message}`;
      done(null, null);
    });
    child.on('close', (code, signal) => done(code, signal));
  });
}

/**
 * The test command a person names for a comparison (issue 20), run in each worktree: in a shell, in
 * its own process group (the whole group is ended on timeout or cancel), its output kept as a
 * bounded tail. The person typed the command, so it is their approval; the caller audits it. The
 * code it runs is the agent's (the worktree's scripts, tests and packages), so the caller passes the
 * sandbox's wrapper whenever that session's commands run sandboxed: the command then runs wrapped,
 * or not at all. No `vscode`.
 */
import { spawn } from 'node:child_process';
import type { SpawnPlan } from '../terminals/command';

/** How a test run ended. */
export interface TestRunResult {
  exitCode: number | null;
  signal: string | null;
  /** The output's last {@link MAX_TAIL} characters (stdout and stderr together), then the sandbox's refusals as `[sandbox] …` lines. */
  output: string;
  ms: number;
  /** Ended by the time limit or by cancel. */
  stopped?: 'timeout' | 'cancelled';
  /** Set when the command was not started because its sandbox could not be set up: why. Never replaced by an unsandboxed run. */
  refused?: string;
}

/** How {@link runTestCommand} runs. */
export interface TestRunOptions {
  /** The environment (the agents' own, so the same tools are found). */
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before the whole process group is ended; default ten minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The sandbox's wrapper of the session's profile (`Sandboxes.wrapper`): the shell is started inside
   * it. When it throws, nothing runs and the result says why.
   */
  wrap?: (plan: SpawnPlan) => Promise<SpawnPlan>;
}

/** Output kept per run. */
export const MAX_TAIL = 16_000;

/**
 * Runs `command` with `/bin/sh -c` (`cmd /c` on Windows) in `cwd`, wrapped by `opts.wrap` when given.
 */
export async function runTestCommand(command: string, cwd: string, opts: TestRunOptions = {}): Promise<TestRunResult> {
  const started = Date.now();
  const win = process.platform === 'win32';
  let plan: SpawnPlan = {
    file: win ? 'cmd.exe' : '/bin/sh',
    args: win ? ['/d', '/s', '/c', command] : ['-c', command],
    cwd,
    env: stringsOnly(opts.env ?? process.env),
    viaShell: true,
    commandLine: command,
    outputByteLimit: MAX_TAIL,
  };
  if (opts.wrap) {
    try {
      plan = await opts.wrap(plan);
    } catch (err) {
      const why = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 500);
      return { exitCode: null, signal: null, output: `sandbox error: the test command was not run: ${why}`, ms: Date.now() - started, refused: why };
    }
  }
  if (plan.refusal !== undefined) return { exitCode: null, signal: null, output: plan.refusal, ms: Date.now() - started, refused: plan.refusal };
  return new Promise((resolve) => {
    const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, detached: !win, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
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
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const done = (exitCode: number | null, signal: string | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, signal, output: output.slice(-MAX_TAIL) + sandboxLines(plan), ms: Date.now() - started, ...(stopped ? { stopped } : {}) });
    };
    child.on('error', (err) => {
      output += `\n${err.message}`;
      done(null, null);
    });
    child.on('close', (code, signal) => done(code, signal));
  });
}

/** A wrapped run's end: the sandbox's refusals (hosts it could not reach) as `[sandbox] …` lines, and its per-command state let go. */
function sandboxLines(plan: SpawnPlan): string {
  let lines = '';
  try {
    lines = plan.finishSandbox?.() ?? '';
  } catch {
    lines = '';
  }
  return lines ? `\n[sandbox] ${lines.split('\n').join('\n[sandbox] ')}\n` : '';
}

function stringsOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * Turns a `terminal/create` request into a concrete spawn plan (ACP v1 "Terminals" →
 * "Creating a terminal"), and spawn failures into messages a person and an agent can act on.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_OUTPUT_BYTE_LIMIT } from './outputBuffer';
import type { CreateTerminalParams, TerminalCreateContext, TerminalExitStatus } from './types';

/** Everything `child_process.spawn` needs, plus what the UI shows. */
export interface SpawnPlan {
  /** Program to execute (the shell in shell mode). */
  file: string;
  /** Arguments for `file`. */
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** Complete environment: base env with the request's entries applied. */
  env: Record<string, string>;
  /** True when `command` is run through a shell. */
  viaShell: boolean;
  /** Display form of the command. */
  commandLine: string;
  /** Retained output limit, in bytes, after defaulting and capping. */
  outputByteLimit: number;
  /**
   * Set on a plan wrapped in a sandbox (issue 21): called once when the process has exited, it
   * returns the sandbox's refusals for it (lines such as `deny network-outbound host:port (…)`),
   * which the terminal appends to its output so the agent and the person see what was blocked.
   */
  finishSandbox?: () => string;
  /**
   * Set when the command must not run (its sandbox could not be set up): the terminal shows this
   * line and exits 126 without starting anything. Never replaced by an unsandboxed run.
   */
  refusal?: string;
}

/**
 * Validates `params` and builds the spawn plan.
 *
 * Shell mode (no `args` or an empty array) runs `shell -c command`, so pipes, `&&` and quoting
 * in the agent's string behave as in the person's terminal. With `args` the program is spawned
 * directly and no shell ever parses the arguments.
 *
 * @param params - The agent's `terminal/create` parameters.
 * @param ctx - Host context: session cwd, the person's environment, optional shell.
 * @param maxOutputByteLimit - Cap applied to `outputByteLimit`, in bytes.
 * @throws TypeError when a parameter has the wrong type or shape (empty command, NUL bytes,
 *   bad env entry, negative or fractional `outputByteLimit`); the caller maps it to
 *   JSON-RPC "invalid params".
 */
export function planSpawn(params: CreateTerminalParams, ctx: TerminalCreateContext, maxOutputByteLimit: number): SpawnPlan {
  const { command } = params;
  if (typeof command !== 'string' || command.trim() === '') throw new TypeError('terminal/create: command must be a non-empty string');
  assertNoNul('command', command);
  const args = params.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new TypeError('terminal/create: args must be an array of strings');
  }
  args.forEach((a, i) => assertNoNul(`args[${i}]`, a));

  if (params.cwd !== undefined && params.cwd !== null && typeof params.cwd !== 'string') {
    throw new TypeError('terminal/create: cwd must be a string');
  }
  // ACP makes cwd absolute; a relative one is taken against the session's folder (never the
  // extension host's own working folder, which path.resolve would fall back to).
  if (!path.isAbsolute(ctx.defaultCwd)) throw new TypeError('terminal/create: the session has no absolute working folder');
  const cwd = path.resolve(ctx.defaultCwd, params.cwd ?? '.');
  const env = mergeEnv(ctx.baseEnv, params.env ?? []);
  const outputByteLimit = Math.min(normalizeLimit(params.outputByteLimit), maxOutputByteLimit);

  if (args.length === 0) {
    const shell = ctx.shell ?? defaultShell(ctx.baseEnv);
    // cmd.exe: quote the whole line and let /s strip the quotes, exactly as Node's `shell: true` does.
    const shellArgs = process.platform === 'win32' ? ['/d', '/s', '/c', `"${command}"`] : ['-c', command];
    return { file: shell, args: shellArgs, cwd, env, viaShell: true, commandLine: command, outputByteLimit };
  }
  const commandLine = [command, ...args].map(quoteForDisplay).join(' ');
  return { file: command, args: [...args], cwd, env, viaShell: false, commandLine, outputByteLimit };
}

/**
 * Returns the person's environment with the request's variables applied on top.
 *
 * Undefined values in `base` are dropped because `spawn` would pass them as the string
 * "undefined".
 *
 * @throws TypeError when an entry is not `{name: string, value: string}` or the name is empty
 *   or contains `=` or NUL.
 */
export function mergeEnv(
  base: Readonly<Record<string, string | undefined>>,
  overrides: ReadonlyArray<{ name: string; value: string }>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  if (!Array.isArray(overrides)) throw new TypeError('terminal/create: env must be an array of {name, value}');
  for (const entry of overrides) {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || name === '' || name.includes('=') || typeof value !== 'string') {
      throw new TypeError(`terminal/create: invalid env entry ${JSON.stringify(entry)}`);
    }
    assertNoNul(`env ${name}`, name + value);
    env[name] = value;
  }
  return env;
}

/** Shell used for command lines: `$SHELL`, else `/bin/sh` (Windows: `%ComSpec%`, else cmd.exe). */
export function defaultShell(env: Readonly<Record<string, string | undefined>>): string {
  if (process.platform === 'win32') return env.ComSpec ?? env.COMSPEC ?? 'cmd.exe';
  return env.SHELL || '/bin/sh';
}

/**
 * Explains why `spawn` failed and picks the exit status a shell would report for it, so the
 * agent sees an ordinary failed command rather than a protocol error.
 *
 * @param err - The `error` event of the child process (or an error `spawn` threw).
 * @returns `message` (one line, newline-terminated, prefixed `spawn error:`) and `exitStatus`:
 *   127 when something was not found (as shells do), 126 for any other failure.
 */
export function describeSpawnError(err: unknown, plan: SpawnPlan): { message: string; exitStatus: TerminalExitStatus } {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  let message: string;
  let exitCode = 126;
  if (code === 'ENOENT' && !existsSync(plan.cwd)) {
    // Node reports a missing cwd as ENOENT on the program, which would send people hunting for the wrong thing.
    message = `working directory does not exist: ${plan.cwd}`;
    exitCode = 127;
  } else if (code === 'ENOENT') {
    message = plan.viaShell
      ? `shell not found: ${plan.file} (check $SHELL)`
      : `command not found: ${plan.file} (PATH=${plan.env.PATH ?? plan.env.Path ?? ''})`;
    exitCode = 127;
  } else if (code === 'EACCES') {
    message = `permission denied: ${plan.file}`;
  } else {
    message = `${plan.file}: ${err instanceof Error ? err.message : String(err)}`;
  }
  return { message: `spawn error: ${message}\n`, exitStatus: { exitCode, signal: null } };
}

/** Single-quotes `arg` for display when it holds characters a shell would interpret. */
export function quoteForDisplay(arg: string): string {
  if (arg !== '' && /^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function normalizeLimit(limit: number | null | undefined): number {
  if (limit === undefined || limit === null) return DEFAULT_OUTPUT_BYTE_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) {
    throw new TypeError(`terminal/create: outputByteLimit must be a non-negative integer (bytes), got ${limit}`);
  }
  return limit;
}

function assertNoNul(what: string, value: string): void {
  if (value.includes('\0')) throw new TypeError(`terminal/create: ${what} must not contain NUL characters`);
}

/**
 * The host side of ACP v1 client terminals (https://agentclientprotocol.com/protocol/terminals):
 * `terminal/create`, `terminal/output`, `terminal/wait_for_exit`, `terminal/kill` and
 * `terminal/release`, for the terminals of one session.
 *
 * Pure Node on purpose: the VS Code adapter maps these methods to JSON-RPC and draws the
 * snapshots, and the unit tests drive real processes without an editor.
 */

import { randomUUID } from 'node:crypto';
import { Emitter, type IDisposable } from '../common/lifecycle';
import { planSpawn } from './command';
import { DEFAULT_KILL_GRACE_MS } from './processGroup';
import { ManagedTerminal } from './terminal';
import type {
  CreateTerminalParams,
  TerminalCreateContext,
  TerminalExitStatus,
  TerminalManagerOptions,
  TerminalOutput,
  TerminalSnapshot,
} from './types';

/** Default minimum gap between two change events of one terminal, in milliseconds. */
export const DEFAULT_CHANGE_THROTTLE_MS = 50;
/** Default wait for stdout/stderr to close after the process exits, in milliseconds. */
export const DEFAULT_EXIT_DRAIN_MS = 250;
/** Default cap on `outputByteLimit`: 64 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTE_LIMIT = 64 * 1024 * 1024;

/**
 * Thrown for a `terminalId` this manager does not know: never created, or already released.
 * The ACP adapter maps it to JSON-RPC error -32002 (resource not found).
 */
export class TerminalNotFoundError extends Error {
  override readonly name = 'TerminalNotFoundError';

  constructor(readonly terminalId: string) {
    super(`Unknown terminal id: ${terminalId} (never created or already released)`);
  }
}

/**
 * Owns every terminal of one ACP session.
 *
 * Spawn failures are not exceptions: `create` still returns an id, whose output holds one line
 * `spawn error: command not found: <cmd> (PATH=<PATH>)` (or `working directory does not exist:`,
 * `shell not found:`, `permission denied:`) and whose exit status is `{exitCode: 127, signal:
 * null}` for not-found cases and 126 otherwise. The agent thus sees what a shell would show for
 * a missing command, and can read it with the calls it already makes. Shell-mode commands that
 * are not found are reported by the shell itself (also exit 127).
 */
export class TerminalManager implements IDisposable {
  private readonly terminals = new Map<string, ManagedTerminal>();
  private readonly changes = new Emitter<TerminalSnapshot>();
  private readonly timings;
  private readonly maxOutputByteLimit: number;

  /** @param options - Timing and memory tunables; all optional (see {@link TerminalManagerOptions}). */
  constructor(options: TerminalManagerOptions = {}) {
    this.timings = {
      killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      changeThrottleMs: options.changeThrottleMs ?? DEFAULT_CHANGE_THROTTLE_MS,
      exitDrainMs: options.exitDrainMs ?? DEFAULT_EXIT_DRAIN_MS,
    };
    this.maxOutputByteLimit = options.maxOutputByteLimit ?? DEFAULT_MAX_OUTPUT_BYTE_LIMIT;
  }

  /**
   * Fires with a snapshot whenever a terminal changes: once when it starts, at most once per
   * `changeThrottleMs` (default 50 ms) per terminal while output flows, once immediately when
   * the process exits, and once with `released: true` when it is released.
   */
  onDidChange(listener: (snapshot: TerminalSnapshot) => void): IDisposable {
    return this.changes.event(listener);
  }

  /**
   * `terminal/create`: starts `params.command` and returns its new `terminalId`.
   *
   * Without `args` the command is one shell command line run as `shell -c command` (shell:
   * `ctx.shell`, else `$SHELL` from `ctx.baseEnv`, else `/bin/sh`); with `args` the program is
   * spawned directly. The working directory is `params.cwd`, else `ctx.defaultCwd`; the
   * environment is `ctx.baseEnv` overridden by `params.env`. Output beyond
   * `params.outputByteLimit` bytes (default 1 MiB, capped by `maxOutputByteLimit`) is dropped
   * from the front.
   *
   * @returns The id, once the process has started or failed to (see the class comment).
   * @throws TypeError when `params` is malformed (empty command, non-string args, bad env
   *   entry, negative or fractional `outputByteLimit`, NUL bytes): map to JSON-RPC -32602.
   */
  async create(params: CreateTerminalParams, ctx: TerminalCreateContext): Promise<string> {
    let plan = planSpawn(params, ctx, this.maxOutputByteLimit);
    if (ctx.wrap) {
      // A command approved to run sandboxed runs sandboxed or not at all.
      const bare = plan;
      plan = await ctx.wrap(bare).catch((err: unknown) => ({ ...bare, refusal: `sandbox error: the command was not run: ${err instanceof Error ? err.message : String(err)}\n` }));
    }
    const id = `term-${randomUUID()}`;
    const terminal = new ManagedTerminal(id, plan, this.timings, (s) => this.changes.fire(s));
    // Registered before spawning so a disposeAll racing with create still reaches it.
    this.terminals.set(id, terminal);
    await terminal.start();
    return id;
  }

  /**
   * `terminal/output`: the retained output (stdout and stderr merged in arrival order), whether
   * bytes were dropped, and the exit status once the process has exited.
   *
   * @throws TerminalNotFoundError for an unknown or released id.
   */
  output(terminalId: string): TerminalOutput {
    return this.get(terminalId).output();
  }

  /**
   * The UI view of one terminal.
   *
   * @throws TerminalNotFoundError for an unknown or released id.
   */
  snapshot(terminalId: string): TerminalSnapshot {
    return this.get(terminalId).snapshot();
  }

  /** Snapshots of all live (not released) terminals, in creation order. */
  snapshots(): TerminalSnapshot[] {
    return [...this.terminals.values()].map((t) => t.snapshot());
  }

  /** True when `terminalId` is known and not released. */
  has(terminalId: string): boolean {
    return this.terminals.has(terminalId);
  }

  /**
   * `terminal/wait_for_exit`: resolves with `{exitCode, signal}` once the process has exited
   * (immediately if it already has). Releasing the terminal meanwhile kills the process, so
   * the promise still resolves.
   *
   * @param signal - Aborting rejects with `signal.reason` (e.g. the agent cancelled the
   *   request); the process keeps running.
   * @throws TerminalNotFoundError (as a rejection) for an unknown or released id.
   */
  async waitForExit(terminalId: string, signal?: AbortSignal): Promise<TerminalExitStatus> {
    return this.get(terminalId).waitForExit(signal);
  }

  /**
   * `terminal/kill`: terminates the process and its whole process group (SIGTERM, then SIGKILL
   * after `killGraceMs`, default 2 s). The terminal stays valid: output and exit status remain
   * readable until `release`.
   *
   * @returns Resolves once the group is gone and the exit status is recorded.
   * @throws TerminalNotFoundError (as a rejection) for an unknown or released id.
   */
  async kill(terminalId: string): Promise<void> {
    return this.get(terminalId).kill();
  }

  /**
   * `terminal/release`: kills the process group if anything is still running and frees the
   * terminal. The id is unknown from the moment this is called.
   *
   * @returns Resolves once the processes are gone and resources are freed.
   * @throws TerminalNotFoundError (as a rejection) for an unknown or already released id.
   */
  async release(terminalId: string): Promise<void> {
    const terminal = this.get(terminalId);
    this.terminals.delete(terminalId);
    return terminal.release();
  }

  /**
   * Subscribes to the raw output text of one terminal as it arrives (whole characters, stdout
   * and stderr merged, `\n` line ends as the program wrote them). Meant for a Pseudoterminal
   * view; only new output is delivered, so read `output()` first to backfill.
   *
   * @throws TerminalNotFoundError for an unknown or released id.
   */
  onData(terminalId: string, listener: (text: string) => void): IDisposable {
    return this.get(terminalId).onData(listener);
  }

  /**
   * Releases every terminal: SIGTERM goes to every process group synchronously, so the signal
   * is sent even if the caller cannot await (extension host shutdown). The manager stays usable.
   *
   * @returns Resolves when every process group is gone (bounded by grace + 1 s per group,
   *   all in parallel).
   */
  async disposeAll(): Promise<void> {
    const all = [...this.terminals.values()];
    this.terminals.clear();
    await Promise.all(all.map((t) => t.release()));
  }

  /** Kills all terminals (without waiting) and drops all listeners; the IDisposable form. */
  dispose(): void {
    void this.disposeAll().finally(() => this.changes.dispose());
  }

  private get(terminalId: string): ManagedTerminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new TerminalNotFoundError(terminalId);
    return terminal;
  }
}

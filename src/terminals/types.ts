/**
 * Shapes of the client-hosted terminals room (ACP v1 "Terminals",
 * https://agentclientprotocol.com/protocol/terminals).
 *
 * The request/response shapes are structural copies of the ACP v1 schema (minus `_meta`), kept
 * here so this room stays free of SDK and `vscode` imports; they are assignable to the SDK types.
 */
import type { SpawnPlan } from './command';

/** One environment variable from `terminal/create` (`EnvVariable` in the schema). */
export interface TerminalEnvVariable {
  /** Variable name; must be non-empty and contain neither `=` nor NUL. */
  name: string;
  /** Variable value; must not contain NUL. */
  value: string;
}

/**
 * Parameters of `terminal/create` (`CreateTerminalRequest`).
 *
 * With no `args` (absent or empty) `command` is treated as one shell command line, because
 * real agents (claude-code-acp) send e.g. `"npm test -- --watch=false"` that way; with `args`,
 * `command` is the program and is spawned directly without a shell.
 */
export interface CreateTerminalParams {
  /** The ACP session the terminal belongs to; carried for logging, not interpreted. */
  sessionId: string;
  /** Program (with `args`) or full shell command line (without `args`). */
  command: string;
  /** Program arguments; presence switches off the shell. */
  args?: string[] | null;
  /** Variables that override the person's environment for this command. */
  env?: TerminalEnvVariable[] | null;
  /** Working directory; the spec requires an absolute path, relative ones are resolved against the session cwd. */
  cwd?: string | null;
  /** Maximum output bytes to retain (oldest dropped); default 1 MiB. Non-negative integer, in bytes. */
  outputByteLimit?: number | null;
}

/** How a terminal's process ended (`TerminalExitStatus`, also the `terminal/wait_for_exit` result). */
export interface TerminalExitStatus {
  /** Exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  /** Signal name such as `"SIGTERM"`, or null when the process exited normally. */
  signal: string | null;
}

/** Result of `terminal/output` (`TerminalOutputResponse`). */
export interface TerminalOutput {
  /** Retained output, stdout and stderr merged in arrival order, never starting mid-character. */
  output: string;
  /** True once output was dropped because of `outputByteLimit`. */
  truncated: boolean;
  /** Present once the process has exited. */
  exitStatus?: TerminalExitStatus;
}

/** Everything a UI needs to draw a terminal; delivered by `TerminalManager.onDidChange`. */
export interface TerminalSnapshot extends TerminalOutput {
  terminalId: string;
  /** Human-readable command line (the shell string, or program and quoted args). */
  commandLine: string;
  /** Absolute working directory the process was started in. */
  cwd: string;
  /** Process id (also the process-group id); absent when spawning failed. */
  pid?: number;
  /**
   * True in the last snapshot of a terminal released by `terminal/release`; the spec asks
   * clients to keep showing output embedded in tool calls after release, so UIs keep this one.
   */
  released: boolean;
  /**
   * Hosts the sandbox refused this command (issue 21), read from the sandbox's own record of the run
   * (never from the command's output, which the command controls). Present once it has exited.
   */
  sandboxBlocked?: string[];
  /** How many changes of a sandboxed command its overlay held back (from the sandbox's record). Present once it has exited. */
  sandboxHeldBack?: number;
}

/** Per-call context for `TerminalManager.create`, supplied by the host rather than the agent. */
export interface TerminalCreateContext {
  /** Absolute session working directory, used when the request has no `cwd`. */
  defaultCwd: string;
  /** The person's environment (normally `process.env`); request `env` entries override it. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * Shell for command lines without `args`; default `baseEnv.SHELL`, else `/bin/sh`
   * (on Windows `baseEnv.ComSpec`, else `cmd.exe`). It is run as `shell -c "<command>"`.
   */
  shell?: string;
  /**
   * Wraps the validated plan in the sandbox the command was approved under (issue 21). Throwing
   * means the command does not run at all: the terminal shows `sandbox error: …` and exits 126.
   */
  wrap?: (plan: SpawnPlan) => Promise<SpawnPlan>;
}

/** Tunables of `TerminalManager`; defaults suit production, tests shorten them. */
export interface TerminalManagerOptions {
  /** Milliseconds between SIGTERM and SIGKILL when killing a group; default 2000. */
  killGraceMs?: number;
  /** Minimum milliseconds between two `onDidChange` events of one terminal; default 50. */
  changeThrottleMs?: number;
  /**
   * After the process exits, milliseconds to wait for its stdout/stderr to close so that
   * `wait_for_exit` is never answered before the last output is in; default 250. A background
   * grandchild that keeps the pipes open does not delay the exit status longer than this.
   */
  exitDrainMs?: number;
  /** Upper bound on any `outputByteLimit`, in bytes, to protect the host; default 64 MiB. */
  maxOutputByteLimit?: number;
}

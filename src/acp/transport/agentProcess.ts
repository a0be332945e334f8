/**
 * Spawns an ACP agent in its own process group and exposes its stdio as an ACP `Stream`
 * (newline-delimited JSON-RPC, ACP v1 §Transport: https://agentclientprotocol.com/protocol/transports).
 * stdout carries only ACP messages; stderr is free-form logging, kept in a ring for error reports.
 *
 * No `vscode`.
 */
import * as fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { ndJsonStdio } from './ndJsonStdio';
import type { ObservableStream } from '../protocolLog';
import { LineRing, type LaunchFailure } from './launchError';

/** How to start an agent. `env` is the complete environment of the process. */
export interface AgentLaunch {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** Largest accepted JSON-RPC line in bytes (the SDK's limit; default 64 MiB). */
  maxMessageBytes?: number;
}

/** How the process ended. */
export interface AgentExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the process never started. */
  spawnError?: NodeJS.ErrnoException;
}

/** A running agent process. */
export class AgentProcess {
  readonly stream: ObservableStream;
  /** Resolves once, when the process has exited or failed to start. */
  readonly exited: Promise<AgentExit>;
  private readonly child: ChildProcess;
  private readonly stderr = new LineRing(60);
  private exit: AgentExit | undefined;

  /**
   * Starts the process at once. Spawn failures (ENOENT, EACCES) do not throw: they resolve
   * {@link exited} with `spawnError`, so callers handle every failure on one path.
   */
  constructor(
    readonly launch: AgentLaunch,
    private readonly onStderr?: (text: string) => void,
  ) {
    // detached: the agent leads its own process group, so kill() reaches every tool it spawned.
    this.child = spawn(launch.command, [...launch.args], {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    this.exited = new Promise<AgentExit>((resolve) => {
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) {
          this.exit = { exitCode: null, signal: null, spawnError: err };
          resolve(this.exit);
        }
      });
      this.child.once('exit', (exitCode, signal) => {
        this.exit = { exitCode, signal };
        resolve(this.exit);
      });
    });
    // Writes after the agent died raise EPIPE on stdin; the exit path reports the real cause.
    this.child.stdin?.on('error', () => {});
    const decoder = new StringDecoder('utf8');
    this.child.stderr?.on('data', (d: Buffer) => {
      const text = decoder.write(d);
      this.stderr.push(text);
      this.onStderr?.(text);
    });
    this.stream = ndJsonStdio(this.child.stdin!, this.child.stdout!, { maxMessageBytes: launch.maxMessageBytes ?? 64 * 1024 * 1024 });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** Last lines of stderr. */
  stderrTail(n = 20): string[] {
    return this.stderr.tail(n);
  }

  /** A {@link LaunchFailure} describing how the process ended (or that it timed out). */
  failure(phase: LaunchFailure['phase'], extra: Partial<LaunchFailure> = {}): LaunchFailure {
    return {
      phase,
      command: this.launch.command,
      args: this.launch.args,
      pathUsed: this.launch.env.PATH,
      errno: this.exit?.spawnError?.code,
      exitCode: this.exit?.exitCode,
      signal: this.exit?.signal,
      stderrTail: this.stderrTail(),
      ...extra,
    };
  }

  /**
   * Ends the whole process group: SIGTERM, then SIGKILL after `graceMs` if anything is left.
   * Resolves when the agent process itself has exited. Safe to call more than once.
   */
  async kill(graceMs = 2000): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    const started = Date.now();
    await this.exited;
    // The leader is gone; what it started may still be finishing its writes (an agent's CLI saving
    // the session transcript). It gets the rest of the grace period, then the group is killed:
    // grandchildren that ignored SIGTERM outlive the leader, and the group id still reaches them.
    while (groupAlive(pid) && Date.now() - started < graceMs) await new Promise((r) => setTimeout(r, 25));
    clearTimeout(timer);
    signalGroup(pid, 'SIGKILL');
  }
}

/**
 * True while a process of the group `pid` still runs. On Linux zombies do not count (an orphan
 * waits for PID 1 to reap it, which takes a while on some machines); elsewhere any member does.
 */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      } catch {
        continue;
      }
      // Fields after the command (which may hold spaces): state, ppid, pgrp, ...
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pid && rest[0] !== 'Z') return true;
    }
    return false;
  } catch {
    return true;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

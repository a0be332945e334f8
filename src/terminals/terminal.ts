/**
 * One client-hosted terminal: a process group, its bounded output and its exit status
 * (ACP v1 "Terminals"). `TerminalManager` owns these; nothing else should create them.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { Emitter, type IDisposable } from '../common/lifecycle';
import { describeSpawnError, type SpawnPlan } from './command';
import { OutputBuffer } from './outputBuffer';
import { terminateProcessGroup } from './processGroup';
import type { TerminalExitStatus, TerminalOutput, TerminalSnapshot } from './types';
import { completeUtf8Prefix, decodeUtf8 } from './utf8';
import { blockedHosts, heldBackCount } from '../sandbox/profile';

/** Resolved timing knobs of a terminal, in milliseconds. */
export interface TerminalTimings {
  killGraceMs: number;
  changeThrottleMs: number;
  exitDrainMs: number;
}

/**
 * A running (or finished) command with merged, bounded output.
 *
 * Output stays bytes on its way into the bounded buffer (no decoding and re-encoding of every
 * chunk: PF4 in bench/session.ts). Each stream holds back the bytes of a character a chunk ends
 * in the middle of until the rest arrives, so stdout and stderr merge on character boundaries and
 * a multibyte character is never torn; the buffer then only ever has to cut at its own front.
 * Text is decoded when it is read, and for `onData` listeners only while there are any.
 */
export class ManagedTerminal {
  private readonly buffer: OutputBuffer;
  private readonly data = new Emitter<string>();
  private child: ChildProcess | undefined;
  private pid: number | undefined;
  private status: TerminalExitStatus | undefined;
  private resolveExited!: (status: TerminalExitStatus) => void;
  private readonly exited = new Promise<TerminalExitStatus>((resolve) => (this.resolveExited = resolve));
  private drainTimer: NodeJS.Timeout | undefined;
  private changeTimer: NodeJS.Timeout | undefined;
  private lastChangeAt = Number.NEGATIVE_INFINITY;
  private killing: Promise<void> | undefined;
  private releasing = false;
  private released = false;
  private blocked: string[] | undefined;
  /** A sandboxed command's changes its overlay held back, once it has exited. */
  private heldBack: number | undefined;

  /**
   * @param id - The `terminalId` handed to the agent.
   * @param plan - Validated spawn plan (see `planSpawn`).
   * @param timings - Kill grace, change throttle and exit drain, in milliseconds.
   * @param notify - Receives throttled snapshots; must not throw (the manager isolates listeners).
   */
  constructor(
    readonly id: string,
    private readonly plan: SpawnPlan,
    private readonly timings: TerminalTimings,
    private readonly notify: (snapshot: TerminalSnapshot) => void,
  ) {
    this.buffer = new OutputBuffer(plan.outputByteLimit);
  }

  /**
   * Spawns the process as leader of a new process group.
   *
   * @returns A promise that settles once the spawn outcome is known; it never rejects. On a
   *   spawn failure the terminal holds a `spawn error: …` line and an exit status instead.
   */
  start(): Promise<void> {
    const { plan } = this;
    if (plan.refusal !== undefined) {
      this.ingest(Buffer.from(plan.refusal, 'utf8'));
      this.finishExit({ exitCode: 126, signal: null });
      return Promise.resolve();
    }
    let child: ChildProcess;
    try {
      child = spawn(plan.file, plan.args, {
        cwd: plan.cwd,
        env: plan.env,
        // Own process group (setsid), so kill can reach grandchildren; Windows uses taskkill /T instead.
        detached: process.platform !== 'win32',
        // No stdin: agents cannot type into the terminal, and a prompt must see EOF rather than hang.
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        windowsVerbatimArguments: plan.viaShell && process.platform === 'win32',
      });
    } catch (err) {
      this.failSpawn(err);
      return Promise.resolve();
    }
    this.child = child;
    this.pid = child.pid;
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      // The start of a character the last chunk ended in (at most three bytes).
      let held: Buffer | undefined;
      stream.on('data', (chunk: Buffer) => {
        const bytes = held ? Buffer.concat([held, chunk]) : chunk;
        const cut = completeUtf8Prefix(bytes);
        held = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : undefined;
        this.ingest(bytes.subarray(0, cut));
      });
      stream.on('end', () => {
        // A character that never completed: the reader's decoder shows it as U+FFFD.
        if (held) this.ingest(held);
        held = undefined;
      });
      stream.on('error', () => undefined); // A broken pipe ends output; it must not crash the host.
    }
    child.on('exit', (exitCode, signal) => {
      // Give the pipes a moment to deliver the last bytes, but do not let a background
      // grandchild that inherited them hold the exit status hostage.
      const status = { exitCode, signal };
      this.drainTimer = setTimeout(() => this.finishExit(status), this.timings.exitDrainMs);
    });
    child.on('close', (exitCode, signal) => {
      if (this.pid !== undefined) this.finishExit({ exitCode, signal });
    });
    return new Promise((resolve) => {
      child.once('spawn', () => {
        this.emitChangeNow();
        resolve();
      });
      child.on('error', (err) => {
        // Before 'spawn' this is a launch failure; afterwards it can only come from signalling,
        // which we do via process.kill, so there is nothing more to report.
        if (this.pid === undefined) this.failSpawn(err);
        resolve();
      });
    });
  }

  /** Display form of the command. */
  get commandLine(): string {
    return this.plan.commandLine;
  }

  /** Absolute working directory of the process. */
  get cwd(): string {
    return this.plan.cwd;
  }

  /** `terminal/output`: retained output, truncation flag and exit status once exited. */
  output(): TerminalOutput {
    const { text, truncated } = this.buffer.read();
    const out: TerminalOutput = { output: text, truncated };
    if (this.status) out.exitStatus = { ...this.status };
    return out;
  }

  /** Current state for UIs. */
  snapshot(): TerminalSnapshot {
    return { terminalId: this.id, commandLine: this.commandLine, cwd: this.cwd, pid: this.pid, released: this.released, ...this.output(), ...(this.blocked ? { sandboxBlocked: [...this.blocked] } : {}), ...(this.heldBack !== undefined ? { sandboxHeldBack: this.heldBack } : {}) };
  }

  /**
   * `terminal/wait_for_exit`: resolves with the exit status once the process has exited.
   *
   * @param signal - Aborting rejects the returned promise with `signal.reason`; the process is
   *   not affected.
   */
  waitForExit(signal?: AbortSignal): Promise<TerminalExitStatus> {
    if (this.status) return Promise.resolve({ ...this.status });
    if (!signal) return this.exited.then((s) => ({ ...s }));
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.exited.then((s) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ ...s });
      });
    });
  }

  /**
   * Subscribes to raw output text as it arrives (stdout and stderr merged, whole characters).
   * Only new output is delivered; read `output()` first for what came before.
   */
  onData(listener: (text: string) => void): IDisposable {
    return this.data.event(listener);
  }

  /**
   * `terminal/kill`: terminates the whole process group (SIGTERM, SIGKILL after the grace).
   *
   * @returns A promise that resolves once the group is gone and the exit status is recorded
   *   (or, if something survived SIGKILL, after the bounded wait). Concurrent calls share it.
   */
  kill(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return Promise.resolve(); // Never started, so nothing to kill.
    this.killing ??= terminateProcessGroup(pid, { graceMs: this.timings.killGraceMs })
      .then(async (gone) => {
        if (gone) await this.exited;
      })
      .finally(() => (this.killing = undefined));
    return this.killing;
  }

  /**
   * `terminal/release`: kills the group, emits one last snapshot (with `released: true`) and
   * frees the output buffer and listeners.
   */
  async release(): Promise<void> {
    if (this.releasing) return this.kill();
    this.releasing = true;
    clearTimeout(this.changeTimer);
    await this.kill();
    this.released = true;
    this.notify(this.snapshot());
    this.buffer.clear();
    this.data.dispose();
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
  }

  /** Takes whole characters of one stream (see the class comment) or a message of ours. */
  private ingest(bytes: Uint8Array): void {
    if (!bytes.length || this.released) return;
    this.buffer.append(bytes);
    if (this.data.hasListeners) this.data.fire(decodeUtf8(bytes));
    this.scheduleChange();
  }

  private failSpawn(err: unknown): void {
    const { message, exitStatus } = describeSpawnError(err, this.plan);
    this.ingest(Buffer.from(message, 'utf8'));
    this.finishExit(exitStatus);
  }

  private finishExit(status: TerminalExitStatus): void {
    if (this.status) return;
    clearTimeout(this.drainTimer);
    this.appendSandboxRefusals();
    this.status = { exitCode: status.exitCode, signal: status.signal };
    this.resolveExited(this.status);
    if (!this.releasing) this.emitChangeNow(); // The final event: never throttled away.
  }

  /** A sandboxed command's refusals (hosts it could not reach), as lines of its output, before its exit status. */
  private appendSandboxRefusals(): void {
    if (!this.plan.finishSandbox) return;
    let lines = '';
    try {
      lines = this.plan.finishSandbox();
    } catch {
      lines = '';
    }
    this.heldBack = heldBackCount(lines);
    if (lines) this.ingest(Buffer.from(`\n[sandbox] ${lines.split('\n').join('\n[sandbox] ')}\n`, 'utf8'));
    const hosts = blockedHosts(lines);
    if (hosts.length) this.blocked = hosts;
  }

  /** Emits at once if the last event is older than the throttle, else once at the end of it. */
  private scheduleChange(): void {
    if (this.releasing || this.changeTimer) return;
    const wait = this.lastChangeAt + this.timings.changeThrottleMs - Date.now();
    if (wait <= 0) {
      this.emitChangeNow();
      return;
    }
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      this.emitChangeNow();
    }, wait);
  }

  private emitChangeNow(): void {
    clearTimeout(this.changeTimer);
    this.changeTimer = undefined;
    this.lastChangeAt = Date.now();
    this.notify(this.snapshot());
  }
}

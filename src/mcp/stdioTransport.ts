/**
 * A stdio transport for MCP servers that runs each server in its own process group, so stopping
 * a server also ends what it started (`npx` → `node`, a Python server's workers): the SDK's
 * `StdioClientTransport` signals only its direct child, which can leave the real server orphaned.
 * Messages are the SDK's (`parseJSONRPCMessage`, `serializeMessage`); the group handling is the
 * one our terminals use (`terminateProcessGroup`: SIGTERM, grace, SIGKILL; `taskkill /T` on Windows).
 * Lines are framed by `LineFramer`, as the ACP agents' are, not by the SDK's `ReadBuffer`, which
 * concatenates all it holds with every chunk: a 30 MB tool result took 3.3–5.1 s of the extension
 * host's thread (`mcpStdioLargeResult` in `npm run bench`). What a line holds is read as the
 * `ReadBuffer` reads it: a line that is not JSON is skipped, JSON that is not a JSON-RPC message is
 * an error (`onerror`) and the next line is read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { mcpSdk } from './sdk';
import { terminateProcessGroup } from '../terminals/processGroup';
import { LineFramer } from '../common/lines';
import type { SandboxProfile } from '../sandbox/profile';

/** How to start a stdio server. `env` is the complete environment. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /**
   * Set on a launch wrapped in the sandbox: called once when its process has ended, so the sandbox
   * lets go of what it keeps for it (its hosts' registration, the placeholders it mounted over
   * read-only names, which otherwise stay in the folder for every later command). Returns the
   * sandbox's refusals as lines.
   */
  finishSandbox?: () => string;
  /** Set on a launch wrapped in the sandbox: the profile it runs in (its trace says so). */
  sandbox?: SandboxProfile;
}

/** MCP over the stdin/stdout of a child process that leads its own process group. */
export class GroupStdioTransport implements Transport {
  private proc: ChildProcess | undefined;
  /** The largest message a server may send (a tool result), in bytes; beyond, the connection ends. */
  static readonly MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
  /** Lines of the server's output; a line buffer past 1 MiB is let go once its line is read (a server rarely repeats a large result the way an agent's growing tool output does). */
  private readonly lines = new LineFramer(GroupStdioTransport.MAX_MESSAGE_BYTES, 1024 * 1024);
  private closed = false;
  /** How the server's process ended, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly launch: StdioLaunch,
    private readonly onStderr: (chunk: Buffer) => void,
    private readonly graceMs = 2000,
    /**
     * Turns the launch into the one actually started (issue 21: the same server inside a sandbox).
     * Throwing means the server is not started at all: never an unsandboxed start instead.
     */
    private readonly prepare?: (launch: StdioLaunch) => Promise<StdioLaunch>,
  ) {}

  /** The server's process id (also its process-group id on POSIX). */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /**
   * The server's stderr. With {@link pid} it marks this transport as stdio-shaped for the SDK's
   * version negotiation: a server silent on the `server/discover` probe is then a 2025-era server,
   * not an outage.
   */
  get stderr(): Readable | null {
    return this.proc?.stderr ?? null;
  }

  /** Spawns the server. @throws Error when it cannot be started (e.g. the command does not exist). */
  async start(): Promise<void> {
    const launch = this.prepare ? await this.prepare(this.launch) : this.launch;
    return new Promise((resolve, reject) => {
      const proc = spawn(launch.command, launch.args, {
        env: launch.env,
        cwd: launch.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.proc = proc;
      proc.once('error', (err) => {
        // Not started (no 'close' may follow): the sandbox's state for it goes now.
        if (proc.pid === undefined) this.finishSandbox(launch);
        reject(err);
        this.onerror?.(err);
      });
      proc.once('spawn', () => resolve());
      proc.stdout!.on('data', (chunk: Buffer) => {
        if (!this.lines.push(chunk, (line) => this.read(line))) {
          // A message over the limit: the stream cannot be resynchronised, so the server is ended.
          this.onerror?.(new Error(`The server sent a message larger than ${GroupStdioTransport.MAX_MESSAGE_BYTES / 1024 / 1024} MB; it was stopped.`));
          void this.close();
        }
      });
      proc.stderr!.on('data', (chunk: Buffer) => this.onStderr(chunk));
      proc.stdin!.on('error', (err) => this.onerror?.(err));
      proc.once('exit', (code, signal) => (this.exit = { code, signal }));
      proc.once('close', () => {
        // The leader is gone; anything it left in its group goes with it.
        if (proc.pid && proc.pid > 1) void terminateProcessGroup(proc.pid, { graceMs: this.graceMs }).catch(() => undefined);
        this.finishSandbox(launch);
        this.finish();
      });
    });
  }

  /** One line from the server, handed on as a message when it is one (see the file's comment). */
  private read(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = mcpSdk().parseJSONRPCMessage(value);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (err) {
      // The lines after it in the same chunk are still read.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.proc?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('The MCP server is not running.'));
      if (stdin.write(mcpSdk().serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Asks the whole process group to stop at once (SIGTERM), for when there is no time to wait. */
  killNow(): void {
    const pid = this.proc?.pid;
    if (!pid || pid <= 1 || this.proc?.exitCode !== null) return;
    try {
      process.kill(process.platform === 'win32' ? pid : -pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }

  /** Closes stdin and ends the server's whole process group. */
  async close(): Promise<void> {
    const proc = this.proc;
    if (!proc || this.closed) return this.finish();
    proc.stdin?.end();
    if (proc.pid && proc.pid > 1 && proc.exitCode === null) await terminateProcessGroup(proc.pid, { graceMs: this.graceMs }).catch(() => undefined);
    this.finish();
  }

  private finishSandbox(launch: StdioLaunch): void {
    const lines = (() => {
      try {
        return launch.finishSandbox?.() ?? '';
      } catch {
        return '';
      }
    })();
    if (lines) this.onStderr(Buffer.from(`${lines.split('\n').map((l) => `[sandbox] ${l}`).join('\n')}\n`, 'utf8'));
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.lines.stop();
    this.onclose?.();
  }
}

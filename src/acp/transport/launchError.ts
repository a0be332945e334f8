/**
 * Launch and exit failures of an agent process, with what a person needs to fix them: the command
 * line, the PATH used, the exit code or signal, and the last lines of stderr.
 * Pure; no `vscode`.
 */
import type { AgentErrorView } from '../session/types';

/** Keeps the last `maxLines` lines (and at most `maxBytes` characters) of a stream such as stderr. */
export class LineRing {
  private lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 40,
    private readonly maxLineLength = 2000,
  ) {}

  /** Feeds decoded text; lines are split on `\n` and `\r\n`, and overlong lines are cut. */
  push(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(-this.maxLineLength);
    for (const line of parts) {
      this.lines.push(line.length > this.maxLineLength ? line.slice(0, this.maxLineLength) + ' …' : line);
    }
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  /** The last `n` lines, including an unterminated final line. */
  tail(n = this.maxLines): string[] {
    const all = this.partial ? [...this.lines, this.partial] : [...this.lines];
    return all.slice(-n);
  }
}

/** Quotes one argument for display in a POSIX shell command line. */
export function quoteArg(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command line as a person would type it. */
export function formatCommandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(quoteArg).join(' ');
}

/** What ended or prevented an agent process. */
export interface LaunchFailure {
  /** `spawn` = the process could not be started; `exit` = it ended; `timeout` = `initialize` never answered. */
  phase: 'spawn' | 'exit' | 'timeout';
  command: string;
  args: readonly string[];
  pathUsed: string | undefined;
  /** Node's error code for spawn failures (`ENOENT`, `EACCES`). */
  errno?: string;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail: string[];
  /** Seconds waited, for timeouts. */
  timeoutSeconds?: number;
  /** True when the process ended after the session was established. */
  afterStart?: boolean;
}

/**
 * Builds the error shown in the sidebar from a {@link LaunchFailure}. The message is one sentence
 * that says what happened and what to try.
 */
export function formatLaunchError(f: LaunchFailure, agentName: string): AgentErrorView {
  const commandLine = formatCommandLine(f.command, f.args);
  let message: string;
  switch (f.phase) {
    case 'spawn':
      message =
        f.errno === 'ENOENT'
          ? `Could not start ${agentName}: "${f.command}" was not found. Install it or set its full path in agentSwitchboard.agents.`
          : f.errno === 'EACCES'
            ? `Could not start ${agentName}: "${f.command}" is not executable (EACCES).`
            : `Could not start ${agentName}: ${f.errno ?? 'spawn failed'}.`;
      break;
    case 'timeout':
      message = `${agentName} did not answer "initialize" within ${f.timeoutSeconds} s. Is "${commandLine}" an ACP agent? (agentSwitchboard.initializeTimeoutSeconds)`;
      break;
    case 'exit': {
      const how = f.signal ? `was killed by ${f.signal}` : `exited with code ${f.exitCode}`;
      message = f.afterStart ? `${agentName} ${how} during the session.` : `${agentName} ${how} before it was ready.`;
      break;
    }
  }
  return {
    message,
    commandLine,
    pathUsed: f.pathUsed ?? '(unset)',
    exitCode: f.exitCode,
    signal: f.signal,
    stderrTail: f.stderrTail,
  };
}

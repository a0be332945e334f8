/**
 * Programs an agent runs its own work with, which must be on the machine for that work to succeed,
 * and which the agent itself does not report clearly when they are missing. Keyed on the agent's
 * `agentInfo.name` from `initialize` (ACP `Implementation`) and the platform, so every other agent
 * is untouched. Pure except for the default executable check (a `stat`, no process is started).
 *
 * codex-acp (Linux): Codex runs every shell command of its own inside bubblewrap. When `bwrap` is
 * not on the agent's PATH its sandbox launcher panics ("bubblewrap is unavailable: no system bwrap
 * was found on PATH and no bundled codex-resources/bwrap binary was found next to the Codex
 * executable") and the command fails with exit code 101 and no output (codex-acp 0.16.0, seen in
 * test/acp/realCodex.test.ts); the person sees only a failed tool card. It fails often, not
 * always: some runs still found bwrap (probably through the PATH of Codex's own login-shell
 * environment, which this machine's /etc/profile sets).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** One program an agent needs, and what to tell the person when it is not there. */
export interface AgentPrerequisite {
  /** `agentInfo.name` as the agent reports it at `initialize`. */
  agentName: string;
  /** The platforms where the agent needs it. */
  platforms: readonly NodeJS.Platform[];
  /** The executable looked for on the agent's PATH. */
  command: string;
  /** The warning shown in the session when it is missing: what fails, and how to fix it. */
  missing: string;
}

/** The known prerequisites (a table, so a new one is a row and a test, not a branch). */
export const AGENT_PREREQUISITES: readonly AgentPrerequisite[] = [
  {
    agentName: 'codex-acp',
    platforms: ['linux'],
    command: 'bwrap',
    missing:
      'Codex runs its shell commands inside bubblewrap, and `bwrap` is not on the PATH this agent was started with: its commands may fail with exit code 101 and no output ("bubblewrap is unavailable"). Install bubblewrap (Debian and Ubuntu: `apt install bubblewrap`), or put it on the agent\'s PATH, then start a new session.',
  },
];

/** True when `file` is an executable regular file (or a link to one). */
function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The warnings for an agent that lacks a program it needs.
 * @param agentName `agentInfo.name` from `initialize` (undefined when the agent sent none: no warning)
 * @param platform the platform the agent runs on
 * @param pathValue the PATH the agent process was started with (colon- or semicolon-separated by platform)
 * @param exists the executable check, for tests
 * @returns one sentence per missing program, in table order; empty when nothing is missing.
 */
export function missingPrerequisites(
  agentName: string | undefined,
  platform: NodeJS.Platform,
  pathValue: string | undefined,
  exists: (file: string) => boolean = isExecutable,
): string[] {
  if (!agentName) return [];
  const dirs = (pathValue ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d && path.isAbsolute(d));
  return AGENT_PREREQUISITES.filter((p) => p.agentName === agentName && p.platforms.includes(platform))
    .filter((p) => !dirs.some((d) => exists(path.join(d, p.command))))
    .map((p) => p.missing);
}

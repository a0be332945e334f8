/**
 * Shared helpers for the terminals tests: an independent view of the process table (via `ps`,
 * not the /proc scan the implementation uses) and small waiting utilities.
 */

import { execFileSync } from 'node:child_process';
import type { TerminalCreateContext } from '../../../src/terminals/types';

export interface PsRow {
  pid: number;
  pgid: number;
  stat: string;
  cmd: string;
}

/** Every process in the table; zombies included, flagged by `stat` starting with Z. */
export function processTable(): PsRow[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), stat: m[3]!, cmd: m[4]! }));
}

/**
 * Live members of process group `pgid`. Zombies are excluded because this sandbox's init does
 * not reap orphans: a dead grandchild lingers as `<defunct>`, which is not a running process.
 */
export function liveGroupMembers(pgid: number): PsRow[] {
  return processTable().filter((r) => r.pgid === pgid && !r.stat.startsWith('Z'));
}

/** Polls `check` every 20 ms until it returns true or `timeoutMs` passes. */
export async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A context with a minimal, explicit environment so tests do not depend on the runner's. */
export function ctx(defaultCwd: string, extraEnv: Record<string, string> = {}): TerminalCreateContext {
  return { defaultCwd, baseEnv: { PATH: process.env.PATH, ...extraEnv }, shell: '/bin/sh' };
}

/** The session id tests pass through; the manager does not interpret it. */
export const SESSION = 'sess-test';

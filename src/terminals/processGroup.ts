/**
 * Killing a terminal's whole process tree (ACP v1 "Terminals" → `terminal/kill`,
 * `terminal/release`).
 *
 * Each terminal is spawned as the leader of its own process group (`detached: true` makes
 * libuv call `setsid()`), so one signal to `-pgid` reaches the shell, its children and any
 * background grandchildren. Killing only the direct child would orphan `cmd &` jobs and leave
 * dev servers or watchers running after the agent thinks they are gone.
 *
 * Limitation: a descendant that starts its own session (`setsid`, daemons) leaves the group and
 * is out of reach; that is the same contract a shell's job control gives.
 */

import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** How long to wait after SIGTERM before SIGKILL, in milliseconds. */
export const DEFAULT_KILL_GRACE_MS = 2000;

/** How long to wait for members to disappear after SIGKILL before giving up, in milliseconds. */
const AFTER_SIGKILL_WAIT_MS = 1000;

/** Interval between liveness checks while waiting, in milliseconds. */
const POLL_MS = 25;

/**
 * Sends `signal` to every process in group `pgid`.
 *
 * @param pgid - Process-group id (the leader's pid); must be > 1 so this never hits "all processes".
 * @returns True when the signal was delivered to at least one process; false when the group no
 *   longer exists or we may not signal it (ESRCH, EPERM).
 * @throws RangeError when `pgid` is not an integer > 1.
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  assertPgid(pgid);
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw err;
  }
}

/**
 * Tells whether group `pgid` still has a live (non-zombie) member.
 *
 * `kill(-pgid, 0)` alone is not enough: an orphaned grandchild that died stays a zombie in the
 * group until init reaps it, and some container inits never do. On Linux the zombies are
 * filtered out by reading `/proc`; elsewhere the signal probe is the answer.
 *
 * @param pgid - Process-group id, > 1.
 */
export async function isProcessGroupAlive(pgid: number): Promise<boolean> {
  assertPgid(pgid);
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  const members = await liveGroupMembersFromProc(pgid);
  return members === undefined ? true : members.length > 0;
}

/**
 * Lists the pids of live (non-zombie) processes in group `pgid` by scanning `/proc`.
 *
 * @returns The pids, or `undefined` when `/proc` cannot be read (not Linux, hardened mounts).
 */
export async function liveGroupMembersFromProc(pgid: number): Promise<number[] | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        let stat: string;
        try {
          stat = await readFile(`/proc/${name}/stat`, 'utf8');
        } catch {
          return; // The process exited between readdir and readFile.
        }
        // Format: "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(name));
      }),
  );
  return members;
}

/** Options for {@link terminateProcessGroup}. */
export interface TerminateOptions {
  /** Milliseconds between SIGTERM and SIGKILL; default {@link DEFAULT_KILL_GRACE_MS}. */
  graceMs?: number;
}

/**
 * Terminates every process in group `pgid`: SIGTERM, then SIGKILL after `graceMs` if anything
 * is still alive, then waits (bounded) for the group to empty.
 *
 * SIGTERM is sent synchronously before the first `await`, so even a caller that cannot wait
 * (extension host shutting down) has asked the processes to stop. On Windows, where process
 * groups do not exist, `taskkill /T /F` kills the tree instead.
 *
 * @param pgid - Process-group id (the leader's pid), > 1.
 * @returns True when the group is verifiably gone; false when members survived SIGKILL (for
 *   example stuck in uninterruptible I/O) within the bounded wait.
 * @throws RangeError when `pgid` is not an integer > 1.
 */
export async function terminateProcessGroup(pgid: number, options: TerminateOptions = {}): Promise<boolean> {
  assertPgid(pgid);
  if (process.platform === 'win32') return taskkillTree(pgid);
  const graceMs = options.graceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!signalProcessGroup(pgid, 'SIGTERM')) return true;
  if (await waitForGroupGone(pgid, graceMs)) return true;
  signalProcessGroup(pgid, 'SIGKILL');
  return waitForGroupGone(pgid, AFTER_SIGKILL_WAIT_MS);
}

/** Polls until group `pgid` has no live member or `timeoutMs` passes; returns true if gone. */
async function waitForGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await isProcessGroupAlive(pgid))) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
  }
}

/** Windows fallback: kills the tree rooted at `pid`. Untested in CI (the suite runs on POSIX). */
function taskkillTree(pid: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true }, () => resolve(true));
  });
}

function assertPgid(pgid: number): void {
  // -0 and -1 would mean "my own group" and "every process I may signal": never send those.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`invalid process group id: ${pgid}`);
}

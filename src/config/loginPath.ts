/**
 * The PATH of the person's login shell. An editor started from a desktop launcher (macOS Dock,
 * a Linux .desktop file) inherits a short PATH without the directories a terminal has (Homebrew,
 * nvm, ~/.local/bin), so `npx` or an agent found in a terminal is "not found" here. Like VS Code's
 * own shell environment resolution, we ask the login shell once (`$SHELL -i -l -c`) and look
 * agents up in both. No `vscode`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const MARK = '__AGENT_SWITCHBOARD_PATH__';

/**
 * Runs the login shell and reads its PATH. Resolves undefined (never rejects) when there is no
 * shell (Windows), it fails, prints nothing usable, or takes longer than `timeoutMs`.
 */
export function readLoginShellPath(shell = process.env.SHELL, timeoutMs = 5_000): Promise<string | undefined> {
  if (!shell || process.platform === 'win32') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    let child: ReturnType<typeof spawn>;
    try {
      // Interactive and login, as a terminal would start it; the marks cut away whatever rc files print.
      child = spawn(shell, ['-i', '-l', '-c', `printf '%s%s%s' '${MARK}' "$PATH" '${MARK}'`], { stdio: ['ignore', 'pipe', 'ignore'], detached: process.platform !== 'win32', env: { ...process.env, AGENT_SWITCHBOARD_RESOLVING_ENV: '1' } });
    } catch {
      return finish(undefined);
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      finish(undefined);
    }, timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.length > 1_000_000) child.kill('SIGKILL');
    });
    child.on('error', () => finish(undefined));
    child.on('close', () => {
      const m = new RegExp(`${MARK}(.*?)${MARK}`, 's').exec(out);
      finish(m && m[1].trim() ? m[1].trim() : undefined);
    });
  });
}

/**
 * `primary` followed by the directories of `extra` it lacks (order kept, duplicates dropped), so
 * what the editor already finds wins and the login shell only adds.
 */
export function mergePaths(primary: string | undefined, extra: string | undefined): string | undefined {
  if (!extra) return primary;
  const seen = new Set<string>();
  const dirs: string[] = [];
  for (const d of [...(primary ?? '').split(path.delimiter), ...extra.split(path.delimiter)]) {
    if (!d || seen.has(d)) continue;
    seen.add(d);
    dirs.push(d);
  }
  return dirs.join(path.delimiter);
}

/**
 * The PATH of the person's login shell. An editor started from a desktop launcher (macOS Dock,
 * a Linux .desktop file) inherits a short PATH without the directories a terminal has (Homebrew,
 * nvm, ~/.local/bin), so `npx` or an agent found in a terminal is "not found" here. Like VS Code's
 * own shell environment resolution, we ask the login shell once (`$SHELL -i -l -c`) and look
 * agents up in both. No `vscode`.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
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
      // fish keeps PATH as a list: "$PATH" would join it with spaces.
      const value = path.basename(shell) === 'fish' ? '(string join : $PATH)' : '"$PATH"';
      child = spawn(shell, ['-i', '-l', '-c', `printf '%s%s%s' '${MARK}' ${value} '${MARK}'`], { stdio: ['ignore', 'pipe', 'ignore'], detached: process.platform !== 'win32', cwd: os.homedir(), env: { ...process.env, AGENT_SWITCHBOARD_RESOLVING_ENV: '1' } });
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
    const stop = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    };
    const parse = () => {
      const m = new RegExp(`${MARK}(.*?)${MARK}`, 's').exec(out);
      const value = m?.[1].trim();
      // Only absolute directories: a shell that printed "$PATH" literally (nushell) gives nothing.
      return value && value.split(path.delimiter).every((d) => !d || path.isAbsolute(d)) ? value : undefined;
    };
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      // Done once the second mark is in: an rc file's background job may hold stdout open for long.
      if (out.indexOf(MARK) !== out.lastIndexOf(MARK)) {
        finish(parse());
        stop();
      } else if (out.length > 1_000_000) {
        finish(undefined);
        stop();
      }
    });
    child.on('error', () => finish(undefined));
    child.on('close', () => finish(parse()));
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

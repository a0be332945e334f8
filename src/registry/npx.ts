/**
 * Installing the `npx` distribution of a registry agent with npm, once, into the extension's
 * storage, instead of letting `npx` fetch it on every start. The launch then runs the installed
 * bin directly (with Node when it is a script), which is what `npx <package>` would run.
 *
 * Sources: https://github.com/agentclientprotocol/registry/blob/main/FORMAT.md (`npx <package>
 * [args]`, or `npx --package <package> <cmd> [args]` when `cmd` is set) and npm's rule for which
 * bin `npm exec` runs: https://docs.npmjs.com/cli/v10/commands/npm-exec ("If the package has a
 * single entry in its bin field, it will be used; otherwise the bin whose name matches the
 * unscoped package name"). Pure Node; no `vscode`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from './archive';
import { NPM_REGISTRY_SPEC, type NpxDistribution, type RegistryAgent } from './registry';
import { type AgentLaunch, agentInstallDir, cleanUp, InstallError, type InstalledAgent, makeStaging, messageOf, publish, readMarker } from './store';

/** What a finished npm run reports: its exit code (null when killed) and the tails of its output. */
export interface RunNpmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs npm with `args` in `cwd`; must stop npm (and what it started) when `signal` aborts. */
export type RunNpm = (args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal }) => Promise<RunNpmResult>;

/** Options for {@link installNpx}. */
export interface InstallNpxOptions {
  /** Runs npm; default {@link defaultRunNpm} (the `npm` on PATH). */
  runNpm?: RunNpm;
  /**
   * Installs this npm spec instead of the registry's `package` — a tarball path, a folder, a
   * mirror. Only callers can set it: a registry `package` must name a registry package, so a
   * registry can never point npm at a URL, path or git repository.
   */
  packageSpec?: string;
  /**
   * Pass `--ignore-scripts`. Default false, because `npx` runs install scripts too and some agents
   * depend on them: opencode-ai's `postinstall` puts the native binary in place of its `bin`.
   */
  ignoreScripts?: boolean;
  /**
   * How to run a bin that is a Node script. Default `{ command: process.execPath }`. Inside the
   * editor `process.execPath` is Electron, so pass `{ command: process.execPath, env: {
   * ELECTRON_RUN_AS_NODE: '1' } }` or a `node` found on PATH.
   */
  node?: { command: string; env?: Record<string, string> };
  /** Environment for npm; default `process.env` (proxy and registry settings come from there). */
  env?: NodeJS.ProcessEnv;
  /** Milliseconds npm may run. Default 600 000. */
  timeoutMs?: number;
  /** Cancels the install: npm is stopped and nothing is left behind. */
  signal?: AbortSignal;
}

/**
 * Runs the `npm` found on PATH (`npm.cmd` through the shell on Windows, as Node requires for
 * .cmd files), in its own process group on POSIX so an abort also stops install scripts.
 * Output is kept to the last 64 KB of each stream.
 */
export const defaultRunNpm: RunNpm = (args, { cwd, env, signal }) =>
  new Promise((resolve, reject) => {
    const win = process.platform === 'win32';
    const quoted = win ? args.map((a) => (/[\s"&|<>^()]/.test(a) ? `"${a.replace(/"/g, '""')}"` : a)) : args;
    const child = spawn(win ? 'npm.cmd' : 'npm', quoted, { cwd, env, shell: win, detached: !win, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-65_536)));
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-65_536)));
    const stop = () => {
      try {
        if (!win && child.pid) process.kill(-child.pid, 'SIGTERM');
        else child.kill();
      } catch {
        // Already gone.
      }
    };
    signal.addEventListener('abort', stop, { once: true });
    child.on('error', (err: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', stop);
      reject(err.code === 'ENOENT' ? new InstallError(`npm was not found on PATH (${env.PATH ?? 'unset'}); install Node.js with npm, or start the editor from a shell that finds npm.`) : err);
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', stop);
      resolve({ code, stdout, stderr });
    });
  });

/** `@scope/name@1.2.3` → `@scope/name`; `name` → `name`. */
function packageName(spec: string): string {
  return /^(@[^/@]+\/[^@]+|[^@]+)/.exec(spec)![1]!;
}

/**
 * Installs the `npx` distribution of `agent` into `<storageDir>/agents/<id>/<version>/` with
 * `npm install --prefix <staging> <package>` and returns how to run its bin. A finished install of
 * the same spec is reused. The registry's `package` is installed as given when it carries a
 * version, else pinned to `agent.version`, so the folder's name tells the truth.
 *
 * The bin is the one named by the registry's `cmd`, else npm exec's choice (the only bin, or the
 * one named like the unscoped package). A bin that is a Node script (`.js`/`.cjs`/`.mjs`, or a
 * `#!` line naming node) runs as `<node> <bin> ...args`; any other bin runs directly.
 *
 * @throws InstallError (naming the agent and spec) when the agent has no npx distribution, its
 *   `package` is not a registry package, npm is missing, fails (with the tail of its stderr) or
 *   times out, or the package has no matching bin. Nothing is left in `<storageDir>` then.
 */
export async function installNpx(agent: RegistryAgent, storageDir: string, opts: InstallNpxOptions = {}): Promise<InstalledAgent> {
  const dist = agent.distribution.npx;
  if (!dist) throw new InstallError(`${agent.name} has no npx distribution in the registry.`);
  let spec: string;
  if (opts.packageSpec !== undefined) spec = opts.packageSpec;
  else if (!NPM_REGISTRY_SPEC.test(dist.package)) throw new InstallError(`Refusing to install ${agent.name}: "${dist.package}" is not an npm registry package.`);
  else spec = dist.package.slice(1).includes('@') ? dist.package : `${dist.package}@${agent.version}`;
  const what = `${agent.name} ${agent.version} (npm ${spec})`;
  const finalDir = agentInstallDir(storageDir, agent.id, agent.version);
  const node = opts.node ?? { command: process.execPath };

  const marker = readMarker(finalDir);
  if (marker?.kind === 'npx' && marker.source === spec && fs.existsSync(path.join(finalDir, marker.entry))) {
    return { ...(await launchFor(finalDir, marker.entry, dist, node)), dir: finalDir, reused: true };
  }

  let staging: string | undefined;
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const timer = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
  try {
    staging = await makeStaging(finalDir);
    // Our own package.json makes the staging folder npm's project root, so npm never walks up
    // into some enclosing project; the odd name cannot collide with the package installed.
    await fs.promises.writeFile(path.join(staging, 'package.json'), `${JSON.stringify({ name: `agent-switchboard-install-${agent.id}`, version: '0.0.0', private: true }, null, 2)}\n`);
    const args = ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error', ...(opts.ignoreScripts ? ['--ignore-scripts'] : []), spec];
    const env = { ...(opts.env ?? process.env), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const result = await (opts.runNpm ?? defaultRunNpm)(args, { cwd: staging, env, signal });
    if (signal.aborted) throw new InstallError(timer.aborted ? `npm install ${spec} took longer than ${timeoutMs / 1000} s and was stopped.` : `Installing ${what} was cancelled.`);
    if (result.code !== 0) {
      const tail = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-15).join('\n');
      throw new InstallError(`npm install ${spec} failed (exit code ${result.code}) for ${agent.name} ${agent.version}:\n${tail}`);
    }
    const entry = await resolveBin(staging, opts.packageSpec === undefined ? packageName(spec) : undefined, dist.cmd, what);
    await publish(staging, finalDir, { kind: 'npx', id: agent.id, version: agent.version, source: spec, entry, installedAt: new Date().toISOString() });
    return { ...(await launchFor(finalDir, entry, dist, node)), dir: finalDir, reused: false };
  } catch (err) {
    await cleanUp(staging, finalDir);
    if (err instanceof InstallError) throw err;
    throw new InstallError(`Could not install ${what}: ${messageOf(err)}`, { cause: err });
  }
}

/**
 * The bin to run, relative to `root`: the package is `name`, or (for a caller's spec such as a
 * tarball) the one dependency npm recorded in `root/package.json`.
 */
async function resolveBin(root: string, name: string | undefined, cmd: string | undefined, what: string): Promise<string> {
  if (name === undefined) {
    const deps = Object.keys((JSON.parse(await fs.promises.readFile(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
    if (deps.length !== 1) throw new InstallError(`Cannot tell which package npm installed for ${what} (package.json lists ${deps.length} dependencies).`);
    name = deps[0]!;
  }
  const pkgDir = path.join(root, 'node_modules', name);
  let manifest: { name?: string; bin?: string | Record<string, string> };
  try {
    manifest = JSON.parse(await fs.promises.readFile(path.join(pkgDir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    throw new InstallError(`npm finished but ${name} is not in ${path.join(root, 'node_modules')} (${what}).`);
  }
  const unscoped = (manifest.name ?? name).replace(/^@[^/]+\//, '');
  const bins = typeof manifest.bin === 'string' ? { [unscoped]: manifest.bin } : (manifest.bin ?? {});
  const names = Object.keys(bins);
  const chosen = cmd ?? (names.length === 1 ? names[0] : unscoped);
  const rel = chosen !== undefined ? bins[chosen] : undefined;
  if (rel === undefined) {
    throw new InstallError(`${name} has no bin named "${chosen}" to run for ${what} (its bins: ${names.join(', ') || 'none'}).`);
  }
  const file = path.resolve(pkgDir, rel);
  if (!isInside(pkgDir, file) || !fs.existsSync(file)) throw new InstallError(`The bin "${chosen}" of ${name} (${rel}) is missing or outside the package (${what}).`);
  return path.relative(root, file);
}

/** The launch for the bin at `root/entry`: through Node when it is a Node script, directly otherwise. */
async function launchFor(root: string, entry: string, dist: NpxDistribution, node: { command: string; env?: Record<string, string> }): Promise<AgentLaunch> {
  const file = path.join(root, entry);
  if (await isNodeScript(file)) return { command: node.command, args: [file, ...dist.args], env: { ...node.env, ...dist.env } };
  return { command: file, args: [...dist.args], env: { ...dist.env } };
}

/** True for `.js`/`.cjs`/`.mjs` files and files whose `#!` line names node. */
async function isNodeScript(file: string): Promise<boolean> {
  if (/\.(c|m)?js$/i.test(file)) return true;
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0]!;
    return first.startsWith('#!') && /\bnode\b/.test(first);
  } finally {
    await handle.close();
  }
}

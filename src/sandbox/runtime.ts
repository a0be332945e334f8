/**
 * The sandbox on this machine (issue 21): `@anthropic-ai/sandbox-runtime` (bubblewrap + seccomp and
 * a filtering proxy on Linux, `sandbox-exec` on macOS), loaded on first use. It says whether the
 * sandbox can run here (and why not, in words a person can act on), and turns a spawn plan into the
 * same command wrapped in a profile. vscode-free; the library's `SandboxManager` is one per process,
 * so this is one per extension host.
 *
 * Network: the library's proxy is started with an empty allow list; a command's own hosts are
 * registered under an unguessable id for as long as it runs (`registerCommandNetworkLists`), so one
 * command's hosts are never another's. Its refusals are read back by that id when it exits.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as Srt from '../vendor/sandbox';
import type { SpawnPlan } from '../terminals/command';
import { HELD_BACK_LINE, protectionRoot, type SandboxProfile } from './profile';
import { asPersonInside, boundSockets, makeStage, overlayArgv, overlayLayersFor, removeOrphanStages, removeStage, type OverlayStage } from './overlay';
import { carryBack, type CarryBackReport } from './carryBack';
import { shellQuote } from './shellQuote';

export { shellQuote };

type Manager = typeof Srt.SandboxManager;

/**
 * Whether the sandbox can run here: yes (and whether it can hold back files that run, or why not),
 * or the reason it cannot (one sentence).
 */
export type SandboxAvailability = { available: true; holds: true } | { available: true; holds: false; holdsReason: string } | { available: false; reason: string };

/** A spawn plan wrapped in a profile, and what to do when its process exits. */
export interface WrappedPlan extends SpawnPlan {
  /** Called once when the process has exited: the sandbox's refusals for it as lines (`deny network-outbound host:port (…)`), and the host's registration ended. */
  finishSandbox: () => string;
}

/** Options of the sandbox on this machine. */
export interface SandboxRuntimeOptions {
  /** Absolute path of `bwrap` (`agentSwitchboard.sandboxBubblewrapPath`); undefined: `bwrap` on PATH. */
  bwrapPath?: string;
  log?: (message: string) => void;
}

/** Milliseconds the probe command may take before the sandbox is called unavailable. */
const PROBE_MS = 15_000;

/** The sandbox of this extension host. */
export class SandboxRuntime {
  private manager: Manager | undefined;
  private ready: Promise<SandboxAvailability> | undefined;
  private readyKey: string | undefined;
  private sandboxSets = new Set<string>(['SANDBOX_RUNTIME', 'TMPDIR']);
  private unsharePath: string | undefined;

  constructor(private readonly load: () => Manager = defaultLoad) {}

  /**
   * Whether commands can run sandboxed here, probed once per `bwrapPath` (platform, the library, its
   * dependencies — bubblewrap, socat, ripgrep —, and a real sandboxed `true` that must exit 0).
   * Never throws.
   */
  availability(options: SandboxRuntimeOptions = {}): Promise<SandboxAvailability> {
    const key = options.bwrapPath ?? '';
    if (!this.ready || this.readyKey !== key) {
      this.readyKey = key;
      this.ready = this.probe(options).catch((err: unknown) => ({ available: false as const, reason: oneLine(err) }));
    }
    return this.ready;
  }

  /**
   * The plan run inside `profile`: the same command, folder and environment, started through the
   * sandbox (a shell string stays one string; a program and its arguments are quoted into one).
   *
   * @throws Error when the sandbox is not available or the library cannot wrap the command; the
   *   caller must then not run the command at all.
   */
  async wrap(plan: SpawnPlan, profile: SandboxProfile, options: SandboxRuntimeOptions = {}): Promise<WrappedPlan> {
    const status = await this.availability(options);
    if (!status.available) throw new Error(`the sandbox is not available: ${status.reason}`);
    const m = this.manager!;
    const commandId = randomBytes(16).toString('base64url');
    // What runs outside the sandbox (a POSIX shell that starts bubblewrap) gets the extension host's
    // own environment only: nothing of the agent's request (`BASH_FUNC_*`, `LD_PRELOAD`, `BASH_ENV`,
    // a PATH naming the workspace) reaches a process that is not yet confined. The command's own
    // environment is applied inside, by `env`, and the words of a program run without a shell are
    // handed over as arguments, never read as shell syntax.
    const outer = outerEnv(process.env);
    const inside = Object.entries(plan.env).filter(([k, v]) => outer[k] !== v && !this.sandboxSets.has(k));
    const envWords = inside.length ? ['env', ...inside.map(([k, v]) => shellQuote(`${k}=${v}`))] : [];
    const run = plan.viaShell
      ? [...envWords, shellQuote(plan.file), '-c', shellQuote(plan.args[plan.args.length - 1])]
      : [...envWords, '/bin/sh', '-c', shellQuote('exec "$0" "$@"'), ...[plan.file, ...plan.args].map(shellQuote)];
    const inner = `exec ${run.join(' ')}`;
    // The library's own write protection is looked for in the session's folder that holds the
    // command (patched: see patches/, the library looks in the extension host's working folder
    // otherwise); the folders are compared with their links resolved, as the profile has them.
    const root = protectionRoot(realOr(plan.cwd), profile.writeRoots, realOr(os.tmpdir()));
    const { argv: bwrapArgv, env } = await m.wrapWithSandboxArgv(inner, '/bin/sh', configOf(profile), undefined, root, { commandId, commandText: plan.commandLine });
    if (!bwrapArgv.length) throw new Error('the sandbox returned no command to run');
    // A profile that holds back files that run is never run without its overlay: no stage, no command.
    let stage: OverlayStage | undefined;
    let argv = bwrapArgv;
    if (profile.holdsBackRunnable) {
      const asPerson = asPersonInside(bwrapArgv, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
      if (!asPerson || !this.unsharePath) throw new Error('the sandbox cannot hold back files that run here (the overlay is not available), and the approved profile does');
      stage = makeStage(stageBase(profile.writeRoots), overlayLayersFor(profile.writeRoots, realOr(os.tmpdir())));
      stage.sockets = boundSockets(asPerson, stage.layers.map((l) => l.root), isSocket);
      argv = overlayArgv(this.unsharePath, stage, asPerson);
    }
    if (profile.allowedHosts.length) m.registerCommandNetworkLists(commandId, { allowedDomains: profile.allowedHosts });
    let finished = false;
    const finishSandbox = (): string => {
      if (finished) return '';
      finished = true;
      m.unregisterCommandNetworkLists(commandId);
      // The placeholders bubblewrap made for read-only paths that did not exist go (once no other sandboxed command runs).
      m.cleanupAfterCommand();
      const held = stage ? carryBackLines(stage) : [];
      const block = m.annotateStderrWithSandboxFailures(commandId, '');
      return [...block.replace(/<\/?sandbox_violations>/g, '').split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 20), ...held].join('\n');
    };
    return { ...plan, file: argv[0], args: argv.slice(1), env: outerEnv(env), viaShell: false, finishSandbox };
  }

  /** Stops the library's proxies (window closing). */
  async dispose(): Promise<void> {
    const m = this.manager;
    this.manager = undefined;
    this.ready = undefined;
    await m?.reset().catch(() => undefined);
  }

  private async probe(options: SandboxRuntimeOptions): Promise<SandboxAvailability> {
    if (process.platform !== 'linux' && process.platform !== 'darwin') {
      return { available: false, reason: `sandboxed commands run on Linux and macOS; this is ${process.platform}` };
    }
    if (options.bwrapPath !== undefined && process.platform === 'linux' && !isExecutable(options.bwrapPath)) {
      return { available: false, reason: `bubblewrap was not found at ${options.bwrapPath} (agentSwitchboard.sandboxBubblewrapPath)` };
    }
    let m: Manager;
    try {
      m = this.manager ?? this.load();
    } catch (err) {
      return { available: false, reason: `the sandbox library could not be loaded (${oneLine(err)}); it needs Node.js 22.12 or later in the extension host` };
    }
    const deps = m.checkDependencies();
    if (deps.errors.length) {
      return { available: false, reason: `${deps.errors.join('; ')}${process.platform === 'linux' ? ' (on Debian or Ubuntu: apt-get install bubblewrap socat ripgrep)' : ''}` };
    }
    // bubblewrap by an absolute path found now, never by a PATH lookup in an agent's folder.
    const bwrapPath = process.platform === 'linux' ? (options.bwrapPath ?? findOnPath('bwrap')) : undefined;
    if (process.platform === 'linux' && !bwrapPath) return { available: false, reason: 'bubblewrap (bwrap) was not found on the PATH of the extension host (on Debian or Ubuntu: apt-get install bubblewrap socat ripgrep)' };
    if (this.manager) await m.reset().catch(() => undefined);
    await m.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      ...(bwrapPath ? { bwrapPath } : {}),
    });
    this.manager = m;
    // A real sandboxed command: user namespaces can be forbidden (a container, a hardened kernel) in
    // ways no dependency check sees.
    const { argv, env } = await m.wrapWithSandboxArgv('true', '/bin/sh', configOf({ writeRoots: [], denyRead: [], allowedHosts: [] }));
    // The variables the sandbox sets inside (its proxy, TMPDIR, …): a command's own do not replace them.
    this.sandboxSets = new Set(['SANDBOX_RUNTIME', 'TMPDIR', ...[...argv.join(' ').matchAll(/--setenv (\S+) /g)].map((x) => x[1])]);
    const result = await run(argv, outerEnv(env));
    m.cleanupAfterCommand();
    if (result.code !== 0) {
      return { available: false, reason: `a sandboxed test command failed (exit ${result.code ?? 'timeout'}): ${result.output.trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no output'}` };
    }
    const holds = process.platform === 'linux' ? await this.probeOverlay(m) : { holds: false as const, holdsReason: 'holding back files that run needs Linux\'s overlay file system' };
    options.log?.(`The sandbox is available (sandbox-runtime with bubblewrap)${holds.holds ? ', with an overlay that holds back files that run' : `; it cannot hold back files that run: ${holds.holdsReason}`}.`);
    return { available: true, ...holds };
  }

  /**
   * Whether a command can run in an overlay here (see `./overlay.ts`): `unshare` found by an
   * absolute path, user namespaces that may mount overlayfs, and a real sandboxed command whose
   * ordinary file is carried back and whose `x/.git/config` is held back.
   */
  private async probeOverlay(m: Manager): Promise<{ holds: true } | { holds: false; holdsReason: string }> {
    const unshare = findOnPath('unshare');
    if (!unshare) return { holds: false, holdsReason: 'unshare (util-linux) was not found on the PATH of the extension host' };
    const tmp = realOr(os.tmpdir());
    const root = fs.mkdtempSync(path.join(tmp, 'agent-switchboard-probe-'));
    try {
      const profile = { writeRoots: [root, tmp], denyRead: [], allowedHosts: [] };
      const { argv, env } = await m.wrapWithSandboxArgv('mkdir -p x/.git && echo probe > x/.git/config && echo probe > plain', '/bin/sh', configOf(profile), undefined, root);
      const asPerson = asPersonInside(argv, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
      if (!asPerson) return { holds: false, holdsReason: 'the sandbox library\'s bubblewrap command does not have the shape the overlay needs' };
      const base = stageBase(profile.writeRoots);
      removeOrphanStages(base);
      const stage = makeStage(base, [root]);
      try {
        const result = await run(overlayArgv(unshare, stage, asPerson), outerEnv(env), root);
        m.cleanupAfterCommand();
        if (result.code !== 0) return { holds: false, holdsReason: `a command in an overlay failed (exit ${result.code ?? 'timeout'}): ${result.output.trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no output'}` };
        const report = carryBack(stage);
        const ok = fs.existsSync(path.join(root, 'plain')) && !fs.existsSync(path.join(root, 'x', '.git')) && report.held.length === 1;
        if (!ok) return { holds: false, holdsReason: 'a command in an overlay did not carry back as it should' };
        this.unsharePath = unshare;
        return { holds: true };
      } finally {
        removeStage(stage);
      }
    } catch (err) {
      return { holds: false, holdsReason: oneLine(err) };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
}

/**
 * The folder the stages of commands are made in: one no sandboxed command can write (outside every
 * write root, the temp folder included; a command that could write another's stage could add to
 * what that one carries back).
 * @throws Error when there is none.
 */
export function stageBase(writeRoots: readonly string[]): string {
  const uid = process.getuid?.() ?? 0;
  const candidates = [path.join(os.homedir(), '.cache', 'agent-switchboard', 'sandbox-stage'), ...(process.env.XDG_RUNTIME_DIR && path.isAbsolute(process.env.XDG_RUNTIME_DIR) ? [path.join(process.env.XDG_RUNTIME_DIR, 'agent-switchboard-stage')] : []), `/var/tmp/agent-switchboard-stage-${uid}`];
  const fits = candidates.find((c) => !writeRoots.some((r) => isWithinOrSame(r, c) || isWithinOrSame(c, r)));
  if (!fits) throw new Error('no folder outside the write roots to stage a sandboxed command in');
  return fits;
}

/** Carries a finished command's changes back and says, a line each, what was held back or left. */
function carryBackLines(stage: OverlayStage): string[] {
  let report: CarryBackReport;
  try {
    report = carryBack(stage);
  } catch (err) {
    return [`nothing it wrote in the session's folders was applied: ${oneLine(err)}`];
  } finally {
    removeStage(stage);
  }
  return [
    ...report.held.map((h) => `${HELD_BACK_LINE}${printable(h.path)} (${printable(h.why)})`),
    ...report.conflicts.map((c) => `not applied: ${printable(c.path)} (${printable(c.why)})`),
  ];
}

/** A name the command chose, on one line of the output: line breaks and other control characters escaped (a name cannot add a line of its own). */
function printable(text: string): string {
  return /[\u0000-\u001f\u007f\u2028\u2029]/.test(text) ? JSON.stringify(text) : text;
}

function isWithinOrSame(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The library's configuration for one command of `profile`: paths as literal names (a folder called `*` is not a pattern). */
function configOf(profile: SandboxProfile) {
  const lit = (p: string) => ({ path: p, literal: true as const });
  return { filesystem: { denyRead: profile.denyRead.map(lit), allowWrite: profile.writeRoots.map(lit), denyWrite: (profile.denyWrite ?? []).map(lit) } };
}

/** `p` with its links resolved, or as it is when that fails (a folder not there yet). */
export function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** The environment of the process started outside the sandbox: the library's (the extension host's own), strings only. */
function outerEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** An absolute executable `name` on the extension host's PATH, skipping relative entries; undefined when none. */
function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return fs.realpathSync(file);
  }
  return undefined;
}

function defaultLoad(): Manager {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see src/vendor/sandbox.ts)
  return (require('../vendor/sandbox') as typeof Srt).SandboxManager;
}


function isSocket(p: string): boolean {
  try {
    return fs.statSync(p).isSocket();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function run(argv: string[], env: Record<string, string>, cwd?: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...(cwd ? { cwd } : {}) });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      resolve({ code: null, output });
    }, PROBE_MS);
    child.stdout?.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, output: String(err) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);
}

/**
 * sandboxCommand (issue 21; issue 22 step 6): a command's start to its first output through the
 * client terminal (`TerminalManager.create` → first `onData`), run in the sandbox
 * (`@anthropic-ai/sandbox-runtime`, bubblewrap on Linux) ÷ the same command unsandboxed, paired
 * back to back, median of 15 pairs. Goal ≤ 1.5 (informative: the sandbox's own start — a user, pid,
 * mount and network namespace, the proxy bridge and seccomp — is a fixed cost per command). Reports
 * the reason instead where the sandbox cannot run here. `wrapMs` is the library's preparation of a
 * command; `wrapMsHostAtRoot` the same with the extension host's working folder at `/`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TerminalManager } from '../src/terminals';
import { SandboxRuntime, shellQuote } from '../src/sandbox/runtime';
import { buildProfile } from '../src/sandbox/profile';
import type { SpawnPlan } from '../src/terminals/command';

/** The median of `xs` (the upper one of an even count). */
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function firstOutputMs(m: TerminalManager, cwd: string, command: string, wrap?: (p: SpawnPlan) => Promise<SpawnPlan>): Promise<number> {
  return (await commandMs(m, cwd, command, wrap)).first;
}

/** A command's start to its first output, and to its exit status (after the sandbox carried its changes back). */
async function commandMs(m: TerminalManager, cwd: string, command: string, wrap?: (p: SpawnPlan) => Promise<SpawnPlan>): Promise<{ first: number; exit: number }> {
  const t0 = performance.now();
  const id = await m.create({ sessionId: 'bench', command }, { defaultCwd: cwd, baseEnv: process.env, ...(wrap ? { wrap } : {}) });
  await new Promise<void>((resolve) => {
    if (m.output(id).output.length) return resolve();
    const sub = m.onData(id, () => (sub.dispose(), resolve()));
  });
  const first = performance.now() - t0;
  await m.waitForExit(id);
  const exit = performance.now() - t0;
  await m.release(id);
  return { first, exit };
}

/**
 * The overlay that holds back files that run (`heldBack`): the same command to its exit status
 * (which waits for the changes to be carried back), sandboxed with the overlay ÷ unsandboxed, and
 * sandboxed with the overlay ÷ sandboxed without it, paired, median of 15; for a command that only
 * prints, and for one that writes 50 files (one of them a `.git/config`, held back).
 */
async function heldBackCost(m: TerminalManager, dir: string, direct: (p: SpawnPlan) => Promise<SpawnPlan>, held: (p: SpawnPlan) => Promise<SpawnPlan>): Promise<Record<string, unknown>> {
  const one = async (command: string) => {
    const reset = () => fs.rmSync(path.join(dir, 'out'), { recursive: true, force: true });
    const ms = async (wrap?: (p: SpawnPlan) => Promise<SpawnPlan>) => (reset(), (await commandMs(m, dir, command, wrap)).exit);
    await ms();
    await ms(held);
    const xs = { plain: [] as number[], direct: [] as number[], held: [] as number[] };
    for (let i = 0; i < 15; i++) {
      xs.plain.push(await ms());
      xs.direct.push(await ms(direct));
      xs.held.push(await ms(held));
    }
    const ratio = (a: number[], b: number[]) => Number(med(a.map((x, i) => x / b[i])).toFixed(2));
    return { ratio: ratio(xs.held, xs.plain), toSandboxWithout: ratio(xs.held, xs.direct), heldMs: Number(med(xs.held).toFixed(1)), directMs: Number(med(xs.direct).toFixed(1)), unsandboxedMs: Number(med(xs.plain).toFixed(1)) };
  };
  const node = await one(`${JSON.stringify(process.execPath)} -e "console.log(1)"`);
  const writes50 = await one('mkdir -p out/x/.git && echo x > out/x/.git/config && for i in $(seq 1 49); do echo $i > out/f$i.txt; done; echo done');
  return { ...node, goal: '<= 1.5', pairs: 15, command: 'node -e console.log(1), to its exit status', writes50 };
}

/** The sandbox's cost per command, as a ratio against the same command unsandboxed in the same run. */
export async function sandboxBenchmarks(): Promise<Record<string, unknown>> {
  const runtime = new SandboxRuntime();
  const status = await runtime.availability();
  if (!status.available) return { sandboxCommand: { ratio: null, goal: '<= 1.5', unavailable: status.reason } };
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-sbx-')));
  const profile = buildProfile({ roots: [dir], tmpDir: fs.realpathSync(os.tmpdir()), home: os.homedir(), editorStorage: [], allowedHosts: [] });
  const wrap = (p: SpawnPlan) => runtime.wrap(p, profile);
  const m = new TerminalManager();
  try {
    const measure = async (command: string) => {
      await firstOutputMs(m, dir, command);
      await firstOutputMs(m, dir, command, wrap);
      const plain: number[] = [];
      const boxed: number[] = [];
      const pairs: number[] = [];
      for (let i = 0; i < 15; i++) {
        plain.push(await firstOutputMs(m, dir, command));
        boxed.push(await firstOutputMs(m, dir, command, wrap));
        pairs.push(boxed[i] / plain[i]);
      }
      return { ratio: Number(med(pairs).toFixed(2)), sandboxedMs: Number(med(boxed).toFixed(1)), unsandboxedMs: Number(med(plain).toFixed(1)) };
    };
    // A shell builtin shows the sandbox's fixed cost alone; a Node.js start, a command of the size agents run.
    const echo = await measure('echo first');
    const nodeCommand = `${JSON.stringify(process.execPath)} -e "console.log(1)"`;
    const node = await measure(nodeCommand);
    // Where the fixed cost goes: the library's preparation of each command (it searches the session's
    // folder for files to protect with ripgrep and resolves paths), apart from starting the command
    // inside bubblewrap's namespaces. Median of `n` preparations, in ms.
    const prepareMs = async (n: number) => {
      const xs: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const w = await wrap({ file: '/bin/sh', args: ['-c', 'echo first'], env: { ...process.env } as Record<string, string>, cwd: dir, viaShell: true, commandLine: 'echo first', outputByteLimit: 1 << 20 });
        xs.push(performance.now() - t0);
        (w as { finishSandbox?: () => string }).finishSandbox?.();
      }
      return Number(med(xs).toFixed(1));
    };
    const wrapMs = await prepareMs(15);
    // The same in an extension host whose working folder is `/` (VS Code started from a desktop's
    // menu or a service): the library searched that folder for files to protect, killed its search
    // after ten seconds, and every command waited for it; it searches the session's folder now.
    const saved = process.cwd();
    process.chdir('/');
    let wrapMsHostAtRoot: number;
    try {
      wrapMsHostAtRoot = await prepareMs(3);
    } finally {
      process.chdir(saved);
    }
    const parts = await fixedCost(m, dir, nodeCommand, wrap);
    const heldBack = status.holds
      ? await heldBackCost(m, dir, wrap, (p) => runtime.wrap(p, { ...profile, holdsBackRunnable: true }))
      : { ratio: null, unavailable: status.holdsReason };
    return { sandboxCommand: { ...node, goal: '<= 1.5', command: 'node -e console.log(1)', echo, pairs: 15, wrapMs, wrapMsHostAtRoot, namespacesMs: Number((node.sandboxedMs - node.unsandboxedMs - wrapMs).toFixed(1)), fixedCost: parts, heldBack } };
  } finally {
    await m.disposeAll();
    await runtime.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where a sandboxed command's fixed cost goes, each part the median difference of 15 rounds in which
 * the same command runs through the client terminal five ways, back to back: unsandboxed; in a
 * bubblewrap with only its namespaces (user, pid, network; `/` read-only, `/dev`, `/proc`), the
 * floor of any bubblewrap sandbox; with the library's bubblewrap options (its mounts and
 * environment) but neither its proxy bridges nor seccomp; the library's whole command prepared once;
 * and prepared for each run (what `sandboxCommand` measures). In ms, and `floorRatio`, the
 * namespaces-only run ÷ unsandboxed. The parts are cut out of the library's command line at its
 * `-- /bin/sh -c` (bubblewrap's options before it); where that shape is not found, `unavailable` says so.
 */
async function fixedCost(m: TerminalManager, cwd: string, command: string, wrap: (p: SpawnPlan) => Promise<SpawnPlan>): Promise<Record<string, unknown>> {
  const probe: SpawnPlan = { file: '/bin/sh', args: ['-c', command], env: { ...process.env } as Record<string, string>, cwd, viaShell: true, commandLine: command, outputByteLimit: 1 << 20 };
  const prepared = await wrap(probe);
  try {
    const line = prepared.file === '/bin/sh' && prepared.args[0] === '-c' ? prepared.args[1] : '';
    const cut = line.indexOf(' -- /bin/sh -c ');
    if (!line.startsWith('/') || cut < 0) return { unavailable: 'the library\'s command line is not `/bin/sh -c "<bwrap …> -- /bin/sh -c …"`' };
    const bwrap = line.slice(0, cut).split(' ')[0];
    const as = (text: string) => async (p: SpawnPlan): Promise<SpawnPlan> => ({ ...p, file: '/bin/sh', args: ['-c', text], env: prepared.env, viaShell: false });
    const ways: Record<string, ((p: SpawnPlan) => Promise<SpawnPlan>) | undefined> = {
      plain: undefined,
      namespaces: as(`${bwrap} --new-session --die-with-parent --unshare-net --ro-bind / / --dev /dev --unshare-pid --unshare-user --proc /proc -- /bin/sh -c ${shellQuote(command)}`),
      libraryMounts: as(`${line.slice(0, cut)} -- /bin/sh -c ${shellQuote(command)}`),
      prepared: async (p) => ({ ...p, file: prepared.file, args: prepared.args, env: prepared.env, viaShell: false }),
      wrapped: wrap,
    };
    const times: Record<string, number[]> = {};
    for (const w of Object.values(ways)) await firstOutputMs(m, cwd, command, w);
    for (let i = 0; i < 15; i++) for (const [k, w] of Object.entries(ways)) (times[k] ??= []).push(await firstOutputMs(m, cwd, command, w));
    const diff = (a: string, b: string) => Number(med(times[a].map((x, i) => x - times[b][i])).toFixed(1));
    return {
      plainMs: Number(med(times.plain).toFixed(1)),
      namespacesMs: diff('namespaces', 'plain'),
      libraryMountsMs: diff('libraryMounts', 'namespaces'),
      bridgesAndSeccompMs: diff('prepared', 'libraryMounts'),
      preparationMs: diff('wrapped', 'prepared'),
      floorRatio: Number(med(times.namespaces.map((x, i) => x / times.plain[i])).toFixed(2)),
    };
  } finally {
    (prepared as { finishSandbox?: () => string }).finishSandbox?.();
  }
}

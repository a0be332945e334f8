/**
 * The sandbox of this window's sessions (issue 21): for a session, where the sandbox stands (off, the
 * profile its commands run in, or why it cannot run), and the wrapper that runs a checked command in
 * exactly the profile its check carried. The settings come from the person (`agentSwitchboard.sandbox`
 * may only be tightened by a workspace; hosts and the bubblewrap path are the person's alone).
 * vscode-free: the settings and the editor's storage folders come through {@link SandboxesDeps}.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { SpawnPlan } from '../terminals/command';
import { buildProfile, gitDiscoveryAbove, protectedInRoot, type SandboxMode, type SandboxPlan, type SandboxProfile } from './profile';
import { literalHostEntry } from './hostEntry';
import { realOr, SandboxRuntime, shellQuote, stageBase, type SandboxAvailability } from './runtime';
import { overlayablePath, overlayLayersFor } from './overlay';
import { reachHash } from './reach';
import { isWithin } from '../fs/containment';

/** The sandbox settings as read (see `config/vscodeSettings.ts`). */
export interface SandboxSettings {
  mode: SandboxMode;
  /** `agentSwitchboard.sandboxAllowedHosts`. */
  allowedHosts: readonly string[];
  /** `agentSwitchboard.sandboxBubblewrapPath`; empty: `bwrap` on PATH. */
  bwrapPath: string;
}

/** What the sandboxes need from the host. */
export interface SandboxesDeps {
  settings(): SandboxSettings;
  /** The workspace folders (a session without folders of its own writes there). */
  workspaceRoots(): readonly string[];
  /** The editor's storage folders and files no command may read (settings, other workspaces' state, secrets' store). */
  editorStorage(): readonly string[];
  log?(message: string): void;
}

/** The sandboxes of one window: one {@link SandboxRuntime} for the extension host. */
export class Sandboxes {
  constructor(
    private readonly deps: SandboxesDeps,
    readonly runtime = new SandboxRuntime(),
  ) {}

  /** Whether the sandbox can run here with the current settings (probed once per bubblewrap path). */
  availability(): Promise<SandboxAvailability> {
    const s = this.deps.settings();
    return this.runtime.availability({ bwrapPath: s.bwrapPath || undefined, log: this.deps.log });
  }

  /**
   * Where the sandbox stands for a session whose effects are contained in `roots` (its worktree
   * folder; else the workspace folders): never throws, and never names a profile the machine
   * cannot enforce.
   */
  async plan(roots: readonly string[] | undefined, extraHosts: readonly string[] = []): Promise<SandboxPlan> {
    const s = this.deps.settings();
    if (s.mode === 'off') return { mode: 'off' };
    const p = await this.profileFor(roots, extraHosts);
    return 'profile' in p ? { mode: s.mode, profile: p.profile } : { mode: s.mode, unavailable: p.unavailable };
  }

  /** The profile of something contained in `roots` (else the workspace folders), or why the sandbox cannot run. */
  async profileFor(roots: readonly string[] | undefined, extraHosts: readonly string[] = []): Promise<{ profile: SandboxProfile } | { unavailable: string }> {
    const status = await this.availability();
    if (!status.available) return { unavailable: status.reason };
    const realRoots = (roots ?? this.deps.workspaceRoots()).map(realOr);
    const tmpDir = realOr(os.tmpdir());
    const profile = buildProfile({
      roots: realRoots,
      tmpDir,
      home: os.homedir(),
      editorStorage: this.deps.editorStorage(),
      // The person's settings may name patterns; a host allowed from a card is one literal host only.
      allowedHosts: [...this.deps.settings().allowedHosts, ...extraHosts.filter((h) => literalHostEntry(h) === h)],
      // What the editor, git and shells act on by themselves stays read-only in each root (not in the temp folder).
      denyWrite: [...realRoots.flatMap((r) => protectedInRoot(r, listDir)), ...gitDiscoveryAbove(realRoots, [tmpDir])],
      holdsBackRunnable: status.holds && canHoldBack(realRoots, tmpDir),
    });
    return { profile };
  }

  /**
   * The profile of a stdio MCP server started in `cwd`: it may write only in its folder (`cwd`, when
   * inside the workspace; else the workspace folders) and the temp folder, with the commands' read
   * denials and hosts. Or why the sandbox cannot run.
   */
  async mcpProfile(cwd: string | undefined): Promise<{ profile: SandboxProfile } | { unavailable: string }> {
    // Its folder is a write root only inside the workspace: a definition's `cwd: "/"` (or `${env:HOME}`)
    // would otherwise make everything writable. Elsewhere it writes in the workspace folders only.
    const inside = cwd && this.deps.workspaceRoots().some((r) => isWithin(realOr(r), realOr(cwd)));
    const found = await this.profileFor(inside ? [cwd] : undefined);
    if (!('profile' in found)) return found;
    // A server runs for as long as the window: what it writes must reach its folder as it writes it,
    // so it runs without the overlay (its card says it cannot hold back files that run).
    const direct: SandboxProfile = { ...found.profile };
    delete direct.holdsBackRunnable;
    return { profile: direct };
  }

  /**
   * A stdio MCP server's launch inside the sandbox, in {@link mcpProfile} of its folder.
   * @param reach the `reachHash` its approval was given for: it starts only in a profile that reaches exactly that.
   * @throws Error when the sandbox cannot run here, or its profile reaches more or other than
   *   approved: the server is then not started at all.
   */
  async launch<L extends { command: string; args: string[]; env: Record<string, string>; cwd?: string }>(l: L, reach?: string): Promise<L & { finishSandbox: () => string; sandbox: SandboxProfile }> {
    const p = await this.mcpProfile(l.cwd);
    if (!('profile' in p)) throw new Error(`it is to run sandboxed, and the sandbox is not available: ${p.unavailable}`);
    if (reach !== undefined && reachHash(p.profile) !== reach) throw new Error('its sandbox profile is not the one you approved (its folder, the hosts or the read denials changed): approve it again');
    const cwd = l.cwd ?? this.deps.workspaceRoots()[0] ?? os.tmpdir();
    const w = await this.runtime.wrap(
      { file: l.command, args: l.args, cwd, env: l.env, viaShell: false, commandLine: [l.command, ...l.args].map(shellQuote).join(' '), outputByteLimit: 0 },
      p.profile,
      { bwrapPath: this.deps.settings().bwrapPath || undefined },
    );
    // Called when the server's process ends (see GroupStdioTransport): the sandbox lets go of its state for it.
    return { ...l, command: w.file, args: w.args, env: w.env, cwd, finishSandbox: w.finishSandbox, sandbox: p.profile };
  }

  /** The wrapper of a command approved to run in `profile`: the same plan, run inside it (throws, and the command does not run, when it cannot be). */
  wrapper(profile: SandboxProfile): (plan: SpawnPlan) => Promise<SpawnPlan> {
    return (plan) => this.runtime.wrap(plan, profile, { bwrapPath: this.deps.settings().bwrapPath || undefined });
  }

  dispose(): Promise<void> {
    return this.runtime.dispose();
  }
}


/** Whether commands in `roots` can run in an overlay: every folder can be a layer, and a stage can be made outside the write roots. */
function canHoldBack(roots: readonly string[], tmpDir: string): boolean {
  const writeRoots = [...roots, tmpDir];
  const layers = overlayLayersFor(writeRoots, tmpDir);
  if (!layers.length || !layers.every(overlayablePath)) return false;
  try {
    return overlayablePath(stageBase(writeRoots));
  } catch {
    return false;
  }
}

function listDir(dir: string): { name: string; dir: boolean }[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

/**
 * Agents from the ACP Registry: *Install Agent from Registry…* reads the registry named by
 * `agentSwitchboard.registry.url` (the public one by default, or a local file), lets the person pick
 * an agent, installs it into the extension's global storage (a binary checked against its SHA-256
 * before anything is unpacked, else its npm package with npm) and adds it to `agentSwitchboard.agents`
 * so it is offered like any other agent. The registry room (src/registry) does the work; this is the
 * editor side. Spec: https://agentclientprotocol.com/rfds/acp-agent-registry
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerGuardedCommand } from './guardedCommands';
import { fetchRegistry, REGISTRY_URL, type RegistryAgent } from '../registry/registry';
import { currentPlatformKey, installBinary, installNpx, launchToDefinition, type InstalledAgent } from '../registry/install';
import { readSetting } from '../config/vscodeSettings';
import { inert, text } from '../common/untrustedText';

/** What the registry feature needs from the app. */
export interface AgentRegistryHost {
  /** Where installed agents live (`<globalStorage>/agents/<id>/<version>`). */
  storageDir: string;
  /** The environment npm runs in (the login shell's PATH included). */
  env(): NodeJS.ProcessEnv;
  log(message: string): void;
}

/** A registry is local when it is a file or served from this machine; its archives may be too. */
function isLocal(source: string): boolean {
  if (source.startsWith('file:') || path.isAbsolute(source)) return true;
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(source).hostname);
  } catch {
    return false;
  }
}

/** Owns the registry command. */
export class AgentRegistryCenter implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: AgentRegistryHost) {
    this.disposables.push(
      registerGuardedCommand('agentSwitchboard.installAgent', async (agentId?: unknown) => {
        try {
          return await this.install(typeof agentId === 'string' ? agentId : undefined);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          this.host.log(`Install from the registry failed: ${message}`);
          void vscode.window.showErrorMessage(text`${message}`);
          return { error: message };
        }
      }),
    );
  }

  /**
   * Reads the registry, picks (or takes) an agent, installs it and adds it to the agents setting.
   * @returns the agent id and its command, or undefined when the person cancelled.
   * @throws Error (RegistryError, InstallError) with the reason: unreadable registry, unknown agent,
   *   no way to install it here, a checksum that does not match, npm failing.
   */
  async install(agentId?: string): Promise<{ id: string; command: string; args: string[] } | undefined> {
    const source = readSetting('registryUrl') || REGISTRY_URL;
    const local = isLocal(source);
    const registry = await fetchRegistry(source, { allowLoopbackHttp: local });
    for (const p of registry.problems) this.host.log(`Registry ${source}: ${p}`);
    let agent: RegistryAgent | undefined;
    if (agentId) {
      agent = registry.agents.find((a) => a.id === agentId);
      if (!agent) throw new Error(`The registry at ${source} has no agent "${agentId}". It lists: ${registry.agents.map((a) => a.id).join(', ') || 'none'}.`);
    } else {
      const platform = currentPlatformKey();
      const pick = await vscode.window.showQuickPick(
        registry.agents.map((a) => ({
          // The registry wrote these: inert, so no name fakes an icon and no description a link.
          label: inert(a.name, { max: 120 }),
          description: text`${a.id} ${a.version}`,
          detail: text`${a.description} — ${howToInstall(a, platform) ?? 'cannot be installed here'}`,
          agent: a,
        })),
        { title: text`Install an agent from ${source}`, placeHolder: text`${registry.problems.length ? `${registry.problems.length} entries could not be read (see the log)` : 'Pick an agent'}`, matchOnDetail: true },
      );
      agent = pick?.agent;
    }
    if (!agent) return undefined;
    const chosen = agent;
    const installed = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: text`Installing ${chosen.name} ${chosen.version}`, cancellable: true },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return this.installOne(chosen, local, abort.signal);
      },
    );
    const definition = launchToDefinition(chosen, installed);
    const config = vscode.workspace.getConfiguration('agentSwitchboard');
    // Read again just before writing: another install may have finished meanwhile. Agents live in
    // user settings only (a workspace's definitions are ignored), so that is where this one goes.
    const inspected = config.inspect<unknown[]>('agents');
    const all = inspected?.globalValue ?? [];
    const sameId = (a: unknown) => !!a && typeof a === 'object' && (a as { id?: unknown }).id === chosen.id;
    const existing = all.find(sameId) as { command?: unknown } | undefined;
    if (existing && existing.command !== definition.command) {
      const choice = await vscode.window.showWarningMessage(text`Your settings already define an agent "${chosen.id}" (${String(existing.command)}). Replace it with the installed ${chosen.name} ${chosen.version}?`, { modal: true }, 'Replace');
      if (choice !== 'Replace') return undefined;
    }
    await config.update('agents', [...all.filter((a) => !sameId(a)), definition], vscode.ConfigurationTarget.Global);
    this.host.log(`Installed ${chosen.name} ${chosen.version} from ${source} into ${installed.dir}${installed.reused ? ' (already there)' : ''}.`);
    void vscode.window.showInformationMessage(text`${chosen.name} ${chosen.version} is installed; start a session with it from the agent list.`);
    return { id: definition.id, command: definition.command, args: definition.args ?? [] };
  }

  /** A binary with a digest for this platform first (no npm needed), else the npm package. */
  private installOne(agent: RegistryAgent, local: boolean, signal: AbortSignal): Promise<InstalledAgent> {
    const platform = currentPlatformKey();
    const binary = platform ? agent.distribution.binary?.[platform] : undefined;
    if (binary && (binary.sha256 || !agent.distribution.npx)) return installBinary(agent, platform!, this.host.storageDir, { allowLoopbackHttp: local, signal });
    if (agent.distribution.npx) {
      // The editor's own runtime runs Node bins (as plain Node): no separate node is needed.
      return installNpx(agent, this.host.storageDir, { env: this.host.env(), node: { command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } }, signal });
    }
    const kinds = Object.keys(agent.distribution).join(', ') || 'none';
    throw new Error(`${agent.name} cannot be installed here: it offers ${kinds}${platform ? `, and no binary for ${platform}` : ''}; Agent Switchboard installs binaries and npm packages.`);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** How the agent would be installed on `platform`, in words. */
function howToInstall(a: RegistryAgent, platform: string | undefined): string | undefined {
  const binary = platform ? a.distribution.binary?.[platform as keyof NonNullable<RegistryAgent['distribution']['binary']>] : undefined;
  if (binary?.sha256) return `binary for ${platform}, SHA-256 checked`;
  if (a.distribution.npx) return `npm package ${a.distribution.npx.package}`;
  if (binary) return `binary for ${platform} (no SHA-256 in the registry: refused)`;
  return undefined;
}

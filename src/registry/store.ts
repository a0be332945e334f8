/**
 * Where registry agents are installed and how an install becomes visible all at once.
 *
 * Layout: `<storageDir>/agents/<id>/<version>/` holds one finished install plus a marker file
 * ({@link MARKER}) that says what was installed. Work happens in a sibling staging folder
 * `<storageDir>/agents/<id>/.staging-<version>-<random>/` on the same file system, which is renamed
 * into place only when complete, so a crash or a failed check leaves no half-installed version.
 *
 * Pure Node; no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentDefinition } from '../config/agents';
import type { RegistryAgent } from './registry';

/** How to start an installed agent: absolute `command`, its `args`, and variables to add to the environment. */
export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** An installed agent: its launch, the version folder, and whether an earlier install was reused. */
export interface InstalledAgent extends AgentLaunch {
  dir: string;
  reused: boolean;
}

/** An install that failed or was refused; the message names the agent, what failed and what to do. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
}

/** Name of the file that marks a version folder as a finished install. */
export const MARKER = '.agent-switchboard-install.json';

/** What the marker records, to decide whether a folder can be reused. */
export interface InstallMarker {
  kind: 'binary' | 'npx';
  id: string;
  version: string;
  /** binary: the verified archive digest; npx: the npm spec installed. */
  source: string;
  /** Path of the executable or bin script, relative to the version folder. */
  entry: string;
  installedAt: string;
}

/**
 * The version folder of an agent: `<storageDir>/agents/<id>/<version>`.
 *
 * @throws InstallError when `id` or `version` could leave the `agents` folder (the registry schema
 *   already forbids this; agents built by hand are checked again here).
 */
export function agentInstallDir(storageDir: string, id: string, version: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(id)) throw new InstallError(`The agent id "${id}" cannot be used as a folder name.`);
  if (!/^[0-9A-Za-z][0-9A-Za-z.+-]*$/.test(version) || version.includes('..')) throw new InstallError(`The version "${version}" of agent "${id}" cannot be used as a folder name.`);
  return path.join(path.resolve(storageDir), 'agents', id, version);
}

/** Reads the marker of `dir`, or undefined when there is no finished install there. */
export function readMarker(dir: string): InstallMarker | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as Partial<InstallMarker>;
    return typeof m.source === 'string' && typeof m.entry === 'string' && (m.kind === 'binary' || m.kind === 'npx') ? (m as InstallMarker) : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the staging folder for one install attempt of `finalDir` (a sibling, same file system). */
export async function makeStaging(finalDir: string): Promise<string> {
  const parent = path.dirname(finalDir);
  await fs.promises.mkdir(parent, { recursive: true });
  return fs.promises.mkdtemp(path.join(parent, `.staging-${path.basename(finalDir)}-`));
}

/**
 * Writes the marker into `ready` and renames `ready` to `finalDir`. An existing `finalDir` (an
 * install that can no longer be reused, or a concurrent install that finished first) is moved
 * aside first and deleted after, so `finalDir` is never missing or mixed for longer than two renames.
 */
export async function publish(ready: string, finalDir: string, marker: InstallMarker): Promise<void> {
  await fs.promises.writeFile(path.join(ready, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  try {
    await fs.promises.rename(ready, finalDir);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM' && code !== 'EISDIR') throw err;
  }
  const old = `${ready}-old`;
  await fs.promises.rename(finalDir, old);
  await fs.promises.rename(ready, finalDir);
  // The old folder may still be in use by a running agent (Windows refuses to delete it then).
  await fs.promises.rm(old, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Removes a failed attempt's staging folder, and the agent's folder when that leaves it empty, so
 * a refused install leaves no trace.
 */
export async function cleanUp(staging: string | undefined, finalDir: string): Promise<void> {
  if (staging) await fs.promises.rm(staging, { recursive: true, force: true }).catch(() => undefined);
  await fs.promises.rmdir(path.dirname(finalDir)).catch(() => undefined);
}

/** The message of any thrown value, for wrapping into an {@link InstallError}. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An installed registry agent as an entry of the `agentSwitchboard.agents` shape
 * ({@link AgentDefinition} in src/config/agents.ts), so it can be offered like any other agent.
 */
export function launchToDefinition(agent: Pick<RegistryAgent, 'id' | 'name'>, launch: AgentLaunch): AgentDefinition {
  return { id: agent.id, name: agent.name, command: launch.command, args: [...launch.args], env: { ...launch.env } };
}

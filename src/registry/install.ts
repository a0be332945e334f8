/**
 * Installing an agent from the ACP Registry into the extension's storage: the `binary`
 * distribution here (download, verify SHA-256, unpack, publish), the `npx` distribution in
 * ./npx.ts (re-exported). Both return an {@link AgentLaunch} that runs the installed copy, so
 * starting a session never downloads anything.
 *
 * Format: https://github.com/agentclientprotocol/registry/blob/main/FORMAT.md and
 * https://github.com/agentclientprotocol/registry/blob/main/agent.schema.json (`binaryTarget`).
 * Pure Node; no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { archiveKind, extractArchive, isInside } from './archive';
import { downloadToFile } from './download';
import type { PlatformKey, RegistryAgent } from './registry';
import { agentInstallDir, cleanUp, InstallError, type InstalledAgent, makeStaging, messageOf, publish, readMarker } from './store';

export { agentInstallDir, InstallError, launchToDefinition, type AgentLaunch, type InstalledAgent } from './store';
export { defaultRunNpm, installNpx, type InstallNpxOptions, type RunNpm, type RunNpmResult } from './npx';

/**
 * The registry's platform name for a Node platform and architecture: `darwin|linux|win32` ×
 * `x64|arm64` → `darwin-x86_64`, `linux-aarch64`, `windows-x86_64`, … (FORMAT.md, "Platform
 * Targets"). Undefined for combinations the registry has no name for (e.g. `linux`/`ia32`,
 * `freebsd`), where only the npx distribution can work.
 */
export function currentPlatformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch): PlatformKey | undefined {
  const os = ({ darwin: 'darwin', linux: 'linux', win32: 'windows' } as Partial<Record<NodeJS.Platform, string>>)[platform];
  const cpu = ({ x64: 'x86_64', arm64: 'aarch64' } as Record<string, string>)[arch];
  return os && cpu ? (`${os}-${cpu}` as PlatformKey) : undefined;
}

/** Options for {@link installBinary}. */
export interface InstallBinaryOptions {
  /**
   * A digest the caller vouches for (lowercase or uppercase hex), used when the registry entry has
   * no `sha256`; it is verified the same way. When both are present they must agree.
   */
  sha256?: string;
  /** Largest archive accepted, in bytes. Default 1 GiB. */
  maxBytes?: number;
  /** Longest pause in the download, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Accept archive URLs on `http://127.0.0.1|localhost` (tests). Default false. */
  allowLoopbackHttp?: boolean;
  /** Cancels the download (unpacking, once started, runs to its end); nothing is left behind. */
  signal?: AbortSignal;
  /** Replaces global `fetch` (tests). */
  fetch?: typeof fetch;
  /** `process.platform` stand-in: skips `chmod` on Windows and chooses the zip tool. */
  platform?: NodeJS.Platform;
}

/**
 * Installs the `binary` distribution of `agent` for `platformKey` into
 * `<storageDir>/agents/<id>/<version>/` and returns how to run it. A finished install whose marker
 * records the same digest is reused without downloading.
 *
 * Steps: the archive is streamed to a staging folder while its SHA-256 is computed; a digest that
 * is missing or differs from the registry's refuses the install before anything is unpacked; the
 * archive is unpacked with member names and symlinks kept inside the folder (./archive.ts); `cmd`
 * must be a file inside it and is made executable; the folder is then renamed into place.
 *
 * @returns the launch: `command` is the absolute path of `cmd`, `args`/`env` from the registry.
 * @throws InstallError (the message names the agent, version and platform) when the agent has no
 *   target for `platformKey`, has no digest to check, the download fails or is too large, the
 *   digest differs (naming both digests), the archive is unsafe or cannot be unpacked, or `cmd`
 *   is missing. Nothing is left in `<storageDir>` then, except other versions already installed.
 */
export async function installBinary(agent: RegistryAgent, platformKey: PlatformKey, storageDir: string, opts: InstallBinaryOptions = {}): Promise<InstalledAgent> {
  const what = `${agent.name} ${agent.version} (${platformKey})`;
  const target = agent.distribution.binary?.[platformKey];
  if (!target) {
    const has = Object.keys(agent.distribution.binary ?? {});
    throw new InstallError(`${agent.name} has no binary for ${platformKey}${has.length ? ` (only ${has.join(', ')})` : ''}${agent.distribution.npx ? '; use its npx distribution instead' : ''}.`);
  }
  const pinned = opts.sha256?.toLowerCase();
  if (target.sha256 && pinned && target.sha256 !== pinned) {
    throw new InstallError(`Refusing to install ${what}: the registry's sha256 ${target.sha256} differs from the pinned ${pinned}.`);
  }
  const expected = target.sha256 ?? pinned;
  if (!expected) {
    throw new InstallError(`Refusing to install ${what}: the registry gives no sha256 for ${target.archive}, so the download cannot be verified.${agent.distribution.npx ? ' Install its npx distribution instead.' : ' Ask the agent\'s maintainers to add "sha256" to its registry entry.'}`);
  }
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new InstallError(`Refusing to install ${what}: "${expected}" is not a SHA-256 digest (64 hex digits).`);
  const finalDir = agentInstallDir(storageDir, agent.id, agent.version);
  const kind = (() => {
    try {
      return archiveKind(target.archive);
    } catch (err) {
      throw new InstallError(`Cannot install ${what}: ${messageOf(err)}`);
    }
  })();
  const cmdRel = path.normalize(target.cmd);
  const launchIn = (dir: string): InstalledAgent => ({ command: path.join(dir, cmdRel), args: [...target.args], env: { ...target.env }, dir, reused: false });

  const marker = readMarker(finalDir);
  if (marker?.kind === 'binary' && marker.source === expected && marker.entry === cmdRel && fs.existsSync(path.join(finalDir, cmdRel))) {
    return { ...launchIn(finalDir), reused: true };
  }

  let staging: string | undefined;
  try {
    staging = await makeStaging(finalDir);
    const archive = path.join(staging, 'download');
    const root = path.join(staging, 'root');
    await fs.promises.mkdir(root);
    const got = await downloadToFile(target.archive, archive, {
      maxBytes: opts.maxBytes ?? 1024 * 1024 * 1024,
      timeoutMs: opts.timeoutMs ?? 60_000,
      allowLoopbackHttp: opts.allowLoopbackHttp,
      signal: opts.signal,
      fetch: opts.fetch,
    });
    if (got.sha256 !== expected) {
      throw new InstallError(`Refusing to install ${what}: the SHA-256 of ${target.archive} is ${got.sha256}, but the ${target.sha256 ? 'registry' : 'pinned digest'} expects ${expected}. The download was deleted and nothing was installed.`);
    }
    await extractArchive(archive, kind, root, { cmd: cmdRel, platform: opts.platform });
    await prepareCommand(root, cmdRel, what, opts.platform ?? process.platform);
    await publish(root, finalDir, { kind: 'binary', id: agent.id, version: agent.version, source: expected, entry: cmdRel, installedAt: new Date().toISOString() });
    await cleanUp(staging, finalDir);
    return launchIn(finalDir);
  } catch (err) {
    await cleanUp(staging, finalDir);
    if (err instanceof InstallError) throw err;
    throw new InstallError(`Could not install ${what}: ${messageOf(err)}`, { cause: err });
  }
}

/**
 * Checks that `cmd` is a regular file inside `root` (following symlinks, which ./archive.ts already
 * kept inside) and makes it executable for everyone who can read it.
 */
async function prepareCommand(root: string, cmdRel: string, what: string, platform: NodeJS.Platform): Promise<void> {
  const full = path.join(root, cmdRel);
  let real: string;
  try {
    real = await fs.promises.realpath(full);
  } catch {
    const top = (await fs.promises.readdir(root)).slice(0, 10).join(', ');
    throw new InstallError(`Cannot install ${what}: the archive has no "${cmdRel}" (its top level holds: ${top || 'nothing'}).`);
  }
  if (!isInside(await fs.promises.realpath(root), real)) throw new InstallError(`Cannot install ${what}: "${cmdRel}" leads outside the install folder.`);
  const st = await fs.promises.stat(real);
  if (!st.isFile()) throw new InstallError(`Cannot install ${what}: "${cmdRel}" in the archive is not a file.`);
  if (platform !== 'win32') await fs.promises.chmod(real, (st.mode & 0o7777) | 0o755);
}

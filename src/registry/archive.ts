/**
 * Unpacking a registry agent's binary archive into a fresh directory without letting it write
 * anywhere else. The system's own tools do the unpacking (`tar` for .tar.gz/.tgz/.tar.bz2/.tbz2,
 * `unzip` for .zip, falling back to Windows' bsdtar-based `tar.exe`), and we check around them: member
 * names are listed and refused before anything is written when one is absolute or climbs out with
 * `..`, and after unpacking every symlink must point inside the directory.
 *
 * Supported formats come from https://github.com/agentclientprotocol/registry/blob/main/FORMAT.md
 * ("Supported archive formats for binary distribution"). Pure Node; no `vscode`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isSafeRelativePath } from './registry';

/** How an archive is unpacked: with tar (two compressions), unzip, or not at all (`raw` binary). */
export type ArchiveKind = 'tar.gz' | 'tar.bz2' | 'zip' | 'raw';

/** An archive that cannot or may not be unpacked, with the reason and what to do. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

/**
 * The archive kind of a download URL, from the end of its path (query and fragment ignored).
 * Any other name is a raw binary, as FORMAT.md allows.
 *
 * @throws ArchiveError for installer formats (.dmg, .pkg, .deb, .rpm, .msi, .appimage), which the
 *   registry does not support, and for compressions we cannot unpack as an archive (.gz, .xz, .7z…).
 */
export function archiveKind(url: string): ArchiveKind {
  const name = (URL.canParse(url) ? new URL(url).pathname : url).toLowerCase();
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar.bz2') || name.endsWith('.tbz2')) return 'tar.bz2';
  if (name.endsWith('.zip')) return 'zip';
  const installer = ['.dmg', '.pkg', '.deb', '.rpm', '.msi', '.appimage'].find((e) => name.endsWith(e));
  if (installer) throw new ArchiveError(`${url} is an installer (${installer}); registry binaries must be archives (.tar.gz, .tgz, .tar.bz2, .tbz2, .zip) or raw executables.`);
  const other = ['.gz', '.bz2', '.xz', '.tar.xz', '.txz', '.7z', '.rar', '.zst'].find((e) => name.endsWith(e));
  if (other) throw new ArchiveError(`${url} is a ${other} file, which this client does not unpack; supported: .tar.gz, .tgz, .tar.bz2, .tbz2, .zip or a raw executable.`);
  return 'raw';
}

/** Options for {@link extractArchive}. */
export interface ExtractOptions {
  /** The registry's `cmd`: where a raw binary is placed, relative to the destination. */
  cmd: string;
  /** Milliseconds each tool run may take. Default 120 000. */
  timeoutMs?: number;
  /** `process.platform` stand-in, for the choice of zip tool. */
  platform?: NodeJS.Platform;
}

/** Runs a tool without a shell; a missing tool is reported by name rather than as ENOENT. */
function run(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const e = err as NodeJS.ErrnoException & { killed?: boolean };
      if (e.code === 'ENOENT') return reject(Object.assign(new ArchiveError(`"${command}" was not found on PATH`), { missingTool: command }));
      const why = e.killed ? `took longer than ${timeoutMs / 1000} s` : `failed: ${String(stderr).trim().slice(-1000) || e.message}`;
      reject(new ArchiveError(`${command} ${args.join(' ')} ${why}`));
    });
  });
}

/**
 * Refuses member names that would land outside the destination. Checked before unpacking so a
 * hostile archive writes nothing at all, whatever the tool's own defences.
 */
function checkMemberNames(names: string[], archive: string): void {
  for (const raw of names) {
    const name = raw.replace(/\/+$/, '');
    if (name === '' || name === '.') continue;
    if (!isSafeRelativePath(name)) throw new ArchiveError(`The archive ${archive} contains "${raw}", which would be written outside the install folder; refusing to unpack it.`);
  }
}

/**
 * Unpacks `file` of `kind` into `dest` (an existing, empty directory), or moves a raw binary to
 * `dest/<cmd>`. Afterwards checks that no symlink points outside `dest` and that nothing but files,
 * folders and symlinks was created.
 *
 * @throws ArchiveError when a member name or symlink would escape, when a needed tool is missing
 *   (the message says which to install), or when the tool fails or times out. `dest` may then hold
 *   part of the archive: the caller deletes it.
 */
export async function extractArchive(file: string, kind: ArchiveKind, dest: string, opts: ExtractOptions): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const label = path.basename(file);
  if (kind === 'raw') {
    const target = path.resolve(dest, opts.cmd);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.rename(file, target);
    return;
  }
  if (kind === 'zip') {
    await extractZip(file, dest, timeoutMs, opts.platform ?? process.platform);
  } else {
    const z = kind === 'tar.gz' ? 'z' : 'j';
    const names = (await run('tar', [`-t${z}f`, file], timeoutMs).catch(missingTar)).split(/\r?\n/);
    checkMemberNames(names, label);
    await run('tar', [`-x${z}f`, file, '-C', dest, '--no-same-owner'], timeoutMs).catch(missingTar);
  }
  await checkTree(dest);
}

function missingTar(err: unknown): never {
  if ((err as { missingTool?: string }).missingTool) throw new ArchiveError('Cannot unpack the agent: the "tar" program was not found on PATH. Install tar, or use the agent\'s npx distribution.');
  throw err;
}

/** Unzips with `unzip` (Info-ZIP); on Windows, where it is rarely present, with bsdtar's `tar.exe`. */
async function extractZip(file: string, dest: string, timeoutMs: number, platform: NodeJS.Platform): Promise<void> {
  const label = path.basename(file);
  try {
    checkMemberNames((await run('unzip', ['-Z1', file], timeoutMs)).split(/\r?\n/), label);
    // -o: never prompt (there is no one to answer); the destination is empty anyway.
    await run('unzip', ['-q', '-o', file, '-d', dest], timeoutMs);
    return;
  } catch (err) {
    if (!(err as { missingTool?: string }).missingTool) throw err;
  }
  if (platform === 'win32') {
    checkMemberNames((await run('tar', ['-tf', file], timeoutMs).catch(missingTar)).split(/\r?\n/), label);
    await run('tar', ['-xf', file, '-C', dest], timeoutMs).catch(missingTar);
    return;
  }
  throw new ArchiveError('Cannot unpack the agent\'s .zip archive: the "unzip" program was not found on PATH. Install unzip (for example "sudo apt install unzip"), or use the agent\'s npx distribution.');
}

/**
 * Walks `root` and refuses symlinks that are absolute or resolve outside it, and special files
 * (devices, FIFOs, sockets): after the install folder is renamed, only relative links inside it
 * still mean what they meant.
 *
 * @throws ArchiveError naming the offending entry.
 */
export async function checkTree(root: string): Promise<void> {
  const base = await fs.promises.realpath(root);
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (entry.isSymbolicLink()) {
        const target = await fs.promises.readlink(full);
        const resolved = path.resolve(path.dirname(path.join(base, rel)), target);
        if (path.isAbsolute(target) || !isInside(base, resolved)) throw new ArchiveError(`The archive's symlink "${rel}" points to "${target}", outside the install folder; refusing it.`);
      } else if (entry.isDirectory()) {
        await walk(full);
      } else if (!entry.isFile()) {
        throw new ArchiveError(`The archive contains "${rel}", which is neither a file, a folder nor a symlink; refusing it.`);
      }
    }
  };
  await walk(root);
}

/** True when `child` is `parent` or below it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

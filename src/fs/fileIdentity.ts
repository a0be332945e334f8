/**
 * Which file a path names, checked on an opened handle rather than on the name: the gate records
 * the identity (device, inode, hard links) of the file it decided on, and the write re-checks that
 * the path still resolves, inside the workspace, to that same file. Opening never follows a final
 * symlink and never blocks (a FIFO or device is reported, not waited on). No `vscode`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isWithin, PathNotAllowedError, realpathAllowMissing } from './containment';
import { DEFAULT_MAX_READ_BYTES, kindOf, readRegularFileOrNull, UnreadableFileError, type RegularFile } from './safeRead';

/** The file behind a path at one moment. */
export interface FileIdentity {
  /** The path with every symlink resolved (what was checked). */
  real: string;
  dev: number;
  ino: number;
  /** Hard links (`st_nlink`); more than 1 means the same file is reachable under another name. */
  links: number;
  /** Bytes. */
  size: number;
  /** Modification time, ms since epoch. */
  mtimeMs: number;
  /** True for a regular file (not a directory, FIFO, socket or device). */
  regular: boolean;
  /** `a FIFO`, `a directory`, … for messages; `a file` for a regular file. */
  kind: string;
}

// O_NOFOLLOW / O_NONBLOCK are POSIX; on Windows they are 0 (no FIFOs, symlinks need privileges).
const PROBE_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The identity of the file at `real` (a path already resolved with `realpath`), from `fstat` on a
 * handle opened with `O_NOFOLLOW | O_NONBLOCK`, or null when there is no such file. A socket (which
 * cannot be opened) is reported from `lstat`.
 * @throws {UnreadableFileError} `symlink` when the final component became a symlink after it was
 *   resolved; `error` for other I/O errors.
 */
export async function fileIdentity(real: string): Promise<FileIdentity | null> {
  let handle: fsp.FileHandle | undefined;
  let st: fs.Stats;
  try {
    handle = await fsp.open(real, PROBE_FLAGS);
    st = await handle.stat();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE') throw new UnreadableFileError(real, 'symlink', `${real} is a symbolic link; it was not followed.`);
    // ENXIO: a socket; EACCES/EPERM: not readable by us (then lstat still tells the type).
    try {
      st = await fsp.lstat(real);
    } catch {
      throw new UnreadableFileError(real, 'error', `${real} could not be examined: ${(err as Error).message}`);
    }
  } finally {
    await handle?.close().catch(() => undefined);
  }
  return { real, dev: st.dev, ino: st.ino, links: st.nlink, size: st.size, mtimeMs: st.mtimeMs, regular: st.isFile(), kind: kindOf(st) };
}

/**
 * True when both name one file at one resolved path with the same number of hard links (a link
 * added meanwhile makes the file reachable under another name), or both are absent.
 */
export function sameFile(a: FileIdentity | null, b: FileIdentity | null): boolean {
  if (!a || !b) return a === b;
  return a.real === b.real && a.dev === b.dev && a.ino === b.ino && a.links === b.links;
}

/**
 * Where an opened descriptor really is, from `/proc/self/fd/N` (Linux); undefined elsewhere or
 * when the kernel does not say. It names the file opened, whatever symlinks or renames of parent
 * directories happened between resolving the path and opening it.
 */
export async function openedPath(fd: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const p = await fsp.readlink(`/proc/self/fd/${fd}`);
    return path.isAbsolute(p) && !p.endsWith(' (deleted)') ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks that the opened handle `fd` lies inside one of `realRoots`: on Linux by the descriptor's
 * own path; elsewhere by resolving `real` again and comparing its device and inode with the handle's.
 * @throws {PathNotAllowedError} when the file opened is not the contained one.
 */
export async function assertOpenedWithin(fd: number, st: fs.Stats, real: string, realRoots: readonly string[]): Promise<void> {
  const opened = await openedPath(fd);
  if (opened !== undefined) {
    if (!realRoots.some((r) => isWithin(r, opened))) throw new PathNotAllowedError(real, `the file opened is "${opened}", outside the workspace folders (the path changed while it was opened).`);
    return;
  }
  const again = await realpathAllowMissing(real);
  const now = await fsp.stat(again).catch(() => undefined);
  if (again !== real || !now || now.dev !== st.dev || now.ino !== st.ino) throw new PathNotAllowedError(real, 'the path changed while it was opened.');
}

/**
 * Reads `absPath` only if it resolves inside `realRoots` (workspace folders, already resolved with
 * `realpath`), is a regular file and is at most `maxBytes`; through one handle opened on the
 * resolved path with `O_NOFOLLOW | O_NONBLOCK`, verified (see {@link assertOpenedWithin}) before
 * any byte is read. Null when there is no such file.
 * @throws {PathNotAllowedError} outside the roots (nothing is opened), or when the path changed.
 * @throws {UnreadableFileError} for a FIFO, device, socket, directory, a file over the cap, or an
 *   I/O error.
 */
export async function readContainedFile(absPath: string, realRoots: readonly string[], opts: { maxBytes?: number } = {}): Promise<RegularFile | null> {
  const real = await realpathAllowMissing(path.normalize(absPath));
  if (!realRoots.some((r) => isWithin(r, real))) throw new PathNotAllowedError(absPath, 'it is outside the workspace folders.');
  return readRegularFileOrNull(real, { maxBytes: opts.maxBytes ?? DEFAULT_MAX_READ_BYTES, verify: (fd, st) => assertOpenedWithin(fd, st, real, realRoots) });
}

/**
 * Checks, without blocking, that a path someone else named (an agent's location, an editor MCP
 * tool's file) may be handed to the editor to open as a document: missing (the editor reports it)
 * or a regular file of at most `maxBytes`. VS Code would otherwise open a FIFO and wait on it, or
 * load `/dev/zero` until memory runs out.
 * @throws {UnreadableFileError} `not_regular` or `too_large`, with a message that names the path.
 */
export async function checkOpenable(absPath: string, maxBytes = DEFAULT_MAX_READ_BYTES): Promise<void> {
  const real = await realpathAllowMissing(path.normalize(absPath));
  const id = await fileIdentity(real);
  if (id && !id.regular) throw new UnreadableFileError(absPath, 'not_regular', `${absPath} is ${id.kind}, not a regular file; it was not opened.`);
  if (id && id.size > maxBytes) throw new UnreadableFileError(absPath, 'too_large', `${absPath} is larger than ${maxBytes} bytes (${id.size}); it was not opened.`);
}

/** The cause in words for an agent (no file content). */
export function unreadableMessage(p: string, err: UnreadableFileError): string {
  if (err.reason === 'not_regular') return `${p} is not a regular file (a directory, FIFO, socket or device); the client does not open it.`;
  if (err.reason === 'too_large') return `${err.message} The client reads files of at most that size.`;
  if (err.reason === 'symlink') return `${p} changed into a symbolic link while it was opened; it was not followed.`;
  return err.message;
}

/**
 * Creates `real` (resolved, contained, not existing) with `bytes`, through one handle opened with
 * `O_CREAT | O_EXCL | O_NOFOLLOW`: nothing that appears at the name meanwhile (a file, a symlink,
 * dangling or not) is written through. The handle is verified inside `realRoots` before any byte
 * is written.
 * @returns the first folder made for it (`mkdir -p`'s first), or undefined when its folder was there.
 * @throws {PathNotAllowedError} when the file created is not inside the roots (it stays empty).
 * @throws the `EEXIST` error when the name appeared meanwhile; other I/O errors.
 */
export async function createNewFile(real: string, bytes: Uint8Array, realRoots: readonly string[]): Promise<string | undefined> {
  const createdDir = await fsp.mkdir(path.dirname(real), { recursive: true });
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
  const handle = await fsp.open(real, flags, 0o666);
  try {
    await assertOpenedWithin(handle.fd, await handle.stat(), real, realRoots);
    await handle.writeFile(bytes);
  } finally {
    await handle.close().catch(() => undefined);
  }
  return createdDir;
}


/**
 * Reading a file an agent named without letting the name decide what happens to the extension host.
 * A path from an agent can be `/dev/zero` (endless), a FIFO (an open that blocks a libuv thread until
 * a writer comes), a socket, a device, or a multi-gigabyte file. Every read of such a path goes
 * through {@link readRegularFile}: one handle opened without following a final symlink and without
 * blocking, `fstat` on that handle (so the type and size checked are those of the file read), regular
 * files only, and a byte cap. No `vscode`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Bytes read from one file at most, unless a caller asks for less (or more). 16 MiB. */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;

/** Why a file was not read. `missing`: no such file (ENOENT, ENOTDIR). */
export type UnreadableReason = 'missing' | 'not_regular' | 'too_large' | 'symlink' | 'error';

/** A file the safe reader refused or could not read; `reason` is machine-readable. */
export class UnreadableFileError extends Error {
  constructor(
    readonly filePath: string,
    readonly reason: UnreadableReason,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableFileError';
  }
}

/** What {@link readRegularFile} learned about the file it read. */
export interface RegularFile {
  bytes: Buffer;
  /** Hard links to the file (`st_nlink`); more than 1 means the same bytes live under another name too. */
  links: number;
  /** Modification time, ms since epoch. */
  mtimeMs: number;
}

/** Options of {@link readRegularFile}. */
export interface ReadOptions {
  /** Cap in bytes (default {@link DEFAULT_MAX_READ_BYTES}). */
  maxBytes?: number;
  /** Check of the opened handle before reading; what it throws is rethrown unchanged. */
  verify?: (fd: number, st: fs.Stats) => Promise<void>;
}

/** Carries an error thrown by `verify` past the errno mapping. */
class VerifyFailed {
  constructor(readonly cause: unknown) {}
}

// O_NOFOLLOW and O_NONBLOCK are POSIX; on Windows they are absent (0), where FIFOs and /dev files
// of this kind do not exist and symlinks need privileges to create.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads `absPath` if it is a regular file of at most `maxBytes` bytes, through one handle: opened
 * with `O_NOFOLLOW | O_NONBLOCK` (a final-component symlink is refused, a FIFO or device does not
 * block the open), then checked with `fstat` on that handle, then read. Callers resolve and contain
 * the path first (see `checkContained`); the final symlink refusal closes the gap between that
 * check and this open.
 * @param opts.maxBytes the cap in bytes (default {@link DEFAULT_MAX_READ_BYTES}).
 * @param opts.verify runs on the opened handle (descriptor and `fstat`) before any byte is read,
 *   e.g. to check that the file opened is still inside the workspace; what it throws is rethrown.
 * @throws {UnreadableFileError} `missing` when there is no such file; `symlink` when the final
 *   component is a symlink; `not_regular` for a directory, FIFO, socket or device; `too_large`
 *   beyond the cap (also when the file grows past it while read); `error` for other I/O errors.
 */
export async function readRegularFile(absPath: string, opts: ReadOptions = {}): Promise<RegularFile> {
  const max = opts.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(absPath, OPEN_FLAGS);
  } catch (err) {
    throw fromErrno(absPath, err);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new UnreadableFileError(absPath, 'not_regular', `${absPath} is not a regular file (${kindOf(st)}); it was not read.`);
    if (st.size > max) throw tooLarge(absPath, st.size, max);
    if (opts.verify) {
      try {
        await opts.verify(handle.fd, st);
      } catch (err) {
        throw new VerifyFailed(err);
      }
    }
    // Read at most max + 1 bytes: a file that grew past the cap after fstat is refused, not cut.
    const buf = Buffer.allocUnsafe(Math.min(st.size, max) + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > max) throw tooLarge(absPath, total, max);
      if (total === buf.length) break;
    }
    return { bytes: buf.subarray(0, total), links: st.nlink, mtimeMs: st.mtimeMs };
  } catch (err) {
    if (err instanceof VerifyFailed) throw err.cause;
    throw err instanceof UnreadableFileError ? err : fromErrno(absPath, err);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Like {@link readRegularFile}, but a missing file is `null` rather than an error.
 * @throws {UnreadableFileError} for every reason but `missing`.
 */
export async function readRegularFileOrNull(absPath: string, opts: ReadOptions = {}): Promise<RegularFile | null> {
  try {
    return await readRegularFile(absPath, opts);
  } catch (err) {
    if (err instanceof UnreadableFileError && err.reason === 'missing') return null;
    throw err;
  }
}

/**
 * `lstat` without following a final symlink; null when missing. For type checks where no content is
 * needed (a special file is refused before anything opens it).
 * @throws the I/O error for anything but ENOENT / ENOTDIR.
 */
export async function lstatOrNull(absPath: string): Promise<fs.Stats | null> {
  try {
    return await fsp.lstat(absPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

function tooLarge(p: string, size: number, max: number): UnreadableFileError {
  return new UnreadableFileError(p, 'too_large', `${p} is larger than ${max} bytes (${size}); it was not read.`);
}

function fromErrno(p: string, err: unknown): UnreadableFileError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new UnreadableFileError(p, 'missing', `${p} does not exist.`);
  // Linux answers ELOOP for O_NOFOLLOW on a symlink; the BSDs and macOS answer EMLINK or EFTYPE.
  if (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE') return new UnreadableFileError(p, 'symlink', `${p} is a symbolic link; it was not followed.`);
  if (code === 'EISDIR') return new UnreadableFileError(p, 'not_regular', `${p} is a directory; it was not read.`);
  // A FIFO opened for reading with O_NONBLOCK succeeds; ENXIO is a socket or a FIFO opened for writing.
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return new UnreadableFileError(p, 'not_regular', `${p} is not a regular file; it was not read.`);
  return new UnreadableFileError(p, 'error', `${p} could not be read: ${(err as Error)?.message ?? String(err)}`);
}

/** What kind of file `st` describes, in a few words for a refusal ("a FIFO", "a character device"). */
export function kindOf(st: fs.Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}

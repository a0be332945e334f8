/**
 * Workspace containment for agent file access: a path must be absolute and inside a workspace
 * folder, also after resolving symlinks. No `vscode`; uses `node:fs` for `realpath`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Why a path was refused. */
export class PathNotAllowedError extends Error {
  constructor(
    readonly requestedPath: string,
    reason: string,
  ) {
    super(`Refused "${requestedPath}": ${reason}`);
    this.name = 'PathNotAllowedError';
  }
}

/**
 * The sentence that refuses a relative path, naming it exactly as the agent sent it. ACP file paths
 * (`fs/*`, tool call locations, `terminal/create` cwd) are absolute by the schema; a relative one is
 * never resolved, least of all against the extension host's own working folder, which is no folder
 * of the person's.
 */
export function relativePathReason(requested: string): string {
  return `ACP requires absolute paths, and ${JSON.stringify(requested)} is relative; it was not resolved against any folder.`;
}

/**
 * @returns the refusal of `requested` when it is not an absolute path, else undefined.
 */
export function relativePathRefusal(requested: string): PathNotAllowedError | undefined {
  return path.isAbsolute(requested) ? undefined : new PathNotAllowedError(requested, relativePathReason(requested));
}

/**
 * True when `child` equals `root` or lies below it (both absolute and normalised). A relative
 * `child` is never within: it is not resolved against the process's working folder.
 */
export function isWithin(root: string, child: string): boolean {
  if (!path.isAbsolute(child)) return false;
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves the real path of `p`, or of its nearest existing ancestor joined with the rest, so that a
 * file about to be created is checked through the symlinks of its existing parents.
 * @throws {PathNotAllowedError} for a relative `p`.
 */
export async function realpathAllowMissing(p: string): Promise<string> {
  // realpath of a relative path starts from the process's working folder: never ours to use.
  const relative = relativePathRefusal(p);
  if (relative) throw relative;
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const real = await fs.realpath(cur);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * Checks that `requested` is absolute and inside one of `roots`, lexically and after resolving
 * symlinks. Returns the normalised (not the real) path, so editor documents are found by it.
 * @throws {PathNotAllowedError} for a relative path, a path outside every root, or a path that
 *   escapes a root through a symlink.
 */
export async function checkContained(requested: string, roots: readonly string[]): Promise<string> {
  const relative = relativePathRefusal(requested);
  if (relative) throw relative;
  const normal = path.normalize(requested);
  const root = roots.find((r) => isWithin(path.normalize(r), normal));
  if (!root) throw new PathNotAllowedError(requested, 'it is outside the workspace folders.');
  const realRoot = await realpathAllowMissing(path.normalize(root));
  const real = await realpathAllowMissing(normal);
  if (!isWithin(realRoot, real)) {
    throw new PathNotAllowedError(requested, `it resolves through a symlink to "${real}", outside the workspace folder.`);
  }
  return normal;
}

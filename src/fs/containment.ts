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

/** True when `child` equals `root` or lies below it (both absolute and normalised). */
export function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Resolves the real path of `p`, or of its nearest existing ancestor joined with the rest, so that a
 * file about to be created is checked through the symlinks of its existing parents.
 */
export async function realpathAllowMissing(p: string): Promise<string> {
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
  if (!path.isAbsolute(requested)) throw new PathNotAllowedError(requested, 'ACP file paths must be absolute.');
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

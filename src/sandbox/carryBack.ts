/**
 * What a sandboxed command changed, carried from its overlay (see `./overlay.ts`) into the real
 * folders once it has exited: every change except those to files that run. "Files that run" is the
 * gate's own list (`policy/protectedPaths.ts`: git's folders and files, editor and agent settings,
 * `node_modules`, virtual environments, package and build files, rc files…), matched at any depth
 * against the path inside the session folder, so the sandbox and the gate can never disagree.
 *
 * A change is carried back, held back (listed, never applied), or a conflict (the real file changed
 * while the command ran: it is left as it is, never overwritten). An empty file or folder that the
 * command never had to write (the mount points bubblewrap makes for what it keeps read-only) is
 * dropped without a word. vscode-free.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { protectedClass } from '../policy/protectedPaths';
import type { OverlayStage } from './overlay';

/** One change that was not carried back, and why. */
export interface HeldChange {
  /** Absolute path in the real folder. */
  path: string;
  /** Why, in a few words (the protected class's reason, or what made it a conflict). */
  why: string;
}

/** What {@link carryBack} did. */
export interface CarryBackReport {
  /** Absolute paths written, made or removed in the real folders. */
  applied: string[];
  /** Changes to files that run: not applied. */
  held: HeldChange[];
  /** Changes to files that changed in the real folder while the command ran: not applied. */
  conflicts: HeldChange[];
}

/** At most this many entries of a folder being removed are looked through for files that run; a larger one is held. */
const SUBTREE_LIMIT = 20_000;

type Change =
  | { kind: 'remove'; rel: string }
  | { kind: 'mkdir'; rel: string; mode: number }
  | { kind: 'file'; rel: string; source: string; mode: number }
  | { kind: 'link'; rel: string; target: string };

/**
 * Applies the stage's changes to its folders (see the module comment). Never throws for one
 * change: a change that cannot be applied is reported as a conflict with the reason.
 * @param isProtected the reason a root-relative `/` path is a file that runs, else undefined; by
 *   default the gate's classes.
 */
export function carryBack(stage: OverlayStage, isProtected: (rel: string) => string | undefined = runsWhy): CarryBackReport {
  const report: CarryBackReport = { applied: [], held: [], conflicts: [] };
  stage.layers.forEach((layer, i) => {
    const shown = readManifest(`${stage.manifest}.${i}`);
    const changes: Change[] = [];
    const links: Change[] = [];
    const hold = (rel: string, why: string) => report.held.push({ path: path.join(layer.root, rel), why });
    // Folders that a link already in the folder under the name of a file that runs leads to
    // (`node_modules -> nm`): what the command wrote there reached them through that name.
    let reached: { target: string; link: string }[] | undefined;
    const runsThroughLink = (rel: string): string | undefined => {
      reached ??= protectedLinkTargets(layer.root, isProtected);
      const hit = reached.find((r) => rel === r.target || rel.startsWith(`${r.target}/`));
      return hit && `reached through ${hit.link}, a link with the name of a file that runs`;
    };
    const removal = (rel: string): boolean => {
      const why = isProtected(asEntry(rel, lstatOrUndefined(path.join(layer.root, rel))?.isDirectory() === true)) ?? runsThroughLink(rel);
      const inside = why ? undefined : lookInside(layer.root, rel, isProtected, stage.startedAtMs);
      if (why ?? inside?.runs) hold(rel, (why ?? inside?.runs)!);
      else if (inside?.changed) report.conflicts.push({ path: path.join(layer.root, rel), why: `the command removed it, and ${inside.changed} changed in the folder while it ran; not removed` });
      else changes.push({ kind: 'remove', rel });
      return !(why ?? inside?.runs ?? inside?.changed);
    };
    const walk = (relDir: string, lowerIsDir: boolean) => {
      const upperDir = path.join(layer.upper, relDir);
      const names = fs.readdirSync(upperDir);
      // A folder the command removed and made again shows only what it put there since.
      const seen = lowerIsDir ? shown?.get(relDir === '' ? '' : `/${relDir}`) : undefined;
      if (seen) {
        for (const name of listOrEmpty(path.join(layer.root, relDir))) {
          if (!seen.has(name) && !names.includes(name)) removal(join(relDir, name));
        }
      }
      for (const name of names) {
        const rel = join(relDir, name);
        const up = fs.lstatSync(path.join(layer.upper, rel));
        const low = lstatOrUndefined(path.join(layer.root, rel));
        if (up.isCharacterDevice() && up.rdev === 0) {
          if (low) removal(rel);
          continue;
        }
        const why = isProtected(asEntry(rel, up.isDirectory()));
        if (why) {
          if (!low && isEmptyPlaceholder(path.join(layer.upper, rel), up)) continue;
          hold(rel, why);
          continue;
        }
        if (up.isDirectory()) {
          if (low?.isDirectory()) walk(rel, true);
          else {
            if (low && !removal(rel)) continue;
            changes.push({ kind: 'mkdir', rel, mode: up.mode & 0o777 });
            walk(rel, false);
          }
          continue;
        }
        const through = runsThroughLink(rel);
        if (through) {
          hold(rel, through);
          continue;
        }
        if (low?.isDirectory() && !removal(rel)) continue;
        if (up.isFile()) changes.push({ kind: 'file', rel, source: path.join(layer.upper, rel), mode: up.mode & 0o777 });
        else if (up.isSymbolicLink()) {
          // A link's target is judged by its words alone, and only a plain path down from the link's
          // folder passes: `..` is resolved by the kernel after links, so no text check of it holds.
          const target = fs.readlinkSync(path.join(layer.upper, rel));
          const parts = target.split('/');
          const lands = path.posix.join(path.posix.dirname(rel), target);
          if (path.isAbsolute(target) || parts.includes('..')) hold(rel, 'a link that leads up or out of its folder');
          else if (isProtected(lands) ?? runsThroughLink(lands)) hold(rel, 'a link to a file that runs');
          else links.push({ kind: 'link', rel, target });
        } else hold(rel, 'a special file (a pipe, socket or device)');
      }
    };
    walk('', true);
    // Links last: nothing is written through a link this carry-back made.
    for (const c of [...changes, ...links]) apply(layer.root, c, stage.startedAtMs, report);
  });
  return report;
}

/** The gate's reason a root-relative path is a file that runs, as the output says it. */
function runsWhy(rel: string): string | undefined {
  const c = protectedClass(rel);
  return c ? `a file that tools run: ${c.why}` : undefined;
}

/** Applies one change; a file changed in the real folder since the command started is a conflict. */
function apply(root: string, c: Change, startedAtMs: number, report: CarryBackReport): void {
  const dest = path.join(root, c.rel);
  try {
    const low = lstatOrUndefined(dest);
    if (low && !low.isDirectory() && low.mtimeMs > startedAtMs) {
      report.conflicts.push({ path: dest, why: 'it changed in the folder while the command ran; the command\'s version was not applied' });
      return;
    }
    if (c.kind === 'remove') fs.rmSync(dest, { recursive: true, force: true });
    else if (c.kind === 'mkdir') {
      if (!low?.isDirectory()) fs.mkdirSync(dest, { mode: c.mode });
    } else if (c.kind === 'link') {
      if (low) fs.rmSync(dest, { force: true });
      fs.symlinkSync(c.target, dest);
    } else {
      // The mode is set on the command's own copy, never through a name in the real folder.
      fs.chmodSync(c.source, c.mode);
      moveFile(c.source, dest);
    }
    report.applied.push(dest);
  } catch (err) {
    report.conflicts.push({ path: dest, why: `it could not be applied: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` });
  }
}

/**
 * Moves `from` over `to` in one step where both are on one file system (a rename replaces a link at
 * `to`, never follows it); else copies it to a new name of its own beside `to` (created exclusively:
 * a link planted at a guessable name is never followed) and renames that.
 */
function moveFile(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const tmp = path.join(path.dirname(to), `.${randomBytes(12).toString('hex')}.sandbox-carry`);
    fs.copyFileSync(from, tmp, fs.constants.COPYFILE_EXCL);
    try {
      fs.renameSync(tmp, to);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }
}

/**
 * What a folder about to be removed holds (looked through up to {@link SUBTREE_LIMIT} entries,
 * never following links): the reason one of its files runs, or the first entry that changed in the
 * real folder while the command ran (the person's save must not go with it).
 */
function lookInside(root: string, rel: string, isProtected: (rel: string) => string | undefined, startedAtMs: number): { runs?: string; changed?: string } | undefined {
  if (!lstatOrUndefined(path.join(root, rel))?.isDirectory()) return undefined;
  let seen = 0;
  const stack = [rel];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > SUBTREE_LIMIT) return { runs: `a folder too large to look through for files that run (over ${SUBTREE_LIMIT.toLocaleString('en')} entries)` };
      const child = `${dir}/${e.name}`;
      const why = isProtected(asEntry(child, e.isDirectory()));
      if (why) return { runs: `it holds ${child}: ${why}` };
      if ((lstatOrUndefined(path.join(root, child))?.mtimeMs ?? 0) > startedAtMs) return { changed: child };
      if (e.isDirectory()) stack.push(child);
    }
  }
  return undefined;
}

/**
 * The folders inside `root` that links already there lead to, where the link's own path names a
 * file that runs (`.venv -> envs/py`, `node_modules -> nm`): looked for four folders deep, at most
 * {@link SUBTREE_LIMIT} entries, never through a link. Root-relative `/` paths.
 */
function protectedLinkTargets(root: string, isProtected: (rel: string) => string | undefined): { target: string; link: string }[] {
  const out: { target: string; link: string }[] = [];
  let seen = 0;
  const queue: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (queue.length && seen < SUBTREE_LIMIT) {
    const { rel, depth } = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > SUBTREE_LIMIT) break;
      const child = join(rel, e.name);
      if (e.isSymbolicLink() && isProtected(child)) {
        try {
          const target = path.relative(root, fs.realpathSync(path.join(root, child)));
          if (target !== '' && !target.startsWith('..') && !path.isAbsolute(target)) out.push({ target: target.split(path.sep).join('/'), link: child });
        } catch {
          /* a dangling link leads nowhere */
        }
      } else if (e.isDirectory() && depth < 3 && !isProtected(asEntry(child, true))) queue.push({ rel: child, depth: depth + 1 });
    }
  }
  return out;
}

/** For each folder in the listing (`''` for the root, else `/a/b`), the names the overlay showed in it when the command ended; undefined when there is no listing (the shell was killed). */
function readManifest(file: string): Map<string, Set<string>> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const out = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const token of text.split('\0')) {
    if (token.startsWith('D')) out.set(token.slice(1), (current = new Set()));
    else if (token.startsWith('E')) current?.add(token.slice(1));
  }
  return out;
}

function isEmptyPlaceholder(abs: string, st: fs.Stats): boolean {
  if (st.isFile()) return st.size === 0;
  if (st.isDirectory()) return listOrEmpty(abs).length === 0;
  return false;
}

function listOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * A path as the protected classes are asked about it: a folder with a trailing `/`, so only the
 * classes of folders match it (a folder called `build` or `workspace` is not Bazel's BUILD file).
 */
function asEntry(rel: string, isDir: boolean): string {
  return isDir ? `${rel}/` : rel;
}

function join(relDir: string, name: string): string {
  return relDir === '' ? name : `${relDir}/${name}`;
}

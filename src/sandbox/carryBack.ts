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
    const hold = (rel: string, why: string) => report.held.push({ path: path.join(layer.root, rel), why });
    const removal = (rel: string): boolean => {
      const why = isProtected(rel) ?? protectedInside(layer.root, rel, isProtected);
      if (why) hold(rel, why);
      else changes.push({ kind: 'remove', rel });
      return !why;
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
        const why = isProtected(rel);
        if (why) {
          if (!low && isEmptyPlaceholder(path.join(layer.upper, rel), up)) continue;
          hold(rel, why);
          continue;
        }
        if (up.isDirectory()) {
          if (low?.isDirectory()) walk(rel, true);
          else {
            if (low && !removal(rel)) continue;
            changes.push({ kind: 'mkdir', rel, mode: up.mode & 0o7777 });
            walk(rel, false);
          }
          continue;
        }
        if (low?.isDirectory() && !removal(rel)) continue;
        if (up.isFile()) changes.push({ kind: 'file', rel, source: path.join(layer.upper, rel), mode: up.mode & 0o7777 });
        else if (up.isSymbolicLink()) {
          const target = fs.readlinkSync(path.join(layer.upper, rel));
          const lands = path.isAbsolute(target) ? target : path.join(path.dirname(path.join(layer.root, rel)), target);
          const inside = path.relative(layer.root, lands);
          if (path.isAbsolute(target) || inside.startsWith('..') || path.isAbsolute(inside)) hold(rel, 'a link that leads out of the folder');
          else if (isProtected(inside.split(path.sep).join('/'))) hold(rel, 'a link to a file that runs');
          else changes.push({ kind: 'link', rel, target });
        } else hold(rel, 'a special file (a pipe, socket or device)');
      }
    };
    walk('', true);
    for (const c of changes) apply(layer.root, c, stage.startedAtMs, report);
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
      moveFile(c.source, dest);
      fs.chmodSync(dest, c.mode);
    }
    report.applied.push(dest);
  } catch (err) {
    report.conflicts.push({ path: dest, why: `it could not be applied: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` });
  }
}

/** Moves `from` over `to` in one step where both are on one file system, else copies it to a temporary name beside `to` and renames that. */
function moveFile(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const tmp = path.join(path.dirname(to), `.${path.basename(to)}.sandbox-${process.pid}`);
    fs.copyFileSync(from, tmp);
    fs.renameSync(tmp, to);
  }
}

/** The reason a folder about to be removed holds a file that runs (looked for up to {@link SUBTREE_LIMIT} entries). */
function protectedInside(root: string, rel: string, isProtected: (rel: string) => string | undefined): string | undefined {
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
      if (++seen > SUBTREE_LIMIT) return `a folder too large to look through for files that run (over ${SUBTREE_LIMIT.toLocaleString('en')} entries)`;
      const child = `${dir}/${e.name}`;
      const why = isProtected(child);
      if (why) return `it holds ${child}: ${why}`;
      if (e.isDirectory()) stack.push(child);
    }
  }
  return undefined;
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

function join(relDir: string, name: string): string {
  return relDir === '' ? name : `${relDir}/${name}`;
}

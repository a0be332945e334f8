/**
 * Writes held in a layer of their own: a sandboxed command sees its session's folders through a
 * copy-on-write overlay (the kernel's overlayfs, mounted in a user and mount namespace of the
 * command's own), so nothing it writes reaches the real folders while it runs. When it has exited,
 * {@link carryBack} (./carryBack.ts) applies what it changed, except what the gate's own list of
 * files that run (`policy/protectedPaths.ts`) names, at any depth: a new `x/.git`, a rewritten
 * `.venv/bin/python`, anything under `node_modules`. Those are held back and listed, so the editor,
 * git and extensions never find a file that runs which the person did not approve.
 *
 * bubblewrap binds names, not patterns, and names that do not exist yet cannot be bound at all;
 * the overlay is what makes "at any depth, including what does not exist yet" hold. bubblewrap
 * 0.8 (Debian 12) has no overlay option of its own, so the layer is mounted by a small POSIX shell
 * run under `unshare` around the library's own bubblewrap command; `--bind` in bubblewrap is
 * recursive, so the overlay is what the command's write roots show.
 *
 * vscode-free; the file system only where a stage is made or removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isWithin } from '../fs/containment';
import { shellQuote } from './shellQuote';

/** One folder seen through an overlay: the folder, and where its changes are kept until carried back. */
export interface OverlayLayer {
  /** The session folder (absolute, links resolved): the overlay's lower layer and its mount point. */
  root: string;
  /** Where the command's changes to `root` land (the overlay's upper layer). */
  upper: string;
  /** The overlay's work folder (same file system as `upper`). */
  work: string;
}

/** The private folder of one sandboxed command's overlays, and what its last step writes there. */
export interface OverlayStage {
  /** The stage folder: outside every folder the command may write (see `stageBase` in ./runtime.ts), so it cannot add to what is carried back. */
  dir: string;
  layers: OverlayLayer[];
  /** The listing the last step writes: for each folder the command changed, what it then held. */
  manifest: string;
  /** When the stage was made (ms since the epoch): a real file changed after it was changed by someone else. */
  startedAtMs: number;
  /**
   * Unix sockets inside a layer that the command is handed (the sandbox's own network bridge in the
   * temp folder): a socket seen through an overlay cannot be connected to, so each is bound over
   * the overlay from the real folder.
   */
  sockets?: string[];
}

/**
 * The Unix sockets in the layers that the library's bubblewrap command binds into the sandbox
 * (`--bind <socket> <socket>`): see {@link OverlayStage.sockets}.
 */
export function boundSockets(inner: readonly string[], layers: readonly string[], isSocket: (p: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of (inner[2] ?? '').matchAll(/--(?:ro-)?bind (\/[^\s'"]+) (\/[^\s'"]+)/g)) {
    if (m[1] === m[2] && layers.some((l) => isWithin(l, m[1]) && l !== m[1]) && isSocket(m[1])) out.add(m[1]);
  }
  return [...out];
}

/**
 * The folders a command's overlay covers: the session's folders, and the temp folder too where a
 * session folder lies inside it or there is none (a workspace in the temp folder: the folders above
 * it, which tools search upwards for their settings — `eslint.config.js`, `.git` —, are written
 * through the overlay as well; a window without a folder writes only there).
 * @param writeRoots the profile's write roots; `tmpDir` the temp folder among them.
 */
export function overlayLayersFor(writeRoots: readonly string[], tmpDir: string): string[] {
  const session = writeRoots.filter((r) => r !== tmpDir);
  const withTmp = session.length === 0 || session.some((r) => isWithin(tmpDir, r));
  return overlayRoots(withTmp ? [...session, tmpDir] : session);
}

/**
 * The folders to overlay: without one that lies inside another (the outer overlay already covers
 * it), without `/` (a whole file system cannot be its own lower layer with a stage on it).
 */
export function overlayRoots(roots: readonly string[]): string[] {
  const abs = [...new Set(roots.filter((r) => path.isAbsolute(r) && path.parse(r).root !== r))].sort((a, b) => a.length - b.length);
  return abs.filter((r, i) => !abs.slice(0, i).some((outer) => isWithin(outer, r)));
}

/**
 * Makes the stage of one command under `base` (a folder that is in no overlaid root: the kernel
 * refuses overlapping layers).
 * @throws Error when `base` lies inside one of the roots, or a folder cannot be made.
 */
export function makeStage(base: string, roots: readonly string[], now = Date.now()): OverlayStage {
  const layersOf = overlayRoots(roots);
  if (!layersOf.length) throw new Error('the sandbox has no folder to hold a command\'s changes in');
  if (layersOf.some((r) => isWithin(r, base))) throw new Error(`the sandbox's stage folder ${base} lies inside a session folder`);
  const odd = [base, ...layersOf].find((p) => !overlayablePath(p));
  if (odd !== undefined) throw new Error(`the folder ${JSON.stringify(odd)} has a character a mount option cannot hold`);
  fs.mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = fs.mkdtempSync(path.join(base, `sbx-${process.pid}-`));
  const layers = layersOf.map((root, i) => {
    const upper = path.join(dir, `u${i}`);
    const work = path.join(dir, `w${i}`);
    fs.mkdirSync(upper);
    fs.mkdirSync(work);
    return { root, upper, work };
  });
  return { dir, layers, manifest: path.join(dir, 'manifest'), startedAtMs: now };
}

/**
 * Removes the stages under `base` left by extension hosts that are gone (killed while a command
 * ran): a stage's name carries the process id of the host that made it. Never throws.
 */
export function removeOrphanStages(base: string, alive: (pid: number) => boolean = processAlive): void {
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^sbx-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    const dir = path.join(base, name);
    const layers = listOr(dir).filter((n) => /^w\d+$/.test(n)).map((w) => ({ root: '', upper: '', work: path.join(dir, w) }));
    try {
      removeStage({ dir, layers, manifest: '', startedAtMs: 0 });
    } catch {
      /* another host removes it */
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function listOr(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Removes a stage and all it holds (what was held back goes with it). Never throws. */
export function removeStage(stage: OverlayStage): void {
  // overlayfs leaves its work folder without permissions for anyone; make it removable first.
  for (const l of stage.layers) {
    for (const sub of ['work', 'index']) {
      try {
        fs.chmodSync(path.join(l.work, sub), 0o700);
      } catch {
        /* not made */
      }
    }
  }
  try {
    fs.rmSync(stage.dir, { recursive: true, force: true });
  } catch {
    /* left for removeOrphanStages */
  }
}

/**
 * The shell that mounts the overlays (`volatile`: what is held there is never synced to disk, and
 * a stage is mounted once), runs the command (its arguments) and, once
 * it has ended, lists each folder the command changed as the overlay showed it (so a folder it
 * removed and made again, whose old entries the overlay hides, is carried back as the command left
 * it). A TERM, INT or HUP sent to the process group ends the command but not this shell, which
 * still writes the listing; the command's own signal handling is unchanged (a trap's handler is not
 * inherited). Every path is a quoted literal.
 */
export function overlayScript(stage: OverlayStage): string {
  const q = shellQuote;
  const lines = ['set -u'];
  const sockets = stage.sockets ?? [];
  // Each socket is held by a bind in the stage before the overlay hides the real one.
  sockets.forEach((sock, i) => lines.push(`: > ${q(`${stage.dir}/sock${i}`)} && mount --bind ${q(sock)} ${q(`${stage.dir}/sock${i}`)} || exit 125`));
  for (const l of stage.layers) {
    lines.push(`mount -t overlay overlay -o ${q(`lowerdir=${l.root},upperdir=${l.upper},workdir=${l.work},userxattr,volatile`)} ${q(l.root)} || { echo ${q(`sandbox: the overlay of ${l.root} could not be mounted`)} >&2; exit 125; }`);
  }
  sockets.forEach((sock, i) => lines.push(`mount --bind ${q(`${stage.dir}/sock${i}`)} ${q(sock)} || exit 125`));
  lines.push("trap ':' TERM INT HUP", '"$@"', 'rc=$?');
  stage.layers.forEach((l, i) => {
    // For each changed folder: `D<path>\0`, then `E<name>\0` for each entry the overlay showed.
    lines.push(`U=${q(l.upper)} R=${q(l.root)} find ${q(l.upper)} -type d -exec sh -c ${q(LIST_DIRS)} sh {} + > ${q(`${stage.manifest}.${i}`)} || exit 125`);
  });
  lines.push('exit "$rc"');
  return lines.join('\n');
}

const LIST_DIRS = 'for d; do rel=${d#"$U"}; printf "D%s\\0" "$rel"; find "$R$rel" -mindepth 1 -maxdepth 1 -printf "E%f\\0" 2>/dev/null; done';

/**
 * Whether a folder can be a layer: a mount option is split at `,`, layers at `:`, and `\\` escapes;
 * a path with one of them (or a line break, which the listing cannot carry) is not overlaid.
 */
export function overlayablePath(p: string): boolean {
  return path.isAbsolute(p) && !/[,:\\\n\r]/.test(p);
}

/**
 * The command line that runs `inner` (the library's bubblewrap command, `[shell, '-c', script]`)
 * with the stage's overlays in place. `unshare` is found by the caller (an absolute path, never a
 * PATH lookup in an agent's folder).
 */
export function overlayArgv(unsharePath: string, stage: OverlayStage, inner: readonly string[]): string[] {
  return [unsharePath, '--user', '--map-root-user', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', overlayScript(stage), 'sandbox-overlay', ...inner];
}

/**
 * The library's bubblewrap command made to run the command as the person's own user and group
 * inside (`--uid`/`--gid`): the overlay's namespace maps the person to root, and a command must not
 * see itself as root where it is not. Undefined when the command does not have the shape this
 * relies on (a user namespace of bubblewrap's own): the overlay is then not used.
 */
export function asPersonInside(inner: readonly string[], uid: number, gid: number): string[] | undefined {
  if (inner.length !== 3 || inner[1] !== '-c') return undefined;
  const script = inner[2];
  const at = script.indexOf(' --unshare-user ');
  if (at < 0 || script.indexOf(' -- ') < at) return undefined;
  if (uid === 0 && gid === 0) return [...inner];
  const flag = ' --unshare-user ';
  return [inner[0], inner[1], `${script.slice(0, at)}${flag}--uid ${uid} --gid ${gid} ${script.slice(at + flag.length)}`];
}

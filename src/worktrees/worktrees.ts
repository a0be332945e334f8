/**
 * Sessions in worktrees of their own (issue 20): a git worktree per session, outside the workspace
 * folder, on a branch of its own, from HEAD or from HEAD plus the uncommitted changes of tracked
 * files. The record of each worktree is kept in the extension's storage, so a worktree with changes
 * nobody applied survives the window; only the person's Discard removes one (and its branch).
 *
 * Everything goes through the `git` command line (a {@link GitRunner}: VS Code's Git extension API
 * offers no worktrees). No `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { GitError, NO_PROGRAMS, type GitRunner } from './gitCli';
import { checkContained } from '../fs/containment';
import { readRegularFileOrNull, UnreadableFileError } from '../fs/safeRead';
import { decodeFile } from '../edits/encoding';

/** Where a worktree starts: HEAD, or HEAD plus the uncommitted changes of tracked files (`git stash create`). */
export type WorktreeFrom = 'head' | 'head+changes';

/** One worktree made for a session. */
export interface WorktreeRecord {
  id: string;
  /** The repository's top folder (the main working tree). */
  repo: string;
  /** The worktree's folder (outside the workspace). */
  dir: string;
  /** The session's folder inside it: `dir` plus where the person's folder sits in the repository. */
  cwd: string;
  branch: string;
  /** The commit it started from (for `head+changes`, the commit `git stash create` made of them). */
  base: string;
  from: WorktreeFrom;
  agentId: string;
  createdAt: number;
  /** `active` until applied, committed or discarded (an applied one may be applied again after more work). */
  state: 'active' | 'applied' | 'committed' | 'discarded';
  /** The session that works in it, while one does. */
  sessionKey?: string;
  /**
   * The worktree's own git folder (`<repo>/.git/worktrees/<name>`), read once when it was made. Every
   * git command on the worktree names it (with `--work-tree`), so the worktree's `.git` file, which
   * its agent can rewrite, never chooses which repository or configuration git reads.
   */
  gitDir?: string;
  /** When the record last changed (ms): two windows' records are merged by it. */
  updatedAt?: number;
}

const RecordSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{8}$/),
  repo: z.string().min(1).max(4096),
  dir: z.string().min(1).max(4096),
  cwd: z.string().min(1).max(4096),
  branch: z.string().min(1).max(300),
  base: z.string().regex(/^[0-9a-f]{40,64}$/),
  from: z.enum(['head', 'head+changes']),
  agentId: z.string().max(200),
  createdAt: z.number(),
  state: z.enum(['active', 'applied', 'committed', 'discarded']),
  sessionKey: z.string().max(100).optional(),
  gitDir: z.string().min(1).max(4096).optional(),
  updatedAt: z.number().optional(),
});

/** A file that differs between a worktree's base and its working tree. */
export interface ChangedFile {
  /** Path relative to the repository, `/` separators. */
  rel: string;
  /** Its bytes at the base commit; null when the worktree added it. */
  before: Buffer | null;
  /** Its bytes in the worktree now; null when the worktree deleted it. */
  after: Buffer | null;
  /**
   * Why the worktree's version is not an ordinary file that may be carried over: a symlink, a FIFO or
   * another special file, one that leads outside the worktree, or one too large to read. Such a file
   * is never applied (its `after` is null then).
   */
  special?: string;
}

/** Whether a worktree can be made for a folder: its repository's top and HEAD commit, or why not. */
export type WorktreeCheck = { ok: true; repo: string; head: string } | { ok: false; reason: string };

/** The worktrees of this window's repositories. */
export class Worktrees {
  private records: WorktreeRecord[];

  /**
   * @param git runs git (see `gitCli.ts`)
   * @param storage the folder worktrees are made in and their records kept (the extension's storage)
   */
  constructor(
    private readonly git: GitRunner,
    private readonly storage: string,
    private readonly now: () => number = Date.now,
  ) {
    this.records = readRecords(path.join(storage, 'worktrees.json'));
  }

  /** Every worktree still on disk (not discarded), newest first; other windows' records included. */
  list(): WorktreeRecord[] {
    this.sync();
    return this.records.filter((r) => r.state !== 'discarded').sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The record of worktree `id`. */
  get(id: string): WorktreeRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  /**
   * Can `cwd` get a worktree? Not outside a git repository, nor in one without a commit; refused,
   * each with its reason, where a new worktree would not hold what the folder holds: submodules (not
   * checked out in a new worktree), Git LFS files (pointers only), a sparse checkout.
   */
  async check(cwd: string): Promise<WorktreeCheck> {
    // The folder's repository and its HEAD commit in one git run (each run of git is ~10 ms; making
    // a worktree was 1.4× `git worktree add` alone with a run for each question). `--` keeps a file
    // named like the revision from being read as one; git prints it back last.
    let repo: string;
    let head: string;
    try {
      // Read from the end: the folder's path is printed raw and may itself hold a newline.
      const lines = (await this.git.run([...SAFE, 'rev-parse', '--show-toplevel', 'HEAD^{commit}', '--'], cwd)).replace(/\n$/, '').split('\n');
      if (lines.at(-1) === '--') lines.pop();
      head = lines.pop() ?? '';
      repo = lines.join('\n');
      if (!/^[0-9a-f]{40,64}$/.test(head) || !repo) throw new Error(`git rev-parse answered what it should not: ${JSON.stringify(lines)}`);
    } catch {
      // Which of the two it was, asked only now that one failed.
      const inRepo = await this.git.run([...SAFE, 'rev-parse', '--show-toplevel'], cwd).then(() => true, () => false);
      return inRepo ? { ok: false, reason: 'the repository has no commit yet: a worktree starts from one' } : { ok: false, reason: `${cwd} is not in a git repository: a worktree needs one (run git init, or start the session in this folder)` };
    }
    if (fs.existsSync(path.join(repo, '.gitmodules'))) return { ok: false, reason: 'the repository has submodules, which a new worktree would not have checked out' };
    const [sparse, lfs] = await Promise.all([
      this.git.run([...SAFE, 'config', '--get', 'core.sparseCheckout'], repo).catch(() => ''),
      this.git.run([...SAFE, 'grep', '-l', '-I', '-e', 'filter=lfs', 'HEAD', '--', '.gitattributes', '*/.gitattributes'], repo).catch(() => ''),
    ]);
    if (sparse.trim() === 'true') return { ok: false, reason: 'the repository uses a sparse checkout, which a new worktree would not share' };
    if (lfs.trim()) return { ok: false, reason: 'the repository keeps files in Git LFS, which a new worktree would hold only as pointers' };
    return { ok: true, repo: path.normalize(repo), head };
  }

  /**
   * Makes a worktree for a session of `agentId` started in `cwd`, on a new branch
   * `switchboard/<agent>-<id>`, in this extension's storage.
   * @throws Error with the reason when {@link check} refuses, or git's own error.
   */
  async create(cwd: string, agentId: string, from: WorktreeFrom): Promise<WorktreeRecord> {
    const checked = await this.check(cwd);
    if (!checked.ok) throw new Error(`No worktree: ${checked.reason}.`);
    const { repo, head } = checked;
    // The uncommitted changes of tracked files, as a commit that is on no branch (the stash list is untouched).
    const stash = from === 'head+changes' ? (await this.git.run([...SAFE, 'stash', 'create', 'Agent Switchboard: the uncommitted changes a worktree starts from'], repo)).trim() : '';
    const base = stash || head;
    const id = randomBytes(4).toString('hex');
    const branch = `switchboard/${slug(agentId)}-${id}`;
    const dir = path.join(this.storage, 'worktrees', `${slug(path.basename(repo))}-${id}`);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    await this.git.run([...SAFE, 'worktree', 'add', '-b', branch, dir, base], repo);
    // Read now, before any agent has touched the worktree's `.git` file.
    const gitDir = path.normalize((await this.git.run([...SAFE, 'rev-parse', '--absolute-git-dir'], dir)).trim());
    const inside = path.relative(fs.realpathSync(repo), fs.realpathSync(cwd));
    const record: WorktreeRecord = { id, repo, dir, cwd: inside && !inside.startsWith('..') ? path.join(dir, inside) : dir, branch, base, from, agentId, createdAt: this.now(), state: 'active', gitDir, updatedAt: this.now() };
    this.records.push(record);
    this.save();
    return record;
  }

  /** Notes which session works in worktree `id` (or none). */
  attach(id: string, sessionKey: string | undefined): void {
    const r = this.get(id);
    if (!r) return;
    r.sessionKey = sessionKey;
    this.touch(r);
  }

  /** Marks worktree `id` applied or committed (it stays on disk: only Discard removes it). */
  mark(id: string, state: 'applied' | 'committed'): void {
    const r = this.get(id);
    if (!r || r.state === 'discarded') return;
    r.state = state;
    this.touch(r);
  }

  /**
   * What the worktree changed against its base: tracked files modified, added or deleted, and new
   * files git does not ignore. Paths in the repository, with both sides' bytes.
   */
  async changes(id: string): Promise<ChangedFile[]> {
    const r = this.must(id);
    const tree = this.tree(r);
    // Only the part of the repository the person opened: the rest is not theirs to bring back here.
    const scope = folderScope(r);
    const tracked = await this.git.run([...tree, 'diff', '--name-status', '-z', '--no-renames', r.base, '--', scope], r.dir);
    const parts = tracked.split('\0').filter(Boolean);
    const names = new Map<string, string>();
    for (let i = 0; i + 1 < parts.length; i += 2) names.set(parts[i + 1], parts[i]);
    for (const rel of (await this.git.run([...tree, 'ls-files', '--others', '--exclude-standard', '-z', '--', scope], r.dir)).split('\0').filter(Boolean)) names.set(rel, 'A');
    const out: ChangedFile[] = [];
    for (const [rel, status] of [...names].sort(([a], [b]) => a.localeCompare(b))) {
      const before = status === 'A' ? null : await this.show(r, rel);
      const read = status === 'D' ? { bytes: null } : await readInside(r.dir, rel);
      if ('special' in read) {
        out.push({ rel, before, after: null, special: read.special });
        continue;
      }
      if (before && read.bytes && before.equals(read.bytes)) continue;
      out.push({ rel, before, after: read.bytes });
    }
    return out;
  }

  /**
   * Commits everything the worktree changed on its branch (`git add -A`, then `git commit`). A
   * repository without an author configured commits as "Agent Switchboard".
   * @returns the new commit's hash.
   * @throws GitError when git refuses (nothing to commit, a hook).
   */
  async commit(id: string, message: string): Promise<string> {
    const r = this.must(id);
    const tree = this.tree(r);
    await this.git.run([...tree, 'add', '-A', '--', folderScope(r)], r.dir);
    const email = (await this.git.run([...tree, 'config', '--get', 'user.email'], r.dir).catch(() => '')).trim();
    const who = email ? [] : ['-c', 'user.name=Agent Switchboard', '-c', 'user.email=agent-switchboard@localhost'];
    await this.git.run([...tree, ...who, 'commit', '--no-verify', '-m', message], r.dir);
    this.mark(id, 'committed');
    return (await this.git.run([...tree, 'rev-parse', 'HEAD'], r.dir)).trim();
  }

  /**
   * What Discard would lose: the files changed against the base, and the commits on the branch
   * that no other branch holds.
   */
  async losses(id: string): Promise<{ files: string[]; commits: number }> {
    const r = this.must(id);
    const files = (await this.changes(id).catch(() => [])).map((f) => f.rel);
    const count = await this.git.run([...SAFE, 'rev-list', '--count', r.branch, '--not', '--exclude', r.branch, '--branches'], r.repo).catch(() => '0');
    return { files, commits: Number(count.trim()) || 0 };
  }

  /**
   * Removes the worktree's folder and deletes its branch. Called only on the person's Discard.
   * @throws GitError when git refuses; the record stays, so nothing is forgotten half done.
   */
  async discard(id: string): Promise<void> {
    const r = this.must(id);
    if (fs.existsSync(r.dir)) await this.git.run([...SAFE, 'worktree', 'remove', '--force', r.dir], r.repo);
    else forgetAdminFolder(r);
    await this.git.run([...SAFE, 'branch', '-D', r.branch], r.repo).catch((err: unknown) => {
      // A branch already gone is what Discard wants.
      if (!(err instanceof GitError) || !/not found/.test(err.stderr)) throw err;
    });
    r.state = 'discarded';
    r.sessionKey = undefined;
    this.touch(r);
  }

  /**
   * The text of `rel` at worktree `id`'s base commit, decoded as the editor decodes the file (its
   * BOM, else `encoding`, else UTF-8); null when it was not there.
   * @throws {UndecodableError} when it is not text in that encoding.
   */
  async baseText(id: string, rel: string, encoding?: string): Promise<string | null> {
    const b = await this.show(this.must(id), rel);
    return b === null ? null : decodeFile(b, encoding).text;
  }

  private async show(r: WorktreeRecord, rel: string): Promise<Buffer | null> {
    try {
      return await this.git.bytes([...SAFE, 'show', `${r.base}:${rel}`], r.repo);
    } catch {
      return null;
    }
  }

  private must(id: string): WorktreeRecord {
    const r = this.get(id);
    if (!r || r.state === 'discarded') throw new Error(`No worktree "${id}".`);
    return r;
  }

  /**
   * The options that pin a git command to worktree `r`: its own git folder and working tree (never
   * what its `.git` file says now), with the fsmonitor and hooks off, so nothing the agent wrote in
   * the worktree runs when we read or commit it.
   * @throws Error when the worktree's git folder cannot be established (a record from before it was kept, whose `.git` points elsewhere).
   */
  private tree(r: WorktreeRecord): string[] {
    const gitDir = r.gitDir ?? legacyGitDir(r);
    if (!gitDir) throw new Error(`The git folder of worktree ${r.branch} could not be established safely; discard it and start a new one.`);
    return [...SAFE, `--git-dir=${gitDir}`, `--work-tree=${r.dir}`];
  }

  /** Notes that `r` changed now and writes the records. */
  private touch(r: WorktreeRecord): void {
    r.updatedAt = this.now();
    this.save();
  }

  /**
   * Takes in what other windows wrote: a record this window does not have, or one they changed later
   * than this window did. Two windows each making a worktree keep both.
   */
  private sync(): void {
    const byId = new Map(this.records.map((r) => [r.id, r]));
    for (const d of readRecords(path.join(this.storage, 'worktrees.json'))) {
      const mine = byId.get(d.id);
      if (!mine) this.records.push(d);
      else if ((d.updatedAt ?? d.createdAt) > (mine.updatedAt ?? mine.createdAt)) Object.assign(mine, d);
    }
  }

  private save(): void {
    this.sync();
    fs.mkdirSync(this.storage, { recursive: true });
    const file = path.join(this.storage, 'worktrees.json');
    const tmp = `${file}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ v: 1, worktrees: this.records }, null, 1));
    fs.renameSync(tmp, file);
  }
}

/**
 * A file of the worktree as it is now, read only if it is an ordinary file inside the worktree: the
 * agent chose the name, so a symlink (to `~/.ssh/…`), a FIFO, a device or a path through a linked
 * folder is named, never followed or opened. Null bytes for a file that is not there.
 */
async function readInside(dir: string, rel: string): Promise<{ bytes: Buffer | null } | { special: string }> {
  const abs = path.join(dir, rel);
  try {
    await checkContained(abs, [dir]);
  } catch {
    return { special: 'it leads outside the worktree (through a symlink)' };
  }
  try {
    const f = await readRegularFileOrNull(abs, { maxBytes: 64 * 1024 * 1024 });
    return { bytes: f ? f.bytes : null };
  } catch (err) {
    if (err instanceof UnreadableFileError) return { special: err.reason === 'symlink' ? 'it is a symlink in the worktree' : err.reason === 'too_large' ? 'it is larger than 64 MiB' : 'it is not a regular file' };
    throw err;
  }
}

/** The worktree records kept in `storage` (no git needed: the board reads them at start-up). */
export function storedWorktrees(storage: string): WorktreeRecord[] {
  return readRecords(path.join(storage, 'worktrees.json')).filter((r) => r.state !== 'discarded').sort((a, b) => b.createdAt - a.createdAt);
}

function readRecords(file: string): WorktreeRecord[] {
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { worktrees?: unknown[] };
    return (raw.worktrees ?? []).flatMap((r) => {
      const p = RecordSchema.safeParse(r);
      return p.success ? [p.data] : [];
    });
  } catch {
    return [];
  }
}

/**
 * Options on every git command of ours: no fsmonitor program and no hooks (a repository's or a
 * worktree's configuration must not make reading or committing run something). The runner puts them
 * on every command too ({@link NO_PROGRAMS}); they are named here as well so that a {@link GitRunner}
 * of another making cannot drop them from the commands that act on a worktree.
 */
const SAFE: readonly string[] = NO_PROGRAMS;

/** The pathspec of the person's folder inside the worktree (`:/` for the whole repository, when they opened its top). */
function folderScope(r: WorktreeRecord): string {
  const rel = path.relative(r.dir, r.cwd).split(path.sep).join('/');
  return rel && !rel.startsWith('..') ? `:(top,literal)${rel}` : ':/';
}

/** A record made before `gitDir` was kept: `<repo>/.git/worktrees/<name>` when that folder names this worktree back. */
function legacyGitDir(r: WorktreeRecord): string | undefined {
  const candidate = path.join(r.repo, '.git', 'worktrees', path.basename(r.dir));
  try {
    const back = fs.readFileSync(path.join(candidate, 'gitdir'), 'utf8').trim();
    return path.resolve(back) === path.join(r.dir, '.git') ? candidate : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The worktree's folder is already gone: only its own bookkeeping in the repository is removed (not
 * `git worktree prune`, which would also forget the person's worktrees on a drive that is away).
 */
function forgetAdminFolder(r: WorktreeRecord): void {
  const admin = r.gitDir ?? legacyGitDir(r);
  if (!admin) return;
  try {
    const back = fs.readFileSync(path.join(admin, 'gitdir'), 'utf8').trim();
    if (path.resolve(back) !== path.join(r.dir, '.git')) return;
  } catch {
    return;
  }
  fs.rmSync(admin, { recursive: true, force: true });
}

/** A branch- and folder-safe word from a name: letters, digits and `-`, at most 40 characters. */
export function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'agent';
}

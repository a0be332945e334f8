/**
 * Baselines for agents that write to disk themselves (claude-agent-acp since 0.18, codex-acp): they
 * announce an edit, delete or move as a tool call (ACP `tool_call`, kinds `edit`/`delete`/`move`,
 * with `locations` and `diff` content) and then change the file without `fs/write_text_file`.
 * When such a call is announced, we snapshot each workspace file it names; when the call ends (or
 * the file changes on disk while it runs) the difference from the snapshot becomes a reviewable
 * change, attributed to the agent. A file changed while no agent call names it is someone else's.
 *
 * What a baseline may be: only what we read from disk ourselves. The agent's diff (`oldText`) is
 * its claim and never becomes a base, so Undo cannot be made to write text the agent chose; it only
 * confirms or contradicts what we read. A base is certain when the read was stable (the same file,
 * size and times before and after it) and one of: the agent's diff shows exactly the text we read
 * (two independent sources agree), the file holds exactly what our review last saw it left at, or
 * the file (or, for a missing one, its folder) last changed before the turn began. Every other
 * snapshot is uncertain and Undo refuses to write it (see `Base.uncertain`): one that changed after
 * the turn began, a read during which it changed (a rename over it, a write into it), a change event
 * before the read finished, an empty read (a file being rewritten reads empty), a diff that
 * contradicts the read (text the file did not hold; "created" for a file that was there, or the
 * reverse), and a file we could not snapshot (not text in its encoding, too large, over the
 * session's budget) — that one is still listed, so the person sees that it changed.
 *
 * Bounded: paths outside the workspace folders are not read; at most {@link MAX_PATHS_PER_CALL}
 * files per call and {@link MAX_PATHS_PER_TURN} per session and turn are snapshotted, each at most
 * {@link MAX_SNAPSHOT_BYTES}, all held snapshots of a session at most {@link MAX_SESSION_BYTES};
 * reads are asynchronous, {@link READ_CONCURRENCY} at a time.
 *
 * No `vscode`: the reader, the containment check and the review model are injected.
 */
import * as path from 'node:path';
import type { ToolCallView } from '../acp/session/types';
import { checkContained, isWithin } from '../fs/containment';
import type { ReviewModel } from './review';
import { Slots } from '../common/slots';

/** Files snapshotted per tool call at most; the rest are named in a notice and not reviewable. */
export const MAX_PATHS_PER_CALL = 64;
/** Files snapshotted per session and turn at most. */
export const MAX_PATHS_PER_TURN = 512;
/** Bytes of one snapshot at most (larger files are not reviewable line by line). 8 MiB. */
export const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;
/** Bytes of the snapshots one session holds at once at most. 64 MiB. */
export const MAX_SESSION_BYTES = 64 * 1024 * 1024;
/** Snapshot reads in flight at once: the libuv threadpool (4 threads) is shared with everyone. */
export const READ_CONCURRENCY = 4;
/**
 * A file (or, for a missing file, its folder) changed less than this before its session's turn
 * began, or at any time after, may already have been touched by the agent (ms): its announcement
 * can reach us long after it started writing, and file system clocks and timestamps are coarse.
 * Such a snapshot is uncertain.
 */
export const RECENT_MS = 2000;

/**
 * What the snapshot reader found at a path. `file`: its bytes, the decoded text (null: not text
 * in its encoding), whether its identity, size and times were the same before and after the read
 * (`stable`), and when it last changed (max of mtime and ctime, ms since epoch, rounded up for
 * file systems with coarse timestamps). `missing`: no such file, with the last change of the
 * folder it would be in (undefined when unknown). `unreadable`: not a regular file, too large, a
 * symlink, or an I/O error.
 */
export type DiskRead =
  | { kind: 'file'; bytes: Uint8Array; text: string | null; stable: boolean; changedAtMs: number }
  | { kind: 'missing'; parentChangedAtMs: number | undefined }
  | { kind: 'unreadable'; reason: string };

/** What {@link DiskBaselines} needs from its host. */
export interface BaselineDeps {
  review: ReviewModel;
  /** Reads a file (at most `maxBytes`) without blocking on special files; never throws. */
  read(absPath: string, maxBytes: number): Promise<DiskRead>;
  /** The workspace folders; paths outside them are never read nor recorded. */
  roots(): readonly string[];
  /** Checks containment after resolving symlinks (default: `checkContained`); throws when outside. */
  contain?(absPath: string, roots: readonly string[]): Promise<unknown>;
  /** ms since epoch (default `Date.now`). */
  now?(): number;
  /** Tells the person that files were left out of the review; `paths` are agent-named, for a log only. */
  notice?(message: string, paths: string[]): void;
  log?(message: string): void;
  /**
   * True while the editor is saving `absPath` (between its will-save and did-save): a change the
   * watcher reports then is that save, and {@link DiskBaselines.savedByOthers} will re-base on it.
   */
  saving?(absPath: string): boolean;
}

/** A snapshot: the file before the call (text null: it did not exist). */
interface Baseline {
  text: string | null;
  bytes?: Uint8Array;
  uncertain?: string;
  /** Read for a call first seen finished: uncertain whatever it holds. */
  late?: boolean;
  /** Not read (not text, too large, over the budget): `text` is a placeholder, uncertain always. */
  unread?: boolean;
  /**
   * The doubt is one the agent's own word cannot lift: the file changed after the turn began. An agent that wrote the file itself could announce a diff whose `oldText` is what it
   * wrote (or `""`), and Undo would then restore the agent's text, or nothing, as "the original".
   */
  hard?: boolean;
  /** Bytes counted against the session's budget. */
  size: number;
}

/** Tool kinds whose calls change files (ACP `ToolKind`). */
const WRITING_KINDS = new Set(['edit', 'delete', 'move']);
const TERMINAL = new Set(['completed', 'failed', 'rejected', 'cancelled']);

interface Open {
  sessionKey: string;
  toolCallId: string;
  turn: number;
  /** Snapshots by path; undefined once resolved to "not reviewable". */
  paths: Map<string, Promise<Baseline | undefined>>;
  /**
   * The call's diffs by path, in order, as last announced: evidence that confirms or contradicts a
   * snapshot (its `oldText`) or shows the agent was faster than its call (its `newText`).
   */
  diffs: Map<string, { oldText: string | null; newText: string }[]>;
  /** Paths whose timed snapshot is still being read. */
  reading: Set<string>;
  /** Paths that changed on disk (a watcher event) before their snapshot was read. */
  early: Set<string>;
  /** Paths that changed on disk (a watcher event) while the call ran. */
  changed: Set<string>;
  /** The names as the agent wrote them, so a repeated update resolves nothing again. */
  seenRaw: Set<string>;
  /** The absolute path of each snapshotted name. */
  resolved: Map<string, string>;
  status: string;
  overflowNoticed: boolean;
}

/** Snapshots and end-of-call comparisons for one window. */
export class DiskBaselines {
  /** Running writing calls by `<session>#<toolCallId>`. */
  private readonly open = new Map<string, Open>();
  /** Calls that ended this turn, by session: a repeated final update is no late call. */
  private readonly ended = new Map<string, Set<string>>();
  /** Bytes of snapshots each session holds, and how many files it snapshotted this turn. */
  private readonly held = new Map<string, number>();
  private readonly counted = new Map<string, number>();
  private readonly budgetNoticed = new Set<string>();
  /** When each session's latest turn began (ms since epoch): the agent may act on files from then on. */
  private readonly turnStart = new Map<string, number>();
  /** One queue of comparisons per path, so records of one file happen in the order they were asked. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly slots = new Slots(READ_CONCURRENCY);

  constructor(private readonly deps: BaselineDeps) {}

  /**
   * Sees a tool call as merged so far. A writing call that is still running gets a snapshot of
   * every workspace file it names (up to the caps); when it ends, its files are compared with the
   * snapshots. A call first seen already finished has no snapshot: if the file holds the diff's new
   * text, the change is listed with an unknown base (nothing to undo); its `oldText` is never used.
   */
  toolCall(sessionKey: string, turn: number, cwd: string, tc: ToolCallView): void {
    if (!WRITING_KINDS.has(tc.kind)) return;
    const key = `${sessionKey}#${tc.toolCallId}`;
    const ended = TERMINAL.has(tc.status);
    if (this.ended.get(sessionKey)?.has(key)) return;
    let open = this.open.get(key);
    const late = !open && ended;
    if (!open) {
      open = { sessionKey, toolCallId: tc.toolCallId, turn, paths: new Map(), diffs: new Map(), reading: new Set(), early: new Set(), changed: new Set(), seenRaw: new Set(), resolved: new Map(), status: tc.status, overflowNoticed: false };
      if (!ended) this.open.set(key, open);
    }
    open.status = tc.status;
    // A call first seen finished: only a completed one's diffs can show that it changed a file.
    const diffNames = tc.content.flatMap((c) => (c.type === 'diff' ? [c.path] : []));
    const names = late ? (tc.status === 'completed' ? diffNames : []) : [...tc.locations.map((l) => l.path), ...diffNames];
    this.addNamed(open, names, cwd, late ? 'the call was first seen already finished' : undefined);
    // The diffs of snapshotted files only: evidence, never a base. Each update carries the call's
    // whole content, so the latest list replaces the one before.
    const diffs = new Map<string, { oldText: string | null; newText: string }[]>();
    for (const c of tc.content) {
      const p = c.type === 'diff' ? open.resolved.get(c.path) : undefined;
      if (p && c.type === 'diff') diffs.set(p, [...(diffs.get(p) ?? []), { oldText: c.oldText, newText: c.newText }]);
    }
    for (const [p, list] of diffs) open.diffs.set(p, list);
    if (ended) {
      this.open.delete(key);
      this.endedSet(sessionKey).add(key);
      for (const p of open.paths.keys()) this.compare(open, p, true);
    }
  }

  /**
   * A file changed on disk. While a running agent call names it, the change is the agent's and is
   * recorded (asynchronously, see {@link settled}).
   * @returns true when the change was attributed to an agent.
   */
  fileChanged(absPath: string): boolean {
    let agent = false;
    for (const o of this.open.values()) {
      if (!o.paths.has(absPath)) continue;
      agent = true;
      o.changed.add(absPath);
      // Changed before we finished reading it: the snapshot may hold the agent's text, or part of it.
      if (o.reading.has(absPath)) o.early.add(absPath);
      this.compare(o, absPath, false);
    }
    return agent;
  }

  /**
   * A turn of `sessionKey` began (the prompt is about to be sent): from now on its agent may change
   * files, so a file that changed since (or just before) is no certain base.
   */
  turnStarted(sessionKey: string, atMs = this.now()): void {
    this.turnStart.set(sessionKey, atMs);
  }

  /** The turn ended: calls the agent never finished are compared now, and the session's counts reset. */
  turnEnded(sessionKey: string): void {
    for (const [key, o] of [...this.open]) {
      if (o.sessionKey !== sessionKey) continue;
      this.open.delete(key);
      for (const p of o.paths.keys()) this.compare(o, p, true);
    }
    this.ended.delete(sessionKey);
    this.counted.delete(sessionKey);
    this.budgetNoticed.delete(sessionKey);
  }

  /**
   * Someone other than the agent (the person, a formatter on save) saved `absPath` with `savedText`
   * while an agent call names it: what is on disk now is theirs, so it becomes the baseline of those
   * calls — certain only if the disk holds exactly what they saved when we read it.
   */
  savedByOthers(absPath: string, savedText: string): void {
    for (const o of this.open.values()) {
      const old = o.paths.get(absPath);
      if (!old) continue;
      // Certain by what the person saved, not by time: change events before it count no more.
      o.reading.delete(absPath);
      o.early.delete(absPath);
      o.paths.set(absPath, this.snapshot(o.sessionKey, absPath, { saved: savedText }));
      void old.then((b) => this.release(o.sessionKey, b));
    }
  }

  /** Resolves when every snapshot and comparison asked for so far has been done (tests, the API). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /**
   * Snapshots the workspace files among `names` (as the agent wrote them, relative to `cwd`) that
   * the call did not name before, up to the caps. Once a cap is reached the remaining names are
   * only collected for the notice: nothing is resolved for them, so a huge list costs little.
   */
  private addNamed(open: Open, names: string[], cwd: string, lateReason: string | undefined): void {
    const roots = this.deps.roots().map((r) => path.normalize(r));
    const left: string[] = [];
    const outside: string[] = [];
    for (const raw of names) {
      if (open.seenRaw.has(raw)) continue;
      open.seenRaw.add(raw);
      const count = this.counted.get(open.sessionKey) ?? 0;
      if (open.paths.size >= MAX_PATHS_PER_CALL || count >= MAX_PATHS_PER_TURN) {
        left.push(raw);
        continue;
      }
      const p = path.resolve(cwd, raw);
      if (open.paths.has(p)) {
        open.resolved.set(raw, p);
        continue;
      }
      // Outside the workspace folders: never read, never recorded, so Undo can never write there.
      if (!roots.some((r) => isWithin(r, p))) {
        outside.push(p);
        continue;
      }
      this.counted.set(open.sessionKey, count + 1);
      open.resolved.set(raw, p);
      // The agent may act from the start of its turn: a change since then may be its own.
      const now = this.now();
      const since = Math.min(this.turnStart.get(open.sessionKey) ?? now, now);
      const snap = this.snapshot(open.sessionKey, p, lateReason === undefined ? { at: since } : { late: lateReason });
      open.paths.set(p, snap);
      if (lateReason === undefined) {
        open.reading.add(p);
        void snap.then(() => {
          if (open.paths.get(p) === snap) open.reading.delete(p);
        });
      }
    }
    if (outside.length) this.deps.log?.(`Review: not snapshotting ${outside.length} file(s) outside the workspace folders, e.g. ${outside.slice(0, 3).join(', ')}.`);
    if (left.length && !open.overflowNoticed) {
      open.overflowNoticed = true;
      this.deps.notice?.(
        `An agent's tool call named more files than Agent Switchboard snapshots for review (${MAX_PATHS_PER_CALL} per call, ${MAX_PATHS_PER_TURN} per turn): changes to ${left.length} of them are not reviewable and cannot be undone from the Changes view.`,
        left,
      );
    }
  }

  /**
   * Reads the file before the call can act on it, within the session's byte budget. `at`: the call
   * was seen at that time (certain when the file was stable and older); `saved`: the person saved
   * that text (certain when the disk holds it); `late`: uncertain by construction.
   * @returns undefined when the file is outside the workspace folders (never recorded); a file we
   *   could not snapshot (not text, too large, unreadable, over the budget) gets an `unread` base.
   */
  private snapshot(sessionKey: string, p: string, how: { at: number } | { saved: string } | { late: string }): Promise<Baseline | undefined> {
    return this.track(
      this.slots.run(async () => {
        try {
          await (this.deps.contain ?? checkContained)(p, this.deps.roots());
        } catch (err) {
          this.deps.log?.(`Review: not snapshotting ${p}: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        }
        const reserve = Math.min(MAX_SNAPSHOT_BYTES, MAX_SESSION_BYTES - (this.held.get(sessionKey) ?? 0));
        if (reserve <= 0) {
          this.overBudget(sessionKey, p);
          return unread(OVER_BUDGET);
        }
        this.held.set(sessionKey, (this.held.get(sessionKey) ?? 0) + reserve);
        const r = await this.deps.read(p, reserve).catch((err: unknown): DiskRead => ({ kind: 'unreadable', reason: String(err) }));
        const size = r.kind === 'file' ? r.bytes.byteLength : 0;
        this.held.set(sessionKey, (this.held.get(sessionKey) ?? 0) - reserve + size);
        // Refused as too large for what was left of the budget: the person should know why.
        const budget = r.kind === 'unreadable' && reserve < MAX_SNAPSHOT_BYTES;
        if (budget) this.overBudget(sessionKey, p);
        const b = budget ? unread(OVER_BUDGET) : classify(r, how);
        if (b.unread) {
          this.release(sessionKey, { text: null, size });
          return { ...b, size: 0 };
        }
        return { ...b, size, late: 'late' in how };
      }),
    );
  }

  private overBudget(sessionKey: string, p: string): void {
    if (this.budgetNoticed.has(sessionKey)) return;
    this.budgetNoticed.add(sessionKey);
    this.deps.notice?.(`An agent's tool calls named more file content than Agent Switchboard holds for review (${MAX_SESSION_BYTES / 1024 / 1024} MiB per session): further changes this turn are not reviewable.`, [p]);
  }

  private release(sessionKey: string, b: Baseline | undefined): void {
    if (b?.size) this.held.set(sessionKey, Math.max(0, (this.held.get(sessionKey) ?? 0) - b.size));
  }

  /**
   * Compares `p` with the call's snapshot, after the comparisons asked for before (one queue per
   * path). The snapshot is looked up when the comparison runs, so a save by the person that replaced
   * it meanwhile counts. `final`: the call ended, so its snapshot is released afterwards.
   */
  private compare(o: Open, p: string, final: boolean): void {
    const run = async () => {
      const snap = o.paths.get(p);
      const b = await snap;
      try {
        if (snap && b) await this.record(o, p, b, snap);
      } finally {
        if (final) this.release(o.sessionKey, b);
      }
    };
    const prev = this.queues.get(p) ?? Promise.resolve();
    const next = this.track(prev.then(run).catch((err: unknown) => this.deps.log?.(`Review: could not compare ${p}: ${String(err)}`)));
    this.queues.set(p, next);
    void next.then(() => {
      if (this.queues.get(p) === next) this.queues.delete(p);
    });
  }

  private async record(o: Open, p: string, b: Baseline, snap: Promise<Baseline | undefined>): Promise<void> {
    const r = await this.slots.run(() => this.deps.read(p, MAX_SNAPSHOT_BYTES)).catch((err: unknown): DiskRead => ({ kind: 'unreadable', reason: String(err) }));
    // The editor's save and the watcher's report of it arrive in either order, and a read can span
    // the save: what the disk holds during a save, or after one re-based the call while we read,
    // is the person's (or their formatter's) text, never the agent's change from the old base.
    if (o.paths.get(p) !== snap || this.deps.saving?.(p)) return;
    // Files that are not text now are not reviewable line by line; they are left out.
    if (r.kind === 'unreadable' || (r.kind === 'file' && r.text === null)) return;
    const after = r.kind === 'file' ? r.text : null;
    // What we already know the file to hold (e.g. our own write for the agent) is no news.
    const known = this.deps.review.latest(o.sessionKey, o.turn, p);
    if (known && after === this.deps.review.expectedText(known)) return;
    const diffs = o.diffs.get(p) ?? [];
    // A file we could not snapshot is listed only when it surely changed: the watcher saw it, or
    // the agent's completed call shows a diff of it. Its text now is all we have.
    if (b.unread && !(o.changed.has(p) || (o.status === 'completed' && diffs.length))) return;
    // The agent was faster than its announcement: our snapshot already holds what it says it wrote.
    const faster = !b.unread && diffs.some((d) => d.oldText !== d.newText && b.text === d.newText);
    if (b.text === after) {
      // Unchanged: nothing to record — unless a completed call shows the agent changed it before
      // we could read it; then it is listed with an unknown base.
      if (!(faster && o.status === 'completed')) return;
    }
    const uncertain = faster ? 'the file already held the agent\'s new text when it was first read' : this.doubt(o, p, b, diffs);
    this.deps.review.record(o.sessionKey, o.turn, p, 'agent', { text: b.text, bytes: b.bytes, uncertain }, after, o.toolCallId);
  }

  /**
   * Why the snapshot of `p` is not known for certain (one clause), or undefined when it is: the
   * snapshot's own doubt (time, a read that changed, an empty read) unless the agent's diff shows
   * exactly the text we read or the file holds what our review last saw it left at; a diff that
   * contradicts the read, or a change event before the read finished, otherwise.
   */
  private doubt(o: Open, p: string, b: Baseline, diffs: { oldText: string | null; newText: string }[]): string | undefined {
    // Never read, or read for a call first seen finished: nothing can make it certain.
    if (b.unread || b.late) return b.uncertain;
    // Two independent sources agree: what we read is what the agent says it replaced (line endings
    // and a BOM aside, which agents normalise). A torn or emptied read cannot match a whole text.
    if (!b.hard && diffs.some((d) => (d.oldText === null ? b.text === null : b.text !== null && comparable(d.oldText) === comparable(b.text)))) return undefined;
    // The agent's first diff of the file (later ones may apply to its own text) contradicts the read.
    const first = diffs[0];
    if (first) {
      if (first.oldText === null && b.text !== null) return 'the agent said it creates the file, but a file was there when it was read';
      if (first.oldText !== null && b.text === null) return 'the agent showed text the file held, but it was missing when it was read';
      if (first.oldText !== null && b.text !== null && !comparable(b.text).includes(comparable(first.oldText))) return 'the agent\'s diff shows text the file did not hold when it was read';
    }
    // A snapshot read close to a change is still certain when it holds exactly what our review last
    // saw the file left at (the agent's previous call or turn): that state is known, not guessed.
    const last = this.deps.review.latestFor(p);
    if (last !== undefined && last.base.uncertain === undefined && this.deps.review.expectedText(last) === b.text) return undefined;
    if (o.early.has(p)) return 'the file changed on disk before its snapshot was read';
    return b.uncertain;
  }

  private endedSet(sessionKey: string): Set<string> {
    let s = this.ended.get(sessionKey);
    if (!s) this.ended.set(sessionKey, (s = new Set()));
    return s;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => undefined);
    return p;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

const OVER_BUDGET = `Agent Switchboard already held the most file content it keeps for review (${MAX_SESSION_BYTES / 1024 / 1024} MiB per session), so no snapshot was taken`;

/** The base of a file we could not snapshot: listed when it changes, never written back. */
function unread(why: string): Baseline & { unread: true } {
  return { text: '', uncertain: why, unread: true, size: 0 };
}

/** Text as agents may render it: LF line endings, no BOM. */
function comparable(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

/**
 * The baseline a read gives, and why it is not certain (undefined: certain so far; the call's diffs
 * and the review's known state are weighed later). `at`: when the agent could first have acted.
 */
function classify(r: DiskRead, how: { at: number } | { saved: string } | { late: string }): Omit<Baseline, 'size'> {
  if (r.kind === 'unreadable') return unread(`no snapshot could be taken: ${r.reason}`);
  if (r.kind === 'file' && r.text === null) return unread('it was not text in its encoding when it was read, so no snapshot was kept');
  const text = r.kind === 'file' ? r.text : null;
  const bytes = r.kind === 'file' ? r.bytes : undefined;
  let hard = false;
  const uncertain = ((): string | undefined => {
    if ('late' in how) return how.late;
    if (r.kind === 'file' && !r.stable) return 'the file changed while it was read';
    if ('saved' in how) return text === how.saved ? undefined : 'the file on disk differed from what was saved in the editor';
    const changed = r.kind === 'file' ? r.changedAtMs : r.parentChangedAtMs;
    // A file changed after the turn began: most likely the agent's own doing, whatever it then
    // announces (just before the turn, timestamps are coarse and the person's own save is as
    // likely). Not for a missing file's folder: an agent that creates several files changes it
    // each time, and a wrong "missing" base can only remove what the agent wrote.
    if (r.kind === 'file' && changed !== undefined && changed >= how.at) hard = true;
    // A file being rewritten (truncated, then written) reads empty: an empty read proves nothing.
    if (r.kind === 'file' && r.bytes.byteLength === 0) return 'the file was empty when it was read, as a file is while it is being rewritten';
    if (changed === undefined) return 'its folder could not be read';
    if (changed >= how.at - RECENT_MS) return r.kind === 'file' ? 'the file changed after the agent\'s turn began (or just before), so the agent may already have been writing it' : 'its folder changed after the agent\'s turn began (or just before), so the agent may already have removed it';
    return undefined;
  })();
  return { text, bytes, uncertain, ...(hard ? { hard } : {}) };
}

/** Absolute paths a tool call names in its locations and diff content (relative ones against `cwd`). */
export function namedPaths(tc: Pick<ToolCallView, 'locations' | 'content'>, cwd: string): string[] {
  const out = new Set<string>();
  for (const l of tc.locations) out.add(path.resolve(cwd, l.path));
  for (const c of tc.content) if (c.type === 'diff') out.add(path.resolve(cwd, c.path));
  return [...out];
}

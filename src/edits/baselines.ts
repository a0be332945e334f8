/**
 * Baselines for agents that write to disk themselves (claude-agent-acp since 0.18, codex-acp): they
 * announce an edit, delete or move as a tool call (ACP `tool_call`, kinds `edit`/`delete`/`move`,
 * with `locations` and `diff` content) and then change the file without `fs/write_text_file`.
 * Before such a call can act, we snapshot each file it names; when the call ends (or the file
 * changes on disk while it runs) the difference from the snapshot becomes a reviewable change,
 * attributed to the agent. A file changed while no agent call names it is someone else's change.
 *
 * Pure: the snapshot reader and the review model are injected; no `vscode`.
 */
import * as path from 'node:path';
import type { ToolCallView } from '../acp/session/types';
import type { Base, ReviewModel } from './review';

/**
 * The bytes of a file and its decoded text; null when it does not exist. `text` null: not text.
 * `bytes` is absent when the text did not come from the disk (then Undo writes the text instead).
 */
export type Snapshot = { bytes?: Uint8Array; text: string | null } | null;

/** Tool kinds whose calls change files (ACP `ToolKind`). */
const WRITING_KINDS = new Set(['edit', 'delete', 'move']);
const TERMINAL = new Set(['completed', 'failed', 'rejected', 'cancelled']);

interface Open {
  sessionKey: string;
  turn: number;
  paths: Set<string>;
}

/** Snapshots and end-of-call comparisons for one window. */
export class DiskBaselines {
  /** `<session>#<toolCallId>#<path>` → the file before that call could act on it. */
  private readonly baselines = new Map<string, Snapshot>();
  /** Running writing calls by `<session>#<toolCallId>`. */
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly review: ReviewModel,
    /** Reads a file synchronously: the snapshot must exist before the agent gets to act. */
    private readonly read: (absPath: string) => Snapshot,
  ) {}

  /**
   * Sees a tool call as merged so far. A writing call that is still running gets a snapshot of
   * every file it names; when it ends, its files are compared with the snapshots. A call first seen
   * already finished has no snapshot; its diff's whole-file old text stands in when the file now
   * holds the diff's new text.
   */
  toolCall(sessionKey: string, turn: number, cwd: string, tc: ToolCallView): void {
    if (!WRITING_KINDS.has(tc.kind)) return;
    const key = `${sessionKey}#${tc.toolCallId}`;
    const paths = namedPaths(tc, cwd);
    let open = this.open.get(key);
    const ended = TERMINAL.has(tc.status);
    if (!open && !ended) this.open.set(key, (open = { sessionKey, turn, paths: new Set() }));
    if (!open) return this.lateCall(sessionKey, turn, cwd, tc);
    for (const p of paths) {
      open.paths.add(p);
      const b = `${key}#${p}`;
      if (!this.baselines.has(b)) this.baselines.set(b, this.snapshot(p, tc, cwd));
    }
    if (ended) {
      this.open.delete(key);
      for (const p of open.paths) this.compare(sessionKey, open.turn, p, tc.toolCallId);
    }
  }

  /**
   * A file changed on disk. While a running agent call names it, the change is the agent's and is
   * recorded at once.
   * @returns true when the change was attributed to an agent.
   */
  fileChanged(absPath: string): boolean {
    let agent = false;
    for (const [key, o] of this.open) {
      if (!o.paths.has(absPath)) continue;
      agent = true;
      this.compare(o.sessionKey, o.turn, absPath, key.slice(o.sessionKey.length + 1));
    }
    return agent;
  }

  /** The turn ended: calls the agent never finished are compared now, and the session's snapshots dropped. */
  turnEnded(sessionKey: string): void {
    for (const [key, o] of [...this.open]) {
      if (o.sessionKey !== sessionKey) continue;
      this.open.delete(key);
      for (const p of o.paths) this.compare(sessionKey, o.turn, p, key.slice(sessionKey.length + 1));
    }
    for (const b of [...this.baselines.keys()]) if (b.startsWith(`${sessionKey}#`)) this.baselines.delete(b);
  }

  /**
   * Someone other than the agent (the person, a formatter on save) wrote `absPath` while an agent
   * call names it: what is on disk now is theirs, so it becomes the baseline of those calls.
   */
  savedByOthers(absPath: string): void {
    for (const [key, o] of this.open) if (o.paths.has(absPath)) this.baselines.set(`${key}#${absPath}`, this.read(absPath));
  }

  /**
   * The file before the call. If the agent was faster than its own announcement (the file already
   * holds the diff's new text), the diff's whole-file old text is the better baseline.
   */
  private snapshot(p: string, tc: ToolCallView, cwd: string): Snapshot {
    const now = this.read(p);
    return this.fromDiff(p, tc, cwd, now) ?? now;
  }

  private fromDiff(p: string, tc: ToolCallView, cwd: string, now: Snapshot): Snapshot | undefined {
    const diff = tc.content.find((c) => c.type === 'diff' && path.resolve(cwd, c.path) === p);
    if (diff?.type !== 'diff' || now?.text !== diff.newText || diff.oldText === diff.newText) return undefined;
    return diff.oldText === null ? null : { text: diff.oldText };
  }

  /** A writing call we never saw running: only its diff can tell what it replaced. */
  private lateCall(sessionKey: string, turn: number, cwd: string, tc: ToolCallView): void {
    if (tc.status !== 'completed') return;
    for (const p of namedPaths(tc, cwd)) {
      const now = this.read(p);
      const before = this.fromDiff(p, tc, cwd, now);
      if (before === undefined || now === null || now.text === null) continue;
      if (before && before.text === null) continue;
      this.review.record(sessionKey, turn, p, 'agent', { text: before ? before.text : null }, now.text, tc.toolCallId);
    }
  }

  private compare(sessionKey: string, turn: number, p: string, toolCallId: string): void {
    const baseline = this.baselines.get(`${sessionKey}#${toolCallId}#${p}`);
    if (baseline === undefined) return;
    const now = this.read(p);
    // Files that are not text (either side) are not reviewable line by line; they are left out.
    if ((baseline && baseline.text === null) || (now && now.text === null)) return;
    const after = now ? now.text : null;
    // What we already know the file to hold (e.g. our own write for the agent) is no news.
    const known = this.review.latest(sessionKey, turn, p);
    if (known && after === this.review.expectedText(known)) return;
    const base: Base = baseline ? { text: baseline.text, bytes: baseline.bytes } : { text: null };
    this.review.record(sessionKey, turn, p, 'agent', base, after, toolCallId);
  }
}

/** Absolute paths a tool call names in its locations and diff content (relative ones against `cwd`). */
export function namedPaths(tc: Pick<ToolCallView, 'locations' | 'content'>, cwd: string): string[] {
  const out = new Set<string>();
  for (const l of tc.locations) out.add(path.resolve(cwd, l.path));
  for (const c of tc.content) if (c.type === 'diff') out.add(path.resolve(cwd, c.path));
  return [...out];
}

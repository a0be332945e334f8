/**
 * The session journal: every session's actions (the agent's `session/update`s and what the client
 * did: prompts sent, turns ended, permission requests and answers, notices) appended to a JSON Lines
 * file under the extension's storage, so a transcript survives a window reload, an agent restart or
 * a crash. Replaying a journal through the pure reducer rebuilds the session exactly as it was.
 *
 * Layout of `<dir>`: `<journalId>.jsonl` per session (first line the header, then one action per
 * line, `{"at": ms, "a": SessionAction}`) and `index.json` (the list the Sessions view reads).
 * Writes are batched (at most every {@link FLUSH_MS}) and appended; a torn last line (a crash
 * mid-write) is skipped on read. Files are the person's only (0600 in a 0700 folder): they hold
 * what the agent read and wrote. Secrets are redacted before anything reaches the file (the audit's
 * redaction, `policy/redact.ts`): command lines, terminal output, messages and tool content alike,
 * so a replayed transcript shows `[redacted]` where the live one showed the secret. Several windows
 * may share the folder (windows without a folder all use global storage): each appends only to its
 * own sessions' files and merges the index with what is on disk before writing it. Node `fs` only, no `vscode`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { redactSecrets, redactValue } from '../../policy/redact';
import { cleanTitle, reduce, type SessionAction } from './reducer';
import { createSessionState, type SessionState } from './types';
import { SHOWN_TEXT_CHARS } from './window';
import { PieceText } from '../../common/pieceText';

/** How long actions wait in memory before they are appended, in milliseconds. */
export const FLUSH_MS = 200;
/** Longest the index waits to note a session's new time alone (a streamed chunk, a tool's progress), in ms. */
export const INDEX_TOUCH_MS = 5000;
/** Longest a tool's re-sent content update is held before it is written (see `flushOne`). */
export const HOLD_CONTENT_MS = 2000;
/**
 * Most characters of one tool-output text (a text content item or a string in `rawOutput`) the
 * journal keeps: what a card shows ({@link SHOWN_TEXT_CHARS}); a note in the text counts the rest.
 * Redacting, serialising and writing a 2 MiB output took the extension host 80 ms at a time (PF10).
 */
export const JOURNAL_TEXT_CHARS = SHOWN_TEXT_CHARS;
/** A journal stops growing past this many bytes (a notice in the journal says so). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;
/** How many journals are kept; the least recently updated go first. */
export const MAX_JOURNALS = 200;

/** One session in the index: what the Sessions view lists without reading the journal. */
export interface JournalEntry {
  journalId: string;
  agentId: string;
  agentName: string;
  cwd: string;
  /** The agent's ACP `sessionId`, once `session/new` (or load/resume) answered. */
  sessionId?: string;
  title?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** Prompt turns sent. */
  turns: number;
  /** False once the person closed the session; a window that ends keeps its sessions open. */
  open: boolean;
  /** The journal that replaced this one (the session was loaded again from its agent); hidden from lists. */
  supersededBy?: string;
}

/** A journal id is a UUID we made; nothing else names a file. */
export const JOURNAL_ID = /^[A-Za-z0-9-]{1,80}$/;

const entrySchema = z.object({
  journalId: z.string().regex(JOURNAL_ID),
  agentId: z.string(),
  agentName: z.string(),
  cwd: z.string(),
  sessionId: z.string().optional(),
  title: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  turns: z.number().default(0),
  open: z.boolean().default(false),
  supersededBy: z.string().optional(),
});
const indexSchema = z.object({ v: z.literal(1), sessions: z.array(entrySchema) });
const lineSchema = z.object({ at: z.number(), a: z.object({ type: z.string() }).passthrough() });

/** Where each session's journal lives; one per window. */
export class SessionJournal {
  private readonly entries = new Map<string, JournalEntry>();
  private readonly pending = new Map<string, string[]>();
  /** The latest content-carrying `tool_call_update` of each journal, not yet serialised (see `record`). */
  /** The latest content update of a tool call, not written yet (see `record`); `since`: when holding began. */
  private readonly heldUpdate = new Map<string, { at: number; since: number; update: Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> }>();
  /**
   * The text chunk being written, per journal: consecutive text chunks of one message are one line
   * (replayed, they append to the same message as they did live), so a streamed answer costs a
   * string append per chunk rather than a JSON line (in flat pieces, see `PieceText`).
   */
  private readonly openChunk = new Map<string, { at: number; kind: string; messageId?: string; text: PieceText }>();
  private readonly sizes = new Map<string, number>();
  /** The latest snapshot of each running terminal, written when it exits or the journal flushes. */
  private readonly terminals = new Map<string, Map<string, string>>();
  private timer: NodeJS.Timeout | undefined;
  /** Writes the index for a session's new time alone (see INDEX_TOUCH_MS); apart from `timer`, so actions are never held longer than FLUSH_MS. */
  private indexTimer: NodeJS.Timeout | undefined;
  private indexDirty = false;
  /** Some session was updated since the index was last written (its `updatedAt` moved). */
  private touched = false;
  /** When the index was last written (ms since the epoch). */
  private indexWrittenAt = 0;
  /** Journals this window deleted, so a merge with the index on disk does not bring them back. */
  private readonly deleted = new Set<string>();
  /** Journals this window wrote to (the ones whose index entries it owns). */
  private readonly mine = new Set<string>();
  /** False when the folder could not be made: the window works without a journal. */
  private usable = true;

  /**
   * Reads the index in `dir` (created if missing). A missing or unreadable index is rebuilt from the
   * journals' headers; `log` hears what could not be read.
   */
  constructor(
    readonly dir: string,
    private readonly log: (message: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.readIndex();
    } catch (err) {
      // No journal is better than no extension: sessions still run, transcripts are not kept.
      this.usable = false;
      this.log(`Session transcripts will not be kept: ${dir} is not usable (${err instanceof Error ? err.message : String(err)}).`);
    }
  }

  /** Every journaled session (but those replaced by a later load), most recently updated first. */
  list(): JournalEntry[] {
    return [...this.entries.values()].filter((e) => !e.supersededBy).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  get(journalId: string): JournalEntry | undefined {
    return this.entries.get(journalId);
  }

  /** Starts a journal for a new session. @returns its id. */
  create(init: { agentId: string; agentName: string; cwd: string }): string {
    const journalId = randomUUID();
    const at = this.now();
    const entry: JournalEntry = { journalId, ...init, createdAt: at, updatedAt: at, turns: 0, open: true };
    this.entries.set(journalId, entry);
    this.mine.add(journalId);
    this.sizes.set(journalId, 0);
    this.queue(journalId, JSON.stringify({ v: 1, header: entry }));
    this.prune();
    this.markIndex();
    return journalId;
  }

  /** Appends one action of session `journalId` (dropped when the journal is unknown or full). */
  record(journalId: string, action: SessionAction): void {
    const entry = this.entries.get(journalId);
    if (!entry || !this.usable) return;
    this.mine.add(journalId);
    const at = this.now();
    if (action.type === 'permissionRequested' && action.view) {
      // The card is rebuilt from `view`; the request's own copy of the call would store it twice.
      action = { ...action, toolCall: { toolCallId: action.toolCall.toolCallId } };
    }
    if (action.type === 'terminal') {
      // Terminal snapshots are many and each carries the output tail: the latest of each running
      // terminal is written when it exits or when the window ends, not on every flush.
      const line = JSON.stringify({ at, a: redactValue(action, { cut: false }) });
      if (action.terminal.exitStatus) {
        this.terminals.get(journalId)?.delete(action.terminal.terminalId);
        this.queue(journalId, line);
      } else {
        let m = this.terminals.get(journalId);
        if (!m) this.terminals.set(journalId, (m = new Map()));
        m.set(action.terminal.terminalId, line);
      }
      return;
    }
    if (action.type === 'queue') return; // prompts waiting in memory are not part of the transcript
    if (action.type === 'update' && (action.update.sessionUpdate === 'tool_call' || action.update.sessionUpdate === 'tool_call_update')) {
      action = { ...action, update: toolOutputForJournal(action.update) };
    }
    if (action.type === 'update' && isContentReplacement(action.update)) {
      // A tool that re-sends its whole output on every update (PF10: 200 updates growing to 2 MiB)
      // would have each copy serialised and written: the latest is held, unserialised, and an update
      // of the same call that follows at once is laid over it (its fields replace, as the reducer
      // applies them), so replay reaches the same state from one line.
      const u = action.update;
      const held = this.heldUpdate.get(journalId);
      if (held && held.update.toolCallId === u.toolCallId) {
        held.update = { ...held.update, ...u };
        held.at = at;
      } else {
        this.closeChunk(journalId);
        this.releaseHeld(journalId);
        this.heldUpdate.set(journalId, { at, since: Date.now(), update: u });
      }
      this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    } else if (action.type === 'update' && isTextChunk(action.update)) {
      this.releaseHeld(journalId);
      const u = action.update;
      const open = this.openChunk.get(journalId);
      const messageId = u.messageId ?? undefined;
      if (open && open.kind === u.sessionUpdate && open.messageId === messageId) open.text.append(u.content.text);
      else {
        this.closeChunk(journalId);
        this.openChunk.set(journalId, { at, kind: u.sessionUpdate, messageId, text: new PieceText(u.content.text) });
      }
      this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    } else this.queue(journalId, JSON.stringify({ at, a: redactValue(action, { cut: false }) }));
    entry.updatedAt = at;
    // Most actions (a streamed chunk, a tool's progress) change nothing the list shows but the time:
    // the index is written for them at most every INDEX_TOUCH_MS (see flush). Rewriting it at every
    // flush while a turn streamed — reading it back, checking every other window's journal, writing
    // and renaming, all on the extension host's thread — stalled the host on a busy disk (PF10).
    this.touched = true;
    // Every action is written within FLUSH_MS, whatever path it took (a full journal's notice too).
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    if (action.type === 'promptSent') {
      entry.turns++;
      entry.title ??= redactSecrets(action.text.replace(/\s+/g, ' ').trim()).slice(0, 80) || undefined;
      this.markIndex();
    }
    if (action.type === 'ready') {
      entry.sessionId = action.sessionId;
      this.markIndex();
    }
    if (action.type === 'update' && action.update.sessionUpdate === 'session_info_update' && typeof action.update.title === 'string') {
      // The same plain, bounded text the session shows (the agent's title is untrusted).
      const title = cleanTitle(action.update.title);
      if (title) entry.title = redactSecrets(title);
      this.markIndex();
    }
  }

  /** Hides `journalId` from lists: `by` (a journal of the same session loaded again) replaces it. */
  supersede(journalId: string, by: string): void {
    const entry = this.entries.get(journalId);
    if (!entry) return;
    entry.supersededBy = by;
    entry.open = false;
    const next = this.entries.get(by);
    if (next && entry.title && !next.title) next.title = entry.title;
    this.mine.add(journalId);
    this.markIndex();
  }

  /** Names a session (a loaded one takes the title its agent listed). */
  setTitle(journalId: string, title: string): void {
    const entry = this.entries.get(journalId);
    if (!entry || entry.title) return;
    entry.title = redactSecrets(title).slice(0, 200);
    this.markIndex();
  }

  /** Marks a session closed by the person (it is not reopened after a reload) or open again. */
  setOpen(journalId: string, open: boolean): void {
    const entry = this.entries.get(journalId);
    if (!entry || entry.open === open) return;
    entry.open = open;
    this.mine.add(journalId);
    this.markIndex();
  }

  /**
   * Rebuilds a session from its journal: every recorded action through the reducer, in order.
   * @returns the state (its `key` is `key`) and the number of lines that could not be read.
   * @throws Error when the journal is unknown or its file is gone.
   */
  replay(journalId: string, key: string): { state: SessionState; skipped: number } {
    const entry = this.entries.get(journalId);
    if (!entry) throw new Error(`No journal ${journalId}.`);
    this.flushOne(journalId, true);
    const state = createSessionState({ key, agentId: entry.agentId, agentName: entry.agentName, cwd: entry.cwd });
    let skipped = 0;
    const text = fs.readFileSync(this.file(journalId), 'utf8');
    let start = text.indexOf('\n') + 1; // the header
    while (start > 0 && start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      start = end + 1;
      if (!line.trim()) continue;
      try {
        const parsed = lineSchema.parse(JSON.parse(line));
        reduce(state, parsed.a as unknown as SessionAction);
      } catch {
        skipped++;
      }
    }
    // The window ended mid-turn: the turn is over (its unfinished calls cancelled, its waiting
    // requests with them), so nothing of it looks as if it could still be answered or finish.
    if (state.status === 'prompting' || state.status === 'cancelling') {
      reduce(state, { type: 'turnEnded', stopReason: 'cancelled' });
      reduce(state, { type: 'notice', severity: 'warning', text: 'The window ended during this turn; the agent did not finish it here.' });
    }
    // A question asked between turns is over too: the agent that asked it is gone.
    for (const e of [...state.entries]) {
      if (e.kind === 'elicitation' && e.elicitation.state === 'waiting') reduce(state, { type: 'elicitationAnswered', elicitationKey: e.elicitation.elicitationKey, action: 'cancel', by: 'cancel' });
    }
    return { state, skipped };
  }

  /** Deletes a session's journal (an unknown id does nothing). */
  delete(journalId: string): void {
    if (!JOURNAL_ID.test(journalId) || !this.entries.has(journalId)) return;
    this.deleted.add(journalId);
    this.entries.delete(journalId);
    this.pending.delete(journalId);
    this.heldUpdate.delete(journalId);
    this.openChunk.delete(journalId);
    this.terminals.delete(journalId);
    fs.rmSync(this.file(journalId), { force: true });
    this.markIndex();
  }

  /**
   * Writes everything waiting, synchronously. `final` (the window is closing) also writes the last
   * snapshot of each running terminal.
   */
  flush(final = false): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.usable) return;
    if (final) {
      for (const [id, lines] of this.terminals) {
        for (const line of lines.values()) this.queue(id, line, false);
        lines.clear();
      }
    }
    for (const id of new Set([...this.pending.keys(), ...this.openChunk.keys(), ...this.heldUpdate.keys()])) this.flushOne(id, final);
    // A clock set back (since < 0) counts as due, so the wait below is never longer than INDEX_TOUCH_MS.
    const since = Date.now() - this.indexWrittenAt;
    if (this.indexDirty || (this.touched && (final || since >= INDEX_TOUCH_MS || since < 0))) {
      this.writeIndex();
      this.touched = false;
    } else if (this.touched) {
      this.indexTimer ??= setTimeout(() => {
        this.indexTimer = undefined;
        this.flush();
      }, INDEX_TOUCH_MS - since);
    }
    // A content update still held is written at a later flush (or with whatever comes after it).
    if (this.heldUpdate.size) this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private file(journalId: string): string {
    return path.join(this.dir, `${journalId}.jsonl`);
  }

  /** Writes the open text chunk of `journalId` as one action line. */
  private closeChunk(journalId: string): void {
    const open = this.openChunk.get(journalId);
    if (!open) return;
    this.openChunk.delete(journalId);
    // The whole coalesced text is redacted, so a secret streamed across chunks is caught too.
    const update = { sessionUpdate: open.kind, content: { type: 'text', text: redactSecrets(open.text.text) }, ...(open.messageId !== undefined ? { messageId: open.messageId } : {}) };
    this.queueLine(journalId, JSON.stringify({ at: open.at, a: { type: 'update', update } }), true);
  }

  private queue(journalId: string, line: string, schedule = true): void {
    // What comes after a chunk or a held update comes after it on disk too.
    this.closeChunk(journalId);
    this.releaseHeld(journalId);
    this.queueLine(journalId, line, schedule);
  }

  /** Writes the held content update of `journalId` (see `record`) as one action line. */
  private releaseHeld(journalId: string): void {
    const held = this.heldUpdate.get(journalId);
    if (!held) return;
    this.heldUpdate.delete(journalId);
    this.queueLine(journalId, JSON.stringify({ at: held.at, a: redactValue({ type: 'update', update: held.update }, { cut: false }) }), true);
  }

  private queueLine(journalId: string, line: string, schedule: boolean): void {
    const size = (this.sizes.get(journalId) ?? this.sizeOnDisk(journalId)) + Buffer.byteLength(line) + 1;
    if (size > MAX_JOURNAL_BYTES) {
      if ((this.sizes.get(journalId) ?? 0) <= MAX_JOURNAL_BYTES) {
        const full = JSON.stringify({ at: this.now(), a: { type: 'notice', severity: 'warning', text: `The journal of this session reached ${MAX_JOURNAL_BYTES / 1024 / 1024} MB; later updates were not saved.` } });
        this.pending.set(journalId, [...(this.pending.get(journalId) ?? []), full]);
        this.sizes.set(journalId, MAX_JOURNAL_BYTES + 1);
      }
      return;
    }
    this.sizes.set(journalId, size);
    let lines = this.pending.get(journalId);
    if (!lines) this.pending.set(journalId, (lines = []));
    lines.push(line);
    if (schedule) this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private sizeOnDisk(journalId: string): number {
    try {
      return fs.statSync(this.file(journalId)).size;
    } catch {
      return 0;
    }
  }

  private flushOne(journalId: string, final: boolean): void {
    this.closeChunk(journalId);
    // A tool re-sending its growing output (PF10) would otherwise have 2 MiB redacted, serialised
    // and written at every flush (a stall of tens of ms each): its latest content is written once it
    // has been held HOLD_CONTENT_MS, or at once when anything else of the session is recorded (the
    // turn's end, a message, a permission), and always at the final flush. A crash loses at most
    // that much of a tool's streamed output; what came before it is on disk.
    const held = this.heldUpdate.get(journalId);
    if (final || !held || Date.now() - held.since >= HOLD_CONTENT_MS) this.releaseHeld(journalId);
    const lines = this.pending.get(journalId);
    if (!lines?.length) return;
    this.pending.delete(journalId);
    try {
      fs.appendFileSync(this.file(journalId), lines.join('\n') + '\n', { mode: 0o600 });
    } catch (err) {
      this.log(`The session journal could not be written (${this.file(journalId)}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private markIndex(): void {
    this.indexDirty = true;
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private writeIndex(): void {
    this.indexDirty = false;
    clearTimeout(this.indexTimer);
    this.indexTimer = undefined;
    this.indexWrittenAt = Date.now();
    const target = path.join(this.dir, 'index.json');
    try {
      // Another window may have written the index since: its sessions are kept, ours win for ours.
      for (const e of this.readIndexFile()) {
        if (this.mine.has(e.journalId) || this.deleted.has(e.journalId)) continue;
        if (fs.existsSync(this.file(e.journalId))) this.entries.set(e.journalId, e);
      }
      // Written beside and renamed over: a crash leaves the old index or the new one, never half.
      const tmp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ v: 1, sessions: [...this.entries.values()] }), { mode: 0o600 });
      fs.renameSync(tmp, target);
    } catch (err) {
      this.log(`The session index could not be written: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The index on disk (empty when missing or unreadable). */
  private readIndexFile(): JournalEntry[] {
    try {
      return indexSchema.parse(JSON.parse(fs.readFileSync(path.join(this.dir, 'index.json'), 'utf8'))).sessions;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`The session index was unreadable and is rebuilt from the journals: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  }

  private readIndex(): void {
    for (const e of this.readIndexFile()) if (fs.existsSync(this.file(e.journalId))) this.entries.set(e.journalId, e);
    // Journals the index does not list (another window's, an index lost) are read from their headers.
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.jsonl') || this.entries.has(name.slice(0, -'.jsonl'.length))) continue;
      try {
        const fd = fs.openSync(path.join(this.dir, name), 'r');
        const buf = Buffer.alloc(64 * 1024);
        const n = fs.readSync(fd, buf, 0, buf.length, 0);
        fs.closeSync(fd);
        const first = buf.subarray(0, n).toString('utf8').split('\n')[0];
        const header = entrySchema.parse(JSON.parse(first).header);
        this.entries.set(header.journalId, { ...header, open: false });
        this.markIndex();
      } catch {
        this.log(`Skipped an unreadable session journal: ${name}`);
      }
    }
  }

  /**
   * Keeps the {@link MAX_JOURNALS} most recently updated journals. Only closed ones older than a
   * day go: another window may still be writing to an open or recent one.
   */
  private prune(): void {
    const dayAgo = this.now() - 24 * 3600_000;
    const all = [...this.entries.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    for (const e of all.slice(MAX_JOURNALS)) if (!e.open && e.updatedAt < dayAgo) this.delete(e.journalId);
  }
}

/**
 * A `tool_call_update` that carries `content` and nothing but fields that replace (status, title,
 * kind, locations, raw input and output): laying a later one over it gives the state both give.
 */
function isContentReplacement(u: SessionUpdate): u is Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> {
  if (u.sessionUpdate !== 'tool_call_update' || !Array.isArray(u.content)) return false;
  return Object.keys(u).every((k) => REPLACING_FIELDS.has(k));
}
const REPLACING_FIELDS = new Set(['sessionUpdate', 'toolCallId', 'content', 'status', 'title', 'kind', 'locations', 'rawInput', 'rawOutput']);

/** Characters past the cut redacted with what is kept, so a secret the cut splits is still recognised whole. */
const CUT_MARGIN = 8192;

/** `text` cut to {@link JOURNAL_TEXT_CHARS} (redacted before the cut) with a note of what was left out. */
function cutForJournal(text: string): string {
  if (text.length <= JOURNAL_TEXT_CHARS) return text;
  const kept = redactSecrets(text.slice(0, JOURNAL_TEXT_CHARS + CUT_MARGIN)).slice(0, JOURNAL_TEXT_CHARS);
  return `${kept}\n[… ${text.length - JOURNAL_TEXT_CHARS} more characters of this output were not kept in the session journal]`;
}

/** `v` with every string longer than {@link JOURNAL_TEXT_CHARS} cut (arrays and objects copied only where something was). */
function cutStrings(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return cutForJournal(v);
  if (!v || typeof v !== 'object' || depth > 8) return v;
  if (Array.isArray(v)) {
    const out = v.map((x) => cutStrings(x, depth + 1));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, x] of Object.entries(v)) {
    const c = cutStrings(x, depth + 1);
    if (c !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = c;
  }
  return out ?? v;
}

/**
 * A tool call's update as the journal keeps it: the texts of its `content` and the strings of its
 * `rawOutput` cut at {@link JOURNAL_TEXT_CHARS}. Diffs and raw input (a file's text the person may
 * review) are kept whole. Returns `u` itself when nothing is that long.
 */
function toolOutputForJournal<U extends SessionUpdate>(u: U): U {
  const t = u as U & { content?: unknown; rawOutput?: unknown };
  const before = Array.isArray(t.content) ? (t.content as { type?: unknown; content?: { type?: unknown; text?: unknown } }[]) : undefined;
  const content = before?.map((c) =>
    c?.type === 'content' && c.content?.type === 'text' && typeof c.content.text === 'string' && c.content.text.length > JOURNAL_TEXT_CHARS
      ? { ...c, content: { ...c.content, text: cutForJournal(c.content.text) } }
      : c,
  );
  const contentCut = !!content && content.some((c, i) => c !== before![i]);
  const rawOutput = t.rawOutput === undefined ? undefined : cutStrings(t.rawOutput);
  if (!contentCut && rawOutput === t.rawOutput) return u;
  return { ...u, ...(contentCut ? { content } : {}), ...(rawOutput !== t.rawOutput ? { rawOutput } : {}) };
}

/** A text chunk of a message, thought or the person's words (what the journal coalesces). */
function isTextChunk(u: SessionUpdate): u is Extract<SessionUpdate, { sessionUpdate: 'agent_message_chunk' }> & { content: { type: 'text'; text: string } } {
  return (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk' || u.sessionUpdate === 'user_message_chunk') && u.content.type === 'text';
}

/**
 * The protocol inspector's record of one agent connection: every JSON-RPC message in both
 * directions with the time it passed, as a bounded ring (the newest are kept). A tap on the ACP
 * `Stream` feeds it without copying messages (they are kept by reference, stringified only to show,
 * search or export). Export redacts: environment values, anything that looks like a credential, and —
 * unless asked to keep them — file contents. No `vscode`. Spec: PROTOCOLS.md §1 (ACP over stdio).
 */
import type * as acp from '@agentclientprotocol/sdk';

/** One message as it passed. `dir`: `out` from us to the agent, `in` from the agent. */
export interface ProtocolEntry {
  seq: number;
  /** ms since the epoch. */
  at: number;
  dir: 'in' | 'out';
  message: unknown;
}

/** What an entry is, for the list. */
export interface EntrySummary {
  seq: number;
  at: number;
  dir: 'in' | 'out';
  kind: 'request' | 'response' | 'error' | 'notification' | 'other';
  /** The method; for a response, the method of the request it answers (when seen). */
  method: string;
  id?: string | number;
}

type Message = acp.AnyMessage;

/** A bounded log of a connection's messages. */
export class ProtocolLog {
  private readonly entries: ProtocolEntry[] = [];
  private seq = 0;
  /** Request ids to methods, per direction of the request, so responses can name their method. */
  private readonly pending = new Map<string, string>();
  private readonly listeners = new Set<(e: ProtocolEntry) => void>();
  /** Entries dropped from the front since the log began. */
  dropped = 0;

  constructor(readonly capacity = 20_000) {}

  /** Records a message (called by the tap for every message). */
  record(dir: 'in' | 'out', message: unknown, at = Date.now()): void {
    const entry: ProtocolEntry = { seq: ++this.seq, at, dir, message };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) {
      // Drop a tenth at once: one splice per many records, not per record.
      const n = Math.ceil(this.capacity / 10);
      this.entries.splice(0, n);
      this.dropped += n;
    }
    const m = message as { id?: unknown; method?: unknown };
    if (typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      this.pending.set(`${dir}:${m.id}`, m.method);
      if (this.pending.size > 10_000) this.pending.delete(this.pending.keys().next().value as string);
    }
    for (const l of this.listeners) l(entry);
  }

  /** Hears each new entry. @returns a function that stops it. */
  onRecord(listener: (e: ProtocolEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The entries kept, oldest first. */
  all(): readonly ProtocolEntry[] {
    return this.entries;
  }

  /** What an entry is: request, response (with its request's method), error, notification. */
  summary(e: ProtocolEntry): EntrySummary {
    const m = e.message as { id?: string | number; method?: unknown; result?: unknown; error?: unknown };
    const base = { seq: e.seq, at: e.at, dir: e.dir };
    if (typeof m?.method === 'string') return { ...base, kind: m.id === undefined ? 'notification' : 'request', method: m.method, ...(m.id !== undefined ? { id: m.id } : {}) };
    if (m && m.id !== undefined && ('result' in m || 'error' in m)) {
      // A response travels the other way from its request.
      const method = this.pending.get(`${e.dir === 'in' ? 'out' : 'in'}:${m.id}`) ?? '(response)';
      return { ...base, kind: 'error' in m && m.error ? 'error' : 'response', method, id: m.id };
    }
    return { ...base, kind: 'other', method: '(not JSON-RPC)' };
  }

  /**
   * Entries whose method or text contains `query` (case-insensitive), newest last, at most `limit`.
   */
  search(query: string, limit = 5_000): ProtocolEntry[] {
    const q = query.trim().toLowerCase();
    if (!q) return this.entries.slice(-limit);
    const out: ProtocolEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.entries[i];
      if (this.summary(e).method.toLowerCase().includes(q) || safeJson(e.message).toLowerCase().includes(q)) out.push(e);
    }
    return out.reverse();
  }
}

/**
 * An ACP stream that records every message passing through it into `log` and otherwise behaves as
 * `stream` (same messages, same order, same back-pressure).
 */
export function tapStream(stream: acp.Stream, log: ProtocolLog): acp.Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream<Message, Message>({
      transform(message, controller) {
        log.record('in', message);
        controller.enqueue(message);
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<Message>({
    async write(message) {
      log.record('out', message);
      await writer.write(message);
    },
    async close() {
      await writer.close();
    },
    async abort(reason) {
      await writer.abort(reason);
    },
  });
  return { readable, writable };
}

/** Options of {@link redact}. */
export interface RedactOptions {
  /** Keep file contents (`fs/*` texts, diffs, embedded resources); default false. */
  fileContents?: boolean;
}

const SECRET_KEY = /(token|secret|password|passwd|authorization|api[-_]?key|credential|cookie|private[-_]?key)/i;
const SECRET_VALUE = /\b(Bearer\s+[\w.~+/-]+=*|sk-[\w-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[baprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,})/g;
/**
 * Where ACP carries file contents: `content` strings of request params and results
 * (`fs/write_text_file`, `fs/read_text_file`) and of a tool's raw input/output, diff texts, and an
 * embedded resource's `text`/`blob`. Message text and plan entries are not file content.
 */
const CONTENT_HOLDERS = new Set(['params', 'result', 'rawInput', 'rawOutput']);
const isFileText = (key: string | undefined, parentKey: string | undefined) =>
  (key === 'content' && parentKey !== undefined && CONTENT_HOLDERS.has(parentKey)) || key === 'oldText' || key === 'newText' || ((key === 'text' || key === 'blob') && parentKey === 'resource');

/**
 * A copy of `message` with secrets removed: every value of an `env` list or map (`{name, value}` or
 * `{KEY: value}`), header values, values under keys that name credentials, bearer tokens and
 * well-known key formats inside any string; file contents become `[N characters]` unless kept.
 */
export function redact(message: unknown, options: RedactOptions = {}): unknown {
  const walk = (v: unknown, key: string | undefined, parentKey: string | undefined, depth: number): unknown => {
    if (depth > 64) return '[too deep]';
    if (typeof v === 'string') {
      if (key && SECRET_KEY.test(key)) return '[redacted]';
      if (parentKey === 'env' || parentKey === 'headers') return '[redacted]';
      if (!options.fileContents && isFileText(key, parentKey) && v.length > 0) return `[${v.length} characters]`;
      return v.replace(SECRET_VALUE, '[redacted]');
    }
    if (Array.isArray(v)) {
      // An env or header list: [{name, value}].
      if (key === 'env' || key === 'headers') return v.map((x) => (x && typeof x === 'object' && 'name' in x ? { ...x, value: '[redacted]' } : '[redacted]'));
      return v.map((x) => walk(x, key, parentKey, depth + 1));
    }
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k, key, depth + 1);
      return out;
    }
    return v;
  };
  return walk(message, undefined, undefined, 0);
}

/** The log as JSON Lines for export: `{seq, at (ISO), dir, message}` per line, redacted. */
export function exportLog(entries: readonly ProtocolEntry[], options: RedactOptions = {}): string {
  return entries.map((e) => JSON.stringify({ seq: e.seq, at: new Date(e.at).toISOString(), dir: e.dir, message: redact(e.message, options) })).join('\n') + (entries.length ? '\n' : '');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

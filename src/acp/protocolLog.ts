/**
 * The protocol inspector's record of one agent connection: every JSON-RPC message in both
 * directions with the time it passed, as a bounded log (the newest are kept), and the tap that feeds
 * it. No `vscode`. Spec: PROTOCOLS.md §1 (ACP over stdio).
 *
 * The log is on the path of every message an agent streams, so it is built not to make garbage that
 * lives: a 200,000-chunk turn (PF8) passes 200,000 messages through a log that keeps the last
 * 20,000, and whatever the log keeps of each outlives the collector's young generation. Kept as an
 * entry object and the parsed message's four objects per message, that was ~60 MB copied out of the
 * young generation in one turn, which V8 answered by growing it from 16 to 64 MiB (the extension
 * host's RSS ~100 MB higher until V8's memory reducer shrank it, seconds after the turn). So the
 * log keeps columns (times in a double array, direction and size in one small integer, the message,
 * one string), makes no entry object unless someone reads the log, and keeps a plain text chunk
 * (`session/update` with `agent_message_chunk`, `agent_thought_chunk` or `user_message_chunk`, text
 * content, nothing else) as its text alone: the message is made again, the same key by key and in
 * the same order, when it is read.
 */
import type * as acp from '@agentclientprotocol/sdk';

/** One message as it passed. `dir`: `out` from us to the agent, `in` from the agent. */
export interface ProtocolEntry {
  seq: number;
  /** ms since the epoch. */
  at: number;
  dir: 'in' | 'out';
  message: unknown;
  /** For a response: the method of the request it answers, fixed when the response passed. */
  answers?: string;
  /** Rough size in bytes (string lengths), for the log's budget. */
  size: number;
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

/** The chunk kinds kept as their text alone; a form's number is its index here plus one. */
const CHUNK_KINDS = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'] as const;
/** `meta` packs an entry's size, form (0: the message as it passed; 1–3: a chunk kind) and direction. */
const FORM_BITS = 4;
const DIR_BIT = 1;

/** A bounded log of a connection's messages. */
export class ProtocolLog {
  /** Columns, oldest first; entry `i` has sequence number `seq - length + 1 + i`. */
  private ats: number[] = [];
  private meta: number[] = [];
  /** The message, or a chunk's text. */
  private messages: unknown[] = [];
  /** A response's request method, or a chunk's session id. */
  private extra: (string | undefined)[] = [];
  private seq = 0;
  private bytes = 0;
  /** Open requests (id → method), per direction of the request; a response takes its entry out. */
  private readonly pending = new Map<string, string>();
  private readonly listeners = new Set<(e: ProtocolEntry) => void>();
  /** Entries dropped from the front since the log began. */
  dropped = 0;

  /**
   * @param capacity most entries kept
   * @param maxBytes most bytes kept (message sizes estimated from their strings); a single message
   *   over a sixteenth of it (1 MiB by default) is kept as a stub naming its method and size. Each
   *   session has a log: a tool re-sending a 2 MiB output 200 times (PF10) kept 64 MB of copies
   *   per session with the earlier 64 MB budget and a tenth of it per message.
   */
  constructor(
    readonly capacity = 20_000,
    readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** Records a message (called by the tap for every message). */
  record(dir: 'in' | 'out', message: unknown, at = Date.now()): void {
    const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    let size = sizeOf(message, this.maxBytes);
    let kept = message;
    let extra: string | undefined;
    let form = 0;
    if (size > this.maxBytes / 16) {
      kept = { ...(typeof m?.method === 'string' ? { method: m.method } : {}), ...(m?.id !== undefined ? { id: m.id } : {}), note: `a message of about ${size} bytes, too large to keep` };
      size = 256;
    } else if ((form = chunkForm(message)) > 0) {
      const p = (message as { params: { sessionId: string; update: { content: { text: string } } } }).params;
      kept = p.update.content.text;
      // The same session's id, kept once rather than once per chunk.
      const last = this.extra.length - 1;
      extra = last >= 0 && this.extra[last] === p.sessionId ? this.extra[last] : p.sessionId;
    }
    const id = form === 0 && (typeof m?.id === 'string' || typeof m?.id === 'number') ? m.id : undefined;
    if (id !== undefined && typeof m?.method === 'string') {
      this.pending.set(`${dir}:${id}`, m.method);
      // Requests never answered must not pile up.
      if (this.pending.size > 10_000) this.pending.delete(this.pending.keys().next().value as string);
    } else if (id !== undefined && m && ('result' in m || 'error' in m)) {
      // A response travels the other way from its request; an id may be used again later.
      const k = `${dir === 'in' ? 'out' : 'in'}:${id}`;
      extra = this.pending.get(k);
      this.pending.delete(k);
      // What a person typed into an agent's form may be a secret: the record keeps the field
      // names, not the values (they went to the agent; the inspector shows, searches and exports).
      if (extra === 'elicitation/create') kept = withoutAnswerValues(kept);
    }
    this.ats.push(at);
    this.meta.push(size * 2 ** FORM_BITS + form * 2 + (dir === 'out' ? DIR_BIT : 0));
    this.messages.push(kept);
    this.extra.push(extra);
    this.seq++;
    this.bytes += size;
    if (this.ats.length > this.capacity || this.bytes > this.maxBytes) this.trim();
    if (this.listeners.size) {
      const entry: ProtocolEntry = { seq: this.seq, at, dir, message: form ? message : kept, size, ...(form === 0 && extra !== undefined ? { answers: extra } : {}) };
      for (const l of this.listeners) l(entry);
    }
  }

  /** Drops from the front down to 90% of both limits (one cut per many records). */
  private trim(): void {
    let i = 0;
    const n = this.ats.length;
    while (i < n - 1 && (n - i > this.capacity * 0.9 || this.bytes > this.maxBytes * 0.9)) {
      this.bytes -= Math.floor(this.meta[i] / 2 ** FORM_BITS);
      i++;
    }
    this.ats.splice(0, i);
    this.meta.splice(0, i);
    this.messages.splice(0, i);
    this.extra.splice(0, i);
    this.dropped += i;
  }

  /** Hears each new entry. @returns a function that stops it. */
  onRecord(listener: (e: ProtocolEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The entries kept, oldest first (made for this call: a long log is read seldom, written often). */
  all(): ProtocolEntry[] {
    const out: ProtocolEntry[] = new Array(this.ats.length);
    for (let i = 0; i < out.length; i++) out[i] = this.entry(i);
    return out;
  }

  /** Entry `i` of the columns, its message made again when it was kept as a chunk's text. */
  private entry(i: number): ProtocolEntry {
    const meta = this.meta[i];
    const form = Math.floor(meta / 2) % 2 ** (FORM_BITS - 1);
    const extra = this.extra[i];
    const message = form
      ? { jsonrpc: '2.0', method: 'session/update', params: { sessionId: extra, update: { sessionUpdate: CHUNK_KINDS[form - 1], content: { type: 'text', text: this.messages[i] } } } }
      : this.messages[i];
    return { seq: this.seq - this.ats.length + 1 + i, at: this.ats[i], dir: meta % 2 ? 'out' : 'in', message, size: Math.floor(meta / 2 ** FORM_BITS), ...(form === 0 && extra !== undefined ? { answers: extra } : {}) };
  }

  /** What an entry is: request, response (with its request's method), error, notification. */
  summary(e: ProtocolEntry): EntrySummary {
    const m = e.message as { id?: string | number; method?: unknown; result?: unknown; error?: unknown };
    const base = { seq: e.seq, at: e.at, dir: e.dir };
    if (typeof m?.method === 'string') return { ...base, kind: m.id === undefined ? 'notification' : 'request', method: m.method, ...(m.id !== undefined ? { id: m.id } : {}) };
    if (m && m.id !== undefined && ('result' in m || 'error' in m)) return { ...base, kind: 'error' in m && m.error ? 'error' : 'response', method: e.answers ?? '(response)', id: m.id };
    return { ...base, kind: 'other', method: '(not JSON-RPC)' };
  }

  /**
   * Entries whose method or text contains `query` (case-insensitive), newest last, at most `limit`.
   */
  search(query: string, limit = 5_000): ProtocolEntry[] {
    const q = query.trim().toLowerCase();
    const n = this.ats.length;
    const out: ProtocolEntry[] = [];
    for (let i = n - 1; i >= 0 && out.length < limit; i--) {
      const e = this.entry(i);
      if (!q || this.summary(e).method.toLowerCase().includes(q) || safeJson(e.message).toLowerCase().includes(q)) out.push(e);
    }
    return out.reverse();
  }
}

/**
 * A stream that reports its own messages as they pass (`ndJsonStdio`): a tap then adds no stream of
 * its own. `observer` hears each message read (`in`, as it is handed on) and written (`out`, as it is
 * sent), in order; setting it again replaces it.
 */
export interface ObservableStream extends acp.Stream {
  observe(observer: (dir: 'in' | 'out', message: acp.AnyMessage) => void): void;
}

/**
 * An ACP stream that records every message passing through it into `log` and otherwise behaves as
 * `stream` (same messages, same order, same back-pressure). A stream that reports its own messages
 * ({@link ObservableStream}) is returned as it is, reporting to `log`; any other is wrapped in a
 * pair of web streams.
 */
export function tapStream(stream: acp.Stream, log: ProtocolLog): acp.Stream {
  if (typeof (stream as Partial<ObservableStream>).observe === 'function') {
    (stream as ObservableStream).observe((dir, message) => log.record(dir, message));
    return stream;
  }
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(message, controller) {
        log.record('in', message);
        controller.enqueue(message);
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
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

/**
 * An `elicitation/create` response with each value of `result.content` replaced by
 * `[redacted]` (a copy; the original goes to the agent unchanged).
 */
export function withoutAnswerValues(message: unknown): unknown {
  const m = message as { result?: { content?: unknown } };
  const content = m?.result?.content;
  if (!content || typeof content !== 'object') return message;
  return { ...m, result: { ...m.result, content: Object.fromEntries(Object.keys(content).map((k) => [k, '[redacted]'])) } };
}

/**
 * The form of a plain text chunk (1–3, see `CHUNK_KINDS`), or 0 for any other message: exactly
 * `{jsonrpc: "2.0", method: "session/update", params: {sessionId, update: {sessionUpdate,
 * content: {type: "text", text}}}}`, each object plain, with these keys in this order and no other,
 * so that the message made from the text is the message that passed.
 */
function chunkForm(message: unknown): number {
  const m = message as { jsonrpc?: unknown; method?: unknown; params?: { sessionId?: unknown; update?: { sessionUpdate?: unknown; content?: { type?: unknown; text?: unknown } } } };
  if (!keysAre(m, 'jsonrpc', 'method', 'params') || m.jsonrpc !== '2.0' || m.method !== 'session/update') return 0;
  const p = m.params;
  if (!keysAre(p, 'sessionId', 'update') || typeof p!.sessionId !== 'string') return 0;
  const u = p!.update;
  if (!keysAre(u, 'sessionUpdate', 'content')) return 0;
  const c = u!.content;
  if (!keysAre(c, 'type', 'text') || c!.type !== 'text' || typeof c!.text !== 'string') return 0;
  const kind = CHUNK_KINDS.indexOf(u!.sessionUpdate as (typeof CHUNK_KINDS)[number]);
  return kind + 1;
}

/** Whether `o` is a plain object whose own keys are exactly `a`, `b` and (when given) `c`, in this order. */
function keysAre(o: unknown, a: string, b: string, c?: string): boolean {
  if (o === null || typeof o !== 'object' || Object.getPrototypeOf(o) !== Object.prototype) return false;
  let i = 0;
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k) || k !== (i === 0 ? a : i === 1 ? b : c)) return false;
    i++;
  }
  return i === (c === undefined ? 2 : 3);
}

/** A message's rough size in bytes: its strings' lengths plus a little per value; stops past `limit`. */
function sizeOf(v: unknown, limit: number): number {
  let n = 0;
  // One stack for every call: the log sizes every message, so a new array each time is garbage.
  const stack = sizeStack;
  const base = stack.length;
  stack.push(v);
  while (stack.length > base && n <= limit) {
    const x = stack.pop();
    if (typeof x === 'string') n += x.length + 2;
    else if (Array.isArray(x)) {
      n += 2;
      for (let i = 0; i < x.length; i++) stack.push(x[i]);
    } else if (x !== null && typeof x === 'object') {
      for (const k in x) {
        if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
        n += k.length + 4;
        stack.push((x as Record<string, unknown>)[k]);
      }
    } else n += 8;
  }
  stack.length = base;
  return n;
}
const sizeStack: unknown[] = [];

/** `JSON.stringify`, or '' for what it cannot write. */
export function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

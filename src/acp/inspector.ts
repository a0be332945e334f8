/**
 * The protocol inspector's record of one agent connection: every JSON-RPC message in both
 * directions with the time it passed, as a bounded ring (the newest are kept). A tap on the ACP
 * `Stream` feeds it without copying messages (they are kept by reference, stringified only to show,
 * search or export). Export redacts: environment values, anything that looks like a credential, and —
 * unless asked to keep them — file contents. No `vscode`. Spec: PROTOCOLS.md §1 (ACP over stdio).
 */
import type * as acp from '@agentclientprotocol/sdk';
import { redactSecrets } from '../policy/redact';

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

type Message = acp.AnyMessage;

/** A bounded log of a connection's messages. */
export class ProtocolLog {
  private entries: ProtocolEntry[] = [];
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
    if (size > this.maxBytes / 16) {
      kept = { ...(typeof m?.method === 'string' ? { method: m.method } : {}), ...(m?.id !== undefined ? { id: m.id } : {}), note: `a message of about ${size} bytes, too large to keep` };
      size = 256;
    }
    const entry: ProtocolEntry = { seq: ++this.seq, at, dir, message: kept, size };
    const id = typeof m?.id === 'string' || typeof m?.id === 'number' ? m.id : undefined;
    if (id !== undefined && typeof m?.method === 'string') {
      this.pending.set(`${dir}:${id}`, m.method);
      // Requests never answered must not pile up.
      if (this.pending.size > 10_000) this.pending.delete(this.pending.keys().next().value as string);
    } else if (id !== undefined && m && ('result' in m || 'error' in m)) {
      // A response travels the other way from its request; an id may be used again later.
      const k = `${dir === 'in' ? 'out' : 'in'}:${id}`;
      entry.answers = this.pending.get(k);
      this.pending.delete(k);
      // What a person typed into an agent's form may be a secret: the record keeps the field
      // names, not the values (they went to the agent; the inspector shows, searches and exports).
      if (entry.answers === 'elicitation/create') entry.message = withoutAnswerValues(entry.message);
    }
    this.entries.push(entry);
    this.bytes += size;
    if (this.entries.length > this.capacity || this.bytes > this.maxBytes) this.trim();
    for (const l of this.listeners) l(entry);
  }

  /** Drops from the front down to 90% of both limits (one slice per many records). */
  private trim(): void {
    let i = 0;
    while (i < this.entries.length - 1 && (this.entries.length - i > this.capacity * 0.9 || this.bytes > this.maxBytes * 0.9)) {
      this.bytes -= this.entries[i].size;
      i++;
    }
    this.entries = this.entries.slice(i);
    this.dropped += i;
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
    if (m && m.id !== undefined && ('result' in m || 'error' in m)) return { ...base, kind: 'error' in m && m.error ? 'error' : 'response', method: e.answers ?? '(response)', id: m.id };
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

/** Options of {@link redact}. */
export interface RedactOptions {
  /** Keep file contents (`fs/*` texts, diffs, embedded resources, what read tools returned); default false. */
  fileContents?: boolean;
}

/** Keys whose whole value (whatever its shape) is a credential. */
const SECRET_KEY = /(token|secret|passw(or)?d|passwd|authorization|api[-_]?key|credential|cookie|private[-_]?key|client[-_]?secret|session[-_]?key|access[-_]?key|signature)/i;
/**
 * Redacts every credential found in `text`: the one rule set of `policy/redact.ts`, shared with the
 * audit, the journal and the traces.
 */
export const redactText: (text: string) => string = redactSecrets;

/** Tool input keys that hold a file's text (Claude Code's Edit/Write, Codex's apply_patch, …). */
const FILE_INPUT_KEYS = new Set(['content', 'old_string', 'new_string', 'oldText', 'newText', 'old_str', 'new_str', 'file_text', 'patch', 'input']);
const CONTENT_HOLDERS = new Set(['params', 'result', 'rawInput', 'rawOutput']);

/**
 * A copy of `message` with secrets removed: every value of an `env` list or map (`{name, value}` or
 * `{KEY: value}`), header values, the whole value under a key that names a credential, and
 * credentials inside any text (see {@link redactText}). Unless `fileContents`, file contents become
 * `[N characters]`: `fs/*` texts, diff texts, a resource's `text`/`blob` wherever it sits, file text
 * in a tool's raw input, and what a read tool returned.
 */
export function redact(message: unknown, options: RedactOptions = {}): unknown {
  const hide = (v: string) => (v.length ? `[${v.length} characters]` : v);
  const walk = (v: unknown, key: string | undefined, parentKey: string | undefined, depth: number, ctx: { read: boolean }): unknown => {
    if (depth > 64) return '[too deep]';
    if (key && SECRET_KEY.test(key) && v !== null && v !== undefined && v !== '' && typeof v !== 'boolean') return '[redacted]';
    if (typeof v === 'string') {
      if (parentKey === 'env' || parentKey === 'headers') return '[redacted]';
      if (!options.fileContents) {
        if (key === 'oldText' || key === 'newText') return hide(v);
        if (key === 'content' && parentKey !== undefined && CONTENT_HOLDERS.has(parentKey)) return hide(v);
        if (parentKey === 'rawInput' && key && FILE_INPUT_KEYS.has(key)) return hide(v);
        // What a read tool (or the agent's own read) returned is the file.
        if (ctx.read && (key === 'text' || parentKey === 'rawOutput')) return hide(v);
      }
      return redactText(v);
    }
    if (Array.isArray(v)) {
      // An env or header list: [{name, value}].
      if (key === 'env' || key === 'headers') return v.map((x) => (x && typeof x === 'object' && 'name' in x ? { ...x, value: '[redacted]' } : '[redacted]'));
      return v.map((x) => walk(x, key, parentKey, depth + 1, ctx));
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      // An embedded resource is a file wherever it sits; a read tool call's content is the file.
      const isResource = (o.type === 'resource' || key === 'resource') && ('text' in o || 'blob' in o || 'resource' in o);
      const next = { read: ctx.read || o.kind === 'read' || (isResource && !options.fileContents) };
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(o)) {
        if (!options.fileContents && isResource && (k === 'text' || k === 'blob') && typeof x === 'string') out[k] = hide(x);
        else out[k] = walk(x, k, key, depth + 1, k === 'content' || k === 'rawOutput' || k === 'resource' ? next : ctx);
      }
      return out;
    }
    return v;
  };
  return walk(message, undefined, undefined, 0, { read: false });
}

/**
 * A message as the inspector shows it: pretty JSON with secrets redacted (env and header values,
 * credential keys, credentials in text, e.g. the `headers` of an HTTP MCP server in `session/new`),
 * file contents kept, since the person reads the protocol to debug it. Cut at `max` characters.
 */
export function inspectorJson(message: unknown, max: number): string {
  let json: string;
  try {
    json = JSON.stringify(redact(message, { fileContents: true }), null, 2) ?? 'undefined';
  } catch {
    json = '[a message that cannot be shown]';
  }
  return json.length > max ? `${json.slice(0, max)}\n… [${json.length - max} more characters; Export has them]` : json;
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

/** A message's rough size in bytes: its strings' lengths plus a little per value; stops past `limit`. */
function sizeOf(v: unknown, limit: number): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length && n <= limit) {
    const x = stack.pop();
    if (typeof x === 'string') n += x.length + 2;
    else if (Array.isArray(x)) {
      n += 2;
      for (const y of x) stack.push(y);
    } else if (x && typeof x === 'object') {
      for (const [k, y] of Object.entries(x)) {
        n += k.length + 4;
        stack.push(y);
      }
    } else n += 8;
  }
  return n;
}

/**
 * The trace store: spans from our own instrumentation and from the receiver in one place, grouped
 * by session. A session owns the traces it started (its root spans' trace ids); spans that arrive
 * later with the same trace id — an agent exporting its own spans with the `traceparent` we sent —
 * join that session, whoever sent them. Spans of a trace nobody claimed wait (bounded) until a
 * session claims it.
 *
 * Bounded: at most `maxSessions` sessions (the least recently active is evicted whole, never a part
 * of one) and `maxSpansPerSession` spans each (the oldest ended spans go first, and the session is
 * marked truncated). Bytes are budgeted too ({@link spanBytes}): spans another process sends are
 * refused — not stored, reported back — once they would take a session past `maxBytesPerSession` or
 * the store past `maxBytesTotal`, so one agent cannot grow the extension host, and cannot push other
 * sessions' spans out either; our own spans are trimmed oldest first to the same per-session budget.
 * A span seen twice (same trace and span id) is replaced, not duplicated. No `vscode`.
 */
import { spanBytes, type SpanRecord } from './otlp';

/** Limits of the store. */
export interface TraceStoreLimits {
  maxSessions: number;
  maxSpansPerSession: number;
  /** Spans of unclaimed traces kept for a session that may claim them later. */
  maxUnclaimedSpans: number;
  /** Distinct traces a sender may open in one session (spans of further new traces are refused). */
  maxTracesPerSession: number;
  /** Bytes ({@link spanBytes}) of one session's spans. */
  maxBytesPerSession: number;
  /** Bytes of the spans of unclaimed traces (the oldest waiting trace goes first). */
  maxUnclaimedBytes: number;
  /** Bytes of all sessions' spans together: past it, received spans are refused. */
  maxBytesTotal: number;
}

const MiB = 1024 * 1024;
const DEFAULTS: TraceStoreLimits = {
  maxSessions: 50,
  maxSpansPerSession: 50_000,
  maxUnclaimedSpans: 10_000,
  maxTracesPerSession: 1_000,
  maxBytesPerSession: 32 * MiB,
  maxUnclaimedBytes: 32 * MiB,
  maxBytesTotal: 256 * MiB,
};

/** What {@link TraceStore.accept} refused, and why (sentences for OTLP's `partialSuccess.errorMessage`). */
export interface Acceptance {
  refused: number;
  problems: string[];
}

interface SessionTrace {
  traceIds: Set<string>;
  /** By trace id, then span id (no composite string key per span: ingest is on the hot path). */
  spans: Map<string, Map<string, SpanRecord>>;
  size: number;
  /** {@link spanBytes} of the spans kept. */
  bytes: number;
  lastActive: number;
  truncated: boolean;
  /** A received span was refused for the byte budget: further requests are refused unread. */
  full: boolean;
}

/** Spans by session. */
export class TraceStore {
  private readonly sessions = new Map<string, SessionTrace>();
  private readonly owner = new Map<string, string>();
  /** Spans of traces nobody owns yet, by trace id then span id (claiming one trace is one lookup). */
  private readonly unclaimed = new Map<string, Map<string, SpanRecord>>();
  private unclaimedSize = 0;
  private unclaimedBytes = 0;
  /** Bytes of every session's spans. */
  private totalBytes = 0;
  /** Sizes of the spans kept (computed once per span, on arrival). */
  private readonly sizes = new WeakMap<SpanRecord, number>();
  private readonly limits: TraceStoreLimits;
  private clock = 0;
  private readonly listeners = new Set<(sessionKey: string, spans: readonly SpanRecord[]) => void>();

  constructor(limits: Partial<TraceStoreLimits> = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  /** Tells `listener` the session whose spans changed, and the spans added or replaced. @returns a function that stops it. */
  onDidChange(listener: (sessionKey: string, spans: readonly SpanRecord[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Makes `traceId` part of `sessionKey` (its root span's trace); waiting spans of it move in. */
  claim(sessionKey: string, traceId: string): void {
    const s = this.session(sessionKey);
    s.traceIds.add(traceId);
    this.owner.set(traceId, sessionKey);
    const waiting = this.unclaimed.get(traceId);
    if (!waiting) return;
    this.unclaimed.delete(traceId);
    this.unclaimedSize -= waiting.size;
    for (const x of waiting.values()) this.unclaimedBytes -= this.size(x);
    this.add([...waiting.values()]);
  }

  /** Adds or replaces spans; each goes to the session that owns its trace, or waits. */
  add(spans: readonly SpanRecord[]): void {
    const touched = new Map<string, SpanRecord[]>();
    for (const span of spans) {
      const sessionKey = this.owner.get(span.traceId);
      if (!sessionKey) {
        let waiting = this.unclaimed.get(span.traceId);
        if (!waiting) this.unclaimed.set(span.traceId, (waiting = new Map()));
        const before = waiting.size;
        const replaced = waiting.get(span.spanId);
        if (replaced) this.unclaimedBytes -= this.size(replaced);
        waiting.set(span.spanId, span);
        this.unclaimedSize += waiting.size - before;
        this.unclaimedBytes += this.size(span);
        // Over a limit, the oldest waiting trace goes whole (the newest stays, even alone over the byte limit: it is bounded per span).
        while ((this.unclaimedSize > this.limits.maxUnclaimedSpans || this.unclaimedBytes > this.limits.maxUnclaimedBytes) && this.unclaimed.size > 1) {
          const [oldest, spans] = this.unclaimed.entries().next().value as [string, Map<string, SpanRecord>];
          this.unclaimed.delete(oldest);
          this.unclaimedSize -= spans.size;
          for (const x of spans.values()) this.unclaimedBytes -= this.size(x);
        }
        continue;
      }
      const s = this.session(sessionKey);
      let trace = s.spans.get(span.traceId);
      if (!trace) s.spans.set(span.traceId, (trace = new Map()));
      const before = trace.size;
      // A span another process sent never replaces one of ours (it would forge a decision).
      const existing = trace.get(span.spanId);
      if (existing && span.received && !existing.received) continue;
      if (existing) this.account(s, -this.size(existing));
      // Delete first, so a replaced span moves to the end (insertion order is arrival order).
      trace.delete(span.spanId);
      trace.set(span.spanId, span);
      s.size += trace.size - before;
      this.account(s, this.size(span));
      const list = touched.get(sessionKey);
      if (list) list.push(span);
      else touched.set(sessionKey, [span]);
      if (s.size > this.limits.maxSpansPerSession || s.bytes > this.limits.maxBytesPerSession) this.trim(s);
    }
    for (const [k, list] of touched) for (const l of this.listeners) l(k, list);
  }

  /**
   * Adds spans a session's own agent sent (through the receiver token issued to that session): a
   * span of a trace nobody owns makes that trace the session's (an agent that started its own trace
   * instead of continuing our `traceparent`); a span of a trace another session owns is refused, so
   * one agent cannot write into another session's tree.
   * @returns how many spans were refused.
   */
  addFrom(sessionKey: string, spans: readonly SpanRecord[]): number {
    return this.accept(sessionKey, spans).refused;
  }

  /**
   * {@link addFrom}, saying why spans were refused: a trace of another session, too many traces, or
   * the session's (or the store's) byte budget used up — then the session is marked truncated.
   */
  accept(sessionKey: string, spans: readonly SpanRecord[]): Acceptance {
    // A session that is gone (closed, dropped) takes nothing: late spans must not bring it back.
    const s = this.sessions.get(sessionKey);
    if (!s) return { refused: spans.length, problems: [`${spans.length} span(s) arrived for a session that has ended`] };
    let foreign = 0;
    let overBudget = 0;
    let bytes = s.bytes;
    let total = this.totalBytes;
    const accepted: SpanRecord[] = [];
    for (const span of spans) {
      const owner = this.owner.get(span.traceId);
      if ((owner && owner !== sessionKey) || (!owner && s.traceIds.size >= this.limits.maxTracesPerSession)) {
        foreign++;
        continue;
      }
      const size = this.size(span);
      if (bytes + size > this.limits.maxBytesPerSession || total + size > this.limits.maxBytesTotal) {
        overBudget++;
        continue;
      }
      bytes += size;
      total += size;
      if (!owner) this.claim(sessionKey, span.traceId);
      accepted.push(span);
    }
    if (accepted.length) this.add(accepted);
    const problems: string[] = [];
    if (foreign) problems.push(`${foreign} span(s) belong to a trace of another session, or open more than ${this.limits.maxTracesPerSession} traces`);
    if (overBudget) {
      s.truncated = s.full = true;
      problems.push(`${overBudget} span(s) refused: the session's trace budget (${this.limits.maxBytesPerSession} bytes, ${this.limits.maxBytesTotal} for all sessions) is used up`);
    }
    return { refused: foreign + overBudget, problems };
  }

  /** Bytes a session may still take from a sender (0 when its budget, or the store's, is used up; the session unknown). */
  budgetLeft(sessionKey: string): number {
    const s = this.sessions.get(sessionKey);
    if (!s || s.full) return 0;
    return Math.max(0, Math.min(this.limits.maxBytesPerSession - s.bytes, this.limits.maxBytesTotal - this.totalBytes));
  }

  /** Bytes ({@link spanBytes}) kept for a session, and for all of them. */
  bytes(sessionKey?: string): number {
    return sessionKey === undefined ? this.totalBytes : (this.sessions.get(sessionKey)?.bytes ?? 0);
  }

  private size(span: SpanRecord): number {
    let n = this.sizes.get(span);
    if (n === undefined) this.sizes.set(span, (n = spanBytes(span)));
    return n;
  }

  private account(s: SessionTrace, delta: number): void {
    s.bytes += delta;
    this.totalBytes += delta;
  }

  /** The spans of a session, in start order. */
  spans(sessionKey: string): SpanRecord[] {
    const s = this.sessions.get(sessionKey);
    if (!s) return [];
    const out: SpanRecord[] = [];
    for (const trace of s.spans.values()) for (const span of trace.values()) out.push(span);
    return out.sort((a, b) => a.startMs - b.startMs);
  }

  /** True when the session lost spans to the per-session limit. */
  truncated(sessionKey: string): boolean {
    return this.sessions.get(sessionKey)?.truncated ?? false;
  }

  /** Sessions with spans, most recently active first. */
  sessionKeys(): string[] {
    return [...this.sessions].sort((a, b) => b[1].lastActive - a[1].lastActive).map(([k]) => k);
  }

  /** Forgets a session and its traces. */
  drop(sessionKey: string): void {
    const s = this.sessions.get(sessionKey);
    if (!s) return;
    for (const t of s.traceIds) this.owner.delete(t);
    this.totalBytes -= s.bytes;
    this.sessions.delete(sessionKey);
  }

  private session(sessionKey: string): SessionTrace {
    let s = this.sessions.get(sessionKey);
    if (!s) {
      s = { traceIds: new Set(), spans: new Map(), size: 0, bytes: 0, lastActive: 0, truncated: false, full: false };
      this.sessions.set(sessionKey, s);
      // Whole sessions go, least recently active first; the new one is the most recent.
      while (this.sessions.size > this.limits.maxSessions) {
        const oldest = [...this.sessions].filter(([k]) => k !== sessionKey).sort((a, b) => a[1].lastActive - b[1].lastActive)[0];
        if (!oldest) break;
        this.drop(oldest[0]);
      }
    }
    s.lastActive = ++this.clock;
    return s;
  }

  /**
   * Drops the oldest ended spans down to 90% of the limits (live spans stay), so a session at its
   * limit is trimmed once per tenth of it rather than sorted on every span.
   */
  private trim(s: SessionTrace): void {
    const target = Math.floor(this.limits.maxSpansPerSession * 0.9);
    const targetBytes = Math.floor(this.limits.maxBytesPerSession * 0.9);
    const all: SpanRecord[] = [];
    for (const trace of s.spans.values()) for (const x of trace.values()) all.push(x);
    // The oldest ended spans go first; if that is not enough, the oldest running ones too.
    all.sort((a, b) => (a.endMs === undefined ? 1 : 0) - (b.endMs === undefined ? 1 : 0) || a.startMs - b.startMs);
    for (const x of all) {
      if (s.size <= target && s.bytes <= targetBytes) break;
      const trace = s.spans.get(x.traceId);
      if (trace?.delete(x.spanId)) {
        s.size--;
        this.account(s, -this.size(x));
      }
      // An emptied trace leaves no map behind (its ownership stays: later spans of it still belong here).
      if (trace && !trace.size) s.spans.delete(x.traceId);
    }
    s.truncated = true;
  }
}

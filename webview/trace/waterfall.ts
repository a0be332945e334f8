/**
 * The waterfall of a trace (pure, runs in any JS): spans ordered as a tree (children under their
 * parent, by start time; a span whose parent is not here is a root), each with its depth, its role
 * (from our `agent_switchboard.span.kind`, else "agent" for spans another service exported) and its
 * bar as a fraction of the whole trace's time.
 */
import type { SpanRecord } from '../../src/views/trace/protocol';

/** What a row stands for, for the filter and the colour. */
export type Role = 'session' | 'turn' | 'tool' | 'permission' | 'effect' | 'mcp' | 'remote' | 'agent' | 'other';

/** One row of the waterfall. */
export interface Row {
  span: SpanRecord;
  depth: number;
  role: Role;
  /** Bar start and width as fractions (0..1) of the trace's time span. */
  offset: number;
  width: number;
  /** Milliseconds, or undefined while the span runs. */
  durationMs?: number;
}

/** The role of a span. */
export function roleOf(s: SpanRecord): Role {
  const k = s.attributes['agent_switchboard.span.kind'];
  if (typeof k === 'string' && ['session', 'turn', 'tool', 'permission', 'effect', 'mcp'].includes(k)) return k as Role;
  // A delegation to a remote (A2A) agent and the requests it made.
  if (k === 'delegation' || k === 'a2a') return 'remote';
  return s.service === 'agent-switchboard' ? 'other' : 'agent';
}

/**
 * Rows for `spans`, with times relative to the earliest start and the latest end (`now` stands in
 * for the end of live spans).
 */
export function waterfall(spans: readonly SpanRecord[], now: number): Row[] {
  if (!spans.length) return [];
  // Loops, not Math.min(...spread): a spread of 100,000+ arguments overflows the call stack.
  let start = Infinity;
  let end = -Infinity;
  for (const s of spans) {
    if (s.startMs < start) start = s.startMs;
    const e = s.endMs ?? now;
    if (e > end) end = e;
  }
  end = Math.max(end, start + 1);
  const total = end - start;
  // Spans are known by trace and span id together: a span of another trace that reuses one of our
  // span ids (an agent knows its turn's id) must not take that span's place or its children. The
  // lookups go trace, then span, without building key strings (waterfall10k in bench/run.ts: keys
  // built per visit tripled the cost). A span's canonical index is the first with its ids.
  const byTrace = new Map<string, Map<string, number>>();
  const canon = new Int32Array(spans.length);
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    let ids = byTrace.get(s.traceId);
    if (!ids) byTrace.set(s.traceId, (ids = new Map()));
    const first = ids.get(s.spanId);
    if (first === undefined) ids.set(s.spanId, i);
    canon[i] = first ?? i;
  }
  const roots: number[] = [];
  const children = new Map<number, number[]>();
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    const parent = s.parentSpanId && s.parentSpanId !== s.spanId ? byTrace.get(s.traceId)!.get(s.parentSpanId) : undefined;
    if (parent === undefined) roots.push(i);
    else {
      const list = children.get(parent);
      if (list) list.push(i);
      else children.set(parent, [i]);
    }
  }
  const byStart = (a: number, b: number) => spans[a].startMs - spans[b].startMs;
  roots.sort(byStart);
  for (const list of children.values()) list.sort(byStart);
  const rows: Row[] = [];
  const seen = new Uint8Array(spans.length);
  // Iterative depth-first walk: a malformed trace with a cycle or huge depth cannot overflow the stack.
  const stack: { i: number; depth: number }[] = [];
  for (let k = roots.length - 1; k >= 0; k--) stack.push({ i: roots[k], depth: 0 });
  while (stack.length) {
    const { i, depth } = stack.pop()!;
    const c = canon[i];
    if (seen[c]) continue;
    seen[c] = 1;
    const span = spans[i];
    const stop = span.endMs ?? now;
    rows.push({ span, depth, role: roleOf(span), offset: (span.startMs - start) / total, width: Math.max(0.002, (stop - span.startMs) / total), ...(span.endMs !== undefined ? { durationMs: span.endMs - span.startMs } : {}) });
    const kids = children.get(c);
    if (kids) for (let k = kids.length - 1; k >= 0; k--) stack.push({ i: kids[k], depth: depth + 1 });
  }
  // Spans only reachable through a cycle are still shown, at the root.
  for (let i = 0; i < spans.length; i++) if (!seen[canon[i]]) rows.push({ span: spans[i], depth: 0, role: roleOf(spans[i]), offset: 0, width: 0.002 });
  return rows;
}

/** A span's identity in a trace store: trace id and span id together. */
export function spanKey(s: { traceId: string; spanId: string }): string {
  return `${s.traceId}/${s.spanId}`;
}

/** "12 ms", "1.4 s", "2 min 3 s". */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * OTLP/HTTP JSON trace payloads (`ExportTraceServiceRequest`, OTLP 1.x) read into plain span
 * records, and written back for export. The OpenTelemetry JS packages only serialize requests, so
 * the receiver side is ours (PROTOCOLS.md §5.4). Rules of OTLP/JSON that matter here: trace and span
 * ids are hex (not base64); enums are integers; 64-bit integers may be strings or numbers
 * (nanoseconds are read with BigInt); unknown fields are ignored.
 *
 * Bad input never throws past {@link parseOtlpJson}'s contract: a payload that is not an export
 * request at all is an error (HTTP 400); a malformed span inside a good payload is rejected on its
 * own and counted (OTLP `partialSuccess`), so one bad span loses nothing else. No `vscode`.
 */
import * as z from 'zod';
import { redactSpan } from './redactSpans';

/** An attribute value as we keep it (OTLP `AnyValue`, flattened). */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** Span kinds (OTLP `Span.SpanKind`). */
export type SpanKindName = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
const KINDS: SpanKindName[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** One span, in milliseconds since the epoch (fractions kept), with its resource's service name. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: SpanKindName;
  startMs: number;
  /** Undefined while the span has not ended (our own live spans). */
  endMs?: number;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  attributes: Record<string, AttributeValue>;
  events: { name: string; timeMs: number; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string }[];
  /** `service.name` of the span's resource. */
  service: string;
  /** The instrumentation scope's name. */
  scope?: string;
  /** True for spans another process sent to our receiver (never for the editor's own). */
  received?: boolean;
  /** Attributes, events and links left out (over {@link SPAN_LIMITS}, or dropped by the sender already). */
  dropped?: { attributes: number; events: number; links: number };
}

/** What a payload yielded. */
export interface ParsedExport {
  spans: SpanRecord[];
  /** Spans that were malformed and dropped, with the first few reasons. */
  rejected: number;
  problems: string[];
}

type AnyValueWire = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueWire[] };
  kvlistValue?: { values?: { key: string; value?: AnyValueWire }[] };
};

const Envelope = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(z.unknown()).optional() }).optional(),
      scopeSpans: z.array(z.object({ scope: z.object({ name: z.string().optional() }).optional(), spans: z.array(z.unknown()).optional() })).optional(),
    }),
  ),
});

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX16 = /^[0-9a-fA-F]{16}$/;
const ZERO = /^0+$/;
const INT = /^-?\d+$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt64 = (v: unknown): v is number | string => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && INT.test(v));
const id = (v: unknown, re: RegExp): v is string => typeof v === 'string' && re.test(v) && !ZERO.test(v);

/**
 * What one received span may hold (the OpenTelemetry SDK's default span limits where it has them:
 * 128 attributes, events, links; attributes per event and link). `spanChars` bounds all the strings
 * of one span together (attribute keys and values, its events' names and attributes, counted in
 * UTF-16 code units), so a span's retained size is bounded whatever its shape. What goes over a limit
 * is cut — a string keeps its start and ends in "… (N more characters)", a dropped attribute, event
 * or link is counted in {@link SpanRecord.dropped} — never rejected whole.
 */
export const SPAN_LIMITS = {
  attributes: 128,
  keyChars: 256,
  valueChars: 16 * 1024,
  /** Entries of one array or kvlist value. */
  items: 1000,
  /** Nesting of array and kvlist values (a deeper value is null). */
  depth: 5,
  events: 128,
  links: 128,
  eventAttributes: 32,
  /** Span, event, scope and service names; the status message. */
  nameChars: 1024,
  spanChars: 256 * 1024,
} as const;

/** What is left of one span's character budget, and what was cut or dropped. */
interface Budget {
  left: number;
  attributes: number;
  events: number;
  links: number;
}

/** `t` cut to `max` characters and to what is left of the span's budget, with a marker when cut. */
function cut(t: string, b: Budget, max: number): string {
  const room = Math.max(0, Math.min(max, b.left));
  const out = t.length > room ? `${t.slice(0, room)}… (${t.length - room} more characters)` : t;
  b.left -= out.length;
  return out;
}

function anyValue(v: unknown, b: Budget, depth: number): AttributeValue {
  if (!isObj(v) || depth > SPAN_LIMITS.depth) return null;
  const w = v as AnyValueWire;
  if (typeof w.stringValue === 'string') return cut(w.stringValue, b, SPAN_LIMITS.valueChars);
  // Numbers and booleans cost what a short string would: an array of a million of them is not free.
  b.left -= 8;
  if (typeof w.boolValue === 'boolean') return w.boolValue;
  if (isInt64(w.intValue)) return Number(w.intValue);
  if (typeof w.doubleValue === 'number') return w.doubleValue;
  if (typeof w.bytesValue === 'string') return cut(w.bytesValue, b, SPAN_LIMITS.valueChars);
  if (isObj(w.arrayValue)) {
    const values = Array.isArray(w.arrayValue.values) ? w.arrayValue.values : [];
    const out: AttributeValue[] = [];
    for (const x of values) {
      if (out.length >= SPAN_LIMITS.items || b.left <= 0) break;
      out.push(anyValue(x, b, depth + 1));
    }
    return out;
  }
  if (isObj(w.kvlistValue)) return attributes(w.kvlistValue.values, b, SPAN_LIMITS.items, depth + 1);
  return null;
}

/**
 * Key-value pairs, at most `max` and within the span's budget; the pairs left out are counted in
 * `b.attributes` (top level only: a kvlist value's entries are part of its one attribute).
 */
function attributes(kvs: unknown, b: Budget, max: number = SPAN_LIMITS.attributes, depth = 0): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (!Array.isArray(kvs)) return out;
  let n = 0;
  for (const kv of kvs) {
    // `__proto__` would set the object's prototype instead of a key: a way to hide attributes.
    if (!isObj(kv) || typeof kv.key !== 'string' || kv.key === '__proto__') continue;
    // A key cut short could collide with another: an over-long key drops its attribute instead.
    if (n >= max || b.left <= 0 || kv.key.length > SPAN_LIMITS.keyChars) {
      if (depth === 0) b.attributes++;
      continue;
    }
    n++;
    b.left -= kv.key.length;
    out[kv.key] = anyValue(kv.value, b, depth);
  }
  return out;
}

/** A count the sender says it dropped itself (OTLP `dropped*Count`), or 0. */
const droppedBySender = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? Math.min(v, 1e9) : 0);

/**
 * Nanoseconds (a decimal string or a number) as milliseconds. Strings are split at the millisecond
 * digit instead of going through BigInt: exact to well under a microsecond, and cheap per span.
 */
function ms(ns: number | string): number {
  if (typeof ns === 'number') return ns / 1e6;
  const negative = ns.startsWith('-');
  const digits = negative ? ns.slice(1) : ns;
  const value = (digits.length > 6 ? Number(digits.slice(0, -6)) : 0) + Number(digits.slice(-6)) / 1e6;
  return negative ? -value : value;
}

/**
 * One span, checked field by field (by hand rather than with zod: the receiver reads tens of
 * thousands of spans a second, and a zod object per span was a third of that speed — see the
 * otlpIngest benchmark). Returns the reason when the span is malformed.
 */
function readSpan(raw: unknown, service: string, scope: string | undefined): SpanRecord | string {
  if (!isObj(raw)) return 'not an object';
  if (!id(raw.traceId, HEX32)) return 'traceId: not 32 hex digits (or all zero)';
  if (!id(raw.spanId, HEX16)) return 'spanId: not 16 hex digits (or all zero)';
  if (raw.parentSpanId !== undefined && raw.parentSpanId !== '' && !id(raw.parentSpanId, HEX16)) return 'parentSpanId: not 16 hex digits';
  if (typeof raw.name !== 'string') return 'name: not a string';
  if (raw.kind !== undefined && !(Number.isInteger(raw.kind) && (raw.kind as number) >= 0 && (raw.kind as number) <= 5)) return 'kind: not 0..5';
  if (!isInt64(raw.startTimeUnixNano)) return 'startTimeUnixNano: not an integer';
  if (raw.endTimeUnixNano !== undefined && !isInt64(raw.endTimeUnixNano)) return 'endTimeUnixNano: not an integer';
  const status = isObj(raw.status) ? raw.status : {};
  const b: Budget = { left: SPAN_LIMITS.spanChars, attributes: droppedBySender(raw.droppedAttributesCount), events: droppedBySender(raw.droppedEventsCount), links: droppedBySender(raw.droppedLinksCount) };
  const name = cut(raw.name, b, SPAN_LIMITS.nameChars);
  const spanAttributes = attributes(raw.attributes, b);
  const events: SpanRecord['events'] = [];
  for (const e of Array.isArray(raw.events) ? raw.events : []) {
    if (!isObj(e)) return 'events: an event is not an object';
    if (events.length >= SPAN_LIMITS.events || b.left <= 0) {
      b.events++;
      continue;
    }
    // An event's attributes count toward the event, not toward the span's dropped attributes.
    const eb: Budget = { ...b, attributes: 0 };
    events.push({ name: typeof e.name === 'string' ? cut(e.name, eb, SPAN_LIMITS.nameChars) : '', timeMs: isInt64(e.timeUnixNano) ? ms(e.timeUnixNano) : 0, attributes: attributes(e.attributes, eb, SPAN_LIMITS.eventAttributes) });
    b.left = eb.left - 16;
  }
  const links: SpanRecord['links'] = [];
  for (const l of Array.isArray(raw.links) ? raw.links : []) {
    if (!isObj(l) || !id(l.traceId, HEX32) || !id(l.spanId, HEX16)) return 'links: a link has no valid ids';
    if (links.length >= SPAN_LIMITS.links) {
      b.links++;
      continue;
    }
    links.push({ traceId: l.traceId.toLowerCase(), spanId: l.spanId.toLowerCase() });
  }
  const end = raw.endTimeUnixNano;
  const startMs = ms(raw.startTimeUnixNano);
  // Between 2001 and 2286: a time outside is a unit mistake or garbage, and would break the layout and export.
  if (!(startMs > 1e12 && startMs < 1e13)) return 'startTimeUnixNano: not a time between 2001 and 2286';
  const endMs = end !== undefined && end !== '0' && end !== 0 ? ms(end as number | string) : undefined;
  if (endMs !== undefined && !(endMs >= startMs && endMs < 1e13)) return 'endTimeUnixNano: before the start or out of range';
  // Built field by field (no spread of temporaries): this runs once per received span.
  const span: SpanRecord = {
    traceId: lower(raw.traceId),
    spanId: lower(raw.spanId),
    name,
    kind: KINDS[(raw.kind as number | undefined) ?? 0],
    startMs,
    status: { code: status.code === 2 ? 'error' : status.code === 1 ? 'ok' : 'unset' },
    attributes: spanAttributes,
    events,
    links,
    service,
  };
  if (typeof raw.parentSpanId === 'string' && raw.parentSpanId) span.parentSpanId = lower(raw.parentSpanId);
  if (endMs !== undefined) span.endMs = endMs;
  if (typeof status.message === 'string' && status.message) span.status.message = cut(status.message, b, SPAN_LIMITS.nameChars * 4);
  if (b.attributes || b.events || b.links) span.dropped = { attributes: b.attributes, events: b.events, links: b.links };
  if (scope) span.scope = scope;
  return span;
}

/** Hex ids are almost always lower case already; only those that are not are copied. */
function lower(hexId: string): string {
  return /[A-F]/.test(hexId) ? hexId.toLowerCase() : hexId;
}

/**
 * Reads an OTLP/HTTP JSON export request (already `JSON.parse`d).
 * @throws Error when `body` is not an export request (the receiver answers 400).
 */
export function parseOtlpJson(body: unknown): ParsedExport {
  const env = Envelope.safeParse(body);
  if (!env.success) throw new Error(`not an OTLP trace export request: ${env.error.issues[0]?.path.join('.') || 'body'} ${env.error.issues[0]?.message ?? ''}`.trim());
  const out: ParsedExport = { spans: [], rejected: 0, problems: [] };
  for (const rs of env.data.resourceSpans) {
    const rb: Budget = { left: SPAN_LIMITS.spanChars, attributes: 0, events: 0, links: 0 };
    const res = attributes(rs.resource?.attributes, rb);
    const service = typeof res['service.name'] === 'string' ? cut(res['service.name'], rb, SPAN_LIMITS.nameChars) : 'unknown_service';
    for (const ss of rs.scopeSpans ?? []) {
      const scope = ss.scope?.name === undefined ? undefined : cut(ss.scope.name, rb, SPAN_LIMITS.nameChars);
      for (const raw of ss.spans ?? []) {
        const span = readSpan(raw, service, scope);
        if (typeof span === 'string') {
          out.rejected++;
          if (out.problems.length < 5) out.problems.push(`span ${out.rejected}: ${span}`);
        } else out.spans.push(span);
      }
    }
  }
  return out;
}

function wireValue(v: AttributeValue): AnyValueWire {
  if (v === null) return {};
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(wireValue) } };
  return { kvlistValue: { values: Object.entries(v).map(([key, x]) => ({ key, value: wireValue(x) })) } };
}

const nanos = (msValue: number) => (BigInt(Math.round(msValue * 1000)) * 1000n).toString();

/**
 * Spans as an OTLP/HTTP JSON export request (for "export this session's trace", the archive and the
 * forwarder to a collector), grouped by service, with secrets redacted (see ./redactSpans.ts).
 */
export function toOtlpJson(spans: readonly SpanRecord[]): { resourceSpans: unknown[] } {
  const byService = new Map<string, SpanRecord[]>();
  for (const raw of spans) {
    const s = redactSpan(raw);
    const list = byService.get(s.service);
    if (list) list.push(s);
    else byService.set(s.service, [s]);
  }
  return {
    resourceSpans: [...byService].map(([service, list]) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: 'agent-switchboard' },
          spans: list.map((s) => ({
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: KINDS.indexOf(s.kind),
            startTimeUnixNano: nanos(s.startMs),
            endTimeUnixNano: nanos(s.endMs ?? s.startMs),
            attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: wireValue(v) })),
            events: s.events.map((e) => ({ name: e.name, timeUnixNano: nanos(e.timeMs), attributes: Object.entries(e.attributes).map(([key, v]) => ({ key, value: wireValue(v) })) })),
            links: s.links,
            ...(s.dropped ? { droppedAttributesCount: s.dropped.attributes, droppedEventsCount: s.dropped.events, droppedLinksCount: s.dropped.links } : {}),
            status: { code: s.status.code === 'error' ? 2 : s.status.code === 'ok' ? 1 : 0, ...(s.status.message ? { message: s.status.message } : {}) },
          })),
        },
      ],
    })),
  };
}

/**
 * About how many bytes `span` holds in memory: two per UTF-16 code unit of its strings, eight per
 * number or boolean, and a fixed overhead per object. An estimate for budgets, not an exact count;
 * it walks only what the span holds (bounded by {@link SPAN_LIMITS} for received spans).
 */
export function spanBytes(span: SpanRecord): number {
  let n = 320 + 2 * (span.name.length + span.service.length + (span.scope?.length ?? 0) + (span.status.message?.length ?? 0)) + 64 * span.links.length;
  n += valueBytes(span.attributes);
  for (const e of span.events) n += 64 + 2 * e.name.length + valueBytes(e.attributes);
  return n;
}

function valueBytes(v: AttributeValue): number {
  if (typeof v === 'string') return 16 + 2 * v.length;
  if (v === null || typeof v !== 'object') return 8;
  let n = 32;
  if (Array.isArray(v)) for (const x of v) n += valueBytes(x);
  else for (const k in v) n += 16 + 2 * k.length + valueBytes(v[k]);
  return n;
}

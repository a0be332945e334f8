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

/** Longest string value kept (characters) and most array entries kept, per attribute. */
const MAX_STRING = 16 * 1024;
const MAX_ITEMS = 1000;
const cap = (t: string) => (t.length > MAX_STRING ? `${t.slice(0, MAX_STRING)}… (${t.length - MAX_STRING} more characters)` : t);

function anyValue(v: unknown, depth = 0): AttributeValue {
  if (!isObj(v) || depth > 8) return null;
  const w = v as AnyValueWire;
  if (typeof w.stringValue === 'string') return cap(w.stringValue);
  if (typeof w.boolValue === 'boolean') return w.boolValue;
  if (isInt64(w.intValue)) return Number(w.intValue);
  if (typeof w.doubleValue === 'number') return w.doubleValue;
  if (typeof w.bytesValue === 'string') return cap(w.bytesValue);
  if (isObj(w.arrayValue)) return Array.isArray(w.arrayValue.values) ? w.arrayValue.values.slice(0, MAX_ITEMS).map((x) => anyValue(x, depth + 1)) : [];
  if (isObj(w.kvlistValue)) return Array.isArray(w.kvlistValue.values) ? attributes(w.kvlistValue.values, depth + 1) : {};
  return null;
}

function attributes(kvs: unknown, depth = 0): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (!Array.isArray(kvs)) return out;
  let n = 0;
  for (const kv of kvs) {
    if (++n > MAX_ITEMS) break;
    // `__proto__` would set the object's prototype instead of a key: a way to hide attributes.
    if (isObj(kv) && typeof kv.key === 'string' && kv.key !== '__proto__') out[kv.key] = anyValue(kv.value, depth);
  }
  return out;
}

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
  const events: SpanRecord['events'] = [];
  for (const e of Array.isArray(raw.events) ? raw.events : []) {
    if (!isObj(e)) return 'events: an event is not an object';
    events.push({ name: typeof e.name === 'string' ? e.name : '', timeMs: isInt64(e.timeUnixNano) ? ms(e.timeUnixNano) : 0, attributes: attributes(e.attributes) });
  }
  const links: SpanRecord['links'] = [];
  for (const l of Array.isArray(raw.links) ? raw.links : []) {
    if (!isObj(l) || !id(l.traceId, HEX32) || !id(l.spanId, HEX16)) return 'links: a link has no valid ids';
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
    name: raw.name,
    kind: KINDS[(raw.kind as number | undefined) ?? 0],
    startMs,
    status: { code: status.code === 2 ? 'error' : status.code === 1 ? 'ok' : 'unset' },
    attributes: attributes(raw.attributes),
    events,
    links,
    service,
  };
  if (typeof raw.parentSpanId === 'string' && raw.parentSpanId) span.parentSpanId = lower(raw.parentSpanId);
  if (endMs !== undefined) span.endMs = endMs;
  if (typeof status.message === 'string' && status.message) span.status.message = status.message;
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
    const res = attributes(rs.resource?.attributes);
    const service = typeof res['service.name'] === 'string' ? res['service.name'] : 'unknown_service';
    for (const ss of rs.scopeSpans ?? []) {
      for (const raw of ss.spans ?? []) {
        const span = readSpan(raw, service, ss.scope?.name);
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
            status: { code: s.status.code === 'error' ? 2 : s.status.code === 'ok' ? 1 : 0, ...(s.status.message ? { message: s.status.message } : {}) },
          })),
        },
      ],
    })),
  };
}

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
import { z } from 'zod';

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
}

/** What a payload yielded. */
export interface ParsedExport {
  spans: SpanRecord[];
  /** Spans that were malformed and dropped, with the first few reasons. */
  rejected: number;
  problems: string[];
}

const Int64 = z.union([z.number(), z.string().regex(/^-?\d+$/)]);
const Hex = (n: number) => z.string().regex(new RegExp(`^[0-9a-fA-F]{${n}}$`)).refine((s) => !/^0+$/.test(s), 'an all-zero id is invalid');

type AnyValueWire = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueWire[] };
  kvlistValue?: { values?: { key: string; value?: AnyValueWire }[] };
};
const AnyValue: z.ZodType<AnyValueWire> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: Int64.optional(),
    doubleValue: z.number().optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.object({ values: z.array(AnyValue).optional() }).optional(),
    kvlistValue: z.object({ values: z.array(z.object({ key: z.string(), value: AnyValue.optional() })).optional() }).optional(),
  }),
);
const KeyValues = z.array(z.object({ key: z.string(), value: AnyValue.optional() })).optional();

const Span = z.object({
  traceId: Hex(32),
  spanId: Hex(16),
  parentSpanId: z.union([Hex(16), z.literal('')]).optional(),
  name: z.string(),
  kind: z.number().int().min(0).max(5).optional(),
  startTimeUnixNano: Int64,
  endTimeUnixNano: Int64.optional(),
  attributes: KeyValues,
  events: z.array(z.object({ name: z.string().default(''), timeUnixNano: Int64.optional(), attributes: KeyValues })).optional(),
  links: z.array(z.object({ traceId: Hex(32), spanId: Hex(16) })).optional(),
  status: z.object({ code: z.number().int().optional(), message: z.string().optional() }).optional(),
});

const Envelope = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: KeyValues }).optional(),
      scopeSpans: z.array(z.object({ scope: z.object({ name: z.string().optional() }).optional(), spans: z.array(z.unknown()).optional() })).optional(),
    }),
  ),
});

function anyValue(v: AnyValueWire | undefined, depth = 0): AttributeValue {
  if (!v || depth > 8) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.bytesValue !== undefined) return v.bytesValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => anyValue(x, depth + 1));
  if (v.kvlistValue) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, anyValue(kv.value, depth + 1)]));
  return null;
}

function attributes(kvs: z.infer<typeof KeyValues>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of kvs ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

/** Nanoseconds (string or number) as milliseconds, exact to the microsecond. */
function ms(ns: number | string): number {
  const big = BigInt(typeof ns === 'number' ? Math.trunc(ns) : ns);
  return Number(big / 1000n) / 1000;
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
        const s = Span.safeParse(raw);
        if (!s.success) {
          out.rejected++;
          if (out.problems.length < 5) out.problems.push(`span ${out.rejected}: ${s.error.issues[0]?.path.join('.') ?? ''} ${s.error.issues[0]?.message ?? 'invalid'}`.trim());
          continue;
        }
        const v = s.data;
        out.spans.push({
          traceId: v.traceId.toLowerCase(),
          spanId: v.spanId.toLowerCase(),
          ...(v.parentSpanId ? { parentSpanId: v.parentSpanId.toLowerCase() } : {}),
          name: v.name,
          kind: KINDS[v.kind ?? 0],
          startMs: ms(v.startTimeUnixNano),
          ...(v.endTimeUnixNano !== undefined && String(v.endTimeUnixNano) !== '0' ? { endMs: ms(v.endTimeUnixNano) } : {}),
          status: { code: v.status?.code === 2 ? 'error' : v.status?.code === 1 ? 'ok' : 'unset', ...(v.status?.message ? { message: v.status.message } : {}) },
          attributes: attributes(v.attributes),
          events: (v.events ?? []).map((e) => ({ name: e.name, timeMs: e.timeUnixNano !== undefined ? ms(e.timeUnixNano) : 0, attributes: attributes(e.attributes) })),
          links: (v.links ?? []).map((l) => ({ traceId: l.traceId.toLowerCase(), spanId: l.spanId.toLowerCase() })),
          service,
          ...(ss.scope?.name ? { scope: ss.scope.name } : {}),
        });
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

/** Spans as an OTLP/HTTP JSON export request (for "export this session's trace"), grouped by service. */
export function toOtlpJson(spans: readonly SpanRecord[]): { resourceSpans: unknown[] } {
  const byService = new Map<string, SpanRecord[]>();
  for (const s of spans) byService.set(s.service, [...(byService.get(s.service) ?? []), s]);
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

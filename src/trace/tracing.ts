/**
 * Our own spans: an OpenTelemetry `BasicTracerProvider` (sdk-trace-base 2.x) whose span processor
 * writes every span into the {@link TraceStore} when it starts (live, no end yet) and again when it
 * ends, so the trace panel shows work in progress. W3C trace context (`traceparent`/`tracestate`)
 * is produced with the core package's propagator for `_meta` of the requests we send and for the
 * environment of the processes we launch. No global OpenTelemetry registration: the editor may
 * host other extensions with their own. No `vscode`.
 */
import { ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOnSampler, BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AttributeValue, SpanKindName, SpanRecord } from './otlp';
import type { TraceStore } from './store';

const KINDS: SpanKindName[] = ['internal', 'server', 'client', 'producer', 'consumer'];

/** A finished or live SDK span as a store record. */
export function recordOf(span: ReadableSpan, live: boolean): SpanRecord {
  const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
  const ctx = span.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    ...(span.parentSpanContext?.spanId ? { parentSpanId: span.parentSpanContext.spanId } : {}),
    name: span.name,
    kind: KINDS[span.kind] ?? 'internal',
    startMs: ms(span.startTime),
    ...(live ? {} : { endMs: ms(span.endTime) }),
    status: { code: span.status.code === 2 ? 'error' : span.status.code === 1 ? 'ok' : 'unset', ...(span.status.message ? { message: span.status.message } : {}) },
    attributes: { ...(span.attributes as Record<string, AttributeValue>) },
    events: span.events.map((e) => ({ name: e.name, timeMs: ms(e.time), attributes: { ...((e.attributes ?? {}) as Record<string, AttributeValue>) } })),
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    // Our own spans; spans of agents and servers arrive through the receiver with their own service.
    service: 'agent-switchboard',
    scope: span.instrumentationScope.name,
  };
}

class StoreProcessor implements SpanProcessor {
  constructor(private readonly store: TraceStore) {}
  onStart(span: Span): void {
    this.store.add([recordOf(span as unknown as ReadableSpan, true)]);
  }
  onEnd(span: ReadableSpan): void {
    this.store.add([recordOf(span, false)]);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** W3C trace context of `span`, for `_meta` or a child process (`TRACEPARENT`). */
export function traceContextOf(span: Span): { traceparent: string; tracestate?: string } {
  const carrier: Record<string, string> = {};
  new W3CTraceContextPropagator().inject(trace.setSpan(ROOT_CONTEXT, span), carrier, { set: (c, k, v) => (c[k] = v) });
  return { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) };
}

/** The context whose parent is `span` (for starting a child without a global context manager). */
export function under(span: Span | undefined): Context {
  return span ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT;
}

/** The editor's tracer, writing into one store. */
export class Tracing {
  private readonly provider: BasicTracerProvider;
  readonly tracer: Tracer;

  constructor(readonly store: TraceStore, version: string) {
    // Always on: the person's OTEL_TRACES_SAMPLER (meant for other tools) must not empty the panel.
    this.provider = new BasicTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new StoreProcessor(store)] });
    this.tracer = this.provider.getTracer('agent-switchboard', version);
  }

  /**
   * Writes a live span's current attributes to the store (the processor writes a span only when it
   * starts and when it ends; what is learnt in between — an agent's version, a task's state — would
   * otherwise show only once the span ends).
   */
  touch(span: Span): void {
    const readable = span as unknown as ReadableSpan & { ended?: boolean };
    if (!readable.ended) this.store.add([recordOf(readable, true)]);
  }

  async dispose(): Promise<void> {
    await this.provider.shutdown();
  }
}

/**
 * The demo agent's own OpenTelemetry, as an agent that honours the standard environment does: when
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (or `OTEL_EXPORTER_OTLP_ENDPOINT`) is set, each prompt turn
 * is a `chat demo-model` span exported over OTLP/HTTP JSON, a child of the `traceparent` the client
 * sent in `session/prompt._meta` (else of `TRACEPARENT`). Without the variables nothing is sent.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The headers of `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values URL-encoded). */
function headers(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i > 0) out[pair.slice(0, i).trim()] = decodeURIComponent(pair.slice(i + 1).trim());
  }
  return out;
}

/** Spans of the demo agent's turns, or no-ops when no exporter is configured. */
export class DemoTracing {
  private readonly provider: BasicTracerProvider | undefined;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces` : undefined);
    if (!url || env.OTEL_TRACES_EXPORTER === 'none') return;
    const hdrs = env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS;
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'switchboard-demo-agent' }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url, headers: headers(hdrs) }))],
    });
    this.fallbackParent = env.TRACEPARENT;
  }

  private fallbackParent: string | undefined;

  /** Starts a turn's span under the client's trace context; `end` exports it. */
  turn(meta: Record<string, unknown> | undefined, model = 'demo-model'): { end(error?: unknown): Promise<void> } {
    if (!this.provider) return { end: async () => undefined };
    const carrier: Record<string, string> = {};
    const tp = typeof meta?.traceparent === 'string' ? meta.traceparent : this.fallbackParent;
    if (tp) carrier.traceparent = tp;
    if (typeof meta?.tracestate === 'string') carrier.tracestate = meta.tracestate;
    const parent = new W3CTraceContextPropagator().extract(ROOT_CONTEXT, carrier, { get: (c, k) => c[k], keys: (c) => Object.keys(c) });
    const span: Span = this.provider.getTracer('demo-agent').startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.provider.name': 'offline-demo' } }, parent);
    return {
      end: async (error?: unknown) => {
        if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
        // A short turn must not outlive its export: the span is flushed before the turn answers.
        await this.provider!.forceFlush().catch(() => undefined);
      },
    };
  }
}

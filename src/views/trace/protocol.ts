/**
 * Typed messages between the trace panel (a webview showing one session's trace as a waterfall) and
 * the extension: a snapshot when the page is ready, then the spans that changed. The webview imports
 * this file with `import type` only.
 */
import type { SpanRecord } from '../../trace/otlp';

export type { SpanRecord };

/** Extension → webview. */
export type TraceHostMessage =
  | { type: 'snapshot'; title: string; spans: SpanRecord[]; truncated: boolean }
  /** Spans added or changed since the last message (a live span that ended, new spans). */
  | { type: 'spans'; spans: SpanRecord[]; truncated: boolean };

/** Webview → extension. */
export type TraceWebviewMessage =
  | { type: 'ready' }
  /** Jump to what a span stands for: its tool card, its audit record, the session. */
  | { type: 'reveal'; traceId: string; spanId: string }
  | { type: 'export' };

/**
 * Spans as they may leave memory: saved to the trace archive, exported to a document or sent to a
 * collector. Names, status messages, attribute and event values pass through the audit's redaction
 * (`policy/redact.ts`), so a command line, a tool title or an agent's own span attributes with a
 * token in them are kept with `[redacted]` in its place; ids, times and structure are unchanged.
 * Pure; no `vscode`.
 */
import { redactSecrets, redactValue } from '../policy/redact';
import type { AttributeValue, SpanRecord } from './otlp';

/** A copy of `span` with secrets redacted. */
export function redactSpan(span: SpanRecord): SpanRecord {
  return {
    ...span,
    name: redactSecrets(span.name),
    status: span.status.message === undefined ? span.status : { ...span.status, message: redactSecrets(span.status.message) },
    attributes: redactAttributes(span.attributes),
    events: span.events.map((e) => ({ ...e, name: redactSecrets(e.name), attributes: redactAttributes(e.attributes) })),
  };
}

/** Attributes with secrets redacted (a key that names a credential loses its string value whole). */
export function redactAttributes(attributes: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return redactValue(attributes, { cut: false });
}

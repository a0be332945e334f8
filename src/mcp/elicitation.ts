/**
 * Form-mode elicitation (MCP `elicitation/create`, 2025-06-18 and later; in the 2026-07-28 era the
 * same request arrives as an `input_required` result, which the SDK fulfils through the same
 * handler): a server asks the person for a few values described by a flat JSON Schema of
 * primitives. The SDK validates the request and applies the schema's defaults to omitted fields
 * (SEP-1034, `elicitation.form.applyDefaults`); this module checks what the person accepted against
 * the requested schema before it leaves, so a server never receives values its schema refuses.
 * URL mode is not offered: an MCP server must not send the person's browser to an arbitrary page
 * through us. No `vscode`.
 */
import { fromJsonSchema, type JsonSchemaType } from '@modelcontextprotocol/client';

/** What a server asked for, as the person sees it. */
export interface ElicitationRequest {
  /** The server's definition id and display name. */
  serverId: string;
  serverName: string;
  /** The server's sentence explaining what it needs. */
  message: string;
  /** A JSON Schema object whose properties are primitives (string, number, integer, boolean, enums). */
  requestedSchema: Record<string, unknown>;
}

/** The person's answer (MCP `ElicitResult` without `_meta`). */
export type ElicitationAnswer = { action: 'accept'; content: Record<string, string | number | boolean | string[]> } | { action: 'decline' } | { action: 'cancel' };

/** Asks the person; aborting `signal` (the server cancelled, or the server stopped) closes the question as cancelled. */
export type Elicitor = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/**
 * The sentences that say why `content` does not satisfy `schema` (empty when it does). Uses the
 * SDK's JSON Schema validator (Ajv, draft 2020-12), so the check is the one the server runs.
 */
export function elicitationProblems(schema: Record<string, unknown>, content: Record<string, unknown>): string[] {
  let validate: ReturnType<typeof fromJsonSchema>;
  try {
    validate = fromJsonSchema(schema as JsonSchemaType);
  } catch (err) {
    return [`The server's requested schema is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`];
  }
  const r = validate['~standard'].validate(content);
  if (r instanceof Promise) return [];
  if (!('issues' in r) || !r.issues) return [];
  // Ajv joins its errors in one message ("data/age must be integer, data/name …"): one sentence each.
  return r.issues.flatMap((i) => i.message.split(/, (?=data\b)/)).map((m) => m.replace(/^data\//, '').replace(/^data /, 'the answer ').trim());
}

/** `content` with the schema's defaults for the properties it leaves out: what the SDK sends (SEP-1034). */
export function withDefaults(schema: Record<string, unknown>, content: Record<string, unknown>): Record<string, unknown> {
  const out = { ...content };
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown } | null>;
  for (const [k, p] of Object.entries(props)) if (out[k] === undefined && p && p.default !== undefined) out[k] = p.default;
  return out;
}

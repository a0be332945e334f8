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
import type { fromJsonSchema, JsonSchemaType } from '@modelcontextprotocol/client';
import { mcpSdk } from './sdk';

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

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const KEYWORDS = ['type', 'title', 'description', 'default', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;

/** A property reduced to the elicitation spec's primitives; `pattern`, `$ref` and the like are dropped. */
function primitive(p: unknown): Record<string, unknown> {
  if (!p || typeof p !== 'object') return {};
  const src = p as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of KEYWORDS) if (src[k] !== undefined && (typeof src[k] !== 'object' || k === 'default')) out[k] = src[k];
  if (typeof src.format === 'string' && FORMATS.has(src.format)) out.format = src.format;
  if (Array.isArray(src.enum)) out.enum = src.enum.filter((v) => typeof v === 'string' || typeof v === 'number');
  for (const k of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(src[k])) out[k] = (src[k] as unknown[]).filter((o): o is Record<string, unknown> => !!o && typeof o === 'object' && 'const' in o).map((o) => ({ const: o.const, ...(typeof o.title === 'string' ? { title: o.title } : {}) }));
  }
  if (src.items && typeof src.items === 'object') out.items = primitive(src.items);
  return out;
}

/**
 * The requested schema as it is checked: an object of primitive properties (MCP elicitation allows
 * nothing else). A server's regular expressions, references and combinators are not kept, so no
 * schema it sends can make the check slow or refer to another server's schema.
 */
export function checkedSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties && typeof schema.properties === 'object' ? (schema.properties as Record<string, unknown>) : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string' && r in props) : [];
  return { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, primitive(v)])), required };
}

/**
 * The sentences that say why `content` does not satisfy `schema` (empty when it does): the SDK's
 * JSON Schema validator (Ajv, draft 2020-12), a fresh one per check, on {@link checkedSchema}.
 */
export function elicitationProblems(schema: Record<string, unknown>, content: Record<string, unknown>): string[] {
  let validate: ReturnType<typeof fromJsonSchema>;
  try {
    validate = mcpSdk().fromJsonSchema(checkedSchema(schema) as JsonSchemaType, new (mcpSdk().AjvJsonSchemaValidator)());
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

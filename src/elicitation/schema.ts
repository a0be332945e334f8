/**
 * The pure parts of form-mode elicitation shared by MCP servers (`src/mcp/elicitation.ts`) and ACP
 * agents (`src/acp/sessionElicitation.ts`): the requested schema reduced to the spec's primitives,
 * the schema's defaults, and the check of an answer against the schema before it leaves. Both
 * protocols ask with the same restricted JSON Schema (MCP 2025-06-18 `elicitation/create`; ACP v1
 * schema 1.21 `elicitation/create`, "based on the MCP elicitation specification"), so one check
 * serves both, and a form the person fills in is refused for the same reasons whoever asked.
 * No `vscode`.
 */
import type { fromJsonSchema, JsonSchemaType } from '@modelcontextprotocol/client';
import { mcpSdk } from '../mcp/sdk';

/** A value a form answer may carry (MCP `ElicitResult.content`, ACP `ElicitationContentValue`). */
export type ElicitationValue = string | number | boolean | string[];

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const KEYWORDS = ['type', 'title', 'description', 'default', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const;

/** A property reduced to the elicitation spec's primitives; `pattern`, `$ref` and the like are dropped. */
function primitive(p: unknown): Record<string, unknown> {
  if (!p || typeof p !== 'object') return {};
  const src = p as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of KEYWORDS) if (src[k] !== undefined && src[k] !== null && (typeof src[k] !== 'object' || k === 'default')) out[k] = src[k];
  if (typeof src.format === 'string' && FORMATS.has(src.format)) out.format = src.format;
  if (Array.isArray(src.enum)) out.enum = src.enum.filter((v) => typeof v === 'string' || typeof v === 'number');
  for (const k of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(src[k])) out[k] = (src[k] as unknown[]).filter((o): o is Record<string, unknown> => !!o && typeof o === 'object' && 'const' in o).map((o) => ({ const: o.const, ...(typeof o.title === 'string' ? { title: o.title } : {}) }));
  }
  if (src.items && typeof src.items === 'object') out.items = primitive(src.items);
  return out;
}

/**
 * The requested schema as it is checked: an object of primitive properties (elicitation allows
 * nothing else). A sender's regular expressions, references and combinators are not kept, so no
 * schema it sends can make the check slow or refer to another sender's schema. ACP sends `null`
 * for absent optional fields; those are dropped too.
 */
export function checkedSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties && typeof schema.properties === 'object' ? (schema.properties as Record<string, unknown>) : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string' && r in props) : [];
  return { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, primitive(v)])), required };
}

/**
 * The sentences that say why `content` does not satisfy `schema` (empty when it does): the MCP
 * SDK's JSON Schema validator (Ajv, draft 2020-12), a fresh one per check, on {@link checkedSchema}.
 */
export function elicitationProblems(schema: Record<string, unknown>, content: Record<string, unknown>): string[] {
  let validate: ReturnType<typeof fromJsonSchema>;
  try {
    validate = mcpSdk().fromJsonSchema(checkedSchema(schema) as JsonSchemaType, new (mcpSdk().AjvJsonSchemaValidator)());
  } catch (err) {
    return [`The requested schema is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`];
  }
  const r = validate['~standard'].validate(content);
  if (r instanceof Promise) return [];
  if (!('issues' in r) || !r.issues) return [];
  // Ajv joins its errors in one message ("data/age must be integer, data/name …"): one sentence each.
  return r.issues.flatMap((i) => i.message.split(/, (?=data\b)/)).map((m) => m.replace(/^data\//, '').replace(/^data /, 'the answer ').trim());
}

/** `content` with the schema's defaults for the properties it leaves out (SEP-1034). */
export function withDefaults(schema: Record<string, unknown>, content: Record<string, unknown>): Record<string, unknown> {
  const out = { ...content };
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown } | null>;
  for (const [k, p] of Object.entries(props)) if (out[k] === undefined && p && p.default !== undefined && p.default !== null) out[k] = p.default;
  return out;
}

/**
 * An accepted answer checked as it is sent: only the schema's own properties, each value of a
 * type an answer may carry, with the schema's defaults for what the person left out, and no
 * problem against the schema.
 * @returns the content to send, or the sentences that say why it cannot be sent.
 */
export function checkAnswer(schema: Record<string, unknown>, content: Record<string, unknown>): { content: Record<string, ElicitationValue> } | { problems: string[] } {
  const props = checkedSchema(schema).properties as Record<string, unknown>;
  const problems: string[] = [];
  for (const [k, v] of Object.entries(content)) {
    if (!(k in props)) problems.push(`"${k}" is not one of the fields asked for.`);
    else if (!isValue(v)) problems.push(`${k} must be text, a number, true/false or a list of texts.`);
  }
  if (problems.length) return { problems };
  const full = withDefaults(schema, content);
  const found = elicitationProblems(schema, full);
  return found.length ? { problems: found } : { content: full as Record<string, ElicitationValue> };
}

function isValue(v: unknown): v is ElicitationValue {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
}

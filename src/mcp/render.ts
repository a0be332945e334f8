/**
 * Text forms of MCP values for the explorer: a JSON skeleton of a tool's input schema (the starting
 * arguments of a hand-run call) and a Markdown rendering of a `CallToolResult` (text, images,
 * audio, resource links, embedded resources, structured content). Pure.
 * Shapes: MCP `tools/call` result content blocks (2025-11-25 and 2026-07-28 alike).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; default?: unknown; enum?: unknown[]; items?: JsonSchema };

/**
 * Arguments that satisfy the shape of an object schema: each required property (all properties
 * when none is marked required) with its default, first enum value, or an empty value of its type.
 */
export function schemaSkeleton(schema: unknown, depth = 0, seen: Set<unknown> = new Set()): Record<string, unknown> {
  // Schemas come from servers: a cycle or a deep nesting ends in an empty object, not a stack overflow.
  if (!schema || typeof schema !== 'object' || depth > 16 || seen.has(schema)) return {};
  seen.add(schema);
  const s = schema as JsonSchema;
  const props = s.properties && typeof s.properties === 'object' && !Array.isArray(s.properties) ? s.properties : {};
  const names = Array.isArray(s.required) && s.required.length ? s.required.filter((n): n is string => typeof n === 'string') : Object.keys(props);
  return Object.fromEntries(names.map((n) => [n, valueFor((props[n] ?? {}) as JsonSchema, depth + 1, seen)]));
}

function valueFor(s: JsonSchema, depth: number, seen: Set<unknown>): unknown {
  if (!s || typeof s !== 'object') return null;
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return schemaSkeleton(s, depth, seen);
    default:
      return null;
  }
}

/** A Markdown report of one hand-run tool call. Binary content is described, not inlined. */
export function renderToolResult(server: string, tool: string, args: Record<string, unknown>, result: CallToolResult): string {
  const out = [`# ${tool} on ${server}`, '', '```json', JSON.stringify(args, null, 2), '```', ''];
  if (result.isError) out.push('**The tool reported an error.**', '');
  for (const c of result.content ?? []) {
    switch (c.type) {
      case 'text':
        out.push(c.text, '');
        break;
      case 'image':
      case 'audio':
        out.push(`*(${c.type}, ${c.mimeType}, ${Math.floor((c.data.length * 3) / 4)} bytes)*`, '');
        break;
      case 'resource_link':
        out.push(`Resource link: [${c.name ?? c.uri}](${c.uri})${c.description ? ` — ${c.description}` : ''}`, '');
        break;
      case 'resource': {
        const r = c.resource;
        out.push(`Embedded resource \`${r.uri}\`${r.mimeType ? ` (${r.mimeType})` : ''}:`, '', '```', 'text' in r ? r.text : `(binary, ${r.blob.length} base64 characters)`, '```', '');
        break;
      }
      default:
        out.push('```json', JSON.stringify(c, null, 2), '```', '');
    }
  }
  if (result.structuredContent !== undefined) out.push('Structured content:', '', '```json', JSON.stringify(result.structuredContent, null, 2), '```', '');
  return bounded(out.join('\n'));
}

/** Most characters of a rendered result shown in the editor (a result can be tens of megabytes). */
export const MAX_RENDERED_CHARS = 1024 * 1024;

function bounded(text: string): string {
  if (text.length <= MAX_RENDERED_CHARS) return text;
  return `${text.slice(0, MAX_RENDERED_CHARS)}\n\n*… ${(text.length - MAX_RENDERED_CHARS).toLocaleString('en')} more characters of this result are not shown.*\n`;
}

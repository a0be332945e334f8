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
export function schemaSkeleton(schema: unknown): Record<string, unknown> {
  const s = (schema ?? {}) as JsonSchema;
  const props = s.properties ?? {};
  const names = s.required?.length ? s.required : Object.keys(props);
  return Object.fromEntries(names.map((n) => [n, valueFor(props[n] ?? {})]));
}

function valueFor(s: JsonSchema): unknown {
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
      return schemaSkeleton(s);
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
  return out.join('\n');
}

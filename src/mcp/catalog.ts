/**
 * The catalog of one MCP server, listed so that one bad item never hides the good ones: the SDK's
 * `listTools()` (and its siblings) refuse a whole answer when a single tool, prompt, resource or
 * resource template does not match the schema. When that happens the list is fetched again raw
 * (on the client's own transport, with the era's `_meta` envelope) and each item is checked on its
 * own against the SDK's schema for that kind: the good ones are kept, each bad one becomes a
 * {@link McpListProblem} naming it and saying why. No `vscode`. Spec: MCP `tools/list`,
 * `prompts/list`, `resources/list`, `resources/templates/list` (PROTOCOLS.md §2.1).
 */
import type { Client, Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { mcpSdk } from './sdk';
import type { RawDispatcher } from './tasks';

/** The lists a server offers, by the name the catalog keeps them under. */
export type McpListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** One item of a server's list that was left out, and why (both as the server wrote them: untrusted text). */
export interface McpListProblem {
  list: McpListKind;
  /** The item's `name` (a resource's `uri` when it has no name), or `#<index>` when it has neither. */
  name: string;
  reason: string;
}

/** What a server offers, with the items that were left out. */
export interface McpCatalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  /** Items that did not match the schema of their list, one entry each. */
  problems: McpListProblem[];
}

/** The catalog of a server not listed (yet). */
export const EMPTY_CATALOG: McpCatalog = { tools: [], resources: [], resourceTemplates: [], prompts: [], problems: [] };

const METHOD: Record<McpListKind, string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/** The SDK's own schema of one item of each list. */
const ITEM_SCHEMA = { tools: 'Tool', prompts: 'Prompt', resources: 'Resource', resourceTemplates: 'ResourceTemplate' } as const;

/** The most pages one list may have (the SDK's own default cap). */
const MAX_PAGES = 64;

type Item<K extends McpListKind> = McpCatalog[K][number];

/** Where one list comes from: the SDK client, and a raw path for when its answer is refused whole. */
export interface ListSource {
  client: Client;
  dispatcher: RawDispatcher;
  /** The `_meta` each raw request carries (the 2026-07-28 envelope), or undefined on the 2025 era. */
  envelope: () => Record<string, unknown> | undefined;
  /** True when tools declaring `x-mcp-header` must be checked before use (2026-07-28 over HTTP, SEP-2243). */
  headerChecked: () => boolean;
}

/**
 * Lists `kind` with the SDK; when the SDK refuses the answer as a whole (an invalid item), lists it
 * raw and keeps the items that pass one by one.
 * @throws Error when the server answers with an error, cannot be reached, or its answer is not a list at all.
 */
export async function listTolerant<K extends McpListKind>(source: ListSource, kind: K): Promise<{ items: Item<K>[]; problems: McpListProblem[] }> {
  try {
    return { items: (await sdkList(source.client, kind)) as Item<K>[], problems: [] };
  } catch (err) {
    if (!isInvalidResult(err)) throw err;
  }
  return rawList(source, kind);
}

function sdkList(client: Client, kind: McpListKind): Promise<unknown[]> {
  switch (kind) {
    case 'tools':
      return client.listTools().then((r) => r.tools);
    case 'prompts':
      return client.listPrompts().then((r) => r.prompts);
    case 'resources':
      return client.listResources().then((r) => r.resources);
    case 'resourceTemplates':
      return client.listResourceTemplates().then((r) => r.resourceTemplates);
  }
}

/** True for the SDK's "the result does not match the schema" error (not a server's own error). */
function isInvalidResult(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'INVALID_RESULT';
}

async function rawList<K extends McpListKind>(source: ListSource, kind: K): Promise<{ items: Item<K>[]; problems: McpListProblem[] }> {
  const schema = mcpSdk().specTypeSchemas[ITEM_SCHEMA[kind]];
  const items: Item<K>[] = [];
  const problems: McpListProblem[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const _meta = source.envelope();
    const params = { ...(cursor !== undefined ? { cursor } : {}), ...(_meta ? { _meta } : {}) };
    const answer = await source.dispatcher.dispatch({ method: METHOD[kind], params });
    if (answer.kind === 'error') throw new Error(`${METHOD[kind]} failed: ${(answer.error as { message?: string }).message ?? 'error'}`);
    const result = answer.result as unknown;
    const list = isObject(result) ? result[kind] : undefined;
    if (!Array.isArray(list)) throw new Error(`The server's ${METHOD[kind]} answer has no "${kind}" list.`);
    const base = items.length + problems.length;
    list.forEach((raw: unknown, i: number) => {
      const parsed = schema['~standard'].validate(raw);
      const name = nameOf(raw, base + i);
      if (parsed.issues) {
        const issue = parsed.issues[0];
        const where = (issue?.path ?? []).map((k) => String(typeof k === 'object' ? k.key : k)).join('.');
        problems.push({ list: kind, name, reason: issue ? `${where ? `${where}: ` : ''}${issue.message}` : 'it does not match the schema' });
      } else if (kind === 'tools' && source.headerChecked() && JSON.stringify((raw as Tool).inputSchema ?? {}).includes('"x-mcp-header"')) {
        // The SDK checks these declarations only on a list it accepts whole; unchecked, the tool could not be called safely.
        problems.push({ list: kind, name, reason: 'it declares x-mcp-header parameters, which are checked only when the whole list is valid' });
      } else items.push(parsed.value as Item<K>);
    });
    const next = isObject(result) && typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (next === undefined || seen.has(next)) return { items, problems };
    seen.add(next);
    cursor = next;
  }
  throw new Error(`The server's ${METHOD[kind]} has more than ${MAX_PAGES} pages.`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nameOf(raw: unknown, index: number): string {
  if (isObject(raw)) {
    if (typeof raw.name === 'string' && raw.name) return raw.name.slice(0, 200);
    if (typeof raw.uri === 'string' && raw.uri) return raw.uri.slice(0, 200);
    if (typeof raw.uriTemplate === 'string' && raw.uriTemplate) return raw.uriTemplate.slice(0, 200);
  }
  return `#${index + 1}`;
}

/** One line per problem, for the log and the view: `tool "x": inputSchema.type: …`. */
export function describeProblem(p: McpListProblem): string {
  const what = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resource template' }[p.list];
  return `${what} "${p.name}" left out: ${p.reason}`;
}

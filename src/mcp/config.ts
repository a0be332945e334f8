/**
 * MCP server definitions from the places people already keep them: our setting
 * `agentSwitchboard.mcpServers`, VS Code's `.vscode/mcp.json` (`servers` + `inputs`, JSON with
 * comments) and the `.mcp.json` of Claude Code and others (`mcpServers`). Each entry becomes one
 * {@link McpServerDefinition}; a malformed entry is skipped with a sentence saying why, never
 * guessed at.
 *
 * Pure: no `vscode`, no I/O (the adapter reads the files). Shapes: VS Code's MCP configuration
 * (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration), Claude Code's `.mcp.json`.
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from 'zod';
import type { OAuthClientSettings } from './oauth';

/** Where a definition came from. Workspace files obey Workspace Trust; settings may be user-level. */
export type McpSource = 'settings' | 'vscode-mcp.json' | 'mcp.json';

/** How to reach a server. Values may hold `${input:id}`, `${env:NAME}`, `${workspaceFolder}`. */
export type McpTransportSpec =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string | null>;
      cwd?: string;
      /** `"sandbox": true` in the definition: start it in the sandbox (issue 21), or not at all. */
      sandbox?: boolean;
      /**
       * Set on a resolved transport only (never read from a definition): the `reachHash` of the
       * sandbox profile its approval was given for; it starts only in a profile that reaches exactly
       * that. Part of the transport, so another one restarts it.
       */
      sandboxReach?: string;
    }
  | { type: 'http'; url: string; headers: Record<string, string>; oauth?: OAuthClientSettings };

/** One MCP server the person configured. */
export interface McpServerDefinition {
  /** `<source>:<name>`, unique across sources. */
  id: string;
  name: string;
  source: McpSource;
  /** The file it came from (absolute), for workspace files. */
  file?: string;
  transport: McpTransportSpec;
  /** False when the person turned it off (`"disabled": true` or `"enabled": false`). */
  enabled: boolean;
}

/** A `promptString` input of `.vscode/mcp.json`, asked once and kept in SecretStorage. */
export interface McpInputSpec {
  id: string;
  description: string;
  password: boolean;
  default?: string;
}

const Env = z.record(z.string(), z.union([z.string(), z.null()])).default({});
const StdioEntry = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: Env,
  cwd: z.string().optional(),
  sandbox: z.boolean().optional(),
  enabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
});
const HttpEntry = z.object({
  type: z.enum(['http', 'sse', 'streamable-http']).optional(),
  url: z.string().url(),
  headers: z.record(z.string(), z.string()).default({}),
  // A client registered with the server's authorization server beforehand (else the client registers itself).
  oauth: z.object({ clientId: z.string().min(1).optional(), clientSecret: z.string().optional(), scope: z.string().optional() }).optional(),
  enabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
});
const Entry = z.union([StdioEntry, HttpEntry]);
const InputEntry = z.object({
  type: z.literal('promptString'),
  id: z.string().min(1),
  description: z.string().default(''),
  password: z.boolean().default(false),
  default: z.string().optional(),
});

/** Definitions parsed from one source, plus a sentence per skipped entry. */
export interface ParsedServers {
  servers: McpServerDefinition[];
  inputs: McpInputSpec[];
  problems: string[];
}

/**
 * Parses a map of server entries (`{ name: {command, args, env, cwd} | {url, headers} }`).
 * @param where names the source in problem sentences, e.g. `.vscode/mcp.json`.
 */
export function parseServerMap(raw: unknown, source: McpSource, where: string, file?: string): ParsedServers {
  const out: ParsedServers = { servers: [], inputs: [], problems: [] };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    out.problems.push(`${where}: expected an object of servers by name; ignored.`);
    return out;
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const r = Entry.safeParse(value);
    if (!r.success) {
      out.problems.push(`${where}: server "${name}" is skipped: it needs either "command" (stdio) or a valid "url" (HTTP).`);
      continue;
    }
    const e = r.data;
    const enabled = e.enabled !== false && e.disabled !== true;
    const transport: McpTransportSpec =
      'command' in e ? { type: 'stdio', command: e.command, args: e.args, env: e.env, cwd: e.cwd, ...(e.sandbox ? { sandbox: true } : {}) } : { type: 'http', url: e.url, headers: e.headers, ...(e.oauth ? { oauth: e.oauth } : {}) };
    out.servers.push({ id: `${source}:${name}`, name, source, file, transport, enabled });
  }
  return out;
}

/** Parses the text of `.vscode/mcp.json` (JSON with comments: `servers`, `inputs`). */
export function parseVscodeMcpJson(text: string, file: string): ParsedServers {
  const doc = parseJsoncText(text, '.vscode/mcp.json');
  if ('problem' in doc) return { servers: [], inputs: [], problems: [doc.problem] };
  const out = parseServerMap((doc.value as { servers?: unknown })?.servers, 'vscode-mcp.json', '.vscode/mcp.json', file);
  const inputs = (doc.value as { inputs?: unknown })?.inputs;
  if (Array.isArray(inputs)) {
    for (const i of inputs) {
      const r = InputEntry.safeParse(i);
      if (r.success) out.inputs.push(r.data);
      else out.problems.push(`.vscode/mcp.json: an input is skipped: only {"type": "promptString", "id", "description", "password"} inputs are supported.`);
    }
  }
  return out;
}

/** Parses the text of a `.mcp.json` (`{ "mcpServers": { ... } }`). */
export function parseDotMcpJson(text: string, file: string): ParsedServers {
  const doc = parseJsoncText(text, '.mcp.json');
  if ('problem' in doc) return { servers: [], inputs: [], problems: [doc.problem] };
  return parseServerMap((doc.value as { mcpServers?: unknown })?.mcpServers, 'mcp.json', '.mcp.json', file);
}

function parseJsoncText(text: string, where: string): { value: unknown } | { problem: string } {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length) {
    const e = errors[0];
    return { problem: `${where}: ${printParseErrorCode(e.error)} at offset ${e.offset}; its servers are not loaded until it is fixed.` };
  }
  return { value };
}

/**
 * The variables VS Code's MCP configuration lets a value pull in, as {@link resolveTransport}
 * replaces them: `${input:id}`, `${env:NAME}`, `${workspaceFolder}`. One pattern serves both the
 * replacement and the listing shown for approval, so nothing resolves that the person was not shown.
 */
const VARIABLE = /\$\{(input|env):([^}]+)\}|\$\{workspaceFolder\}/g;

/** One variable a field of a definition pulls in. */
export interface VariableUse {
  kind: 'input' | 'env' | 'workspaceFolder';
  /** The input id or environment variable name; `workspaceFolder` for that one. */
  name: string;
  /** The field it goes into: `command`, `args[0]`, `env.NAME`, `cwd`, `url`, `headers.NAME`, `oauth.clientSecret`. */
  field: string;
}

/**
 * Every field of a transport that takes variables, with its value as written (unresolved), in
 * the order they are shown. Environment entries set to `null` (removals) take none.
 */
export function variableFields(t: McpTransportSpec): [field: string, value: string][] {
  if (t.type === 'stdio') {
    return [
      ['command', t.command],
      ...t.args.map((a, i): [string, string] => [`args[${i}]`, a]),
      ...Object.entries(t.env).flatMap(([k, v]): [string, string][] => (typeof v === 'string' ? [[`env.${k}`, v]] : [])),
      ...(t.cwd !== undefined ? [['cwd', t.cwd] as [string, string]] : []),
    ];
  }
  return [['url', t.url], ...Object.entries(t.headers).map(([k, v]): [string, string] => [`headers.${k}`, v]), ...(t.oauth?.clientSecret !== undefined ? [['oauth.clientSecret', t.oauth.clientSecret] as [string, string]] : [])];
}

/** Every variable a transport pulls in, field by field, in order of appearance. */
export function variableUses(t: McpTransportSpec): VariableUse[] {
  const out: VariableUse[] = [];
  for (const [field, value] of variableFields(t)) {
    for (const m of value.matchAll(VARIABLE)) out.push(m[1] ? { kind: m[1] as 'input' | 'env', name: m[2], field } : { kind: 'workspaceFolder', name: 'workspaceFolder', field });
  }
  return out;
}

/** The `${input:id}` references in a definition, in order of first use. */
export function inputReferences(def: McpServerDefinition): string[] {
  return [...new Set(variableUses(def.transport).filter((u) => u.kind === 'input').map((u) => u.name))];
}

/**
 * Replaces `${input:id}`, `${env:NAME}` and `${workspaceFolder}` in every string of a transport.
 * @throws Error naming the first input that has no value.
 */
export function resolveTransport(t: McpTransportSpec, vars: { inputs: Record<string, string>; env: Record<string, string | undefined>; workspaceFolder?: string }): McpTransportSpec {
  const sub = (s: string) =>
    s.replace(VARIABLE, (whole, kind: string | undefined, name: string | undefined) => {
      if (!kind) return vars.workspaceFolder ?? whole;
      if (kind === 'env') return vars.env[name!] ?? '';
      const v = vars.inputs[name!];
      if (v === undefined) throw new Error(`The input "${name}" has no value.`);
      return v;
    });
  if (t.type === 'stdio') {
    return {
      type: 'stdio',
      command: sub(t.command),
      args: t.args.map(sub),
      env: Object.fromEntries(Object.entries(t.env).map(([k, v]) => [k, v === null ? null : sub(v)])),
      cwd: t.cwd === undefined ? undefined : sub(t.cwd),
      ...(t.sandbox ? { sandbox: true } : {}),
    };
  }
  const oauth = t.oauth && { ...t.oauth, ...(t.oauth.clientSecret !== undefined ? { clientSecret: sub(t.oauth.clientSecret) } : {}) };
  return { type: 'http', url: sub(t.url), headers: Object.fromEntries(Object.entries(t.headers).map(([k, v]) => [k, sub(v)])), ...(oauth ? { oauth } : {}) };
}

/** Variables that make a program load code of someone else's choosing. */
const CODE_LOADING_ENV = /^(NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|DYLD_.*|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|RUBYOPT|BASH_ENV|ENV|npm_config_.*|GIT_.*)$/i;

/**
 * What approving a definition lets run, with every value as written (variables unresolved): the
 * command line, the folder and every environment variable (a variable such as NODE_OPTIONS can
 * load any code, so it is named as such); or the URL, every header with its value, and the OAuth
 * client secret. Plain text. {@link describeVariables} says what the variables pull in.
 */
export function describeDefinition(d: McpServerDefinition): string {
  const t = d.transport;
  if (t.type === 'http') {
    const headers = Object.entries(t.headers).map(([k, v]) => `${k}: ${v}`);
    return [
      `connects to ${t.url}`,
      headers.length ? `with headers ${headers.join(', ')}` : '',
      t.oauth?.clientSecret !== undefined ? `with OAuth client secret ${t.oauth.clientSecret}` : '',
    ].filter(Boolean).join('; ');
  }
  const env = Object.entries(t.env).map(([k, v]) => (v === null ? `without ${k}` : `${k}=${v}`));
  const risky = Object.keys(t.env).filter((k) => CODE_LOADING_ENV.test(k));
  return [
    `runs: ${[t.command, ...t.args].join(' ')}`,
    t.cwd ? `in ${t.cwd}` : 'in the workspace folder',
    env.length ? `with environment ${env.join(' ')}` : '',
    risky.length ? `WARNING: ${risky.join(', ')} can make it load other code` : '',
  ].filter(Boolean).join('; ');
}

/**
 * Every variable a definition pulls in and where each goes, as one plain sentence: the editor's
 * environment variables (their values can be secrets the server, or the host at its URL, then
 * receives), the inputs the person is asked for (with their description and whether secret), and
 * `${workspaceFolder}`. Says so when there are none.
 * @param inputs the `inputs` declared beside the definition, for their descriptions.
 */
export function describeVariables(d: McpServerDefinition, inputs: readonly McpInputSpec[] = []): string {
  const uses = variableUses(d.transport);
  if (!uses.length) return 'It uses no variables.';
  const group = (kind: VariableUse['kind']) => {
    const by = new Map<string, string[]>();
    for (const u of uses.filter((x) => x.kind === kind)) by.set(u.name, [...new Set([...(by.get(u.name) ?? []), u.field])]);
    return [...by];
  };
  const env = group('env').map(([name, fields]) => `${name} (into ${fields.join(', ')})`);
  const ins = group('input').map(([id, fields]) => {
    const spec = inputs.find((i) => i.id === id);
    const about = [spec?.description ? `"${spec.description}"` : '', spec && !spec.password ? 'not secret' : 'secret'].filter(Boolean).join(', ');
    return `${id} (${about}; into ${fields.join(', ')})`;
  });
  const folder = group('workspaceFolder').map(([, fields]) => `the workspace folder's path (into ${fields.join(', ')})`);
  return [
    env.length ? `It reads the editor's environment variables ${env.join(', ')}.` : '',
    ins.length ? `It asks you for the inputs ${ins.join(', ')}, kept for this workspace and this definition only.` : '',
    folder.length ? `It uses ${folder.join(', ')}.` : '',
  ].filter(Boolean).join(' ');
}

/**
 * Readers for the files an agent takes configuration from: which parts of a file make the agent
 * run something or skip asking, each with its exact text as written in the file.
 *
 * The rule is an allowlist: a part is left out only when the product knows it to be harmless
 * (a theme, a model name, deny rules); everything else is shown, so a key the product has never
 * heard of is shown rather than trusted.
 */
import { parseTree, type Node, type ParseError } from 'jsonc-parser';
import * as z from 'zod';
import type { FileFormat } from './kinds';

/** What a part of an agent's configuration makes the agent do. */
export type FindingKind = 'runs a command' | 'pre-approves tools' | 'adds an MCP server' | 'loads a plugin' | 'sets the environment' | 'changes what the agent may do';

/** One part of one file, with its exact text. */
export interface ConfigPart {
  kind: FindingKind;
  /** Where in the file: a key path (`hooks`, `permissions.allow`), `front matter`, or `whole file`. */
  where: string;
  /** The exact text of that part, as the file has it. */
  text: string;
}

const RUNS = 'runs a command';
const APPROVES = 'pre-approves tools';
const MCP = 'adds an MCP server';
const PLUGIN = 'loads a plugin';
const ENV = 'sets the environment';
const OTHER = 'changes what the agent may do';

interface SettingsRules {
  /** Top-level keys known harmless. */
  harmless: ReadonlySet<string>;
  /** Keys read one level down: their harmless sub-keys (and harmless values of a sub-key). */
  nested: Record<string, { harmless: ReadonlySet<string>; harmlessValues?: Record<string, readonly string[]> }>;
  kinds: Record<string, FindingKind>;
}

const CLAUDE: SettingsRules = {
  harmless: new Set(['$schema', 'model', 'includeCoAuthoredBy', 'cleanupPeriodDays', 'outputStyle', 'language', 'alwaysThinkingEnabled', 'spinnerTipsEnabled', 'respectGitignore', 'attribution']),
  nested: { permissions: { harmless: new Set(['deny', 'ask', 'disableBypassPermissionsMode']), harmlessValues: { defaultMode: ['default', 'plan'] } } },
  kinds: {
    hooks: RUNS, statusLine: RUNS, subagentStatusLine: RUNS, apiKeyHelper: RUNS, awsAuthRefresh: RUNS, awsCredentialExport: RUNS, otelHeadersHelper: RUNS, fileSuggestion: RUNS,
    permissions: APPROVES, sandbox: APPROVES,
    enableAllProjectMcpServers: MCP, enabledMcpjsonServers: MCP, mcpServers: MCP, allowedMcpServers: MCP,
    enabledPlugins: PLUGIN, extraKnownMarketplaces: PLUGIN, plugins: PLUGIN,
    env: ENV,
  },
};

const GEMINI: SettingsRules = {
  harmless: new Set(['$schema', 'ui', 'output', 'accessibility']),
  nested: {},
  kinds: { hooks: RUNS, hooksConfig: RUNS, mcpServers: MCP, mcp: MCP, tools: APPROVES, security: APPROVES, extensions: PLUGIN, experimental: PLUGIN, advanced: ENV },
};

const OPENCODE: SettingsRules = {
  harmless: new Set(['$schema', 'theme', 'model', 'small_model', 'username', 'autoupdate', 'share', 'instructions', 'keybinds', 'tui', 'layout', 'snapshot']),
  nested: {},
  kinds: { permission: APPROVES, tools: APPROVES, agent: APPROVES, mode: APPROVES, mcp: MCP, plugin: PLUGIN, formatter: RUNS, lsp: RUNS, experimental: RUNS, command: RUNS },
};

/** Front-matter keys of skills, commands and sub-agents that only describe them. */
const HARMLESS_FRONTMATTER = new Set(['name', 'description', 'argument-hint', 'model', 'license', 'metadata', 'version', 'color', 'disable-model-invocation', 'user-invocable', 'when_to_use', 'when-to-use', 'title']);

/** A JSON object as `parseTree` gives it: the zod check that a file's root is one. */
const ObjectNode = z.object({ type: z.literal('object'), children: z.array(z.custom<Node>()).default([]) });

/**
 * The parts of `content` (a file in `format`) that make an agent run something or skip asking.
 * A file that cannot be read in its format is shown whole: the agent may read it differently.
 */
export function readParts(format: FileFormat, content: string): ConfigPart[] {
  switch (format) {
    case 'claude-settings':
      return settingsParts(content, CLAUDE);
    case 'gemini-settings':
      return settingsParts(content, GEMINI);
    case 'opencode-config':
      return settingsParts(content, OPENCODE);
    case 'mcp-json':
      return settingsParts(content, { harmless: new Set(['$schema']), nested: {}, kinds: {} }, MCP);
    case 'frontmatter':
      return frontmatterParts(content);
    case 'whole':
      return content.trim() ? [{ kind: OTHER, where: 'whole file', text: content }] : [];
  }
}

function settingsParts(content: string, rules: SettingsRules, fallback: FindingKind = OTHER): ConfigPart[] {
  if (!content.trim()) return [];
  const errors: ParseError[] = [];
  const root = ObjectNode.safeParse(parseTree(content, errors, { allowTrailingComma: true, disallowComments: false }));
  if (!root.success || errors.length) return [{ kind: OTHER, where: 'whole file (not readable as JSON, shown whole)', text: content }];
  const parts: ConfigPart[] = [];
  for (const prop of root.data.children) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || typeof keyNode.value !== 'string') continue;
    const key = keyNode.value;
    if (rules.harmless.has(key)) continue;
    const kind = rules.kinds[key] ?? fallback;
    const nested = rules.nested[key];
    if (nested && valueNode?.type === 'object') {
      for (const sub of valueNode.children ?? []) {
        const [subKey, subValue] = sub.children ?? [];
        if (!subKey || typeof subKey.value !== 'string') continue;
        if (nested.harmless.has(subKey.value)) continue;
        const okValues = nested.harmlessValues?.[subKey.value];
        if (okValues && subValue?.type === 'string' && okValues.includes(String(subValue.value))) continue;
        parts.push({ kind, where: `${key}.${subKey.value}`, text: content.slice(sub.offset, sub.offset + sub.length) });
      }
      continue;
    }
    parts.push({ kind, where: key, text: content.slice(prop.offset, prop.offset + prop.length) });
  }
  return parts;
}

/**
 * A skill, command or sub-agent file: its front matter is shown whole when it has any key beyond
 * the descriptive ones (`allowed-tools`, `hooks`, `permissionMode`, `tools`, …). The body is
 * instructions to the model and stays out.
 */
function frontmatterParts(content: string): ConfigPart[] {
  // Claude's own reading of the block (a closing `---` anywhere ends it), and the stricter one of a
  // line of its own: the longer of the two is shown, so neither reading hides a key.
  const claude = /^\uFEFF?---\s*\n([\s\S]*?)---\s*\n?/.exec(content.replace(/\r\n/g, '\n'));
  const strict = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(content);
  const m = [strict, claude].filter((x): x is RegExpExecArray => x !== null).sort((a, b) => b[0].length - a[0].length)[0];
  if (!m) return [];
  const front = [strict?.[1] ?? '', claude?.[1] ?? ''].join('\n');
  // Every key at any indentation (an indented key is still read by a lenient YAML reader), and an
  // explicit `? key`; a line that is not a plain descriptive key counts as acting.
  const lines = front.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const acting = lines
    .map((l) => /^(?:\?\s*)?["']?([^"':]+?)["']?\s*:/.exec(l)?.[1]?.trim() ?? l)
    .filter((k) => !HARMLESS_FRONTMATTER.has(k));
  if (!acting.length) return [];
  const kind: FindingKind = acting.some((k) => /hook/i.test(k)) ? RUNS : acting.some((k) => /mcp/i.test(k)) ? MCP : APPROVES;
  return [{ kind, where: `front matter (${acting.join(', ')})`, text: m[0] }];
}

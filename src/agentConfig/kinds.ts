/**
 * Which agent a command line starts, and per agent: the repository files that make it run
 * something or skip asking, and what the product can switch off when it starts that agent.
 *
 * Sources, checked against the installed agents where they are installed:
 * - Claude (claude-agent-acp 0.23, claude-code-acp 0.16): both build the Claude SDK's options with
 *   `settingSources: ["user", "project", "local"]` and then spread `_meta.claudeCode.options` over
 *   them, so `settingSources: ["user"]` leaves out `.claude/settings.json`, `.claude/settings.local.json`,
 *   `.mcp.json`, project skills, commands and agents. Both adapters also read the project settings
 *   themselves: claude-agent-acp takes `permissions.defaultMode` as the session's mode (undone with
 *   `session/set_mode`), claude-code-acp applies `permissions.allow` to its `mcp__acp__*` tools in a
 *   PreToolUse hook of its own (nothing in `_meta` turns that off).
 * - Gemini CLI (0.61): `GEMINI_CLI_TRUST_WORKSPACE=false` makes the folder untrusted, and an untrusted
 *   folder's `.gemini/settings.json`, `.env` and skills are not loaded.
 * - OpenCode: `OPENCODE_DISABLE_PROJECT_CONFIG` (project `opencode.json(c)` and `.opencode/`),
 *   `OPENCODE_DISABLE_EXTERNAL_SKILLS` and `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS` (the `.claude/` and
 *   `.agents/` skills it also reads).
 * - Codex (`.codex/`), Qwen Code (`.qwen/`), Copilot CLI (`.github/hooks`, `.github/copilot`,
 *   `.github/agents`, `.github/skills`): no switch known to the product; the person is told.
 */
import path from 'node:path';

/** The agents whose repository configuration the product knows. `other`: a command it does not recognize. */
export type AgentKind = 'claude-agent-acp' | 'claude-code-acp' | 'gemini' | 'qwen' | 'codex' | 'opencode' | 'copilot' | 'other';

/** How a repository file is read. */
export type FileFormat = 'claude-settings' | 'gemini-settings' | 'opencode-config' | 'mcp-json' | 'frontmatter' | 'whole';

/** One place in a repository an agent reads configuration from (relative to the session's folder). */
export interface ConfigSource {
  /** A file, or with `dir` a folder whose files (any depth) are read. */
  path: string;
  dir?: boolean;
  /** Only files whose name ends like this, in a `dir` (for example `SKILL.md`, `.md`). */
  suffix?: string;
  format: FileFormat;
  /** What turns this source off at start, when the product can (else it acts until allowed). */
  off?: string;
}

const SKILL_FRONTMATTER = (dir: string, off?: string): ConfigSource => ({ path: dir, dir: true, suffix: '.md', format: 'frontmatter', ...(off ? { off } : {}) });

const CLAUDE_OFF = 'the session option _meta.claudeCode.options.settingSources = ["user"]';
const claudeSources: ConfigSource[] = [
  { path: '.claude/settings.json', format: 'claude-settings', off: CLAUDE_OFF },
  { path: '.claude/settings.local.json', format: 'claude-settings', off: CLAUDE_OFF },
  { path: '.mcp.json', format: 'mcp-json', off: CLAUDE_OFF },
  SKILL_FRONTMATTER('.claude/skills', CLAUDE_OFF),
  SKILL_FRONTMATTER('.claude/commands', CLAUDE_OFF),
  SKILL_FRONTMATTER('.claude/agents', CLAUDE_OFF),
];

const GEMINI_OFF = 'GEMINI_CLI_TRUST_WORKSPACE=false (the folder is untrusted to Gemini CLI)';
const geminiSources: ConfigSource[] = [
  { path: '.gemini/settings.json', format: 'gemini-settings', off: GEMINI_OFF },
  { path: '.gemini/.env', format: 'whole', off: GEMINI_OFF },
  { path: '.env', format: 'whole', off: GEMINI_OFF },
  { path: '.gemini/policies', dir: true, suffix: '.toml', format: 'whole' },
  { path: '.gemini/extensions', dir: true, format: 'whole' },
  SKILL_FRONTMATTER('.gemini/skills', GEMINI_OFF),
  SKILL_FRONTMATTER('.gemini/agents', GEMINI_OFF),
  SKILL_FRONTMATTER('.agents/skills', GEMINI_OFF),
];

const qwenSources: ConfigSource[] = [
  { path: '.qwen/settings.json', format: 'gemini-settings' },
  { path: '.qwen/.env', format: 'whole' },
  { path: '.qwen/extensions', dir: true, format: 'whole' },
  SKILL_FRONTMATTER('.qwen/skills'),
  SKILL_FRONTMATTER('.qwen/agents'),
];

const codexSources: ConfigSource[] = [
  { path: '.codex', dir: true, suffix: '.toml', format: 'whole' },
  { path: '.codex', dir: true, suffix: '.json', format: 'whole' },
  { path: '.codex/rules', dir: true, format: 'whole' },
  SKILL_FRONTMATTER('.agents/skills'),
  SKILL_FRONTMATTER('.codex/skills'),
];

const OPENCODE_OFF = 'OPENCODE_DISABLE_PROJECT_CONFIG=1';
const OPENCODE_SKILLS_OFF = 'OPENCODE_DISABLE_EXTERNAL_SKILLS=1 and OPENCODE_DISABLE_CLAUDE_CODE_SKILLS=1';
const opencodeSources: ConfigSource[] = [
  { path: 'opencode.json', format: 'opencode-config', off: OPENCODE_OFF },
  { path: 'opencode.jsonc', format: 'opencode-config', off: OPENCODE_OFF },
  { path: '.opencode/opencode.json', format: 'opencode-config', off: OPENCODE_OFF },
  { path: '.opencode/opencode.jsonc', format: 'opencode-config', off: OPENCODE_OFF },
  ...['plugin', 'plugins', 'tool', 'tools'].map((d): ConfigSource => ({ path: `.opencode/${d}`, dir: true, format: 'whole', off: OPENCODE_OFF })),
  ...['agent', 'agents', 'mode', 'modes', 'command', 'commands', 'skill', 'skills'].map((d) => SKILL_FRONTMATTER(`.opencode/${d}`, OPENCODE_OFF)),
  SKILL_FRONTMATTER('.claude/skills', OPENCODE_SKILLS_OFF),
  SKILL_FRONTMATTER('.agents/skills', OPENCODE_SKILLS_OFF),
];

const copilotSources: ConfigSource[] = [
  { path: '.github/hooks', dir: true, suffix: '.json', format: 'whole' },
  { path: '.github/copilot', dir: true, format: 'whole' },
  { path: '.copilot', dir: true, format: 'whole' },
  { path: '.mcp.json', format: 'mcp-json' },
  { path: '.vscode/mcp.json', format: 'whole' },
  SKILL_FRONTMATTER('.github/agents'),
  SKILL_FRONTMATTER('.github/skills'),
  SKILL_FRONTMATTER('.claude/skills'),
];

const SOURCES: Record<Exclude<AgentKind, 'other'>, ConfigSource[]> = {
  'claude-agent-acp': claudeSources,
  'claude-code-acp': claudeSources,
  gemini: geminiSources,
  qwen: qwenSources,
  codex: codexSources,
  opencode: opencodeSources,
  copilot: copilotSources,
};

/**
 * The repository sources `kind` reads. An agent the product does not recognize gets every known
 * source (without switches): its command may be any of these agents under another name.
 */
export function sourcesFor(kind: AgentKind): ConfigSource[] {
  if (kind !== 'other') return SOURCES[kind];
  // The editor's own MCP configuration is approved server by server by the MCP host, and a plain
  // `.env` is read only by agents that say so: neither is asked about for an agent not recognized.
  const seen = new Set<string>(['.vscode/mcp.json||whole', '.env||whole']);
  const all: ConfigSource[] = [];
  for (const list of Object.values(SOURCES)) {
    for (const s of list) {
      const id = `${s.path}|${s.suffix ?? ''}|${s.format}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const { off: _off, ...rest } = s;
      all.push(rest);
    }
  }
  return all;
}

/**
 * The agent a command line starts, from the program's name and, for Node, the script it runs
 * (`node …/claude-agent-acp/dist/index.js`). Anything else is `other`.
 */
export function agentKindOf(command: string, args: readonly string[]): AgentKind {
  const words = [command, ...args].map((w) => w.replace(/\\/g, '/').toLowerCase());
  const base = (w: string) => path.posix.basename(w).replace(/\.(exe|cmd|js|mjs|cjs)$/, '');
  const has = (needle: string) => words.some((w) => w.includes(needle));
  if (has('claude-agent-acp')) return 'claude-agent-acp';
  if (has('claude-code-acp')) return 'claude-code-acp';
  if (has('codex-acp') || base(words[0]) === 'codex') return 'codex';
  if (has('@google/gemini-cli') || base(words[0]) === 'gemini') return 'gemini';
  if (has('@qwen-code') || base(words[0]) === 'qwen') return 'qwen';
  if (base(words[0]) === 'opencode' || has('opencode-linux') || has('opencode-darwin')) return 'opencode';
  if (base(words[0]) === 'copilot' || has('@github/copilot')) return 'copilot';
  return 'other';
}

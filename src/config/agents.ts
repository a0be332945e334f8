/**
 * Agent definitions: the person's `agentSwitchboard.agents` setting (validated with zod) plus
 * built-in presets for well-known ACP agents and the offline demo agent.
 *
 * Pure except for PATH look-ups (`node:fs`); no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { agentEntryLabel, describeAgentProblems, type AgentUnavailability } from './agentProblems';

/** One agent definition as written in settings. `env` values of `null` remove a variable. */
export const AgentDefinitionSchema = z.object({
  id: z.string().min(1).regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" or "-"'),
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string().nullable()).default({}),
});

/** A validated agent definition. */
export type AgentDefinition = z.infer<typeof AgentDefinitionSchema>;

/** An agent as offered to the person: its definition, where it came from and whether it can start. */
export interface ResolvedAgent extends AgentDefinition {
  source: 'settings' | 'preset' | 'demo';
  available: boolean;
  /**
   * Why the agent is unavailable, one sentence: `"x" was not found on your PATH.`, or for an invalid
   * entry `<name or id>: <what is wrong>`.
   */
  reason?: string;
  /** What a person needs to dig further (the PATHs searched), for the log; not for a toast. */
  detail?: string;
  /** The entry of `agentSwitchboard.agents` is invalid: its place in the list (to open settings at it). */
  invalidEntry?: number;
  /** Why it cannot start, in kind (pickers badge it with `availabilityBadge`). */
  unavailable?: AgentUnavailability;
  /** For an invalid entry: what is wrong, in plain words, without its name (`reason` has both). */
  problem?: string;
  /** Absolute path of the command when it was found on PATH. */
  resolvedCommand?: string;
  demo?: boolean;
}

/**
 * Presets for ACP agents people install themselves. Each stays disabled until its command is found
 * on PATH (see {@link resolveAgents}). Sources: the agents' READMEs (claude-code-acp and
 * claude-agent-acp by Zed, codex-acp, `gemini --acp`, `opencode acp`).
 */
export const PRESETS: readonly AgentDefinition[] = [
  { id: 'claude-agent-acp', name: 'Claude Code (claude-agent-acp)', command: 'claude-agent-acp', args: [], env: {} },
  { id: 'claude-code-acp', name: 'Claude Code (claude-code-acp)', command: 'claude-code-acp', args: [], env: {} },
  { id: 'codex-acp', name: 'Codex (codex-acp)', command: 'codex-acp', args: [], env: {} },
  { id: 'gemini', name: 'Gemini CLI', command: 'gemini', args: ['--acp'], env: {} },
  { id: 'opencode', name: 'OpenCode', command: 'opencode', args: ['acp'], env: {} },
];

/** Id of the built-in offline demo agent. */
export const DEMO_AGENT_ID = 'demo';

/** Problems found while reading the setting, one sentence each, for a warning to the person. */
export interface AgentConfigResult {
  agents: ResolvedAgent[];
  problems: string[];
}

/**
 * Merges the setting with the presets (a setting with a preset's id replaces the preset), resolves
 * each command on `pathEnv`, and adds the demo agent, whose command is `demoCommand`.
 *
 * Invalid entries do not throw: each is offered as an unavailable agent whose `reason` says, in
 * plain words, what is wrong (and is reported in `problems`); it never starts.
 */
export function resolveAgents(
  setting: unknown,
  opts: {
    pathEnv: string | undefined;
    demo?: { command: string; args: string[]; env?: Record<string, string | null> };
    /**
     * The login shell's PATH (see `readLoginShellPath`): searched after `pathEnv`, and named when a
     * command is in neither; null when it could not be read, undefined when not asked.
     */
    loginPath?: string | null;
  },
): AgentConfigResult {
  const problems: string[] = [];
  const user: ResolvedAgent[] = [];
  if (setting !== undefined && setting !== null) {
    if (!Array.isArray(setting)) {
      problems.push('agentSwitchboard.agents must be a list of agents, like [{"id": "my-agent", "name": "My agent", "command": "my-agent", "args": []}].');
    } else {
      setting.forEach((raw, i) => {
        const r = AgentDefinitionSchema.safeParse(raw);
        if (r.success) user.push(withResolution({ ...r.data, source: 'settings' }, opts.pathEnv, opts.loginPath));
        else {
          // Shown in the picker, not dropped: the person sees which entry and what to fix.
          const problem = describeAgentProblems(raw, r.error.issues);
          const reason = `${agentEntryLabel(raw, i)}: ${problem}`;
          problems.push(`agentSwitchboard.agents: ${reason}.`);
          user.push(invalidEntry(raw, i, reason, problem));
        }
      });
    }
  }
  const byId = new Map<string, ResolvedAgent>();
  if (opts.demo) {
    byId.set(DEMO_AGENT_ID, {
      id: DEMO_AGENT_ID,
      name: 'Offline demo agent',
      command: opts.demo.command,
      args: opts.demo.args,
      env: opts.demo.env ?? {},
      source: 'demo',
      available: true,
      resolvedCommand: opts.demo.command,
      demo: true,
    });
  }
  for (const p of PRESETS) byId.set(p.id, withResolution({ ...p, source: 'preset' }, opts.pathEnv, opts.loginPath));
  for (const u of user) byId.set(u.id, u);
  // The agents the person configured come first (the pickers' default is the first that can
  // start): then the demo, then the presets found on PATH.
  const own = [...new Set(user.map((u) => u.id))];
  return { agents: [...own.map((id) => byId.get(id)!), ...[...byId.values()].filter((a) => !own.includes(a.id))], problems };
}

/**
 * An invalid entry as a picker row: unavailable, with its problem. Its id is the entry's own when
 * that is usable (so a broken entry still replaces the preset it names, rather than the preset
 * silently running instead), else one derived from its place, stable while the list is unchanged.
 */
function invalidEntry(raw: unknown, index: number, reason: string, problem: string): ResolvedAgent {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const id = AgentDefinitionSchema.shape.id.safeParse(o.id);
  const name = typeof o.name === 'string' && o.name.trim() ? o.name.trim() : agentEntryLabel(raw, index);
  return { id: id.success ? id.data : `invalid-entry-${index + 1}`, name, command: typeof o.command === 'string' ? o.command : '', args: [], env: {}, source: 'settings', available: false, reason, invalidEntry: index, unavailable: 'malformed', problem };
}

function withResolution(def: AgentDefinition & { source: ResolvedAgent['source'] }, pathEnv: string | undefined, loginPath: string | null | undefined): ResolvedAgent {
  const found = findOnPath(def.command, pathEnv) ?? (loginPath ? findOnPath(def.command, loginPath) : undefined);
  if (found) return { ...def, available: true, resolvedCommand: found };
  return { ...def, available: false, ...whyNotFound(def.command, pathEnv, loginPath) };
}

/**
 * Why `command` cannot be started: one sentence for the picker (`reason`) and, for a bare name,
 * the PATHs searched and what to do (`detail`, for the log: two PATH lists do not fit a toast).
 */
function whyNotFound(command: string, pathEnv: string | undefined, loginPath?: string | null): { reason: string; detail?: string; unavailable: AgentUnavailability } {
  if (!(command.includes('/') || command.includes(path.sep))) {
    const login = loginPath === undefined ? '' : loginPath === null ? "; your login shell's PATH could not be read" : ` nor on your login shell's PATH (${loginPath})`;
    return {
      unavailable: 'not-found',
      reason: `"${command}" was not found on your PATH.`,
      detail: `"${command}" was not found on the editor's PATH (${pathEnv ?? 'unset'})${login}. Put its full path in "command", or start the editor from a terminal that finds it`,
    };
  }
  const abs = path.resolve(command);
  try {
    const st = fs.statSync(abs);
    return st.isFile() ? { unavailable: 'not-executable', reason: `"${abs}" is not executable (chmod +x it).` } : { unavailable: 'not-a-file', reason: `"${abs}" is not a file.` };
  } catch {
    return { unavailable: 'missing', reason: `"${abs}" does not exist.` };
  }
}

/**
 * Finds `command` like a shell would: an absolute or relative path is checked as is, a bare name is
 * looked up in each directory of `pathEnv`. Returns the absolute path of an executable file, or
 * undefined.
 */
export function findOnPath(command: string, pathEnv: string | undefined): string | undefined {
  const isExec = (p: string) => {
    try {
      const st = fs.statSync(p);
      if (!st.isFile()) return false;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/') || command.includes(path.sep)) {
    const abs = path.resolve(command);
    return isExec(abs) ? abs : undefined;
  }
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (isExec(candidate)) return candidate;
  }
  return undefined;
}

/** The environment for an agent process: `base` with the definition's overrides (`null` removes). */
export function agentEnv(base: NodeJS.ProcessEnv, overrides: Record<string, string | null>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  for (const [k, v] of Object.entries(overrides)) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  return env;
}

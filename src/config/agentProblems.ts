/**
 * What is wrong with an entry of `agentSwitchboard.agents`, in the words a person fixes it with.
 * zod's own messages ("Invalid input: expected array, received string") name types, not the fix,
 * and an index ("agents[1]") makes the person count: the picker shows "<name or id>: <problem>".
 *
 * Pure: no `vscode`.
 */
import type * as z from 'zod';

/** The fields of an agent entry (the keys of `AgentDefinitionSchema`), each with what it must be. */
export const AGENT_FIELD_WORDS = {
  id: 'a short name of letters, digits, ".", "_" or "-", like "my-agent"',
  name: 'the text shown in the agent picker, like "My agent"',
  command: 'the program to run, a name on your PATH or a full path, like "claude-code-acp"',
  args: 'a list of strings, like ["--acp"]',
  env: 'an object of variable names and their text (null removes a variable), like {"DEBUG": "1"}',
} as const;

/** A field of an agent entry. */
export type AgentField = keyof typeof AGENT_FIELD_WORDS;

function isField(k: unknown): k is AgentField {
  return typeof k === 'string' && Object.prototype.hasOwnProperty.call(AGENT_FIELD_WORDS, k);
}

/**
 * The name the person knows an entry by: its `name`, else its `id`, else its place in the list
 * ("agent entry 2"), the last resort when the entry has neither.
 */
export function agentEntryLabel(raw: unknown, index: number): string {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  for (const k of ['name', 'id'] as const) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return `agent entry ${index + 1}`;
}

/** One zod issue of an agent entry in plain words (no type names of zod's, no index). */
export function describeAgentIssue(raw: unknown, issue: z.core.$ZodIssue): string {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'the entry must be an object with "id", "name" and "command", like {"id": "my-agent", "name": "My agent", "command": "my-agent"}';
  const [field, sub] = issue.path;
  if (!isField(field)) {
    if (issue.code === 'unrecognized_keys') return `${issue.keys.map((k) => `"${k}"`).join(', ')} ${issue.keys.length > 1 ? 'are not fields' : 'is not a field'} of an agent (use id, name, command, args, env)`;
    return 'the entry is not an agent definition (use id, name, command, args, env)';
  }
  const value = (raw as Record<string, unknown>)[field];
  const must = AGENT_FIELD_WORDS[field];
  if (value === undefined) return `${field} is missing; it must be ${must}`;
  if (field === 'env' && sub !== undefined) return `env "${String(sub)}" must be text, or null to remove the variable`;
  if (field === 'args' && sub !== undefined) return `args must be ${must}; item ${Number(sub) + 1} is not a string`;
  if (typeof value === 'string' && value.trim() === '' && field !== 'env' && field !== 'args') return `${field} is empty; it must be ${must}`;
  return `${field} must be ${must}`;
}

/** Every issue of an entry in plain words, joined into one phrase (duplicates once). */
export function describeAgentProblems(raw: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return [...new Set(issues.map((i) => describeAgentIssue(raw, i)))].join('; ');
}

/**
 * Why an agent cannot start, in kind: its settings entry is malformed (`reason` says what is
 * wrong), or its command was not found on PATH, is not executable, is not a file or does not exist.
 */
export type AgentUnavailability = 'malformed' | 'not-found' | 'not-executable' | 'not-a-file' | 'missing';

const BADGES: Record<AgentUnavailability, string> = {
  malformed: 'malformed entry',
  'not-found': 'not found',
  'not-executable': 'not executable',
  'not-a-file': 'not a file',
  missing: 'does not exist',
};

/** What an agent picker shows of an agent's availability (the fields every picker gets). */
export interface AgentAvailability {
  name: string;
  available: boolean;
  demo?: boolean;
  unavailable?: AgentUnavailability;
  /** For a malformed entry: what is wrong, in plain words (without the name). */
  problem?: string;
}

/**
 * The few words every picker, tree and list shows beside an agent that cannot start ("malformed
 * entry", "not found", …), so a malformed entry is never called "not found"; undefined when it can.
 */
export function availabilityBadge(a: AgentAvailability): string | undefined {
  if (a.available) return undefined;
  return a.unavailable ? BADGES[a.unavailable] : 'unavailable';
}

/**
 * An agent's row in a picker: its name, and when it cannot start, why in short; a malformed entry
 * also says what is wrong ("My agent (malformed entry): args must be a list of strings, …").
 */
export function agentRowLabel(a: AgentAvailability): string {
  if (a.demo) return /offline demo/i.test(a.name) ? a.name : `${a.name} (offline demo)`;
  const badge = availabilityBadge(a);
  if (!badge) return a.name;
  return a.unavailable === 'malformed' && a.problem ? `${a.name} (${badge}): ${a.problem}` : `${a.name} (${badge})`;
}

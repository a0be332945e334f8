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

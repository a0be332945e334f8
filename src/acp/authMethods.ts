/**
 * How an agent can be logged in, from its `authMethods`: a method the agent runs itself
 * (`authenticate`), or a login in a terminal the person sees and answers — `type: "terminal"` (the
 * agent's own command with the method's `args`), or the older `_meta["terminal-auth"]` that Copilot
 * CLI sends (and claude-agent-acp to a client that declares it): the whole command, by absolute path.
 * Pure: the environment is given.
 */
import * as path from 'node:path';
import type { AuthMethod } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { isReservedEnvName } from '../registry/registry';

/** An auth method as the person chooses it; `terminal`: how its login runs in a terminal. */
export interface AuthChoice {
  id: string;
  name: string;
  description?: string;
  terminal?: { command: string; args: string[]; env: NodeJS.ProcessEnv };
}

const TerminalAuthMeta = z.object({
  command: z.string().min(1).max(4096).refine((c) => path.isAbsolute(c), 'an absolute path'),
  args: z.array(z.string().max(4096)).max(64).default([]),
  label: z.string().max(200).optional(),
  env: z.record(z.string().max(200), z.string().max(10_000)).optional(),
});

/**
 * An auth method's `_meta["terminal-auth"]` (`{command, args, label, env}`), when well formed: the
 * command an absolute path (a bare name would be looked up on a PATH the agent does not choose).
 */
export function terminalAuthMeta(meta: unknown): z.infer<typeof TerminalAuthMeta> | undefined {
  const raw = meta && typeof meta === 'object' ? (meta as Record<string, unknown>)['terminal-auth'] : undefined;
  const r = TerminalAuthMeta.safeParse(raw);
  return r.success ? r.data : undefined;
}

/**
 * The choices `methods` offer for `agent`, started in `env` (the agent's own environment): a method
 * may add variables, never one that changes what runs (loader, PATH, Node options).
 */
export function authChoicesOf(methods: readonly AuthMethod[], agent: { command: string; resolvedCommand?: string; args: string[] }, env: NodeJS.ProcessEnv): AuthChoice[] {
  return methods.map((m) => {
    const base = { id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) };
    const own = { ...env };
    const take = (names: Record<string, string> | null | undefined) => {
      for (const [k, v] of Object.entries(names ?? {})) if (!isReservedEnvName(k)) own[k] = v;
    };
    if ('type' in m && m.type === 'terminal') {
      take(m.env);
      return { ...base, terminal: { command: agent.resolvedCommand ?? agent.command, args: [...agent.args, ...(m.args ?? [])], env: own } };
    }
    const older = terminalAuthMeta(m._meta);
    if (!older) return base;
    take(older.env);
    return { ...base, ...(older.label && !m.description ? { description: older.label } : {}), terminal: { command: older.command, args: older.args, env: own } };
  });
}

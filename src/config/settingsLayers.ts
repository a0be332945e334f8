/**
 * Whose settings decide what. The gate (`agentSwitchboard.policy`), the agent list and every setting
 * that could send data elsewhere come from the person's own settings (user settings, or remote user
 * settings in a remote window); a workspace (its `.code-workspace` file or a folder's
 * `.vscode/settings.json`) may only make them stricter. A cloned repository is not the person.
 *
 * Pure: the layers are read by `vscodeSettings.ts` (`inspect()`), merged here. No `vscode`.
 */
import * as z from 'zod';
import type { PolicyDefaults } from '../policy/gate';
import { EffectPatternSchema, type EffectPattern } from '../policy/grants';

/**
 * How a contributed setting may be set: `workspace` — a workspace may set it (it cannot loosen the
 * gate nor send data elsewhere); `tighten` — the person's value, which a workspace may only make
 * stricter; `user` — the person's settings only, a workspace value is ignored.
 */
export type SettingClass = 'workspace' | 'tighten' | 'user';

/**
 * Every setting in `package.json` `contributes.configuration`, classified (a unit test checks that
 * none is missing), with the reason, for the notes and the security document.
 */
export const SETTING_CLASSES: Readonly<Record<string, { cls: SettingClass; why: string }>> = {
  'agentSwitchboard.agents': { cls: 'user', why: 'what runs as an agent, and which grants it inherits' },
  'agentSwitchboard.policy': { cls: 'tighten', why: 'the permission gate itself' },
  'agentSwitchboard.showNotifications': { cls: 'tighten', why: 'a workspace must not hide that a session waits for the person' },
  'agentSwitchboard.review.inline': { cls: 'tighten', why: 'a workspace must not hide agents\' changes from the editor' },
  'agentSwitchboard.review.followEdits': { cls: 'workspace', why: 'which file the editor shows while an agent works; display only' },
  'agentSwitchboard.editorMcpServer': { cls: 'tighten', why: 'gives every agent the editor state (open documents, selection)' },
  'agentSwitchboard.tracing.receiveAgentSpans': { cls: 'tighten', why: 'hands agents and MCP servers an endpoint and token of ours' },
  'agentSwitchboard.tracing.exportEndpoint': { cls: 'user', why: 'sends every span (command lines, paths) to the host it names' },
  'agentSwitchboard.registry.url': { cls: 'user', why: 'where agents to install (and run) are downloaded from' },
  'agentSwitchboard.mcpServers': { cls: 'workspace', why: 'workspace servers start only in a trusted workspace after the person approves each one (McpCenter)' },
  'agentSwitchboard.initializeTimeoutSeconds': { cls: 'workspace', why: 'how long to wait for an agent; neither loosens the gate nor sends data' },
  'agentSwitchboard.cancelGraceSeconds': { cls: 'workspace', why: 'when Restart Agent is offered after Stop; display only' },
  'agentSwitchboard.mcpStartupTimeoutSeconds': { cls: 'workspace', why: 'when a starting server is shown as slow; display only' },
  'agentSwitchboard.sandbox': { cls: 'tighten', why: 'whether commands run sandboxed (off → ask → always)' },
  'agentSwitchboard.sandboxAllowedHosts': { cls: 'user', why: 'hosts a sandboxed command may reach' },
  'agentSwitchboard.sandboxAutoApprove': { cls: 'user', why: 'sandboxed commands that need no prompt' },
  'agentSwitchboard.sandboxBubblewrapPath': { cls: 'user', why: 'the program that enforces the sandbox' },
  'agentSwitchboard.sandboxMcpServers': { cls: 'tighten', why: 'whether stdio MCP servers start sandboxed' },
};

/** One workspace layer of a setting: where it was written (for messages) and its raw value. */
export interface WorkspaceLayer {
  /** `workspace settings` or `workspace folder settings`: never a name the repository chose. */
  where: string;
  value: unknown;
}

/** A merged value and what the workspace did to it, one sentence each. */
export interface Layered<T> {
  value: T;
  /** The person's own value was invalid (or a workspace value was): what we did instead. */
  problems: string[];
  /** Stricter values a workspace added, e.g. `write: ask → deny (workspace settings)`. */
  tightened: string[];
  /** Looser values a workspace tried and that were ignored. */
  ignored: string[];
}

const Level = z.enum(['ask', 'allow', 'deny']);
/** The person's policy, with the documented defaults. */
export const PolicySchema = z.object({
  write: Level.default('ask'),
  command: Level.default('ask'),
  dryRun: z.boolean().default(false),
  deny: z.array(EffectPatternSchema).default([]),
  allow: z.array(EffectPatternSchema).default([]),
  protectedTargets: z.enum(['ask', 'deny']).default('ask'),
  grantMinutes: z.number().min(0).max(60 * 24 * 365).default(0),
  unrequestedEffects: z.enum(['ask', 'refuse']).default('ask'),
  unrequestedEffectMinutes: z.number().min(1).max(24 * 60).default(10),
}).strict();

/** The effective policy in full (every field present). */
export type EffectivePolicy = Required<PolicyDefaults>;

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

function issues(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ');
}

/**
 * The person's policy (`user`, the user-settings value) made stricter by each workspace layer:
 * a workspace may add deny rules, turn `allow` into `ask` or `ask` into `deny`, set
 * `protectedTargets` to `deny`, shorten `grantMinutes` and turn `dryRun` on. Its allow rules and
 * every looser value are ignored (and listed in `ignored`).
 *
 * An invalid user policy fails closed: writes and commands ask (or stay denied), and the deny
 * rules that can be read are kept. An invalid workspace field is reported and ignored; ignoring
 * it can only leave the person's own value in force.
 */
export function mergePolicy(user: unknown, workspace: readonly WorkspaceLayer[]): Layered<EffectivePolicy> {
  const out: Layered<EffectivePolicy> = { value: parseUserPolicy(user), problems: [], tightened: [], ignored: [] };
  const own = PolicySchema.safeParse(user ?? {});
  if (!own.success) {
    out.problems.push(`agentSwitchboard.policy in your user settings is invalid (${issues(own.error)}); every write and command asks until it is fixed, and the deny rules that could be read still apply.`);
  }
  for (const layer of workspace) tightenPolicy(out, layer);
  return out;
}

function parseUserPolicy(user: unknown): EffectivePolicy {
  const full = PolicySchema.safeParse(user ?? {});
  if (full.success) return full.data;
  const raw = (user && typeof user === 'object' ? user : {}) as Record<string, unknown>;
  const deny = Array.isArray(raw.deny) ? raw.deny.flatMap((r) => {
    const p = EffectPatternSchema.safeParse(r);
    return p.success ? [p.data] : [];
  }) : [];
  const level = (v: unknown) => (v === 'deny' ? 'deny' : 'ask');
  return {
    write: level(raw.write),
    command: level(raw.command),
    dryRun: false,
    deny,
    allow: [],
    protectedTargets: raw.protectedTargets === 'deny' ? 'deny' : 'ask',
    grantMinutes: 0,
    unrequestedEffects: raw.unrequestedEffects === 'refuse' ? 'refuse' : 'ask',
    unrequestedEffectMinutes: 10,
  };
}

const KEYS = ['write', 'command', 'dryRun', 'deny', 'allow', 'protectedTargets', 'grantMinutes', 'unrequestedEffects', 'unrequestedEffectMinutes'] as const;

function tightenPolicy(out: Layered<EffectivePolicy>, layer: WorkspaceLayer): void {
  const at = `(${layer.where})`;
  if (layer.value === undefined || layer.value === null) return;
  if (typeof layer.value !== 'object' || Array.isArray(layer.value)) {
    out.problems.push(`agentSwitchboard.policy in ${layer.where} is not an object; it was ignored.`);
    return;
  }
  const raw = layer.value as Record<string, unknown>;
  const p = out.value;
  for (const key of Object.keys(raw)) {
    if (!(KEYS as readonly string[]).includes(key)) out.problems.push(`agentSwitchboard.policy.${key} in ${layer.where} is not a policy field; it was ignored.`);
  }
  for (const kind of ['write', 'command'] as const) {
    if (raw[kind] === undefined) continue;
    const v = Level.safeParse(raw[kind]);
    if (!v.success) out.problems.push(`agentSwitchboard.policy.${kind} in ${layer.where} must be ask, allow or deny; it was ignored.`);
    else if (STRICTNESS[v.data] > STRICTNESS[p[kind]]) {
      out.tightened.push(`${kind}: ${p[kind]} → ${v.data} ${at}`);
      p[kind] = v.data;
    } else if (STRICTNESS[v.data] < STRICTNESS[p[kind]]) out.ignored.push(`${kind}: ${v.data} ${at}; your settings say ${p[kind]}`);
  }
  if (raw.dryRun !== undefined) {
    if (typeof raw.dryRun !== 'boolean') out.problems.push(`agentSwitchboard.policy.dryRun in ${layer.where} must be true or false; it was ignored.`);
    else if (raw.dryRun && !p.dryRun) {
      out.tightened.push(`dryRun: on ${at}`);
      p.dryRun = true;
    } else if (!raw.dryRun && p.dryRun) out.ignored.push(`dryRun: off ${at}; your settings turn it on`);
  }
  if (raw.deny !== undefined) {
    if (!Array.isArray(raw.deny)) out.problems.push(`agentSwitchboard.policy.deny in ${layer.where} must be an array of rules; it was ignored.`);
    else {
      let added = 0;
      raw.deny.forEach((r, i) => {
        const rule = EffectPatternSchema.safeParse(r);
        if (!rule.success) out.problems.push(`agentSwitchboard.policy.deny[${i}] in ${layer.where} is invalid (${issues(rule.error)}); it was ignored.`);
        // A repository's regular expression would run on every command line an agent sends (a
        // catastrophic pattern stalls the extension host): those rules come from the person only.
        else if (p.deny.some((d) => samePattern(d, rule.data))) return;
        else if (rule.data.commandRegex !== undefined) out.ignored.push(`a deny rule with commandRegex ${at}; regular-expression rules apply only from your user settings (use commandPrefix or commandExact)`);
        else {
          p.deny.push(rule.data);
          added++;
        }
      });
      if (added) out.tightened.push(`${added} deny rule${added > 1 ? 's' : ''} added ${at}`);
    }
  }
  if (raw.allow !== undefined && !(Array.isArray(raw.allow) && raw.allow.length === 0)) {
    const n = Array.isArray(raw.allow) ? raw.allow.length : 1;
    out.ignored.push(`${n} allow rule${n > 1 ? 's' : ''} ${at}; allow rules apply only from your user settings`);
  }
  if (raw.protectedTargets !== undefined) {
    const v = z.enum(['ask', 'deny']).safeParse(raw.protectedTargets);
    if (!v.success) out.problems.push(`agentSwitchboard.policy.protectedTargets in ${layer.where} must be ask or deny; it was ignored.`);
    else if (v.data === 'deny' && p.protectedTargets !== 'deny') {
      out.tightened.push(`protectedTargets: ask → deny ${at}`);
      p.protectedTargets = 'deny';
    } else if (v.data === 'ask' && p.protectedTargets === 'deny') out.ignored.push(`protectedTargets: ask ${at}; your settings say deny`);
  }
  if (raw.grantMinutes !== undefined) {
    const v = PolicySchema.shape.grantMinutes.safeParse(raw.grantMinutes);
    if (!v.success) out.problems.push(`agentSwitchboard.policy.grantMinutes in ${layer.where} must be a number of minutes from 0; it was ignored.`);
    else if (shorter(v.data, p.grantMinutes)) {
      out.tightened.push(`grantMinutes: ${p.grantMinutes || 'until revoked'} → ${v.data} ${at}`);
      p.grantMinutes = v.data;
    } else if (v.data !== p.grantMinutes) out.ignored.push(`grantMinutes: ${v.data || 'until revoked'} ${at}; grants from your settings last ${p.grantMinutes || 'until revoked'}`);
  }
  tightenUnrequested(out, raw, layer);
}

/** What a workspace may do to `unrequestedEffects` (refuse instead of ask) and its wait (shorter only). */
function tightenUnrequested(out: Layered<EffectivePolicy>, raw: Record<string, unknown>, layer: WorkspaceLayer): void {
  const at = `(${layer.where})`;
  const p = out.value;
  if (raw.unrequestedEffects !== undefined) {
    const v = PolicySchema.shape.unrequestedEffects.safeParse(raw.unrequestedEffects);
    if (!v.success) out.problems.push(`agentSwitchboard.policy.unrequestedEffects in ${layer.where} must be ask or refuse; it was ignored.`);
    else if (v.data === 'refuse' && p.unrequestedEffects !== 'refuse') {
      out.tightened.push(`unrequestedEffects: ask → refuse ${at}`);
      p.unrequestedEffects = 'refuse';
    } else if (v.data === 'ask' && p.unrequestedEffects === 'refuse') out.ignored.push(`unrequestedEffects: ask ${at}; your settings say refuse`);
  }
  if (raw.unrequestedEffectMinutes !== undefined) {
    const v = PolicySchema.shape.unrequestedEffectMinutes.safeParse(raw.unrequestedEffectMinutes);
    if (!v.success) out.problems.push(`agentSwitchboard.policy.unrequestedEffectMinutes in ${layer.where} must be a number of minutes from 1 to 1440; it was ignored.`);
    else if (v.data < p.unrequestedEffectMinutes) {
      out.tightened.push(`unrequestedEffectMinutes: ${p.unrequestedEffectMinutes} → ${v.data} ${at}`);
      p.unrequestedEffectMinutes = v.data;
    } else if (v.data !== p.unrequestedEffectMinutes) out.ignored.push(`unrequestedEffectMinutes: ${v.data} ${at}; held effects wait ${p.unrequestedEffectMinutes} minutes by your settings`);
  }
}

/** Is a grant lifetime of `a` minutes shorter than `b`? 0 means until revoked, the longest. */
function shorter(a: number, b: number): boolean {
  if (a === 0) return false;
  return b === 0 || a < b;
}

function samePattern(a: EffectPattern, b: EffectPattern): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof EffectPattern>;
  return [...keys].every((k) => a[k] === b[k]);
}

/**
 * A boolean setting that a workspace may only move toward `strict` (e.g. `editorMcpServer: false`).
 * `user` is the person's value (undefined: the default `fallback`); a workspace value of the other
 * direction is ignored.
 */
export function mergeFlag(key: string, user: unknown, fallback: boolean, strict: boolean, workspace: readonly WorkspaceLayer[]): Layered<boolean> {
  const out: Layered<boolean> = { value: typeof user === 'boolean' ? user : fallback, problems: [], tightened: [], ignored: [] };
  if (user !== undefined && typeof user !== 'boolean') out.problems.push(`${key} in your user settings must be true or false; using ${fallback}.`);
  for (const layer of workspace) {
    if (layer.value === undefined || layer.value === null) continue;
    if (typeof layer.value !== 'boolean') out.problems.push(`${key} in ${layer.where} must be true or false; it was ignored.`);
    else if (layer.value === strict && out.value !== strict) {
      out.tightened.push(`${key}: ${strict} (${layer.where})`);
      out.value = strict;
    } else if (layer.value !== strict && out.value === strict) out.ignored.push(`${key}: ${layer.value} (${layer.where}); your settings say ${strict}`);
  }
  return out;
}

/**
 * A user-only setting: the person's value; a workspace value is ignored and listed (the value
 * itself is not repeated: it is the repository's text).
 */
export function userOnly<T>(key: string, user: T, workspace: readonly WorkspaceLayer[]): Layered<T> {
  const out: Layered<T> = { value: user, problems: [], tightened: [], ignored: [] };
  for (const layer of workspace) if (layer.value !== undefined && layer.value !== null) out.ignored.push(`${key} (${layer.where}); it is read only from your user settings`);
  return out;
}

/**
 * A setting whose values are ordered from loose to strict (`agentSwitchboard.sandbox`: off, ask,
 * always): the person's value (invalid: `fallback`, reported), which a workspace may only move toward
 * the strict end.
 */
export function mergeLevel<T extends string>(key: string, order: readonly T[], user: unknown, fallback: T, workspace: readonly WorkspaceLayer[]): Layered<T> {
  const valid = (v: unknown): v is T => typeof v === 'string' && (order as readonly string[]).includes(v);
  const out: Layered<T> = { value: valid(user) ? user : fallback, problems: [], tightened: [], ignored: [] };
  if (user !== undefined && !valid(user)) out.problems.push(`${key} in your user settings must be one of ${order.join(', ')}; using ${fallback}.`);
  for (const layer of workspace) {
    if (layer.value === undefined || layer.value === null) continue;
    if (!valid(layer.value)) out.problems.push(`${key} in ${layer.where} must be one of ${order.join(', ')}; it was ignored.`);
    else if (order.indexOf(layer.value) > order.indexOf(out.value)) {
      out.tightened.push(`${key}: ${out.value} → ${layer.value} (${layer.where})`);
      out.value = layer.value;
    } else if (layer.value !== out.value) out.ignored.push(`${key}: ${layer.value} (${layer.where}); your settings say ${out.value}`);
  }
  return out;
}

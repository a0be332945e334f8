/**
 * Grants: standing permissions that cover many effects by pattern (a command prefix or regex, a
 * path glob, a tool kind), for a session, a workspace or always, with an optional expiry. They come
 * from the person ("allow for this session / workspace"), from the agent's own "Always allow"
 * choice (which becomes a grant we hold and can revoke), or from settings rules.
 *
 * Pure: matching uses `picomatch` for globs; persistence goes through a {@link GrantStorage} port.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { ALLOWED_OPTION, prefixCovers, prefixDenies, regexAllows, regexDenies } from './commandMatch';
import { canonicalHash, type CommandEffect, type WriteEffect } from './intent';
import { profileHash } from '../sandbox/profile';

export { prefixCovers } from './commandMatch';

/** How far a grant reaches. `session` grants end with their session. */
export type GrantScope = 'session' | 'workspace' | 'always';

/** What a grant or rule matches. All given fields must match; none given matches every effect of its kind. */
export const EffectPatternSchema = z
  .object({
    /** `write` (fs/write_text_file) or `command` (terminal/create). */
    kind: z.enum(['write', 'command']),
    /** The command line is exactly this. */
    commandExact: z.string().min(1).optional(),
    /**
     * Allowing: the command line is this, or this followed by plain operands only (no options, no
     * `=`, quotes, escapes, expansions, globs or shell operators), e.g. `npm test` covers
     * `npm test unit/a.ts` but not `npm test --script-shell=./x`. Denying: any simple command of the
     * line begins with this. See `./commandMatch.ts`.
     */
    commandPrefix: z.string().min(1).optional(),
    /**
     * Option words a `commandPrefix` rule also admits, compared exactly (e.g. `["--oneline", "--"]`).
     * Only for allow rules and grants; list flags, not options that take a value in the next word.
     */
    allowOptions: z.array(z.string().regex(ALLOWED_OPTION, 'an option is -x, --name, --name=value of plain characters, or --')).max(64).optional(),
    /**
     * Allowing: the regular expression (JavaScript syntax) matches the whole command line, which holds
     * no shell syntax, quoting or expansion. Denying: it matches anywhere in the line.
     */
    commandRegex: z.string().min(1).optional(),
    /** The workspace-relative path matches this glob (picomatch), e.g. `src/**`. */
    pathGlob: z.string().min(1).optional(),
    /** The command runs in exactly this absolute directory. */
    cwd: z.string().min(1).optional(),
    /** Only for this agent id. */
    agentId: z.string().min(1).optional(),
    /**
     * Commands only while they run sandboxed (issue 21; `agentSwitchboard.sandboxAutoApprove` makes
     * such allow rules). Never covers an unsandboxed command.
     */
    sandboxed: z.literal(true).optional(),
    /**
     * Commands only in exactly this sandbox profile (its `profileHash`): a grant made from the card of
     * a sandboxed command covers that command in that sandbox, never with more hosts or folders, nor
     * unsandboxed.
     */
    sandboxProfile: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.commandRegex) {
      try {
        new RegExp(p.commandRegex);
      } catch (e) {
        ctx.addIssue({ code: 'custom', path: ['commandRegex'], message: `not a valid regular expression: ${(e as Error).message}` });
      }
    }
    if (p.allowOptions && !p.commandPrefix) ctx.addIssue({ code: 'custom', path: ['allowOptions'], message: 'allowOptions goes with commandPrefix' });
    if (p.kind === 'write' && (p.commandPrefix || p.commandRegex || p.commandExact)) ctx.addIssue({ code: 'custom', message: 'a write pattern takes pathGlob, not command fields' });
    if (p.kind === 'command' && p.pathGlob) ctx.addIssue({ code: 'custom', message: 'a command pattern takes commandPrefix or commandRegex, not pathGlob' });
    if (p.kind === 'write' && p.cwd) ctx.addIssue({ code: 'custom', message: 'a write pattern takes pathGlob, not cwd' });
  });

/** A validated pattern. */
export type EffectPattern = z.infer<typeof EffectPatternSchema>;

/** A standing permission. */
export interface Grant {
  id: string;
  scope: GrantScope;
  /** The client session key, for `session` grants. */
  sessionKey?: string;
  pattern: EffectPattern;
  /** ms since epoch; undefined = until revoked. */
  expiresAt?: number;
  createdAt: number;
  source: 'person' | 'agent_allow_always' | 'api';
  /** One line for the Grants view, e.g. "Run `npm test` (session s1, Claude Code)". */
  description: string;
  /**
   * The {@link agentFingerprint} of the agent the grant was made for: it covers only an agent that
   * runs the same resolved command, arguments and environment overrides, whatever its id.
   */
  agentFingerprint?: string;
  /** Why this grant never applies (a stored grant from before grants were bound to a command). */
  inert?: string;
}

/** Who an effect is for, as grants see it: the session, the agent id and its fingerprint. */
export interface GrantSubject {
  sessionId: string;
  agentId: string;
  /** {@link agentFingerprint} of the agent process; undefined only where no agent runs (tests). */
  agentFingerprint?: string;
}

/**
 * What an agent runs, as one SHA-256 (hex) over the RFC 8785 canonical JSON of
 * `{command, args, env}`: `command` is the resolved executable (absolute path) where it was found,
 * `env` the definition's overrides (`null` removes). A grant made for one agent does not cover the
 * same id once a setting (or PATH) makes it run something else.
 */
export function agentFingerprint(agent: { command: string; args: readonly string[]; env: Readonly<Record<string, string | null>> }): string {
  return canonicalHash({ command: agent.command, args: [...agent.args], env: { ...agent.env } });
}

/** The command line of a command effect: the shell string, or argv joined with spaces. */
export function commandLine(e: CommandEffect): string {
  return [e.command ?? '', ...e.args].join(' ').trim();
}

/**
 * Does an allow rule or a grant's `pattern` cover `effect` of `agentId`? Commands are compared by
 * their line, so a shell string and the same words as argv match alike; a prefix covers plain
 * operands only and a regex must match the whole line (see `./commandMatch.ts`); a command that sets
 * an environment variable other than a harmless one is never covered. An absolute path (outside the
 * workspace) never matches a glob: those writes always need an exact approval.
 */
export function patternMatches(pattern: EffectPattern, agentId: string, effect: WriteEffect | CommandEffect): boolean {
  if (pattern.agentId && pattern.agentId !== agentId) return false;
  if (pattern.kind !== effect.type) return false;
  if (effect.type === 'command') {
    const line = commandLine(effect);
    if (pattern.cwd && !sameFolder(pattern.cwd, effect.cwd)) return false;
    if (undeclaredEnv(effect.envNames, []).length) return false;
    if (pattern.sandboxProfile && !effect.sandbox) return false;
    // An allow rule for sandboxed commands answers without a click only where the sandbox holds back
    // files that run; elsewhere a command could leave one for the editor to run.
    if (pattern.sandboxed && !effect.sandbox?.holdsBackRunnable) return false;
    if (pattern.sandboxProfile && profileHash(effect.sandbox!) !== pattern.sandboxProfile) return false;
    if (pattern.commandExact !== undefined && line !== pattern.commandExact.trim()) return false;
    if (pattern.commandPrefix && !prefixCovers(pattern.commandPrefix, line, { allowOptions: pattern.allowOptions })) return false;
    if (pattern.commandRegex && !regexAllows(pattern.commandRegex, line)) return false;
    return true;
  }
  return writeMatches(pattern, effect);
}

/**
 * Does a deny rule's `pattern` name `effect` of `agentId`? Read broadly, unlike
 * {@link patternMatches}: a prefix matches any simple command of the line, a regex matches anywhere,
 * and environment variables do not take a command out of a deny rule's reach. Best effort over a
 * shell string: it cannot see through aliases, scripts, interpreters, quoting, escapes or expansions.
 */
export function denyMatches(pattern: EffectPattern, agentId: string, effect: WriteEffect | CommandEffect): boolean {
  if (pattern.agentId && pattern.agentId !== agentId) return false;
  if (pattern.kind !== effect.type) return false;
  if (effect.type === 'command') {
    const line = commandLine(effect);
    if (pattern.cwd && !sameFolder(pattern.cwd, effect.cwd)) return false;
    if (pattern.commandExact !== undefined && line.replace(/\s+/g, ' ') !== pattern.commandExact.trim().replace(/\s+/g, ' ')) return false;
    if (pattern.commandPrefix && !prefixDenies(pattern.commandPrefix, line)) return false;
    if (pattern.commandRegex && !regexDenies(pattern.commandRegex, line)) return false;
    return true;
  }
  // A deny glob also reaches paths outside the workspace (they are matched as they are).
  return !pattern.pathGlob || picomatch.isMatch(effect.path, pattern.pathGlob, { dot: true });
}

function writeMatches(pattern: EffectPattern, effect: WriteEffect): boolean {
  if (effect.path.startsWith('/')) return false;
  if (pattern.pathGlob && !picomatch.isMatch(effect.path, pattern.pathGlob, { dot: true })) return false;
  return true;
}

/**
 * Environment variables an agent may set on a command without declaring them: ones that only shape
 * output. Any other variable (LD_PRELOAD, PATH, NODE_OPTIONS, GIT_CONFIG_*, npm_config_*, HOME,
 * EDITOR, …) can make an approved command run something else, so it must have been declared; no
 * agent declares env today, so in practice such a command needs a new approval. Compared without
 * case, as Windows does.
 */
const HARMLESS_ENV = new Set(['CLAUDECODE', 'CI', 'FORCE_COLOR', 'NO_COLOR', 'CLICOLOR', 'TERM', 'COLUMNS', 'LINES', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ', 'PYTHONUNBUFFERED', 'PYTHONIOENCODING']);

/** True when an agent may set `name` without declaring it (see HARMLESS_ENV). */
export function isHarmlessEnv(name: string): boolean {
  return HARMLESS_ENV.has(name.toUpperCase());
}

/** The env names of a performed command that were not declared and are not harmless. */
export function undeclaredEnv(actual: readonly string[], declared: readonly string[]): string[] {
  const known = new Set(declared.map((n) => n.toUpperCase()));
  return actual.filter((n) => !isHarmlessEnv(n) && !known.has(n.toUpperCase()));
}

/**
 * Does `grant` cover `effect` for this session and agent at `now`? The agent must run what the
 * grant was made for (same fingerprint); an inert grant covers nothing.
 */
export function grantCovers(grant: Grant, who: GrantSubject, effect: WriteEffect | CommandEffect, now: number): boolean {
  if (grant.inert || grant.agentFingerprint !== who.agentFingerprint) return false;
  if (grant.expiresAt !== undefined && now >= grant.expiresAt) return false;
  if (grant.scope === 'session' && grant.sessionKey !== who.sessionId) return false;
  return patternMatches(grant.pattern, who.agentId, effect);
}

/** Where workspace and always grants are kept (VS Code's workspaceState / globalState). */
export interface GrantStorage {
  load(scope: 'workspace' | 'always'): unknown;
  save(scope: 'workspace' | 'always', grants: Grant[]): void;
}

const StoredGrantSchema = z.object({
  id: z.string(),
  scope: z.enum(['workspace', 'always']),
  pattern: EffectPatternSchema,
  expiresAt: z.number().optional(),
  createdAt: z.number(),
  source: z.enum(['person', 'agent_allow_always', 'api']),
  description: z.string(),
  agentFingerprint: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});

/** Why a stored grant without a fingerprint does nothing (shown in the Grants view). */
export const UNBOUND_GRANT = 'it was made before grants were bound to the agent\'s command, so it no longer applies; revoke it and grant again';

/** The grants of a window: session grants in memory, workspace and always grants persisted. */
export class GrantStore {
  private grants: Grant[] = [];
  private seq = 0;
  private listeners = new Set<() => void>();

  /** Loads persisted grants; invalid stored entries are dropped and reported through `report`. */
  constructor(private readonly storage?: GrantStorage, report?: (problem: string) => void) {
    for (const scope of ['workspace', 'always'] as const) {
      const raw = storage?.load(scope);
      if (!Array.isArray(raw)) continue;
      for (const item of raw) {
        const r = StoredGrantSchema.safeParse(item);
        // Fail closed: a grant that does not say which command it was for covers nothing.
        if (r.success) this.grants.push(r.data.agentFingerprint ? r.data : { ...r.data, inert: UNBOUND_GRANT });
        else report?.(`Dropped an invalid stored ${scope} grant: ${r.error.issues[0]?.message}`);
      }
    }
  }

  /** Subscribes to changes (for the Grants view). */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  add(g: Omit<Grant, 'id' | 'createdAt'>, now: number): Grant {
    const grant: Grant = { ...g, id: `g${now.toString(36)}${(++this.seq).toString(36)}`, createdAt: now };
    this.grants.push(grant);
    this.changed(grant.scope);
    return grant;
  }

  /** Grants usable at `now` (expired ones are pruned). */
  list(now: number): Grant[] {
    const before = this.grants.length;
    this.grants = this.grants.filter((g) => g.expiresAt === undefined || now < g.expiresAt);
    if (this.grants.length !== before) {
      this.changed('workspace');
      this.changed('always');
    }
    return [...this.grants];
  }

  revoke(id: string): boolean {
    const g = this.grants.find((x) => x.id === id);
    if (!g) return false;
    this.grants = this.grants.filter((x) => x.id !== id);
    this.changed(g.scope);
    return true;
  }

  /** Ends a session's grants. */
  forgetSession(sessionKey: string): void {
    const before = this.grants.length;
    this.grants = this.grants.filter((g) => !(g.scope === 'session' && g.sessionKey === sessionKey));
    if (this.grants.length !== before) this.changed('session');
  }

  /** The first grant that covers the effect, if any. */
  find(who: GrantSubject, effect: WriteEffect | CommandEffect, now: number): Grant | undefined {
    return this.grants.find((g) => grantCovers(g, who, effect, now));
  }

  private changed(scope: GrantScope): void {
    if (scope !== 'session') this.storage?.save(scope, this.grants.filter((g) => g.scope === scope));
    for (const l of [...this.listeners]) l();
  }
}

/**
 * True when two folder paths name the same folder as written: normalized, trailing separators
 * aside (a rule's `/w/app/` is `/w/app`). Nothing is resolved against the process's own folder.
 */
export function sameFolder(a: string, b: string): boolean {
  const norm = (p: string) => path.normalize(p).replace(/(?<=.)[\\/]+$/, '');
  return norm(a) === norm(b);
}

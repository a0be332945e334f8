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
import type { CommandEffect, WriteEffect } from './intent';

/** How far a grant reaches. `session` grants end with their session. */
export type GrantScope = 'session' | 'workspace' | 'always';

/** What a grant or rule matches. All given fields must match; none given matches every effect of its kind. */
export const EffectPatternSchema = z
  .object({
    /** `write` (fs/write_text_file) or `command` (terminal/create). */
    kind: z.enum(['write', 'command']),
    /** The command line is exactly this. */
    commandExact: z.string().min(1).optional(),
    /** The command line is this, or this followed by arguments with no shell control characters, e.g. `npm test`. */
    commandPrefix: z.string().min(1).optional(),
    /** The command line matches this regular expression (JavaScript syntax). */
    commandRegex: z.string().min(1).optional(),
    /** The workspace-relative path matches this glob (picomatch), e.g. `src/**`. */
    pathGlob: z.string().min(1).optional(),
    /** The command runs in exactly this absolute directory. */
    cwd: z.string().min(1).optional(),
    /** Only for this agent id. */
    agentId: z.string().min(1).optional(),
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
}

/** The command line of a command effect: the shell string, or argv joined with spaces. */
export function commandLine(e: CommandEffect): string {
  return [e.command ?? '', ...e.args].join(' ').trim();
}

/**
 * Does `pattern` match `effect` of `agentId`? Commands are compared by their line, so a shell
 * string and the same words as argv match alike. An absolute path (outside the workspace) never
 * matches a glob: those writes always need an exact approval.
 */
export function patternMatches(pattern: EffectPattern, agentId: string, effect: WriteEffect | CommandEffect): boolean {
  if (pattern.agentId && pattern.agentId !== agentId) return false;
  if (pattern.kind !== effect.type) return false;
  if (effect.type === 'command') {
    const line = commandLine(effect);
    if (pattern.cwd && path.resolve(pattern.cwd) !== path.resolve(effect.cwd)) return false;
    if (undeclaredEnv(effect.envNames, []).length) return false;
    if (pattern.commandExact !== undefined && line !== pattern.commandExact.trim()) return false;
    if (pattern.commandPrefix && !prefixCovers(pattern.commandPrefix, line)) return false;
    if (pattern.commandRegex && !new RegExp(pattern.commandRegex).test(line)) return false;
    return true;
  }
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

/** Shell control characters: text after a granted prefix must not chain or redirect another command. */
const SHELL_CONTROL = /[;&|`$<>\n\r(){}]/;

/**
 * Does a granted prefix cover a command line? Equal, or followed by a space and arguments that hold
 * no shell control characters, so `npm test` covers `npm test -- --grep x` but not
 * `npm test; curl evil` nor `npm test && rm -rf ~`.
 */
export function prefixCovers(prefix: string, line: string): boolean {
  const p = prefix.trim();
  if (line === p) return true;
  if (!line.startsWith(p + ' ')) return false;
  return !SHELL_CONTROL.test(line.slice(p.length));
}

/** Does `grant` cover `effect` for this session and agent at `now`? */
export function grantCovers(grant: Grant, who: { sessionId: string; agentId: string }, effect: WriteEffect | CommandEffect, now: number): boolean {
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
});

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
        if (r.success) this.grants.push(r.data);
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
  find(who: { sessionId: string; agentId: string }, effect: WriteEffect | CommandEffect, now: number): Grant | undefined {
    return this.grants.find((g) => grantCovers(g, who, effect, now));
  }

  private changed(scope: GrantScope): void {
    if (scope !== 'session') this.storage?.save(scope, this.grants.filter((g) => g.scope === scope));
    for (const l of [...this.listeners]) l();
  }
}

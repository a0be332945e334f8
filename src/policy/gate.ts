/**
 * The effect gate: an effect the agent asks the client to perform (`fs/write_text_file`,
 * `terminal/create`) is performed only if it matches an approved, unexpired, unconsumed intent of
 * the same session and agent, a grant, or a policy rule or default that allows it. Pure; no `vscode`.
 */
import path from 'node:path';
import { denyMatches, patternMatches, sameFolder, undeclaredEnv, type EffectPattern, type Grant, type GrantStore, type GrantSubject } from './grants';
import { protectedClass } from './protectedPaths';
import { intentHash, shortHash, type CommandEffect, type Effect, type Intent, type WriteEffect } from './intent';
import { onceOnlyReason, type DeciderKind } from './decider';
import { sameProfile } from '../sandbox/profile';

/** How long an approval lasts. `once` is consumed by the first matching effect. */
export type ApprovalScope = 'once' | 'session';

/** An approved intent. */
export interface Approval {
  id: string;
  hash: string;
  intent: Intent;
  scope: ApprovalScope;
  /** ms since epoch; undefined = no expiry. */
  expiresAt?: number;
  /** Indexes of `intent.effects` already used by a `once` approval. */
  consumed: Set<number>;
  /** Who answered: only a person (or the API asking for a grant) can have made a `session` approval. */
  decidedBy: DeciderKind;
  /**
   * Set on the approval of a held effect (asked about at the effect, issue 19): only the check of
   * that very request, which presents this token, may take it, and only while the effect is still
   * exactly what the card showed (for a write, the same base text too).
   */
  boundTo?: string;
}

/**
 * The gate's settings (`agentSwitchboard.policy`): per-kind defaults (`ask` needs an approval or a
 * grant, `allow` performs unapproved effects, `deny` refuses all), pattern rules (deny rules win
 * over everything; allow rules act like grants for every session), what protected targets get, and
 * a dry-run switch that logs what `allow` would have let through while still requiring approval.
 */
export interface PolicyDefaults {
  write: 'ask' | 'allow' | 'deny';
  command: 'ask' | 'allow' | 'deny';
  dryRun: boolean;
  deny?: EffectPattern[];
  allow?: EffectPattern[];
  /** `ask`: protected paths need an approval of that exact write; `deny`: never written. */
  protectedTargets?: 'ask' | 'deny';
  /** Minutes a grant made from a card or by the agent's "always allow" lasts; 0 or absent = until revoked. */
  grantMinutes?: number;
  /**
   * An effect the agent did not ask about (no `session/request_permission` covers it) under `ask`:
   * `ask` holds the request and asks the person at the effect; `refuse` (and absent, so a caller
   * that says nothing gets the strict behaviour) refuses it at once with -32013.
   */
  unrequestedEffects?: 'ask' | 'refuse';
  /** Minutes a held effect waits for the person before the agent is answered with an error (default 10). */
  unrequestedEffectMinutes?: number;
}

/** The gate's verdict on one effect. */
export type GateDecision =
  | { allowed: true; source: 'approval'; approval: Approval }
  | { allowed: true; source: 'grant'; grant: Grant }
  | { allowed: true; source: 'rule' | 'policy' }
  | {
      allowed: false;
      reason: 'no_approval' | 'denied_by_policy' | 'denied_by_rule' | 'protected_target' | 'sandbox_unavailable';
      message: string;
      wouldAllowInDryRun?: boolean;
    };

/**
 * True for writes the policy never lets through without an approval of that very write: paths
 * outside the workspace, and the files tools run or read as configuration (see `./protectedPaths.ts`).
 */
export function isProtected(relPath: string): boolean {
  return path.isAbsolute(relPath) || protectedClass(relPath) !== undefined;
}

/** Does a declared write cover a performed one? Same path and, if content was declared, one of its hashes. */
export function writeCovers(declared: WriteEffect, actual: WriteEffect): boolean {
  if (declared.path !== actual.path) return false;
  // A file that became hard-linked after the person approved is not the file they approved.
  if (actual.hardLinked && !declared.hardLinked) return false;
  if (declared.contentSha256.length === 0) return true;
  return actual.contentSha256.length === 1 && declared.contentSha256.includes(actual.contentSha256[0]);
}

/** The argv of a command effect: a shell string stays one element. */
function argv(c: CommandEffect): string[] {
  return c.command === null ? [] : [c.command, ...c.args];
}

/**
 * Does a declared command cover a performed one? Same cwd, and the same command line: equal argv,
 * or equal when both are joined with spaces (an agent may declare `["bash","-lc","x"]` and run
 * `bash` with args, or declare a string and run it as one shell string). A declaration without a
 * command covers any command in that cwd (the card said the command was not shown); one whose
 * command field was unreadable (`unmatchable`) covers none. Environment
 * variables other than harmless output settings (see `undeclaredEnv`) must have been declared.
 */
export function commandCovers(declared: CommandEffect, actual: CommandEffect): boolean {
  // A command field the client could not read declares nothing the person could have seen.
  if (declared.unmatchable) return false;
  if (!sameFolder(declared.cwd, actual.cwd)) return false;
  // The sandbox is part of what was approved: another profile (another host, folder, or none) is another effect.
  if (!sameProfile(declared.sandbox, actual.sandbox)) return false;
  // An undeclared LD_PRELOAD, PATH, GIT_CONFIG_*… could run something other than what was approved.
  if (undeclaredEnv(actual.envNames, declared.envNames).length) return false;
  if (declared.command === null) return true;
  const a = argv(declared);
  const b = argv(actual);
  return (a.length === b.length && a.every((x, i) => x === b[i])) || a.join(' ') === b.join(' ');
}

function covers(declared: Effect, actual: WriteEffect | CommandEffect): boolean {
  if (declared.type === 'write' && actual.type === 'write') return writeCovers(declared, actual);
  if (declared.type === 'command' && actual.type === 'command') return commandCovers(declared, actual);
  return false;
}

/** Approvals of one window, checked and consumed by the gate. */
export class ApprovalStore {
  private readonly approvals: Approval[] = [];
  private seq = 0;

  /**
   * Records an approval of `intent`; returns it (with its hash). A `session` approval of an intent
   * that can only be approved once (its command or content was not shown, see `onceOnlyReason`) is
   * recorded as `once`: `commandCovers` lets an undeclared command cover any command in its cwd,
   * and a path-level write any content, so for a whole session it would approve what nobody saw.
   */
  approve(intent: Intent, scope: ApprovalScope, decidedBy: DeciderKind, expiresAt?: number, boundTo?: string): Approval {
    // A held effect's approval is for that one request: never for the session.
    const reach: ApprovalScope = scope === 'session' && boundTo === undefined && onceOnlyReason(intent) === undefined ? 'session' : 'once';
    const a: Approval = { id: `a${++this.seq}`, hash: intentHash(intent), intent, scope: reach, expiresAt, consumed: new Set(), decidedBy, ...(boundTo !== undefined ? { boundTo } : {}) };
    this.approvals.push(a);
    return a;
  }

  /** Every approval still usable at `now`. */
  active(now: number): Approval[] {
    return this.approvals.filter((a) => usable(a, now));
  }

  /** Removes an approval. */
  revoke(id: string): boolean {
    const i = this.approvals.findIndex((a) => a.id === id);
    if (i < 0) return false;
    this.approvals.splice(i, 1);
    return true;
  }

  /**
   * Drops the session's approvals of scope `once` that are not yet fully used (the person stopped
   * the turn, or its agent was restarted): what they allowed was for the stopped work. Approvals the
   * person gave for the whole session stay. @returns how many were dropped.
   */
  revokeOnce(sessionId: string): number {
    let n = 0;
    for (let i = this.approvals.length - 1; i >= 0; i--) {
      const a = this.approvals[i];
      if (a.intent.sessionId === sessionId && a.scope === 'once') {
        this.approvals.splice(i, 1);
        n++;
      }
    }
    return n;
  }

  /** Drops every approval of a session (it ended). */
  forgetSession(sessionId: string): void {
    for (let i = this.approvals.length - 1; i >= 0; i--) if (this.approvals[i].intent.sessionId === sessionId) this.approvals.splice(i, 1);
  }

  /**
   * Finds an approval of the same session and agent that covers `actual`, and consumes the matched
   * effect if the approval is `once`. Newer approvals are tried first. An approval bound to a held
   * request (`boundTo`) is found only by the check that presents the same token, and only for an
   * effect identical to the one approved ({@link sameEffect}).
   */
  take(sessionId: string, agentId: string, actual: WriteEffect | CommandEffect, now: number, opts: { exactOnly?: boolean; boundTo?: string } = {}): Approval | undefined {
    for (let i = this.approvals.length - 1; i >= 0; i--) {
      const a = this.approvals[i];
      if (a.intent.sessionId !== sessionId || a.intent.agentId !== agentId || !usable(a, now)) continue;
      if (a.boundTo !== undefined && a.boundTo !== opts.boundTo) continue;
      const fits = (e: Effect) => (a.boundTo !== undefined ? sameEffect(e, actual) : covers(e, actual));
      const idx = a.intent.effects.findIndex((e, j) => !(a.scope === 'once' && a.consumed.has(j)) && (!opts.exactOnly || declaresContent(e)) && fits(e));
      if (idx < 0) continue;
      if (a.scope === 'once') a.consumed.add(idx);
      return a;
    }
    return undefined;
  }
}

/**
 * The effect a held request's card showed and the effect its check finds now are the same: a write
 * of the same content to the same file over the same text (a document edited while the card waited
 * is not what the person saw), a command with the same words, folder and environment names.
 */
export function sameEffect(approved: Effect, actual: WriteEffect | CommandEffect): boolean {
  if (approved.type === 'write' && actual.type === 'write') {
    return writeCovers(approved, actual) && approved.baseSha256 === actual.baseSha256 && !!approved.hardLinked === !!actual.hardLinked;
  }
  if (approved.type === 'command' && actual.type === 'command') {
    const a = argv(approved);
    const b = argv(actual);
    const names = (x: string[]) => [...new Set(x)].sort().join('\0');
    return a.length === b.length && a.every((x, i) => x === b[i]) && approved.cwd === actual.cwd && names(approved.envNames) === names(actual.envNames) && sameProfile(approved.sandbox, actual.sandbox);
  }
  return false;
}

/** True when the declared effect names its exact content or command (not only a path or a kind). */
function declaresContent(e: Effect): boolean {
  return (e.type === 'write' && e.contentSha256.length > 0) || (e.type === 'command' && e.command !== null);
}

function usable(a: Approval, now: number): boolean {
  if (a.expiresAt !== undefined && now >= a.expiresAt) return false;
  return !(a.scope === 'once' && a.consumed.size >= a.intent.effects.length);
}

/**
 * Decides on a performed effect, in this order: a deny rule refuses; a `deny` default refuses; a
 * protected target needs an approval of that exact write (grants and allow rules do not count) or
 * is refused outright when `protectedTargets` is `deny`; a matching approval allows; a grant allows;
 * an allow rule or an `allow` default allows unless dry-run; anything else is refused. `boundTo`:
 * the token of a held request being performed after the person's answer (see {@link Approval.boundTo}).
 */
export function decide(
  store: ApprovalStore,
  grants: GrantStore | undefined,
  defaults: PolicyDefaults,
  who: GrantSubject,
  actual: WriteEffect | CommandEffect,
  now: number,
  boundTo?: string,
): GateDecision {
  const kindDefault = actual.type === 'write' ? defaults.write : defaults.command;
  const what = describe(actual);
  if (defaults.deny?.some((r) => denyMatches(r, who.agentId, actual))) {
    return { allowed: false, reason: 'denied_by_rule', message: `${what} matches a deny rule in agentSwitchboard.policy.` };
  }
  if (kindDefault === 'deny') return { allowed: false, reason: 'denied_by_policy', message: `${what} is denied by agentSwitchboard.policy.` };
  // A hard-linked file is protected like a protected path (a separate signal from the path list).
  if (actual.type === 'write' && (isProtected(actual.path) || actual.hardLinked)) {
    const why = protectedClass(actual.path)?.why ?? (actual.hardLinked && !isProtected(actual.path) ? 'a file with more than one hard link: it may be the same file as one outside the workspace' : 'outside the workspace');
    if (defaults.protectedTargets === 'deny') return { allowed: false, reason: 'protected_target', message: `${what} targets a protected path (${why}), which agentSwitchboard.policy denies.` };
    const exact = store.take(who.sessionId, who.agentId, actual, now, { exactOnly: true, boundTo });
    if (exact) return { allowed: true, source: 'approval', approval: exact };
    return { allowed: false, reason: 'protected_target', message: `${what} targets a protected path (${why}) and needs an approval of this exact write.` };
  }
  const approval = store.take(who.sessionId, who.agentId, actual, now, { boundTo });
  if (approval) return { allowed: true, source: 'approval', approval };
  const grant = grants?.find(who, actual, now);
  if (grant) return { allowed: true, source: 'grant', grant };
  const ruled = defaults.allow?.some((r) => patternMatches(r, who.agentId, actual));
  if ((ruled || kindDefault === 'allow') && !defaults.dryRun) return { allowed: true, source: ruled ? 'rule' : 'policy' };
  return {
    allowed: false,
    reason: 'no_approval',
    message: `${what} matches no approved intent of this session. Ask with session/request_permission and show the exact ${actual.type === 'write' ? 'content' : 'command'}.`,
    wouldAllowInDryRun: ruled || kindDefault === 'allow' ? true : undefined,
  };
}

/** A short description of an effect for messages. */
export function describe(e: WriteEffect | CommandEffect): string {
  if (e.type === 'write') return `Writing ${e.path}${e.contentSha256[0] ? ` (content ${shortHash(e.contentSha256[0])})` : ''}`;
  return `Running \`${argv(e).join(' ')}\` in ${e.cwd}${e.sandbox ? ' (sandboxed)' : ''}`;
}

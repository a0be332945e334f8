/**
 * The window's permission gate, composed from the pure pieces: declared intents for permission
 * requests, approvals recorded from the person's answers, the decision on every client-hosted effect,
 * and the audit log. Sessions call it; it holds no editor state (files come through `readCurrent`).
 * No `vscode`.
 */
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionOptionKind } from '@agentclientprotocol/sdk';
import type { ToolCallView } from '../acp/session/types';
import type { AuditLog } from './audit';
import { realpathAllowMissing } from '../fs/containment';
import { fileIdentity, type FileIdentity } from '../fs/fileIdentity';
import { declareIntent, relativePath, type DeclaredIntent } from './declare';
import type { ReportedEffect } from './reportedEffects';
import { broadWriteGrantNote } from './protectedPaths';
import { deciderText, grantScopeOf, mayWiden, onceOnlyReason, type Decider } from './decider';
import { ApprovalStore, decide, describe, isProtected, type GateDecision, type PolicyDefaults } from './gate';
import { commandLine, denyMatches, GrantStore, patternMatches, type EffectPattern, type Grant, type GrantScope, type GrantStorage } from './grants';
import { intentHash, sha256, type CommandEffect, type Intent, type WriteEffect } from './intent';
import { describeUnsandboxed, profileHash, type SandboxPlan } from '../sandbox/profile';

/**
 * Who acts: the session, our agent id, and the session's working directory. `sessionId` is the
 * client's own session key, unique in the window: ACP session ids come from agents and two agent
 * processes can hand out the same one ("sess-1"). The agent's id is kept for the audit.
 */
export interface Actor {
  sessionId: string;
  acpSessionId?: string;
  agentId: string;
  /** `agentFingerprint` of the agent process (its resolved command, args, env): grants are bound to it. */
  agentFingerprint?: string;
  cwd: string;
  /**
   * The folders this session's effects are contained in, when not the workspace folders: a session
   * in a git worktree of its own has its folder in the worktree only (the part of the repository the
   * person opened), for writes and for the folders its commands run in (issue 20).
   */
  roots?: readonly string[];
  /** Hosts the person allowed this session's sandboxed commands from a card (issue 21), beyond the settings' hosts. */
  sandboxHosts?: readonly string[];
}

/** What the gate needs from its host. */
export interface EffectPolicyDeps {
  defaults(): PolicyDefaults;
  roots(): readonly string[];
  /**
   * Current text of a file (the open document, unsaved changes included), or null if there is none.
   * Called only for paths that resolve inside `realRoots` (the workspace folders, resolved); it may
   * throw for a file it does not read (a FIFO, a device, one over its cap).
   */
  readCurrent(absPath: string, realRoots: readonly string[]): Promise<string | null>;
  /** The file at a resolved path (device, inode, hard links, type); default: `fileIdentity` on the disk. */
  identity?(real: string): Promise<FileIdentity | null>;
  /** Where decisions and effects are recorded; undefined = not recorded (tests). */
  audit?: AuditLog;
  /** Where workspace and always grants persist; undefined = in memory only. */
  grantStorage?: GrantStorage;
  now?: () => number;
  log?: (message: string) => void;
  /**
   * Where the sandbox stands for a session's commands (issue 21): off, the profile they run in, or why
   * it cannot run. Absent: off.
   */
  sandbox?(who: Actor): Promise<SandboxPlan>;
}

/**
 * A decision plus the effect it was about. For a write, `target` is the file the decision was made
 * on (null: there was none; undefined: not known), which the write must still find at the path.
 */
export type EffectCheck = GateDecision & {
  effect: WriteEffect | CommandEffect;
  description: string;
  target?: FileIdentity | null;
  /** For a write inside the workspace: the text it replaces (the open document's, unsaved included), null when there is none. */
  base?: string | null;
};

/** How a held effect's decision is recorded: the token its performance presents, and that it was asked at the effect. */
export interface HeldDecision {
  /** Binds the approval to the one request that was held (see `Approval.boundTo`). */
  boundTo: string;
}

/** The tool kinds a standing grant may answer a permission request of (see {@link EffectPolicy.grantFor}). */
const GRANT_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move', 'execute']);

/** The gate of one window. */

export class EffectPolicy {
  readonly approvals = new ApprovalStore();
  readonly grants: GrantStore;

  constructor(private readonly deps: EffectPolicyDeps) {
    this.grants = new GrantStore(deps.grantStorage, deps.log);
  }

  /** Resolved sets of folders, by their paths joined (the workspace's, and each worktree session's). */
  private readonly rootsCache = new Map<string, Promise<string[]>>();

  /** The session's folders' real paths (`who.roots`, else the workspace folders), resolved once per set of folders rather than per effect. */
  private realRoots(who?: Actor): Promise<string[]> {
    const roots = who?.roots ?? this.deps.roots();
    const key = roots.join('\0');
    let real = this.rootsCache.get(key);
    if (!real) {
      if (this.rootsCache.size >= 32) this.rootsCache.clear();
      real = Promise.all(roots.map((r) => realpathAllowMissing(r)));
      this.rootsCache.set(key, real);
    }
    return real;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The declared intent of a tool call behind a permission request. Never throws. */
  async declare(tc: ToolCallView, who: Actor): Promise<DeclaredIntent> {
    try {
      const roots = await this.realRoots(who);
      const sandbox = tc.kind === 'execute' ? await this.sandboxPlan(who) : undefined;
      return await declareIntent(tc, { ...who, roots, readCurrent: (p) => this.deps.readCurrent(p, roots), realpath: realpathAllowMissing, identity: (real) => this.identity(real), sandbox });
    } catch (err) {
      this.deps.log?.(`Could not build the intent of tool call ${tc.toolCallId}: ${String(err)}`);
      const intent: Intent = { sessionId: who.sessionId, agentId: who.agentId, toolCallId: tc.toolCallId, kind: tc.kind, effects: [{ type: 'tool', title: tc.title }] };
      return { intent, undeclared: ['The client could not determine what this tool call will change.'], display: [{ type: 'tool', title: tc.title }] };
    }
  }

  /**
   * Records the answer to a permission request: an approval of the exact intent for `allow_once`;
   * for the agent's `allow_always`, a session approval and a session grant we hold (the agent stops
   * asking, so its later effects must be covered: the same command line, or any workspace file for
   * edits); for our own "for this session / this workspace / always" buttons (`decider.grant`), a
   * grant of exactly this command or path. An audit record either way.
   *
   * Only an answer that {@link mayWiden} (a person's click, or the API asking for a grant) reaches
   * beyond this one request, and only for an intent that showed its command and content (see
   * {@link onceOnlyReason}); any other `allow_always` is recorded as `allow_once` and creates no grant.
   * @returns the grants made (none for a narrowed answer).
   */
  recordDecision(who: Actor, intent: Intent, outcome: { kind: PermissionOptionKind; optionId: string } | 'cancelled', decider: Decider, held?: HeldDecision): Grant[] {
    const hash = intentHash(intent);
    const made: Grant[] = [];
    const allowed = outcome !== 'cancelled' && (outcome.kind === 'allow_once' || outcome.kind === 'allow_always');
    const onceOnly = onceOnlyReason(intent);
    const widen = mayWiden(decider) && onceOnly === undefined;
    const grantScope = widen ? grantScopeOf(decider) : undefined;
    const narrowed = allowed && !widen && (outcome.kind === 'allow_always' || grantScopeOf(decider) !== undefined);
    if (allowed) {
      this.approvals.approve(intent, outcome.kind === 'allow_always' && widen ? 'session' : 'once', decider.kind, undefined, held?.boundTo);
      const now = this.now();
      const minutes = this.deps.defaults().grantMinutes ?? 0;
      const expiresAt = minutes > 0 ? now + minutes * 60_000 : undefined;
      // A repeated card choice adds no duplicate.
      if (grantScope) {
        for (const pattern of exactPatterns(intent).filter((p) => !this.hasGrant(grantScope, who, p))) {
          made.push(this.grants.add({ scope: grantScope, sessionKey: grantScope === 'session' ? who.sessionId : undefined, pattern, expiresAt, source: decider.kind === 'api' ? 'api' : 'person', description: describePattern(pattern, who, grantScope), agentFingerprint: who.agentFingerprint }, now));
        }
      } else if (widen && outcome.kind === 'allow_always') {
        for (const pattern of alwaysPatterns(intent)) {
          made.push(this.grants.add({ scope: 'session', sessionKey: who.sessionId, pattern, expiresAt, source: 'agent_allow_always', description: `${describePattern(pattern, who)} (the agent's "always allow")`, agentFingerprint: who.agentFingerprint }, now));
        }
      }
    }
    this.audit({
      ...who3(who),
      event: 'decision',
      intentHash: hash,
      decision: outcome === 'cancelled' ? 'cancelled' : outcome.kind,
      decidedBy: deciderText(decider),
      detail: {
        toolCallId: intent.toolCallId,
        kind: intent.kind,
        effects: intent.effects,
        grants: made.map((g) => ({ id: g.id, scope: g.scope, pattern: g.pattern })),
        // Asked at the effect: the agent sent no permission request; the person answered about the
        // effect request itself (issue 19).
        ...(held ? { askedAt: 'effect', agentAsked: false } : {}),
        ...(narrowed ? { recordedAs: 'allow_once', why: onceOnly ?? `An answer by ${decider.kind} approves this request once and creates no grant.` } : {}),
      },
    });
    return made;
  }

  private hasGrant(scope: GrantScope, who: Actor, pattern: EffectPattern): boolean {
    return this.grants.list(this.now()).some((g) => g.scope === scope && (scope !== 'session' || g.sessionKey === who.sessionId) && !g.inert && g.agentFingerprint === who.agentFingerprint && JSON.stringify(g.pattern) === JSON.stringify(pattern));
  }

  /**
   * The grant that lets a permission request be answered without the person: every effect of the
   * intent is a client-hosted write or command that a grant covers, none is a protected path or
   * matches a deny rule, and the kind is not denied. An intent that can only be approved once
   * (undeclared command or content, an unverifiable diff, the agent's own tool) never qualifies:
   * the person sees its card. The answer it gives is recorded as made by a grant (see
   * {@link recordDecision}), so it never makes another grant.
   */
  grantFor(who: Actor, intent: Intent): Grant | undefined {
    if (onceOnlyReason(intent) !== undefined) return undefined;
    // Only calls whose kind says what they do to files or processes are answered for the person: a
    // `fetch`, `switch_mode`, `think` or `other` call (or any kind a later schema adds) always asks,
    // even when it carries a diff a grant would cover.
    if (!GRANT_KINDS.has(intent.kind)) return undefined;
    const d = this.deps.defaults();
    let found: Grant | undefined;
    for (const e of intent.effects) {
      if (e.type === 'tool') return undefined;
      if (e.type === 'write' && (isProtected(e.path) || e.hardLinked)) return undefined;
      if ((e.type === 'write' ? d.write : d.command) === 'deny') return undefined;
      if (d.deny?.some((r) => denyMatches(r, who.agentId, e))) return undefined;
      const g = this.grants.find(who, e, this.now()) ?? this.sandboxRule(who, e);
      if (!g) return undefined;
      found ??= g;
    }
    return found;
  }

  /**
   * A sandboxed command that `agentSwitchboard.sandboxAutoApprove` names (an allow rule marked
   * `sandboxed`), as the grant that answers its request: never for an unsandboxed command (issue 21).
   * The same rule lets the command through at the effect, in the profile the request was declared in.
   */
  private sandboxRule(who: Actor, e: WriteEffect | CommandEffect): Grant | undefined {
    if (e.type !== 'command' || !e.sandbox) return undefined;
    const rule = this.deps.defaults().allow?.find((r) => r.sandboxed && patternMatches(r, who.agentId, e));
    if (!rule) return undefined;
    return { id: 'sandbox-auto-approve', scope: 'always', pattern: rule, createdAt: 0, source: 'person', description: `a sandboxed \`${rule.commandPrefix ?? rule.commandExact ?? 'command'}\` (agentSwitchboard.sandboxAutoApprove)` };
  }

  /**
   * Lines for a permission card about the grants its buttons would make: the agent's "Always allow"
   * on an edit becomes a grant to write any workspace file, and writing files amounts to running
   * commands (see {@link broadWriteGrantNote}). Empty when no option makes a broad grant.
   */
  grantNotes(intent: Intent, options: readonly { kind: PermissionOptionKind }[]): string[] {
    if (!options.some((o) => o.kind === 'allow_always')) return [];
    const notes = alwaysPatterns(intent).map((p) => broadWriteGrantNote(p)).filter((n): n is string => n !== undefined);
    return [...new Set(notes)].map((n) => `"Always allow" lets the agent write any workspace file from now on, without asking. ${n}`);
  }

  /** Revokes a grant (Grants view); recorded in the audit. */
  revokeGrant(id: string, by: string): boolean {
    const g = this.grants.list(this.now()).find((x) => x.id === id);
    if (!g || !this.grants.revoke(id)) return false;
    this.audit({ sessionId: g.sessionKey ?? '*', agentId: g.pattern.agentId ?? '*', event: 'decision', decision: 'revoke_grant', decidedBy: by, detail: { grant: g } });
    return true;
  }

  /**
   * Decides on `fs/write_text_file` of `content` to `absPath`. The path is resolved and contained
   * before anything is read: a path outside the workspace folders is never opened (its write is
   * refused as a protected absolute path). Inside, the file is identified on a non-blocking handle;
   * only a regular file is read for the base. A file with more than one hard link is flagged
   * (`hardLinked`), which the gate treats as a protected target.
   */
  async checkWrite(who: Actor, absPath: string, content: string, boundTo?: string): Promise<EffectCheck> {
    // The path as it resolves on disk: a symlink inside the workspace must not hide a protected
    // target (`link -> .git`) from the gate.
    const real = await realpathAllowMissing(path.normalize(absPath));
    const roots = await this.realRoots(who);
    const rel = relativePath(real, roots);
    let target: FileIdentity | null | undefined;
    let base: string | null = null;
    if (!path.isAbsolute(rel)) {
      target = await this.identity(real).catch(() => undefined);
      if (target === null || target?.regular) base = await this.deps.readCurrent(absPath, roots).catch(() => null);
    }
    const effect: WriteEffect = { type: 'write', path: rel, contentSha256: [sha256(content)], baseSha256: base === null ? null : sha256(base) };
    if (target && target.links > 1) effect.hardLinked = true;
    return { ...this.check(who, effect, boundTo), target, ...(!path.isAbsolute(rel) ? { base } : {}) };
  }

  private identity(real: string): Promise<FileIdentity | null> {
    return this.deps.identity ? this.deps.identity(real) : fileIdentity(real);
  }

  /**
   * Decides on `terminal/create`. A request without cwd runs in the session's cwd. `boundTo`: see
   * {@link checkWrite}. A session contained in folders of its own (`who.roots`: its worktree) runs
   * commands only in a folder inside them: one elsewhere (the main folder, `/`) is refused before any
   * rule or grant is consulted, since a grant made in the main folder names the main folder. The
   * effect carries the sandbox profile the command will run in (issue 21), so an approval of another
   * profile does not cover it; under `agentSwitchboard.sandbox: always` with no sandbox here, it is
   * refused (`sandbox_unavailable`) whatever was approved.
   */
  async checkCommand(who: Actor, params: acp.CreateTerminalRequest, boundTo?: string): Promise<EffectCheck> {
    const plan = await this.sandboxPlan(who);
    const effect = this.commandEffect(who, params, plan);
    if (who.roots) {
      const real = await realpathAllowMissing(path.normalize(effect.cwd));
      if (path.isAbsolute(relativePath(real, await this.realRoots(who)))) {
        const description = describe(effect);
        const message = `${description} was refused: this session works in its own worktree (${who.roots.join(', ')}) and runs commands only there.`;
        this.audit({ ...who3(who), event: 'effect', decision: 'refused', decidedBy: 'outside_worktree', detail: { effect, description } });
        return { allowed: false, reason: 'denied_by_policy', message, effect, description };
      }
    }
    if (plan.mode === 'always' && !('profile' in plan)) {
      const description = describe(effect);
      const message = `${description} was refused: ${describeUnsandboxed(plan)}`;
      this.audit({ ...who3(who), event: 'effect', decision: 'refused', decidedBy: 'sandbox_unavailable', detail: { effect, description } });
      return { allowed: false, reason: 'sandbox_unavailable', message, effect, description };
    }
    return this.check(who, effect, boundTo);
  }

  /**
   * The effect of `terminal/create` `params` as {@link checkCommand} judges it (words, folder,
   * environment names, the sandbox profile of `plan`), without deciding or recording anything.
   */
  commandEffect(who: Actor, params: acp.CreateTerminalRequest, plan: SandboxPlan): CommandEffect {
    return {
      type: 'command',
      command: params.command,
      args: params.args ?? [],
      cwd: params.cwd ? path.resolve(who.cwd, params.cwd) : who.cwd,
      envNames: (params.env ?? []).map((e) => e.name),
      ...('profile' in plan ? { sandbox: plan.profile } : {}),
    };
  }

  /** The sandbox of a session's commands; off when the host gives none, and off (never a claim) if asking fails. */
  async sandboxPlan(who: Actor): Promise<SandboxPlan> {
    if (!this.deps.sandbox) return { mode: 'off' };
    return this.deps.sandbox(who);
  }

  /**
   * Whether a refused effect is put to the person at the effect instead (issue 19): the gate found
   * no approval, grant or rule for it (or it is a protected path that needs an approval of this exact
   * write), and `unrequestedEffects` is `ask`. A deny rule, a `deny` default or `protectedTargets:
   * deny` is never asked about: the person already said no.
   */
  holdable(check: EffectCheck): boolean {
    if (check.allowed || this.deps.defaults().unrequestedEffects !== 'ask') return false;
    return check.reason === 'no_approval' || (check.reason === 'protected_target' && this.deps.defaults().protectedTargets !== 'deny');
  }

  /** What happens to a write or command nobody asked about: `ask` (held and asked at the effect) or `refuse`. */
  unrequestedMode(): 'ask' | 'refuse' {
    return this.deps.defaults().unrequestedEffects === 'ask' ? 'ask' : 'refuse';
  }

  /** Milliseconds a held effect waits for the person (`unrequestedEffectMinutes`, default 10). */
  holdMs(): number {
    const m = this.deps.defaults().unrequestedEffectMinutes;
    return (typeof m === 'number' && Number.isFinite(m) && m > 0 ? m : 10) * 60_000;
  }

  /**
   * The intent of a held effect: exactly the effect the request names (the write's path, content
   * and the text it replaces; the command's words, folder and environment names), under the tool
   * call the card of it belongs to. Its hash is what the card shows and the audit records.
   */
  effectIntent(who: Actor, effect: WriteEffect | CommandEffect, toolCallId: string): Intent {
    return { sessionId: who.sessionId, agentId: who.agentId, toolCallId, kind: effect.type === 'write' ? 'edit' : 'execute', effects: [effect] };
  }

  private check(who: Actor, effect: WriteEffect | CommandEffect, boundTo?: string): EffectCheck {
    const d = decide(this.approvals, this.grants, this.deps.defaults(), who, effect, this.now(), boundTo);
    const description = describe(effect);
    if (!d.allowed && d.wouldAllowInDryRun) this.deps.log?.(`Dry run: policy "allow" would have let through: ${description}`);
    const recorded = this.audit({
      ...who3(who),
      event: 'effect',
      intentHash: d.allowed && d.source === 'approval' ? d.approval.hash : undefined,
      decision: d.allowed ? 'allowed' : 'refused',
      decidedBy: d.allowed ? (d.source === 'approval' ? `approval:${d.approval.hash}` : d.source === 'grant' ? `grant:${d.grant.id}` : d.source) : d.reason,
      detail: { effect, description },
    });
    // Fail closed: an effect that cannot be recorded is not performed.
    if (d.allowed && !recorded) return { allowed: false, reason: 'no_approval', message: `${description} was refused: the audit log could not be written.`, effect, description };
    return { ...d, effect, description };
  }

  /** Records how an allowed effect ended (`ok` or the error). */
  recordResult(who: Actor, check: EffectCheck, result: string): void {
    this.audit({ ...who3(who), event: 'effect', decision: result === 'ok' ? 'performed' : 'failed', decidedBy: 'client', detail: { description: check.description, result } });
  }

  /**
   * Records effects the agent reports it performed itself, which the client could not check: the
   * tool call they came under, its title, and what each does (see `reportedEffects.ts`).
   */
  recordUnverified(who: Actor, toolCallId: string, title: string, effects: readonly ReportedEffect[] = []): void {
    this.audit({ ...who3(who), event: 'effect', decision: 'performed_by_agent_unverified', decidedBy: 'agent', detail: { toolCallId, title, effects } });
  }

  /**
   * Records the answer to an agent's question (ACP `elicitation/create`): the action, who decided,
   * the mode, the tool call, the names of the fields answered and a URL's host. Never the values
   * (they may be secrets) and never the whole URL (its query may carry a token).
   */
  recordElicitation(who: Actor, d: { action: string; decidedBy: string; mode: string; toolCallId?: string; fields: string[]; host?: string }): void {
    this.audit({ ...who3(who), event: 'decision', decision: `elicitation_${d.action}`, decidedBy: d.decidedBy, detail: { mode: d.mode, fields: d.fields, ...(d.toolCallId ? { toolCallId: d.toolCallId } : {}), ...(d.host ? { host: d.host } : {}) } });
  }

  /**
   * Records a call of the editor MCP server's tools (read-only language features) by a session's
   * agent: which tool, on which file, and the outcome. No file contents.
   */
  recordEditorToolCall(sessionId: string, tool: string, path: string | undefined, outcome: string): void {
    this.audit({ sessionId, agentId: 'editor-mcp', event: 'effect', decision: outcome === 'ok' ? 'read' : 'read_failed', decidedBy: 'policy:read-only', detail: { tool, path, outcome } });
  }

  /**
   * Stop or Restart Agent: the session's once-only approvals that were not used are withdrawn (an
   * agent that ignores Stop, or its new process, cannot still perform what was allowed for the
   * stopped turn), and the audit says so. Session-wide approvals and grants stay: the person gave
   * them for the session. @returns how many were withdrawn.
   */
  stopApprovals(who: Actor, why: 'stop' | 'restart'): number {
    const n = this.approvals.revokeOnce(who.sessionId);
    if (n) this.audit({ sessionId: who.sessionId, agentId: who.agentId, event: 'decision', decision: 'revoke_approvals', decidedBy: why === 'stop' ? 'person:stop' : 'person:restart', detail: { count: n } });
    return n;
  }

  /** Drops the session's approvals and session grants (it ended). */
  forgetSession(sessionId: string): void {
    this.approvals.forgetSession(sessionId);
    this.grants.forgetSession(sessionId);
  }

  /** Appends to the audit log; false when it could not be written. */
  private audit(entry: Parameters<AuditLog['append']>[0]): boolean {
    try {
      this.deps.audit?.append(entry);
      return true;
    } catch (err) {
      this.deps.log?.(`Could not write the audit log: ${String(err)}`);
      return false;
    }
  }
}

/** The identity fields of an audit record. */
function who3(who: Actor): { sessionId: string; acpSessionId?: string; agentId: string } {
  return { sessionId: who.sessionId, acpSessionId: who.acpSessionId, agentId: who.agentId };
}

/** Patterns that cover exactly the intent's client-hosted effects: each command line, each path. */
function exactPatterns(intent: Intent): EffectPattern[] {
  const out: EffectPattern[] = [];
  for (const e of intent.effects) {
    if (e.type === 'command' && e.command !== null) out.push({ kind: 'command', commandExact: commandLine(e), cwd: e.cwd, agentId: intent.agentId, ...sandboxOf(e) });
    if (e.type === 'write' && !e.path.startsWith('/')) out.push({ kind: 'write', pathGlob: escapeGlob(e.path), agentId: intent.agentId });
  }
  return out;
}

/**
 * What the agent's "always allow" covers: exactly that command line (a prefix would let options such
 * as `--script-shell=…` change what runs); edits of any workspace file (protected paths excepted).
 */
function alwaysPatterns(intent: Intent): EffectPattern[] {
  const out: EffectPattern[] = [];
  for (const e of intent.effects) {
    if (e.type === 'command' && e.command !== null) out.push({ kind: 'command', commandExact: commandLine(e), cwd: e.cwd, agentId: intent.agentId, ...sandboxOf(e) });
    if (e.type === 'write' && !out.some((p) => p.kind === 'write')) out.push({ kind: 'write', pathGlob: '**', agentId: intent.agentId });
  }
  return out;
}

/** A grant of a sandboxed command covers it in that sandbox only (issue 21). */
function sandboxOf(e: CommandEffect): Pick<EffectPattern, 'sandboxProfile'> {
  return e.sandbox ? { sandboxProfile: profileHash(e.sandbox) } : {};
}

/** A glob that matches exactly `p`: every character a glob reads, the escape itself included, escaped. */
function escapeGlob(p: string): string {
  return p.replace(/[\\*?[\]{}()!+@]/g, (c) => `\\${c}`);
}

function describePattern(p: EffectPattern, who: Actor, _scope: GrantScope = 'session'): string {
  const what = p.kind === 'command' ? `Run \`${p.commandExact ?? p.commandPrefix ?? p.commandRegex ?? 'any command'}\`` : `Write ${p.pathGlob === '**' ? 'any workspace file' : p.pathGlob}`;
  return `${what} — ${p.agentId ?? who.agentId}`;
}

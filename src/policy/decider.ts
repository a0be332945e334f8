/**
 * Who answered a permission request, and how far that answer may reach. An answer reaches beyond
 * the one request (a session-wide approval, a grant) only when a person clicked it, or when the
 * public API asked for a grant explicitly; an answer made by a grant, by the policy, by a replay of
 * history or by a restored session approves that one request once and creates nothing. And an
 * intent whose command or content the agent did not show can only be approved once, by anyone.
 *
 * Pure; no `vscode`.
 */
import { UNMATCHABLE } from './declare';
import type { GrantScope } from './grants';
import type { Intent } from './intent';

/**
 * Who made an answer. The kind is part of `EffectPolicy.recordDecision`'s signature so that no
 * caller can forget to say it, and only the `person` and `api` kinds can carry a grant scope.
 */
export type Decider =
  /** A person's click (card, quick pick); `grant` is one of our "Allow for …" buttons. */
  | { kind: 'person'; grant?: GrantScope }
  /** The public API or a command; it reaches beyond once only with an explicit `grant`. */
  | { kind: 'api'; grant?: GrantScope }
  /** A standing grant that covered every effect of the request answered it. */
  | { kind: 'grant'; grantId: string; description: string }
  /** A policy rule or default answered it. */
  | { kind: 'policy'; rule: string }
  /** History replayed by the agent (`session/load`) or read back from the session journal. */
  | { kind: 'replay' }
  /** Nobody: the turn was cancelled, the agent withdrew the request, or the session ended. */
  | { kind: 'cancel' };

/** The kinds of {@link Decider}. */
export type DeciderKind = Decider['kind'];

/** True when the answer may create a session-wide approval or a grant (see the module comment). */
export function mayWiden(d: Decider): boolean {
  return d.kind === 'person' || (d.kind === 'api' && d.grant !== undefined);
}

/** The grant scope the answer asked for, when it may ask for one. */
export function grantScopeOf(d: Decider): GrantScope | undefined {
  return d.kind === 'person' || d.kind === 'api' ? d.grant : undefined;
}

/** The `decidedBy` text of the audit record: `person`, `api`, `grant:<description>`, `policy:<rule>`, `replay`, `cancel`. */
export function deciderText(d: Decider): string {
  if (d.kind === 'grant') return `grant:${d.description}`;
  if (d.kind === 'policy') return `policy:${d.rule}`;
  return d.kind;
}

/**
 * Why an approval of `intent` can only be once, as a sentence for the card; undefined when it can
 * reach further. An intent whose command the agent did not show (`command: null`), whose content
 * it did not show (no hash) or showed as a diff we cannot verify, or that holds an effect the
 * client does not host (the agent's own tool), covers more than the card could show: approving it
 * for the session, or granting it, would approve effects nobody saw.
 */
export function onceOnlyReason(intent: Intent): string | undefined {
  if (!intent.effects.length) return 'The client could not determine what this tool call will change, so this can only be allowed once.';
  for (const e of intent.effects) {
    if (e.type === 'command' && e.unmatchable) return 'The client could not read the command the agent declared, so no command will be let through, and this can only be allowed once.';
    if (e.type === 'command' && e.command === null) return 'The agent did not show the command, so this can only be allowed once.';
    if (e.type === 'write' && e.contentSha256.length === 0) return `The agent did not show what it will write to ${e.path}, so this can only be allowed once.`;
    if (e.type === 'write' && e.contentSha256.includes(UNMATCHABLE)) return `The client cannot verify what the agent will write to ${e.path}, so this can only be allowed once.`;
    if (e.type === 'tool') return 'The agent performs this tool call itself, where the client cannot check it, so this can only be allowed once.';
  }
  return undefined;
}

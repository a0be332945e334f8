/**
 * One session's held effects (issue 19): an `fs/write_text_file` or `terminal/create` the agent did
 * not ask about, held unanswered and asked about at the effect. The card is built from the request
 * itself (`heldEffects.ts`); its approval is bound to that one request by a token the second effect
 * check presents (`policy/gate.ts` `Approval.boundTo`), and matches only the identical effect. Every
 * other ending answers the agent with an error and performs nothing.
 *
 * The session controller owns the permission cards (`openCard`) and performs the effect; this room
 * holds, asks, checks again and closes the card. No `vscode`.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { acpSdk } from './sdk';
import { errorMessage } from './connection';
import { ErrorCodes } from './extensions';
import type { SessionAction } from './session/reducer';
import type { SessionState, TerminalView, ToolCallView } from './session/types';
import type { Actor, EffectCheck, EffectPolicy } from '../policy/effectPolicy';
import type { DeclaredIntent } from '../policy/declare';
import type { CommandEffect, WriteEffect } from '../policy/intent';
import { markdownText } from '../common/untrustedText';
import type { HiddenValue } from './heldEnv';
import { HELD_OPTIONS, HELD_REASON, MAX_HELD_EFFECTS, heldCommandCard, heldRefusal, heldWriteCard, unshowable, waitingHeld, type HeldCard, type HeldEnd } from './heldEffects';

/** What holding needs from the session. */
export interface HeldHost {
  readonly policy: EffectPolicy;
  state(): SessionState;
  dispatch(action: SessionAction): void;
  /** True once the session is closed. */
  closed(): boolean;
  now(): number;
  actor(): Actor;
  /**
   * Shows a permission card and resolves with its answer (see `SessionController.openCard`).
   * `hidden`: the variables whose values the card does not show; an allow then needs a second yes.
   */
  openCard(params: acp.RequestPermissionRequest, declared: DeclaredIntent, preview: ToolCallView, signal: AbortSignal, heldToken: string, onceOnly?: string, hidden?: HiddenValue[]): Promise<acp.RequestPermissionResponse>;
}

/** A held effect the person allowed: its card, and the effect check made again with the approval's token. */
export interface Allowed {
  toolCallId: string;
  check: EffectCheck;
}

/** Prefix of the ids of tool calls the editor makes (the agent's updates to them are dropped). */
export const HELD_PREFIX = 'editor-effect-';

/** The held effects of one session. */
export class SessionHeld {
  /** Held commands' cards by the terminal they let run: the card runs until the terminal exits. */
  private readonly terminals = new Map<string, string>();

  constructor(private readonly host: HeldHost) {}

  /**
   * Holds a write nobody approved and asks at the effect. @returns the card and the check made again
   * with the approval's token, when the person allowed it and the file still holds the text the
   * card's diff was made from.
   * @throws the agent's JSON-RPC error otherwise (see {@link hold}); `changed_while_held` when the
   *   file changed while the card waited.
   */
  async write(params: acp.WriteTextFileRequest, first: EffectCheck, signal?: AbortSignal): Promise<Allowed> {
    const effect = first.effect as WriteEffect;
    const exists = first.target === null ? false : first.target ? true : undefined;
    const card = heldWriteCard(params.path, params.content, first.base ?? null, effect);
    const { toolCallId, boundTo } = await this.hold(first, card, signal, unshowable(card, effect, first.base, exists));
    const check = await this.host.policy.checkWrite(this.host.actor(), params.path, params.content, boundTo);
    if (signal?.aborted) throw this.end(toolCallId, 'withdrawn', first.description);
    if (!check.allowed && check.reason === 'no_approval') throw this.end(toolCallId, 'changed', first.description);
    return { toolCallId, check };
  }

  /** Holds a command nobody approved and asks at the effect; as {@link write}. */
  async command(params: acp.CreateTerminalRequest, first: EffectCheck, signal?: AbortSignal): Promise<Allowed> {
    const card = heldCommandCard(params, first.effect as CommandEffect);
    const { toolCallId, boundTo } = await this.hold(first, card, signal, unshowable(card, first.effect, null, undefined, params));
    const check = await this.host.policy.checkCommand(this.host.actor(), params, boundTo);
    if (signal?.aborted) throw this.end(toolCallId, 'withdrawn', first.description);
    return { toolCallId, check };
  }

  /**
   * Runs an allowed held effect and closes its card: completed, or failed with the error. A
   * command's card shows the terminal it let run and stays running until the terminal exits.
   */
  async perform<T>(allowed: Allowed | undefined, run: () => Promise<T>, terminal?: (result: T) => string): Promise<T> {
    if (!allowed) return run();
    const { toolCallId } = allowed;
    let result: T;
    try {
      result = await run();
    } catch (err) {
      this.append(toolCallId, errorMessage(err), 'failed');
      throw err;
    }
    const terminalId = terminal?.(result);
    if (terminalId) {
      this.terminals.set(terminalId, toolCallId);
      this.host.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] }, at: this.host.now() });
    } else this.host.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' }, at: this.host.now() });
    return result;
  }

  /** Closes card `toolCallId` when terminal `terminalId` exits (a command we ran for the person: "Allow host and re-run"). */
  trackTerminal(terminalId: string, toolCallId: string): void {
    this.terminals.set(terminalId, toolCallId);
  }

  /** A terminal changed: a held command's card ends with its terminal's exit. */
  terminalChanged(t: TerminalView): void {
    const toolCallId = this.terminals.get(t.terminalId);
    if (!toolCallId || !t.exitStatus) return;
    this.terminals.delete(t.terminalId);
    this.host.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: t.exitStatus.exitCode === 0 ? 'completed' : 'failed' }, at: this.host.now() });
  }

  /**
   * Puts the effect to the person on a card of our own (an `editor-` tool call the agent cannot
   * update) with the intent of exactly that effect. Refused at once, without a card: after Stop, when
   * the card could not show all of it (`why`), and past {@link MAX_HELD_EFFECTS} waiting.
   * @returns the card's tool call and the token the approval is bound to.
   * @throws -32013 (rejected, no answer in time, not showable, too many), -32800 (withdrawn,
   *   stopped), or an internal error (the session closed).
   */
  private async hold(check: EffectCheck, card: HeldCard, signal: AbortSignal | undefined, why: string | undefined): Promise<{ toolCallId: string; boundTo: string }> {
    const { host } = this;
    const minutes = host.policy.holdMs() / 60_000;
    const state = host.state();
    // Stopped work asks nobody, as a permission request after Stop gets "cancelled" with no card.
    if (state.stopping && state.status === 'ready') throw heldError('stopped', heldRefusal('stopped', check.description, minutes));
    const refuse = (end: 'unshowable' | 'flood') => {
      const message = heldRefusal(end, check.description, minutes, why);
      host.dispatch({ type: 'effectRefused', message });
      return heldError(end, message);
    };
    // The person approves only what the card shows whole: anything it would cut, drop or hide is refused.
    if (why) throw refuse('unshowable');
    if (waitingHeld(state.permissions) >= MAX_HELD_EFFECTS) throw refuse('flood');
    const toolCallId = `${HELD_PREFIX}${randomUUID()}`;
    const boundTo = randomUUID();
    host.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId, ...card.toolCall }, at: host.now() });
    const intent = host.policy.effectIntent(host.actor(), check.effect, toolCallId);
    const wait = new AbortController();
    let end: HeldEnd | undefined;
    const timer = setTimeout(() => {
      end ??= 'timeout';
      wait.abort();
    }, host.policy.holdMs());
    const onAbort = () => {
      end ??= 'withdrawn';
      wait.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let answer: acp.RequestPermissionResponse;
    try {
      // A protected target counts only an approval of this exact write: no grant the card could make would apply.
      const onceOnly = !check.allowed && check.reason === 'protected_target' ? `${check.message.replace(/ and needs an approval of this exact write\.$/, '')}: only an approval of this exact write counts, so it can only be allowed once.` : undefined;
      answer = await host.openCard({ sessionId: state.sessionId ?? '', toolCall: { toolCallId }, options: HELD_OPTIONS }, { intent, undeclared: card.notes, display: card.display }, host.state().toolCalls[toolCallId], wait.signal, boundTo, onceOnly, card.hidden);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow' && !host.closed()) return { toolCallId, boundTo };
    if (answer.outcome.outcome === 'selected') end = 'rejected';
    else end ??= host.closed() ? 'closed' : 'stopped';
    throw this.end(toolCallId, end, check.description);
  }

  /** Ends a held card that was not performed (its reason on the card) and returns the agent's error. */
  private end(toolCallId: string, end: HeldEnd, what: string): Error {
    const message = heldRefusal(end, what, this.host.policy.holdMs() / 60_000);
    // A rejected or cancelled card has its status from the answer already; a write that no longer
    // matches what the person saw failed after their yes.
    if (!this.host.closed()) this.append(toolCallId, message, end === 'changed' ? 'failed' : undefined);
    return heldError(end, message);
  }

  /** Adds a sentence to a held card (literal text: tool content is drawn as Markdown), and a status. */
  private append(toolCallId: string, sentence: string, status?: 'failed'): void {
    const tc = this.host.state().toolCalls[toolCallId];
    if (!tc) return;
    const content = [...tc.content, { type: 'content', content: { type: 'text', text: markdownText(sentence, { max: 4000 }) } }] as acp.ToolCallContent[];
    this.host.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, ...(status ? { status } : {}), content }, at: this.host.now() });
  }
}

/** The JSON-RPC error a held effect that was not performed ends with; `data.reason` is stable. */
function heldError(end: HeldEnd, message: string): Error {
  const data = { reason: HELD_REASON[end] };
  if (end === 'closed') return acpSdk().RequestError.internalError(data, 'The session is closed.');
  if (end === 'withdrawn' || end === 'stopped') return new (acpSdk().RequestError)(-32800, message, data);
  return new (acpSdk().RequestError)(ErrorCodes.notApproved, message, data);
}

/**
 * An agent's questions to the person (ACP v1 `elicitation/create`, schema 1.21; `elicitation/complete`):
 * a card in the session's thread with the agent's message and, in form mode, a form built from the
 * requested schema; in URL mode, the whole address as text, opened only when the person asks.
 *
 * Exactly one answer per request, by construction: the answer follows the card's state, as the
 * permission broker's does. The person's Accept (values checked against the schema first), Decline
 * or Cancel; Stop, a failed turn or the session's end (the reducer cancels every waiting card);
 * the agent withdrawing its request (`$/cancel_request` → the handler's AbortSignal) or completing
 * it (`elicitation/complete`) — whichever comes first answers, the rest find nothing waiting.
 *
 * The values the person typed go to the agent and nowhere else: the card, the journal, the trace
 * and the audit record keep the field names only. No `vscode`.
 * Spec: https://agentclientprotocol.com/protocol/v1/elicitation
 */
import type * as acp from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { acpSdk } from './sdk';
import { checkAnswer, checkedSchema, type ElicitationValue } from '../elicitation/schema';
import { urlTarget } from '../elicitation/url';
import { MAX_ELICITATION_MESSAGE } from './session/elicitationView';
import type { SessionAction } from './session/reducer';
import type { ElicitationView, SessionState } from './session/types';

/** Questions of one session that may wait at once; more are declined (an agent cannot flood the thread). */
export const MAX_WAITING_ELICITATIONS = 3;
/** Fields a form may have. */
const MAX_FIELDS = 100;

/** What a decision record says (the audit gets this, never a value). */
export interface ElicitationDecision {
  action: 'accept' | 'decline' | 'cancel';
  decidedBy: 'person' | 'cancel' | 'agent' | 'client';
  mode: 'form' | 'url';
  toolCallId?: string;
  /** Names of the fields answered (accept, form mode). */
  fields: string[];
  /** Where a URL-mode question leads. */
  host?: string;
}

/** What the broker needs from its session. */
export interface ElicitationHost {
  state(): SessionState;
  dispatch(action: SessionAction): void;
  now(): number;
  /** Records the decision (never the values) in the audit log. */
  audit(decision: ElicitationDecision): void;
  notice(severity: 'info' | 'warning', text: string): void;
}

/** The outcome of the person's answer: sent, refused for these reasons (the card stays), or not waiting. */
export type ElicitationAnswerResult = { ok: true } | { ok: false; problems: string[] } | { ok: false; notWaiting: true };

interface Pending {
  resolve(r: acp.CreateElicitationResponse): void;
  /** The checked content of an accepted form, held only until it is sent. */
  content?: Record<string, ElicitationValue>;
}

/** One session's waiting questions and their answers. */
export class ElicitationBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly host: ElicitationHost) {}

  /**
   * Puts a session-scoped `elicitation/create` to the person; resolves with the answer.
   * @throws RequestError invalid params (-32602) for a mode the client did not advertise.
   */
  ask(params: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse> {
    const p = params as acp.CreateElicitationRequest & { mode: string; requestedSchema?: unknown; url?: unknown; elicitationId?: unknown; toolCallId?: string | null };
    if (p.mode !== 'form' && p.mode !== 'url') throw acpSdk().RequestError.invalidParams(undefined, `Elicitation mode "${String(p.mode).slice(0, 50)}" is not supported (this client offers "form" and "url").`);
    const state = this.host.state();
    const waiting = state.entries.filter((e) => e.kind === 'elicitation' && e.elicitation.state === 'waiting').length;
    const mode = p.mode;
    if (waiting >= MAX_WAITING_ELICITATIONS || signal.aborted) {
      if (!signal.aborted) this.host.notice('warning', `${state.agentName} asked more than ${MAX_WAITING_ELICITATIONS} questions at once; this one was declined: ${p.message.slice(0, 200)}`);
      this.host.audit({ action: 'decline', decidedBy: 'client', mode, fields: [], ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}) });
      return Promise.resolve({ action: signal.aborted ? 'cancel' : 'decline' });
    }
    let elicitationKey = `q-${randomUUID()}`;
    while (this.pending.has(elicitationKey)) elicitationKey = `q-${randomUUID()}`;
    const view: ElicitationView = {
      elicitationKey,
      mode,
      message: p.message.slice(0, MAX_ELICITATION_MESSAGE),
      ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
      state: 'waiting',
      requestedAt: this.host.now(),
    };
    if (mode === 'form') {
      const schema = checkedSchema(p.requestedSchema && typeof p.requestedSchema === 'object' ? (p.requestedSchema as Record<string, unknown>) : {});
      if (Object.keys(schema.properties as object).length > MAX_FIELDS) throw acpSdk().RequestError.invalidParams(undefined, `The requested schema has more than ${MAX_FIELDS} fields.`);
      view.requestedSchema = schema;
    } else {
      const url = String(p.url ?? '');
      const target = urlTarget(url);
      view.url = url.slice(0, 8192);
      view.elicitationId = String(p.elicitationId ?? '');
      if (target.host) view.host = target.host;
      if (!target.openable) view.refused = target.reason;
    }
    return new Promise((resolve) => {
      this.pending.set(elicitationKey, { resolve });
      this.host.dispatch({ type: 'elicitationRequested', elicitation: view });
      // A session that had already ended cancelled it on arrival (see the reducer); settle says so.
      this.settle();
      signal.addEventListener('abort', () => this.host.dispatch({ type: 'elicitationAnswered', elicitationKey, action: 'cancel', by: 'agent' }), { once: true });
    });
  }

  /**
   * The person's answer to a waiting question. An accepted form's `content` is checked against the
   * requested schema first (with its defaults for what was left out); problems leave the card
   * waiting and are returned. In URL mode, accept means the person chose to open the page.
   */
  answer(elicitationKey: string, action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>): ElicitationAnswerResult {
    const view = this.view(elicitationKey);
    const pending = this.pending.get(elicitationKey);
    if (!view || view.state !== 'waiting' || !pending) return { ok: false, notWaiting: true };
    let fields: string[] | undefined;
    if (action === 'accept' && view.mode === 'form') {
      const checked = checkAnswer(view.requestedSchema ?? {}, content ?? {});
      if ('problems' in checked) return { ok: false, problems: checked.problems };
      pending.content = checked.content;
      fields = Object.keys(checked.content);
    }
    if (action === 'accept' && view.mode === 'url' && view.refused) return { ok: false, problems: [view.refused] };
    this.host.dispatch({ type: 'elicitationAnswered', elicitationKey, action, by: 'person', ...(fields ? { fields } : {}) });
    return { ok: true };
  }

  /**
   * `elicitation/complete`: marks the URL-mode card with that `elicitationId` done (one still
   * waiting is answered `cancel`: the agent no longer needs it). @returns false when this session
   * has no such card.
   */
  complete(elicitationId: string): boolean {
    const known = this.host.state().entries.some((e) => e.kind === 'elicitation' && e.elicitation.mode === 'url' && e.elicitation.elicitationId === elicitationId);
    if (known) this.host.dispatch({ type: 'elicitationCompleted', elicitationId });
    return known;
  }

  /** Answers every request whose card is no longer waiting (call after each state change). */
  settle(): void {
    for (const [key, pending] of this.pending) {
      const view = this.view(key);
      if (view && view.state === 'waiting') continue;
      this.pending.delete(key);
      const action = view?.state === 'accept' || view?.state === 'decline' ? view.state : 'cancel';
      const content = action === 'accept' && view?.mode === 'form' ? pending.content : undefined;
      pending.content = undefined;
      this.host.audit({
        action,
        decidedBy: view?.answeredBy ?? 'cancel',
        mode: view?.mode ?? 'form',
        fields: content ? Object.keys(content) : [],
        ...(view?.toolCallId ? { toolCallId: view.toolCallId } : {}),
        ...(view?.host ? { host: view.host } : {}),
      });
      pending.resolve(action === 'accept' ? (content ? { action, content } : { action }) : { action });
    }
  }

  /** Whether a question of this session waits. */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  private view(elicitationKey: string): ElicitationView | undefined {
    const entries = this.host.state().entries;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.kind === 'elicitation' && e.elicitation.elicitationKey === elicitationKey) return e.elicitation;
    }
    return undefined;
  }
}

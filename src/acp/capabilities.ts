/**
 * The capability matrix of an agent: what it declared at `initialize` (`agentCapabilities`, prompt
 * and MCP capabilities, session capabilities, auth methods), what it has actually exercised on the
 * wire (the methods it called on us, the session updates it sent, the methods of ours it answered)
 * and what failed (error responses, either way). Read from the protocol inspector's record, so it
 * is what really went over the wire, not what the code meant to send. Pure; no `vscode`.
 * Spec: PROTOCOLS.md §1 (ACP v1 initialize, methods, session updates).
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { EntrySummary, ProtocolEntry } from './inspector';
import { compatRuleOf } from './compat';

/** One line of the matrix. */
export interface CapabilityRow {
  /** What it is about: `promptCapabilities.image`, `fs/write_text_file`, `session/update: plan`, … */
  capability: string;
  group: 'declared' | 'agent calls us' | 'agent sends' | 'we call the agent';
  /** What `initialize` said: true/false, or undefined when it says nothing about this line. */
  declared?: boolean;
  /** Times it was seen working. */
  exercised: number;
  /** Times it failed (an error response). */
  failed: number;
  /** The last error's message. */
  lastError?: string;
}

/** Agent → client methods of ACP v1 (what an agent may call on us). */
const AGENT_CALLS = ['session/request_permission', 'fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release', 'elicitation/create', 'elicitation/complete'];
/** Client → agent methods, with the capability that makes each available (when one does). */
const WE_CALL: [string, string | undefined][] = [
  ['initialize', undefined],
  ['authenticate', undefined],
  ['session/new', undefined],
  ['session/prompt', undefined],
  ['session/cancel', undefined],
  ['session/load', 'loadSession'],
  ['session/list', 'sessionCapabilities.list'],
  ['session/resume', 'sessionCapabilities.resume'],
  ['session/close', 'sessionCapabilities.close'],
  ['session/delete', 'sessionCapabilities.delete'],
  ['logout', 'auth.logout'],
  ['session/set_mode', undefined],
  ['session/set_config_option', undefined],
];

/** `$/cancel_request` (ACP v1 cancellation) as we send it, and as the agent sends it to us. */
const CANCEL_OURS = '$/cancel_request';
const CANCEL_THEIRS = '$/cancel_request (from the agent)';

/**
 * The matrix of one connection, kept up to date one message at a time (so a long session's matrix
 * never needs its whole record again, and messages dropped from the record still count).
 */
export class CapabilityMatrix {
  private readonly byName = new Map<string, CapabilityRow>();

  constructor() {
    for (const m of AGENT_CALLS) this.row(m, 'agent calls us');
    for (const [m] of WE_CALL) this.row(m, 'we call the agent');
    // ACP v1 request cancellation, both ways (a row per direction: one method, two parties).
    this.row(CANCEL_OURS, 'we call the agent');
    this.row(CANCEL_THEIRS, 'agent calls us');
  }

  /** Fills in what the agent declared (call once `initialize` has answered). */
  declare(init: acp.InitializeResponse): void {
    const caps = (init.agentCapabilities ?? {}) as Record<string, unknown>;
    const flag = (p: string): boolean | undefined => {
      let v: unknown = caps;
      for (const k of p.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
      return v === undefined ? undefined : v === true || (typeof v === 'object' && v !== null);
    };
    for (const p of ['loadSession', 'promptCapabilities.image', 'promptCapabilities.audio', 'promptCapabilities.embeddedContext', 'mcpCapabilities.http', 'mcpCapabilities.sse', 'sessionCapabilities.list', 'sessionCapabilities.resume', 'sessionCapabilities.close', 'sessionCapabilities.delete', 'sessionCapabilities.fork', 'auth.logout']) {
      this.row(p, 'declared').declared = flag(p) ?? false;
    }
    for (const m of init.authMethods ?? []) this.row(`authMethods: ${m.id}`, 'declared').declared = true;
    for (const [m, cap] of WE_CALL) if (cap) this.row(m, 'we call the agent').declared = flag(cap) ?? false;
  }

  /** Counts one message. */
  observe(entry: ProtocolEntry, summary: EntrySummary): void {
    const theirs = entry.dir === 'in';
    if (summary.kind === 'notification') {
      if (summary.method === CANCEL_OURS) this.row(theirs ? CANCEL_THEIRS : CANCEL_OURS, theirs ? 'agent calls us' : 'we call the agent').exercised++;
      else if (theirs && summary.method === 'session/update') {
        const kind = (entry.message as { params?: { update?: { sessionUpdate?: unknown } } }).params?.update?.sessionUpdate;
        if (typeof kind === 'string') this.row(`session/update: ${kind}`, 'agent sends').exercised++;
      } else if (theirs && AGENT_CALLS.includes(summary.method)) this.row(summary.method, 'agent calls us').exercised++;
      else if (!theirs) this.row(summary.method, 'we call the agent').exercised++;
      return;
    }
    if (summary.kind === 'request') {
      if (theirs) this.row(summary.method, 'agent calls us').exercised++;
      return;
    }
    if ((summary.kind === 'response' || summary.kind === 'error') && summary.method !== '(response)') {
      // The answer to a request: ours to the agent's (already counted) or the agent's to ours.
      const r = this.row(summary.method, theirs ? 'we call the agent' : 'agent calls us');
      if (summary.kind === 'error') {
        r.failed++;
        const err = (entry.message as { error?: { message?: unknown } }).error;
        r.lastError = typeof err?.message === 'string' ? err.message.slice(0, 300) : 'error';
      } else if (theirs) r.exercised++;
      else {
        // Our answer, changed from the spec one for this agent by a compatibility rule (compat.ts).
        const rule = compatRuleOf((entry.message as { result?: unknown }).result);
        if (rule) this.row(`${summary.method}: compatibility rule applied (${rule})`, 'agent calls us').exercised++;
      }
    }
  }

  /** The rows, declared first, then by group in the order first seen. */
  rows(): CapabilityRow[] {
    const order: CapabilityRow['group'][] = ['declared', 'agent calls us', 'we call the agent', 'agent sends'];
    return [...this.byName.values()].sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group)).map((r) => ({ ...r }));
  }

  private row(capability: string, group: CapabilityRow['group']): CapabilityRow {
    let r = this.byName.get(capability);
    if (!r) this.byName.set(capability, (r = { capability, group, exercised: 0, failed: 0 }));
    return r;
  }
}

/**
 * The matrix for one connection, from its whole record at once (see {@link CapabilityMatrix}).
 * @param init the agent's `initialize` answer.
 * @param entries the connection's messages with their summaries (see `ProtocolLog.summary`).
 */
export function capabilityMatrix(init: acp.InitializeResponse, entries: readonly { entry: ProtocolEntry; summary: EntrySummary }[]): CapabilityRow[] {
  const m = new CapabilityMatrix();
  m.declare(init);
  for (const { entry, summary } of entries) m.observe(entry, summary);
  return m.rows();
}

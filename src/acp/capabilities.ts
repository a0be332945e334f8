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
const AGENT_CALLS = ['session/request_permission', 'fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release'];
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
  ['session/set_mode', undefined],
  ['session/set_config_option', undefined],
];

/**
 * The matrix for one connection.
 * @param init the agent's `initialize` answer.
 * @param entries the connection's messages with their summaries (see {@link ProtocolLog.summary}).
 */
export function capabilityMatrix(init: acp.InitializeResponse, entries: readonly { entry: ProtocolEntry; summary: EntrySummary }[]): CapabilityRow[] {
  const rows = new Map<string, CapabilityRow>();
  const row = (capability: string, group: CapabilityRow['group'], declared?: boolean): CapabilityRow => {
    let r = rows.get(capability);
    if (!r) rows.set(capability, (r = { capability, group, exercised: 0, failed: 0, ...(declared !== undefined ? { declared } : {}) }));
    return r;
  };
  const caps = (init.agentCapabilities ?? {}) as Record<string, unknown>;
  const flag = (path: string): boolean | undefined => {
    let v: unknown = caps;
    for (const k of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    return v === undefined ? undefined : v === true || (typeof v === 'object' && v !== null);
  };
  for (const p of ['loadSession', 'promptCapabilities.image', 'promptCapabilities.audio', 'promptCapabilities.embeddedContext', 'mcpCapabilities.http', 'mcpCapabilities.sse', 'sessionCapabilities.list', 'sessionCapabilities.resume', 'sessionCapabilities.close', 'sessionCapabilities.fork']) {
    row(p, 'declared', flag(p) ?? false);
  }
  for (const m of init.authMethods ?? []) row(`authMethods: ${m.id}`, 'declared', true);
  for (const m of AGENT_CALLS) row(m, 'agent calls us');
  for (const [m, cap] of WE_CALL) row(m, 'we call the agent', cap ? (flag(cap) ?? false) : undefined);

  for (const { entry, summary } of entries) {
    const theirs = entry.dir === 'in';
    if (summary.kind === 'notification' && theirs && summary.method === 'session/update') {
      const kind = (entry.message as { params?: { update?: { sessionUpdate?: unknown } } }).params?.update?.sessionUpdate;
      if (typeof kind === 'string') row(`session/update: ${kind}`, 'agent sends').exercised++;
      continue;
    }
    if (summary.kind === 'notification' && !theirs) {
      row(summary.method, 'we call the agent').exercised++;
      continue;
    }
    if (summary.kind === 'request' && theirs) {
      row(summary.method, 'agent calls us').exercised++;
      continue;
    }
    if ((summary.kind === 'response' || summary.kind === 'error') && summary.method !== '(response)') {
      // Our answer to the agent's request: its request already counted; a failure is ours to show.
      const r = row(summary.method, theirs ? 'we call the agent' : 'agent calls us');
      if (summary.kind === 'error') {
        r.failed++;
        const err = (entry.message as { error?: { message?: unknown } }).error;
        r.lastError = typeof err?.message === 'string' ? err.message.slice(0, 300) : 'error';
      } else if (theirs) r.exercised++;
    }
  }
  return [...rows.values()];
}

/**
 * The delegation view of a trace (pure, runs in any JS): who acted for whom. The chain starts at the
 * person (subject) and this extension (client), goes to each agent (name, version) and from there
 * to what it did — tool calls, the effects we performed for it, calls to MCP servers, tasks handed to
 * remote (A2A) agents — each hop annotated with the grant that allowed it (intent hash, scope,
 * expiry) and who decided: the person, a standing grant or policy rule, or the agent on its own
 * without asking. Remote delegations carry their task id, state and artifacts. Built only from span
 * attributes (ours, in the `agent_switchboard.` namespace, and the GenAI conventions).
 */
import type { SpanRecord } from '../../src/views/trace/protocol';
import { spanKey } from './waterfall';

/** What a hop stands for. */
export type HopKind = 'subject' | 'client' | 'agent' | 'tool' | 'effect' | 'mcp' | 'remote';

/** One annotation of a hop, e.g. `decided by: you`. */
export interface Note {
  label: string;
  value: string;
  tone?: 'ok' | 'warn' | 'error';
}

/** One hop of the chain of authority. */
export interface Hop {
  kind: HopKind;
  label: string;
  detail?: string;
  /** The span the hop stands for, as `traceId/spanId` (the panel shows its attributes). */
  spanId?: string;
  status?: 'ok' | 'error' | 'running';
  notes: Note[];
  children: Hop[];
}

const A = {
  kind: 'agent_switchboard.span.kind',
  decision: 'agent_switchboard.decision',
  decidedBy: 'agent_switchboard.decided_by',
  requestedBy: 'agent_switchboard.requested_by',
  source: 'agent_switchboard.decision.source',
  intent: 'agent_switchboard.intent.hash',
  grantScope: 'agent_switchboard.grant.scope',
  grantId: 'agent_switchboard.grant.id',
  grantExpires: 'agent_switchboard.grant.expires_at',
  agentVersion: 'agent_switchboard.agent.version',
  toolKind: 'agent_switchboard.tool.kind',
  toolStatus: 'agent_switchboard.tool.status',
  taskId: 'agent_switchboard.a2a.task.id',
  taskState: 'agent_switchboard.a2a.task.state',
  artifacts: 'agent_switchboard.a2a.artifacts',
  signature: 'agent_switchboard.a2a.card.signature',
  agentName: 'gen_ai.agent.name',
  toolName: 'gen_ai.tool.name',
  sandboxed: 'agent_switchboard.sandboxed',
  heldBack: 'agent_switchboard.sandbox.held_back',
} as const;

const str = (s: SpanRecord, k: string): string | undefined => {
  const v = s.attributes[k];
  return typeof v === 'string' && v ? v : undefined;
};

/** Who decided, in words: `person` → "you", `grant:…` → "a standing grant", … */
export function deciderText(decidedBy: string | undefined): string {
  if (!decidedBy) return 'the agent, on its own (no permission asked)';
  if (decidedBy === 'person') return 'you';
  if (decidedBy === 'api') return 'an extension (API)';
  if (decidedBy === 'cancel') return 'nobody (cancelled)';
  if (decidedBy.startsWith('grant')) return 'a standing grant';
  if (decidedBy === 'rule' || decidedBy === 'policy') return 'a policy rule';
  if (decidedBy.startsWith('agent:')) return `the agent ${decidedBy.slice(6)}`;
  return decidedBy;
}

function statusOf(s: SpanRecord): Hop['status'] {
  return s.status.code === 'error' ? 'error' : s.endMs === undefined ? 'running' : 'ok';
}

function grantNotes(s: SpanRecord): Note[] {
  const notes: Note[] = [];
  const scope = str(s, A.grantScope);
  const id = str(s, A.grantId);
  const expires = str(s, A.grantExpires);
  const intent = str(s, A.intent);
  if (scope || id) notes.push({ label: 'grant', value: [id, scope && `scope ${scope}`, expires ? `until ${expires.replace('T', ' ').slice(0, 16)}` : scope && scope !== 'once' ? 'until revoked' : ''].filter(Boolean).join(' · ') });
  if (intent) notes.push({ label: 'intent', value: `${intent.slice(0, 12)}…` });
  return notes;
}

/** Whether the process ran in the sandbox, and what its overlay held back (absent for writes). */
function sandboxNotes(s: SpanRecord): Note[] {
  const boxed = s.attributes[A.sandboxed];
  if (typeof boxed !== 'boolean') return [];
  if (!boxed) return [{ label: 'sandbox', value: 'not sandboxed', tone: 'warn' }];
  const held = s.attributes[A.heldBack];
  return [{ label: 'sandbox', value: typeof held === 'number' && held > 0 ? `sandboxed · ${held} held back` : 'sandboxed', tone: 'ok' }];
}

function remoteHop(s: SpanRecord): Hop {
  const state = str(s, A.taskState) ?? 'submitted';
  const signature = str(s, A.signature);
  const artifacts = Array.isArray(s.attributes[A.artifacts]) ? (s.attributes[A.artifacts] as unknown[]).map(String) : [];
  return {
    kind: 'remote',
    label: `remote agent ${str(s, A.agentName) ?? s.name.replace(/^invoke_agent /, '')}`,
    detail: [str(s, A.agentVersion) && `v${str(s, A.agentVersion)}`, signature === 'verified' ? 'card signature verified' : signature === 'unsigned' ? 'unverified card' : signature].filter(Boolean).join(' · '),
    spanId: spanKey(s),
    status: statusOf(s),
    notes: [
      // An agent's delegation was decided on the tool card above it; the person's from the panel here.
      ...(str(s, A.decidedBy) ? [{ label: 'decided by', value: deciderText(str(s, A.decidedBy)) }] : []),
      ...(str(s, A.requestedBy)?.startsWith('agent:') ? [{ label: 'requested by', value: `the agent ${str(s, A.requestedBy)!.slice(6)}` }] : []),
      { label: 'task', value: str(s, A.taskId) ?? '(not named)' },
      { label: 'state', value: state, tone: state === 'completed' ? 'ok' : state === 'failed' || state === 'rejected' || state === 'not started' ? 'error' : state === 'canceled' || state === 'input-required' ? 'warn' : undefined },
      ...(artifacts.length ? [{ label: 'artifacts', value: artifacts.join(', ') }] : []),
    ],
    children: [],
  };
}

/**
 * The chain of authority of a trace.
 * @returns the subject hop (the person), whose only child is the client.
 */
export function delegation(spans: readonly SpanRecord[]): Hop {
  // Spans are found by trace, then span id, and hops kept by span record: no key strings are built
  // while walking (delegation10k in bench/run.ts: building `trace/span` keys on every step of every
  // walk tripled the cost). The last span with a pair of ids stands for it.
  const byTrace = new Map<string, Map<string, SpanRecord>>();
  for (const s of spans) {
    let ids = byTrace.get(s.traceId);
    if (!ids) byTrace.set(s.traceId, (ids = new Map()));
    ids.set(s.spanId, s);
  }
  const parentOf = (s: SpanRecord) => (s.parentSpanId ? byTrace.get(s.traceId)!.get(s.parentSpanId) : undefined);
  const canonical = (s: SpanRecord) => byTrace.get(s.traceId)!.get(s.spanId)!;
  const ordered = [...spans].sort((a, b) => a.startMs - b.startMs);
  const client: Hop = { kind: 'client', label: 'Agent Switchboard', detail: 'this editor: hosts the agents\' files, terminals and MCP calls', notes: [], children: [] };
  const subject: Hop = { kind: 'subject', label: 'You', detail: 'the person at this editor', notes: [], children: [client] };
  const hops = new Map<SpanRecord, Hop>();
  /**
   * The nearest ancestor that has a hop (a tool call, an agent), else the client. Memoised per span,
   * so a deep chain costs its length once, not once per descendant.
   */
  const holders = new Map<SpanRecord, Hop>();
  const holder = (s: SpanRecord): Hop => {
    let found: Hop = client;
    let path: SpanRecord[] | undefined;
    let p = parentOf(s);
    // A cycle without a hop ends the walk after as many steps as there are spans.
    for (let steps = 0; p && steps <= spans.length; steps++) {
      const known = holders.get(p);
      if (known) {
        found = known;
        break;
      }
      const h = hops.get(p);
      if (h && h.kind !== 'effect') {
        found = h;
        break;
      }
      (path ??= []).push(p);
      p = parentOf(p);
    }
    // Every span passed on the way has the same holder.
    if (path) for (const q of path) holders.set(q, found);
    return found;
  };
  // Hops first, links after: a parent may sort after its child (spans that start in the same
  // millisecond keep no order), so no hop may depend on having been seen before.
  const permissions: SpanRecord[] = [];
  const linked: [SpanRecord, Hop][] = [];
  for (const s of ordered) {
    const kind = s.attributes[A.kind];
    let hop: Hop | undefined;
    if (kind === 'session') {
      hop = { kind: 'agent', label: str(s, A.agentName) ?? s.name.replace(/^session /, ''), detail: str(s, A.agentVersion) ? `v${str(s, A.agentVersion)}` : 'version not reported', spanId: spanKey(s), status: statusOf(s), notes: [], children: [] };
    } else if (kind === 'tool') {
      hop = { kind: 'tool', label: s.name.replace(/^execute_tool /, ''), detail: [str(s, A.toolKind), str(s, A.toolStatus)].filter(Boolean).join(' · '), spanId: spanKey(s), status: statusOf(s), notes: [], children: [] };
    } else if (kind === 'effect') {
      hop = { kind: 'effect', label: s.name, detail: 'performed by the editor', spanId: spanKey(s), status: statusOf(s), notes: [{ label: 'allowed by', value: deciderText(str(s, A.decidedBy) ?? str(s, A.source)) }, ...grantNotes(s), ...sandboxNotes(s)], children: [] };
    } else if (kind === 'mcp') {
      hop = { kind: 'mcp', label: `MCP server ${str(s, 'server.address') ?? ''}`.trim(), detail: s.name, spanId: spanKey(s), status: statusOf(s), notes: sandboxNotes(s), children: [] };
    } else if (kind === 'delegation') {
      hop = remoteHop(s);
    } else if (kind === 'permission') {
      permissions.push(s);
      continue;
    }
    if (!hop) continue;
    hops.set(canonical(s), hop);
    linked.push([s, hop]);
  }
  for (const [s, hop] of linked) holder(s).children.push(hop);
  // A permission is not a hop: it annotates the tool call it was asked for.
  for (const s of permissions) {
    const tool = holder(s);
    const decision = str(s, A.decision);
    tool.notes.push({ label: 'decided by', value: deciderText(str(s, A.decidedBy) ?? (decision ? undefined : 'waiting')), tone: decision?.startsWith('allow') ? 'ok' : decision ? 'error' : 'warn' });
    tool.notes.push({ label: 'decision', value: decision ?? 'waiting for you' }, ...grantNotes(s));
  }
  // A tool call nobody was asked about: the agent acted on its own (or its effects say who allowed them).
  for (const hop of hops.values()) {
    if (hop.kind === 'tool' && !hop.notes.some((n) => n.label === 'decided by') && !hop.children.some((c) => c.kind === 'effect')) {
      hop.notes.push({ label: 'decided by', value: deciderText(undefined), tone: 'warn' });
    }
  }
  return subject;
}

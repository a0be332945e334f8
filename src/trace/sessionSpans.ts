/**
 * The spans of one ACP session, derived from its state changes (the reducer's patches), so the
 * session code only has to ask for the trace context of the turn it is about to send:
 * - the session: `session {agent}` (INTERNAL), from attach to close;
 * - each prompt turn: `invoke_agent {agent}` (CLIENT, GenAI semconv), ended with the stop reason;
 * - each tool call: `execute_tool {title}` (INTERNAL), ended when the call completes or fails;
 * - each permission wait: `permission {title}` (INTERNAL), child of its tool call, ended with the
 *   decision, who made it, the grant and the intent hash.
 * The session claims its trace in the store, so the agent's own spans (exported to our receiver
 * with the `traceparent` we sent) join the same tree. No `vscode`. Spec: PROTOCOLS.md §5.2–5.3.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SessionPatch, SessionState } from '../acp/session/types';
import type { EffectCheck } from '../policy/effectPolicy';
import { redactSecrets } from '../policy/redact';
import { GEN_AI, MCP, PROCESS, SWITCHBOARD } from './semconv';
import { sandboxAttributes } from './sandboxSpans';
import { traceContextOf, under, type Tracing } from './tracing';

const TERMINAL_TOOL = new Set(['completed', 'failed', 'rejected', 'cancelled']);

/** Spans of one session. */
export class SessionSpans {
  private readonly session: Span;
  private turn: Span | undefined;
  private readonly tools = new Map<string, Span>();
  private readonly ended = new WeakSet<Span>();
  private readonly permissions = new Map<string, Span>();
  /** Effect spans of commands that run: each ends when its terminal's process exits. */
  private readonly running = new Map<string, { span: Span; overlay: boolean }>();
  private status: SessionState['status'] | undefined;
  private conversation: string | undefined;

  constructor(
    private readonly tracing: Tracing,
    private readonly state: SessionState,
  ) {
    this.session = tracing.tracer.startSpan(`session ${state.agentName}`, {
      kind: SpanKind.INTERNAL,
      attributes: { [SWITCHBOARD.spanKind]: 'session', [SWITCHBOARD.sessionKey]: state.key, [GEN_AI.agentId]: state.agentId, [GEN_AI.agentName]: state.agentName },
    });
    tracing.store.claim(state.key, this.session.spanContext().traceId);
  }

  /** The W3C trace context of the running turn (else the session), for `_meta` and child processes. */
  traceContext(): { traceparent: string; tracestate?: string } {
    return traceContextOf(this.turn ?? this.session);
  }

  /** Follows one batch of state changes (call after the reducer applied them). */
  observe(patches: readonly SessionPatch[]): void {
    for (const p of patches) {
      if (p.op === 'meta') this.meta();
      else if (p.op === 'toolCall') this.toolCall(p.toolCall);
      else if (p.op === 'permission') this.permission(p.permission);
      else if (p.op === 'terminal') this.terminal(p.terminal);
    }
  }

  private meta(): void {
    const s = this.state;
    if (s.sessionId && !this.conversation) {
      this.conversation = s.sessionId;
      this.session.setAttribute(GEN_AI.conversationId, s.sessionId);
      this.tracing.touch(this.session);
    }
    if (s.status === this.status) return;
    const was = this.status;
    this.status = s.status;
    if (s.status === 'prompting' && !this.turn) {
      this.turn = this.tracing.tracer.startSpan(
        `invoke_agent ${s.agentName}`,
        { kind: SpanKind.CLIENT, attributes: { [SWITCHBOARD.spanKind]: 'turn', [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.agentName]: s.agentName, [GEN_AI.agentId]: s.agentId, ...(s.sessionId ? { [GEN_AI.conversationId]: s.sessionId } : {}) } },
        under(this.session),
      );
    } else if (this.turn && (was === 'prompting' || was === 'cancelling') && s.status !== 'prompting' && s.status !== 'cancelling') {
      if (s.lastStopReason) this.turn.setAttribute(GEN_AI.finishReasons, [s.lastStopReason]);
      // The turn's own tokens (the prompt answer's `usage`), never the context window's.
      const end = s.entries.at(-1);
      const usage = end?.kind === 'turn_end' ? end.usage : undefined;
      if (usage) {
        this.turn.setAttributes({
          [GEN_AI.usageInputTokens]: usage.inputTokens,
          [GEN_AI.usageOutputTokens]: usage.outputTokens,
          ...(usage.cachedReadTokens !== undefined ? { [GEN_AI.usageCacheReadInputTokens]: usage.cachedReadTokens } : {}),
          ...(usage.cachedWriteTokens !== undefined ? { [GEN_AI.usageCacheCreationInputTokens]: usage.cachedWriteTokens } : {}),
        });
      }
      if (s.status === 'error' || s.error) this.turn.setStatus({ code: SpanStatusCode.ERROR, message: s.error?.message === undefined ? undefined : redactSecrets(s.error.message) });
      this.endOpen();
      this.close(this.turn);
      this.turn = undefined;
    }
    if (s.status === 'closed') this.end();
  }

  private toolCall(tc: SessionState['toolCalls'][string]): void {
    let span = this.tools.get(tc.toolCallId);
    if (!span) {
      // A call the editor hosts for the agent (`editor-…`, e.g. a delegation it asked for through the
      // editor's MCP server) hangs under the agent's tool call that is running: the one that caused it.
      const cause = tc.toolCallId.startsWith('editor-') ? [...this.tools.values()].filter((t) => !this.ended.has(t)).at(-1) : undefined;
      span = this.tracing.tracer.startSpan(
        `execute_tool ${toolName(tc)}`,
        { kind: SpanKind.INTERNAL, attributes: { [SWITCHBOARD.spanKind]: 'tool', [GEN_AI.operationName]: 'execute_tool', [GEN_AI.toolName]: toolName(tc), [GEN_AI.toolCallId]: tc.toolCallId, [GEN_AI.toolType]: 'function', [SWITCHBOARD.toolKind]: tc.kind } },
        under(cause ?? this.turn ?? this.session),
      );
      this.tools.set(tc.toolCallId, span);
    }
    if (this.ended.has(span)) return;
    span.updateName(`execute_tool ${toolName(tc)}`);
    span.setAttribute(SWITCHBOARD.toolStatus, tc.status);
    if (tc.verification) span.setAttribute(SWITCHBOARD.verification, tc.verification);
    if (TERMINAL_TOOL.has(tc.status)) {
      if (tc.status !== 'completed') span.setStatus({ code: SpanStatusCode.ERROR, message: tc.status });
      this.close(span);
    } else this.tracing.touch(span);
  }

  private permission(p: SessionState['permissions'][string]): void {
    let span = this.permissions.get(p.permissionId);
    if (!span) {
      const title = redactSecrets(this.state.toolCalls[p.toolCallId]?.title ?? p.toolCallId);
      span = this.tracing.tracer.startSpan(
        `permission ${title}`,
        { kind: SpanKind.INTERNAL, attributes: { [SWITCHBOARD.spanKind]: 'permission', [SWITCHBOARD.permissionId]: p.permissionId, [GEN_AI.toolCallId]: p.toolCallId, [SWITCHBOARD.askedAt]: p.unrequested ? 'effect' : 'request', ...(p.intentHash ? { [SWITCHBOARD.intentHash]: p.intentHash } : {}) } },
        under(this.tools.get(p.toolCallId) ?? this.turn ?? this.session),
      );
      this.permissions.set(p.permissionId, span);
    }
    if (p.state === 'waiting') return;
    const option = p.options.find((o) => o.optionId === p.optionId);
    span.setAttributes({
      [SWITCHBOARD.decision]: p.state === 'selected' ? (option?.kind ?? 'selected') : 'cancelled',
      [SWITCHBOARD.decidedBy]: p.answeredBy ?? 'cancel',
      ...(p.grant ? { [SWITCHBOARD.grantScope]: p.grant.scope } : {}),
    });
    this.close(span);
    this.permissions.delete(p.permissionId);
  }

  /**
   * A call the agent made to the editor's MCP server (`tools/call`, a SERVER span): under the span
   * its `traceparent` names when that is in this session's trace, else under the tool call that is
   * running (the call that caused it), else the turn.
   */
  mcpServerCall(tool: string, call: { startMs: number; endMs: number; traceparent?: string }, outcome: string): void {
    const m = call.traceparent && /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(call.traceparent);
    const sessionTrace = this.session.spanContext().traceId;
    const open = [...this.tools.values()].filter((s) => !this.ended.has(s)).at(-1);
    const parentCtx = m && m[1] === sessionTrace ? new W3CTraceContextPropagator().extract(ROOT_CONTEXT, { traceparent: call.traceparent!.replace(/-[0-9a-f]{2}$/, '-01') }, { get: (c, k) => c[k as keyof typeof c], keys: (c) => Object.keys(c) }) : under(open ?? this.turn ?? this.session);
    const span = this.tracing.tracer.startSpan(
      `tools/call ${tool}`,
      { kind: SpanKind.SERVER, startTime: call.startMs, attributes: { [SWITCHBOARD.spanKind]: 'mcp', [MCP.methodName]: 'tools/call', [GEN_AI.toolName]: tool, [GEN_AI.operationName]: 'execute_tool', 'server.address': 'editor' } },
      parentCtx,
    );
    if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(outcome) });
    span.end(call.endMs);
  }

  /** The span of a tool call (while the session knows it). */
  toolSpan(toolCallId: string): Span | undefined {
    return this.tools.get(toolCallId);
  }

  /** Names the agent's version on the session span (from `initialize`'s `agentInfo`). */
  agentInfo(info: { name?: string; version?: string } | undefined): void {
    if (!info?.version) return;
    this.session.setAttribute(SWITCHBOARD.agentVersion, info.version);
    this.tracing.touch(this.session);
  }

  /**
   * A client-hosted effect (a write, a command) the gate allowed: a span under its tool call (else
   * the turn) with why it was allowed — the person's approval and its intent hash, a standing grant
   * (id, scope, expiry) or a policy rule — and, for a command, whether it runs in the sandbox and in
   * which profile. @returns the function that ends it: `error` when it failed; `terminalId` when a
   * command started in that terminal, whose span then lasts until the process exits (its exit code,
   * and what the sandbox's overlay held back, are known only then).
   */
  effect(check: Extract<EffectCheck, { allowed: true }>, toolCallId: string | undefined): (error?: string, terminalId?: string) => void {
    const e = check.effect;
    // A command line may carry a token (`curl -H "Authorization: …"`, `FOO_TOKEN=… make`).
    const target = redactSecrets(e.type === 'write' ? e.path : [e.command ?? '', ...e.args].join(' ').trim());
    const span = this.tracing.tracer.startSpan(
      `${e.type === 'write' ? 'write' : 'run'} ${target.length > 80 ? `${target.slice(0, 79)}…` : target}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [SWITCHBOARD.spanKind]: 'effect',
          [SWITCHBOARD.effectKind]: e.type,
          [SWITCHBOARD.effectTarget]: target,
          [SWITCHBOARD.decisionSource]: check.source,
          ...(toolCallId ? { [GEN_AI.toolCallId]: toolCallId } : {}),
          ...(check.source === 'approval' ? { [SWITCHBOARD.intentHash]: check.approval.hash, [SWITCHBOARD.decidedBy]: check.approval.decidedBy, [SWITCHBOARD.grantScope]: check.approval.scope, ...(check.approval.expiresAt ? { [SWITCHBOARD.grantExpiresAt]: new Date(check.approval.expiresAt).toISOString() } : {}) } : {}),
          ...(check.source === 'grant' ? { [SWITCHBOARD.grantId]: check.grant.id, [SWITCHBOARD.grantScope]: check.grant.scope, [SWITCHBOARD.decidedBy]: `grant:${check.grant.source}`, ...(check.grant.expiresAt ? { [SWITCHBOARD.grantExpiresAt]: new Date(check.grant.expiresAt).toISOString() } : {}) } : {}),
          ...(check.source === 'rule' || check.source === 'policy' ? { [SWITCHBOARD.decidedBy]: check.source } : {}),
          ...(e.type === 'command' ? sandboxAttributes(e.sandbox) : {}),
        },
      },
      under((toolCallId && this.tools.get(toolCallId)) || this.turn || this.session),
    );
    return (error, terminalId) => {
      if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(error) });
      if (error || terminalId === undefined || e.type !== 'command') return this.close(span);
      this.running.set(terminalId, { span, overlay: e.sandbox?.holdsBackRunnable === true });
      this.tracing.touch(span);
      // A command that exited before its start was reported (a fast `true`) is in the state already.
      const t = this.state.terminals[terminalId];
      if (t) this.terminal(t);
    };
  }

  /** A terminal changed: the span of the command it runs ends when it has exited. */
  private terminal(t: SessionState['terminals'][string]): void {
    const run = this.running.get(t.terminalId);
    if (!run || !t.exitStatus) return;
    this.running.delete(t.terminalId);
    // A command that fails did run: its exit code says how it ended, the span's status stays the effect's.
    const { exitCode } = t.exitStatus;
    run.span.setAttributes({
      ...(exitCode !== null ? { [PROCESS.exitCode]: exitCode } : {}),
      ...(run.overlay && t.sandboxHeldBack !== undefined ? { [SWITCHBOARD.sandboxHeldBack]: t.sandboxHeldBack } : {}),
    });
    this.close(run.span);
  }

  /** Ends what is still open under the turn (the turn ended without their end). */
  private endOpen(): void {
    for (const s of this.permissions.values()) this.close(s);
    this.permissions.clear();
    for (const s of this.tools.values()) this.close(s);
  }

  /** Ends every open span of the session (it closed). */
  end(): void {
    this.endOpen();
    for (const run of this.running.values()) this.close(run.span);
    this.running.clear();
    if (this.turn) this.close(this.turn);
    this.turn = undefined;
    this.close(this.session);
  }

  private close(span: Span): void {
    if (this.ended.has(span)) return;
    this.ended.add(span);
    span.end();
  }
}

/** A tool call's name in a span: its title (often the command line it runs), redacted, or its kind. */
function toolName(tc: SessionState['toolCalls'][string]): string {
  return tc.title ? redactSecrets(tc.title) : tc.kind;
}

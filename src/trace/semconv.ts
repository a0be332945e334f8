/**
 * The attribute names our spans carry, in one place. The GenAI and MCP semantic conventions are
 * still "Development" upstream (semantic-conventions 1.45, `incubating`), so the strings are pinned
 * here rather than imported; our own attributes use the `agent_switchboard.` namespace.
 * Spec: PROTOCOLS.md §5.2.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
} as const;

/** OpenTelemetry process semantic conventions: how a command we started ended. */
export const PROCESS = {
  exitCode: 'process.exit.code',
} as const;

/** MCP semantic conventions (Development upstream). */
export const MCP = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
} as const;

/** Our own attributes (the decision, the grant, the intent), never part of an upstream convention. */
export const SWITCHBOARD = {
  sessionKey: 'agent_switchboard.session.key',
  spanKind: 'agent_switchboard.span.kind',
  toolKind: 'agent_switchboard.tool.kind',
  toolStatus: 'agent_switchboard.tool.status',
  permissionId: 'agent_switchboard.permission.id',
  /**
   * Where the person was asked: `request` (the agent's `session/request_permission`) or `effect`
   * (the agent sent the write or command without asking; it was held and asked about, issue 19).
   */
  askedAt: 'agent_switchboard.permission.asked_at',
  intentHash: 'agent_switchboard.intent.hash',
  decision: 'agent_switchboard.decision',
  decidedBy: 'agent_switchboard.decided_by',
  /** Who asked for a delegation: `person`, or `agent:<name>` (then a permission span says who decided). */
  requestedBy: 'agent_switchboard.requested_by',
  grantScope: 'agent_switchboard.grant.scope',
  verification: 'agent_switchboard.verification',
  agentVersion: 'agent_switchboard.agent.version',
  grantId: 'agent_switchboard.grant.id',
  grantExpiresAt: 'agent_switchboard.grant.expires_at',
  /** Why an effect was allowed: `approval` (the person's decision), `grant`, `rule` or `policy`. */
  decisionSource: 'agent_switchboard.decision.source',
  effectKind: 'agent_switchboard.effect.kind',
  effectTarget: 'agent_switchboard.effect.target',
  /**
   * Whether a process we started (an agent's command, a stdio MCP server) ran in the sandbox:
   * `true` with the profile's hash, `false` when it ran unsandboxed. Absent on writes, which the
   * editor performs itself.
   */
  sandboxed: 'agent_switchboard.sandboxed',
  /** SHA-256 of the sandbox profile the process ran in (the one its approval covered, `profileHash`). */
  sandboxProfileHash: 'agent_switchboard.sandbox.profile.hash',
  /** Hosts the sandbox let the process reach (empty: no network). */
  sandboxAllowedHosts: 'agent_switchboard.sandbox.allowed_hosts',
  /** Whether the process saw its folders through the overlay that holds back files that run. */
  sandboxOverlay: 'agent_switchboard.sandbox.overlay',
  /** How many changes the overlay held back (files that run), set when the command has exited. */
  sandboxHeldBack: 'agent_switchboard.sandbox.held_back',
  a2aTaskId: 'agent_switchboard.a2a.task.id',
  a2aTaskState: 'agent_switchboard.a2a.task.state',
  a2aArtifacts: 'agent_switchboard.a2a.artifacts',
  /** `verified`, `unsigned` or `failed`: what the check of the remote agent's card found. */
  a2aCardSignature: 'agent_switchboard.a2a.card.signature',
} as const;

/** What a span of ours stands for (the trace panel filters on it). */
export type SpanRole = 'session' | 'turn' | 'tool' | 'permission' | 'effect' | 'mcp' | 'delegation' | 'a2a';

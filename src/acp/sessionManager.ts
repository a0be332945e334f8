/**
 * All sessions of the window: starts agents (one connection per session, so a session's lifetime
 * owns its agent process), keeps their controllers, and re-emits their changes.
 *
 * No `vscode`: editor services come in through the {@link SessionManagerDeps} ports.
 */
import type { McpCapabilities } from '@agentclientprotocol/sdk';
import type { ForwardResult } from '../mcp/forward';
import { Emitter, type Event } from '../common/lifecycle';
import { agentEnv, type ResolvedAgent } from '../config/agents';
import { AgentConnection, AgentLaunchError, errorMessage } from './connection';
import type { EffectPolicy } from '../policy/effectPolicy';
import { SessionController, type FileSystemPort, type SessionChange, type TerminalsPort } from './sessionController';
import { SessionSpans } from '../trace/sessionSpans';
import { addOtelEnv } from '../trace/receiver';
import type { Tracing } from '../trace/tracing';

/** What the manager needs from its host. */
export interface SessionManagerDeps {
  /** The agents the person can start (settings + presets + demo). */
  agents(): readonly ResolvedAgent[];
  /** Base environment for agent processes (usually `process.env`). */
  baseEnv(): NodeJS.ProcessEnv;
  /** Milliseconds to wait for `initialize`. */
  initializeTimeoutMs(): number;
  clientInfo: { name: string; title?: string; version: string };
  filesFor(key: string): FileSystemPort;
  /** The window's permission gate (shared by all sessions). */
  policy: EffectPolicy;
  terminalsFor(key: string, cwd: string): TerminalsPort;
  /** The MCP servers to hand session `key`'s agent, given its capabilities, in `session/new`. */
  mcpServers?(caps: McpCapabilities | undefined, key: string): Promise<ForwardResult>;
  /** Agent stderr, for an output channel. */
  onStderr?(agentId: string, text: string): void;
  /** The window's tracing (our spans into the trace store); sessions are traced when given. */
  tracing?: Tracing;
  /**
   * The environment that points an agent's own OpenTelemetry exporter at our receiver (started on
   * demand), or undefined when propagation is off.
   */
  otelEnv?(sessionKey: string): Promise<Record<string, string> | undefined>;
}

/** Thrown by {@link SessionManager.start} for an unknown or unavailable agent id. */
export class UnknownAgentError extends Error {}

/** Owns every session of the window. */
export class SessionManager {
  private readonly sessions = new Map<string, SessionController>();
  private readonly changeEmitter = new Emitter<SessionChange>();
  private readonly listEmitter = new Emitter<void>();
  /** Fires for every state change of any session. */
  readonly onDidChangeSession: Event<SessionChange> = this.changeEmitter.event;
  /** Fires when a session is added or removed. */
  readonly onDidChangeSessions: Event<void> = this.listEmitter.event;
  private seq = 0;

  constructor(private readonly deps: SessionManagerDeps) {}

  /**
   * Starts `agentId` in `cwd`: spawns it, runs `initialize` and `session/new`. The session is listed
   * (status `starting`) before the agent answers, so the sidebar shows progress and, on failure, the
   * error with the command line, PATH, exit code and stderr tail.
   * @throws {UnknownAgentError} for an unknown or unavailable agent (nothing is listed then).
   * @throws {AgentLaunchError} when the agent cannot start; the session stays listed with the error.
   */
  async start(agentId: string, cwd: string): Promise<SessionController> {
    const agent = this.deps.agents().find((a) => a.id === agentId);
    if (!agent) throw new UnknownAgentError(`No agent with id "${agentId}". Known: ${this.deps.agents().map((a) => a.id).join(', ')}.`);
    if (!agent.available) throw new UnknownAgentError(`${agent.name} is not available: ${agent.reason}`);
    const key = `s${++this.seq}`;
    const controller = new SessionController(
      { key, agentId: agent.id, agentName: agent.name, cwd },
      this.deps.filesFor(key),
      this.deps.terminalsFor(key, cwd),
      this.deps.policy,
    );
    controller.onDidChange((c) => this.changeEmitter.fire(c));
    const spans = this.deps.tracing && new SessionSpans(this.deps.tracing, controller.state);
    if (spans) controller.traceWith(spans);
    this.sessions.set(key, controller);
    this.listEmitter.fire();
    let connection: AgentConnection;
    try {
      // The agent's own spans (if it exports OpenTelemetry) go to our receiver, under this session.
      const otel = spans && (await this.deps.otelEnv?.(key));
      const env = agentEnv(this.deps.baseEnv(), agent.env);
      // What the agent's configuration (or the person's environment) says about OpenTelemetry wins over ours.
      if (otel && spans) addOtelEnv(env, otel, spans.traceContext().traceparent);
      connection = await AgentConnection.start(
        {
          command: agent.resolvedCommand ?? agent.command,
          args: agent.args,
          env,
          cwd,
        },
        {
          agentName: agent.name,
          clientInfo: this.deps.clientInfo,
          initializeTimeoutMs: this.deps.initializeTimeoutMs(),
          onStderr: (t) => this.deps.onStderr?.(agent.id, t),
        },
      );
    } catch (err) {
      controller.fail(err instanceof AgentLaunchError ? err.view : { message: `Could not start ${agent.name}: ${errorMessage(err)}` });
      throw err;
    }
    if (!this.sessions.has(key)) {
      // Closed while starting: do not leave the agent running.
      await connection.dispose();
      throw new Error('The session was closed while the agent was starting.');
    }
    try {
      spans?.agentInfo(connection.agentInfo);
      await controller.attach(connection, await this.deps.mcpServers?.(connection.mcpCapabilities, key));
    } catch (err) {
      await connection.dispose();
      throw err;
    }
    return controller;
  }

  get(key: string): SessionController | undefined {
    return this.sessions.get(key);
  }

  list(): SessionController[] {
    return [...this.sessions.values()];
  }

  /** Closes a session: answers its open requests, kills its terminals and its agent. */
  async close(key: string): Promise<void> {
    const c = this.sessions.get(key);
    if (!c) return;
    this.sessions.delete(key);
    this.listEmitter.fire();
    await c.dispose();
  }

  /** Closes every session; resolves when every agent and terminal process group is gone. */
  async dispose(): Promise<void> {
    const all = [...this.sessions.keys()];
    await Promise.allSettled(all.map((k) => this.close(k)));
    this.changeEmitter.dispose();
    this.listEmitter.dispose();
  }
}

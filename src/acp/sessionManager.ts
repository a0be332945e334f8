/**
 * All sessions of the window: starts agents (one connection per session, so a session's lifetime
 * owns its agent process), keeps their controllers, and re-emits their changes.
 *
 * No `vscode`: editor services come in through the {@link SessionManagerDeps} ports.
 */
import { randomUUID } from 'node:crypto';
import type { McpCapabilities, SessionInfo } from '@agentclientprotocol/sdk';
import type { SessionJournal } from './session/journal';
import type { CapabilityBook } from './capabilityBook';
import { reduce } from './session/reducer';
import type { SessionState, WorktreeView } from './session/types';
import type { ForwardResult } from '../mcp/forward';
import { Emitter, type Event } from '../common/lifecycle';
import { agentEnv, type ResolvedAgent } from '../config/agents';
import { authChoicesOf, type AuthChoice } from './authMethods';
export type { AuthChoice } from './authMethods';
import { missingPrerequisites } from './agentPrerequisites';
import { AgentConnection, AgentLaunchError, errorMessage } from './connection';
import { compatLoadDelay, compatRulesFor } from './compat';
import type { EffectPolicy } from '../policy/effectPolicy';
import { agentFingerprint } from '../policy/grants';
import { SessionController, type FileSystemPort, type SessionChange, type TerminalsPort } from './sessionController';
import { SessionSpans } from '../trace/sessionSpans';
import { addOtelEnv } from '../trace/receiver';
import { NO_PLAN, type AgentStartPlan } from '../agentConfig/plan';
import type { Tracing } from '../trace/tracing';

/** What the manager needs from its host. */
export interface SessionManagerDeps {
  /** The agents the person can start (settings + presets + demo). */
  agents(): readonly ResolvedAgent[];
  /** Base environment for agent processes (usually `process.env`). */
  baseEnv(): NodeJS.ProcessEnv;
  /** Where each agent version's capability matrix is kept (every connection counts into it). */
  capabilities?: CapabilityBook;
  /** Where sessions are journaled (transcripts that survive a reload); none in tests that do not care. */
  journal?: SessionJournal;
  /** Milliseconds to wait for `initialize`. */
  initializeTimeoutMs(): number;
  /** Milliseconds an agent has to answer a stopped turn before Restart Agent is offered (default 10 000). */
  cancelGraceMs?(): number;
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
  /**
   * How `agent` starts in `cwd` given the repository's configuration for it (agentConfig/gate.ts):
   * asked before every agent process starts. `ask`: a session the person starts (they may be
   * asked); false for a short-lived process, which starts with whatever is not allowed switched off.
   * @throws to keep the agent from starting (the person declined).
   */
  agentConfig?(agent: ResolvedAgent, cwd: string, ask: boolean): Promise<AgentStartPlan>;
}

/**
 * One of an agent's `authMethods` (ACP v1 `initialize`) as the person is offered it. `terminal`: a
 * `type: "terminal"` method, run as the agent's own command with the method's extra arguments and
 * environment (names that change what runs, such as PATH or NODE_OPTIONS, are not taken).
 */

/**
 * Asked when `session/new` answers "authentication required" (-32000) for a start the person made.
 * Spec: https://agentclientprotocol.com/protocol/initialization#authentication
 */
export interface AuthPort {
  /** The method the person picks among the agent's; undefined when they decline (the error stands). */
  choose(agent: { id: string; name: string }, methods: readonly AuthChoice[]): Promise<AuthChoice | undefined>;
  /**
   * Runs a terminal method's login where the person can answer it; resolves once the login
   * process has ended (whatever its outcome: the agent itself then says whether it is logged in).
   */
  runTerminal(agent: { id: string; name: string }, method: AuthChoice & { terminal: NonNullable<AuthChoice['terminal']> }, cwd: string): Promise<void>;
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
  /** The journal of each listed session that has one. */
  private readonly journalOf = new Map<string, string>();
  /** Take-ups under way, by journal or agent session, so a double click starts one agent. */
  private readonly takingUp = new Map<string, Promise<SessionController>>();
  private readonly closeEmitter = new Emitter<{ key: string; state: SessionState }>();
  /** Fires when a session leaves the list (closed by the person, replaced, or at window end). */
  readonly onDidCloseSession: Event<{ key: string; state: SessionState }> = this.closeEmitter.event;

  constructor(private readonly deps: SessionManagerDeps) {}

  /**
   * Starts `agentId` in `cwd`: spawns it, runs `initialize` and `session/new`. The session is listed
   * (status `starting`) before the agent answers, so the sidebar shows progress and, on failure, the
   * error with the command line, PATH, exit code and stderr tail.
   *
   * With `auth`, an agent that answers `session/new` with "authentication required" (-32000) gets
   * one login: the person picks one of its `authMethods`; an agent method is sent as `authenticate`
   * on the same connection, a terminal method runs its login (`auth.runTerminal`) and the agent is
   * then started again (a new process, `initialize` again) and never sent `authenticate`. Then
   * `session/new` is tried once more. With `worktree` (issue 20) the session works in that git
   * worktree: `cwd` is inside it, and its effects are contained there.
   * @throws {UnknownAgentError} for an unknown or unavailable agent (nothing is listed then).
   * @throws {AgentLaunchError} when the agent cannot start; the session stays listed with the error.
   *   The agent's JSON-RPC error when `session/new` (or the one retry, or `authenticate`) fails.
   */
  async start(agentId: string, cwd: string, auth?: AuthPort, worktree?: WorktreeView): Promise<SessionController> {
    const agent = this.agent(agentId);
    const key = newSessionKey();
    const journalId = this.deps.journal?.create({ agentId: agent.id, agentName: agent.name, cwd });
    const controller = this.add(key, agent, cwd, journalId);
    // Before the agent starts: its first effect is already contained in the worktree.
    if (worktree) controller.setWorktree(worktree);
    let connection = await this.launch(agent, controller);
    try {
      let mcp = await this.deps.mcpServers?.(connection.mcpCapabilities, key);
      try {
        await controller.attach(connection, mcp);
      } catch (err) {
        const methods = auth && (err as { code?: unknown })?.code === -32000 ? this.authChoices(agent, connection) : [];
        const method = methods.length ? await auth!.choose(agent, methods) : undefined;
        if (!method) throw err;
        if (method.terminal) {
          controller.notice('info', `Logging in to ${agent.name} in a terminal (${method.name}); the agent starts again when the login has ended.`);
          await auth!.runTerminal(agent, { ...method, terminal: method.terminal }, cwd);
          // The login changed what the agent finds on start: a new process reads it (no `authenticate`).
          await connection.dispose();
          connection = await this.launch(agent, controller);
          mcp = await this.deps.mcpServers?.(connection.mcpCapabilities, key);
        } else {
          controller.notice('info', `Logging in to ${agent.name} (${method.name}).`);
          try {
            await connection.authenticate(method.id);
          } catch (authErr) {
            controller.fail({ message: `authenticate (${method.name}) failed: ${errorMessage(authErr)}` });
            throw authErr;
          }
        }
        await controller.attach(connection, mcp);
      }
    } catch (err) {
      // An agent that died during `session/new` is reported as a launch failure, with its stderr.
      // An answer with an error code came from a living agent: no need to wait for an exit then.
      const answered = typeof (err as { code?: unknown })?.code === 'number';
      const died = await connection.exitError(answered ? 0 : 1000);
      await connection.dispose();
      throw died ?? err;
    }
    return controller;
  }

  /** The agent's `authMethods`, with how to run the terminal ones (see {@link AuthChoice}). */
  private authChoices(agent: ResolvedAgent, connection: AgentConnection): AuthChoice[] {
    return authChoicesOf(connection.init.authMethods ?? [], agent, agentEnv(this.deps.baseEnv(), agent.env));
  }

  /**
   * Shows a journaled session again, read-only (status `closed`), rebuilt from its journal; the one
   * already listed when it is. @throws Error when the journal is unknown or unreadable.
   */
  restore(journalId: string): SessionController {
    const listed = this.byJournal(journalId);
    if (listed) return listed;
    const journal = this.requireJournal();
    const entry = journal.get(journalId);
    if (!entry) throw new Error('That session is no longer in the journal.');
    const key = newSessionKey();
    const { state, skipped } = journal.replay(journalId, key);
    // Not recorded: the journal keeps the session as it was, a later take-up carries on from there.
    if (state.status !== 'closed') reduce(state, { type: 'closed' });
    if (skipped) reduce(state, { type: 'notice', severity: 'warning', text: `${skipped} line${skipped > 1 ? 's' : ''} of this session's journal could not be read and were skipped.` });
    const controller = this.add(key, { id: entry.agentId, name: entry.agentName }, entry.cwd, undefined, state);
    this.journalOf.set(key, journalId);
    return controller;
  }

  /**
   * Takes an earlier session up again in a new agent process. A journaled session is resumed
   * (`session/resume`: the transcript is ours, the agent carries on) when the agent offers it, else
   * loaded (`session/load`: the agent replays it into a fresh transcript); a session only the agent
   * knows (from `session/list`) is loaded. The listed copy of the session (read-only, or failed) is
   * replaced: `replacing(oldKey, newKey)` is called first, so views can follow. A second call for
   * the same session while one is under way gets the same answer.
   * @throws {UnknownAgentError} for an unknown agent; {@link AgentLaunchError} when it cannot start;
   *   Error when the agent can neither resume nor load sessions, or refuses this one.
   */
  takeUp(
    target: { journalId: string } | { agentId: string; sessionId: string; cwd: string; title?: string },
    replacing?: (oldKey: string, newKey: string) => void,
  ): Promise<SessionController> {
    const entry = 'journalId' in target ? this.deps.journal?.get(target.journalId) : undefined;
    const id = entry ? `j:${entry.journalId}` : 'agentId' in target ? `s:${target.agentId}:${target.sessionId}` : `j:${(target as { journalId: string }).journalId}`;
    let pending = this.takingUp.get(id);
    if (!pending) {
      pending = this.doTakeUp(target, replacing).finally(() => this.takingUp.delete(id));
      this.takingUp.set(id, pending);
    }
    return pending;
  }

  private async doTakeUp(
    target: { journalId: string } | { agentId: string; sessionId: string; cwd: string; title?: string },
    replacing?: (oldKey: string, newKey: string) => void,
  ): Promise<SessionController> {
    const journal = this.deps.journal;
    const entry = 'journalId' in target ? journal?.get(target.journalId) : undefined;
    if ('journalId' in target && !entry) throw new Error('That session is no longer in the journal.');
    const agentId = entry?.agentId ?? (target as { agentId: string }).agentId;
    const sessionId = entry?.sessionId ?? (target as { sessionId?: string }).sessionId;
    const cwd = entry?.cwd ?? (target as { cwd: string }).cwd;
    if (!sessionId) throw new Error('That session never got a session id from its agent, so it cannot be taken up; its transcript stays readable.');
    const agent = this.agent(agentId);
    const live = [...this.sessions.values()].find((c) => c.state.sessionId === sessionId && c.state.agentId === agentId && c.connected);
    if (live) return live;
    const key = newSessionKey();
    // Resuming needs our transcript; without one (or if the agent cannot resume) the agent replays it.
    const replayed = entry ? journal!.replay(entry.journalId, key).state : undefined;
    const old = (entry && this.byJournal(entry.journalId)) || [...this.sessions.values()].find((c) => c.state.sessionId === sessionId && c.state.agentId === agentId);
    if (old) {
      replacing?.(old.state.key, key);
      await this.close(old.state.key);
    }
    // The copy shown while the agent starts carries the journal, so a failure leaves it where it was.
    const provisional = this.add(key, agent, cwd, undefined, replayed);
    if (entry) {
      this.journalOf.set(key, entry.journalId);
      journal!.setOpen(entry.journalId, true);
    }
    const connection = await this.launch(agent, provisional);
    const support = connection.sessionSupport;
    const how = replayed && support.resume ? 'resume' : support.load ? 'load' : undefined;
    if (!how) {
      await connection.dispose();
      provisional.fail({ message: `${agent.name} can neither resume nor load earlier sessions (it declares neither sessionCapabilities.resume nor loadSession). Its transcript stays readable; start a new session to carry on.` });
      throw new Error(`${agent.name} cannot take up earlier sessions.`);
    }
    const held = how === 'load' && entry ? await this.holdLoadBack(provisional, connection, entry.createdAt) : undefined;
    let controller = provisional;
    if (how === 'load' && replayed) {
      // The agent replays the conversation: start from an empty transcript so nothing shows twice.
      this.sessions.delete(key);
      this.journalOf.delete(key);
      void provisional.dispose();
      controller = this.add(key, agent, cwd, undefined);
      this.trace(controller)?.agentInfo(connection.agentInfo);
    }
    const journalId = how === 'resume' ? entry!.journalId : journal?.create({ agentId: agent.id, agentName: agent.name, cwd });
    if (journalId) {
      controller.recordWith((a) => journal!.record(journalId, a));
      this.journalOf.set(key, journalId);
    }
    let done: 'new' | 'load' | 'resume';
    try {
      done = await controller.attach(connection, await this.deps.mcpServers?.(connection.mcpCapabilities, key), { how, sessionId });
    } catch (err) {
      await connection.dispose();
      throw err;
    }
    if (done === 'new') {
      // The agent forgot the session and a new one took its place (the thread says so). A journal
      // we had stays listed with its transcript, but names the new session from now on: its dead
      // id is never asked for again. (A resumed journal took the new id with `ready` already.)
      if (how === 'load' && entry && journalId !== entry.journalId && controller.state.sessionId) {
        journal!.record(entry.journalId, { type: 'ready', sessionId: controller.state.sessionId });
        journal!.setOpen(entry.journalId, false);
      }
      return controller;
    }
    controller.notice('info', how === 'resume' ? `Resumed in a new ${agent.name} process (session/resume).` : `Loaded from ${agent.name} (session/load): the agent replayed the conversation above.`);
    if (held) controller.notice('info', held);
    if (how === 'load' && journalId) {
      // The earlier journal keeps what only we knew (decisions, notices); the new one replaces it in lists.
      if (entry) journal!.supersede(entry.journalId, journalId);
      else if ('title' in target && target.title) journal!.setTitle(journalId, target.title);
    }
    return controller;
  }

  /**
   * Waits as long as a compatibility rule holds `session/load` back for this agent (compat.ts:
   * gemini-cli overwrites a session it loads within the minute the session began), saying so in the
   * session. @returns a sentence for the loaded session when it waited.
   * @throws Error (the agent is ended) when the session was closed meanwhile.
   */
  private async holdLoadBack(controller: SessionController, connection: AgentConnection, startedAt: number): Promise<string | undefined> {
    const hold = compatLoadDelay(compatRulesFor(connection.agentInfo), startedAt, Date.now());
    if (!hold) return undefined;
    const seconds = Math.ceil(hold.waitMs / 1000);
    const why = `${controller.state.agentName} loses a session it loads within the minute the session began (compatibility rule ${hold.ruleId})`;
    controller.notice('info', `Waiting ${seconds} s before session/load: ${why}.`);
    await new Promise((r) => setTimeout(r, hold.waitMs));
    if (this.sessions.get(controller.state.key) !== controller) {
      await connection.dispose();
      throw new Error('The session was closed while it waited to be loaded.');
    }
    return `session/load waited ${seconds} s: ${why}.`;
  }

  /**
   * The agent's own list of sessions (`session/list`), through a session of that agent already
   * running, else a short-lived process that is ended afterwards. Empty when the agent does not list.
   * @throws {UnknownAgentError} for an unknown agent; {@link AgentLaunchError} when it cannot start.
   */
  async listAgentSessions(agentId: string, cwd: string): Promise<{ supported: boolean; sessions: SessionInfo[] }> {
    const agent = this.agent(agentId);
    const running = [...this.sessions.values()].find((c) => c.state.agentId === agentId && c.connected);
    const connection = running?.connection ?? (await this.connect(agent, cwd));
    try {
      if (!connection.sessionSupport.list) return { supported: false, sessions: [] };
      return { supported: true, sessions: await connection.listSessions(cwd) };
    } finally {
      if (!running) await connection.dispose();
    }
  }

  /**
   * The agent's `authMethods` (from a short-lived process), with how to run a terminal login: the
   * agent's own command with the method's extra arguments and environment.
   * @throws {UnknownAgentError}; {@link AgentLaunchError} when the agent cannot start.
   */
  async authMethods(agentId: string, cwd: string): Promise<AuthChoice[]> {
    const agent = this.agent(agentId);
    const connection = await this.connect(agent, cwd);
    try {
      return this.authChoices(agent, connection);
    } finally {
      await connection.dispose();
    }
  }

  /**
   * `authenticate` with an agent method (the agent logs itself in) in a short-lived process.
   * @throws the agent's JSON-RPC error; {@link UnknownAgentError}; {@link AgentLaunchError}.
   */
  async authenticate(agentId: string, cwd: string, methodId: string): Promise<void> {
    const connection = await this.connect(this.agent(agentId), cwd);
    try {
      await connection.authenticate(methodId);
    } finally {
      await connection.dispose();
    }
  }

  /** The journal id of session `key`, when it has one. */
  journalIdOf(key: string): string | undefined {
    return this.journalOf.get(key);
  }

  private byJournal(journalId: string): SessionController | undefined {
    for (const [key, id] of this.journalOf) if (id === journalId) return this.sessions.get(key);
    return undefined;
  }

  private requireJournal(): SessionJournal {
    if (!this.deps.journal) throw new Error('Sessions are not journaled in this window.');
    return this.deps.journal;
  }

  private agent(agentId: string): ResolvedAgent {
    const agent = this.deps.agents().find((a) => a.id === agentId);
    if (!agent) throw new UnknownAgentError(`No agent with id "${agentId}". Known: ${this.deps.agents().map((a) => a.id).join(', ')}.`);
    if (!agent.available) throw new UnknownAgentError(`${agent.name} is not available: ${agent.reason}`);
    return agent;
  }

  /** Lists a new session controller (journaled when `journalId` is given) and announces it. */
  private add(key: string, agent: { id: string; name: string } | ResolvedAgent, cwd: string, journalId: string | undefined, restored?: SessionState): SessionController {
    // Grants are bound to what the agent process runs (exactly what `connect` starts), not its id.
    const fingerprint = 'command' in agent ? agentFingerprint({ command: agent.resolvedCommand ?? agent.command, args: agent.args, env: agent.env }) : undefined;
    const controller = new SessionController(
      { key, agentId: agent.id, agentName: agent.name, cwd, agentFingerprint: fingerprint },
      this.deps.filesFor(key),
      this.deps.terminalsFor(key, cwd),
      this.deps.policy,
      Date.now,
      restored,
    );
    if (journalId && this.deps.journal) {
      const journal = this.deps.journal;
      controller.recordWith((a) => journal.record(journalId, a));
      this.journalOf.set(key, journalId);
    }
    const grace = this.deps.cancelGraceMs;
    if (grace) controller.cancelGraceMs = () => grace();
    controller.onDidChange((c) => this.changeEmitter.fire(c));
    this.sessions.set(key, controller);
    this.listEmitter.fire();
    return controller;
  }

  /**
   * Spawns and initializes the agent for `controller` (traced when tracing is on).
   * @throws {AgentLaunchError} (also shown in the session) when it cannot start; Error when the
   *   session was closed meanwhile (the agent is ended).
   */
  private async launch(agent: ResolvedAgent, controller: SessionController): Promise<AgentConnection> {
    const key = controller.state.key;
    const spans = this.trace(controller);
    let connection: AgentConnection;
    let plan: AgentStartPlan;
    try {
      // The agent's own spans (if it exports OpenTelemetry) go to our receiver, under this session.
      const otel = spans && (await this.deps.otelEnv?.(key));
      // The repository's configuration for this agent is settled before the agent can read it.
      plan = (await this.deps.agentConfig?.(agent, controller.state.cwd, true)) ?? NO_PLAN;
      connection = await this.connect(agent, controller.state.cwd, otel && spans ? { otel, traceparent: spans.traceContext().traceparent } : undefined, plan);
    } catch (err) {
      controller.fail(err instanceof AgentLaunchError ? err.view : { message: `Could not start ${agent.name}: ${errorMessage(err)}` });
      throw err;
    }
    if (this.sessions.get(key) !== controller) {
      // Closed while starting: do not leave the agent running.
      await connection.dispose();
      throw new Error('The session was closed while the agent was starting.');
    }
    spans?.agentInfo(connection.agentInfo);
    for (const n of plan.notices) controller.notice(n.severity, n.text);
    // A program the agent runs its own work with and lacks (codex-acp without bubblewrap) is said
    // up front, instead of as tool cards that fail with no output.
    for (const text of missingPrerequisites(connection.agentInfo?.name, process.platform, agentEnv(this.deps.baseEnv(), agent.env).PATH)) controller.notice('warning', text);
    return connection;
  }

  private trace(controller: SessionController): SessionSpans | undefined {
    const spans = this.deps.tracing && new SessionSpans(this.deps.tracing, controller.state);
    if (spans) controller.traceWith(spans);
    return spans;
  }

  /**
   * Starts `agent`'s process in `cwd`. `plan`: how it starts given the repository's configuration;
   * without one (a short-lived process) it is asked for, without asking the person.
   */
  private async connect(agent: ResolvedAgent, cwd: string, tracing?: { otel: Record<string, string>; traceparent: string }, plan?: AgentStartPlan): Promise<AgentConnection> {
    const start = plan ?? (await this.deps.agentConfig?.(agent, cwd, false)) ?? NO_PLAN;
    const env = { ...agentEnv(this.deps.baseEnv(), agent.env), ...start.env };
    // What the agent's configuration (or the person's environment) says about OpenTelemetry wins over ours.
    if (tracing) addOtelEnv(env, tracing.otel, tracing.traceparent);
    const connection = await AgentConnection.start(
      { command: agent.resolvedCommand ?? agent.command, args: agent.args, env, cwd },
      {
        agentName: agent.name,
        clientInfo: this.deps.clientInfo,
        initializeTimeoutMs: this.deps.initializeTimeoutMs(),
        onStderr: (t) => this.deps.onStderr?.(agent.id, t),
      },
    );
    connection.sessionStart = { ...(start.sessionMeta ? { meta: start.sessionMeta } : {}), ...(start.modeId ? { modeId: start.modeId } : {}) };
    const book = this.deps.capabilities;
    if (book) connection.whenDisposed(book.track(agent.id, connection.init, connection.capabilities));
    return connection;
  }

  /**
   * Restart Agent: ends session `key`'s agent process and starts a new one for the same session,
   * which then resumes it (`session/resume`), reloads it (`session/load`, replay not shown again)
   * or, when the agent offers neither, starts a new session; the thread says which. Offered when
   * the agent did not answer Stop, and for any live session. A second call while one runs gets the
   * same answer. @returns how the session was taken up.
   * @throws {UnknownAgentError} for an agent no longer configured; {@link AgentLaunchError} when it
   *   cannot start (shown in the session); Error for an unknown or closed session, or the agent's
   *   refusal.
   */
  restartAgent(key: string): Promise<'resume' | 'load' | 'new'> {
    const id = `r:${key}`;
    let pending = this.restarting.get(id);
    if (!pending) {
      pending = this.doRestart(key).finally(() => this.restarting.delete(id));
      this.restarting.set(id, pending);
    }
    return pending;
  }

  private readonly restarting = new Map<string, Promise<'resume' | 'load' | 'new'>>();

  private async doRestart(key: string): Promise<'resume' | 'load' | 'new'> {
    const controller = this.sessions.get(key);
    if (!controller || controller.state.status === 'closed' || !controller.connection) throw new Error('That session is not running, so there is no agent to restart; Resume takes a closed session up again.');
    const agent = this.agent(controller.state.agentId);
    const connection = await this.launch(agent, controller);
    try {
      return await controller.restart(connection, await this.deps.mcpServers?.(connection.mcpCapabilities, key));
    } catch (err) {
      await connection.dispose();
      throw err;
    }
  }

  get(key: string): SessionController | undefined {
    return this.sessions.get(key);
  }

  list(): SessionController[] {
    return [...this.sessions.values()];
  }

  /**
   * Closes a session: answers its open requests, kills its terminals and its agent. `byPerson`
   * (the person or the API closed it, not the window ending) first sends `session/close` when the
   * agent offers it (bounded wait): a window that ends keeps its sessions resumable as they were.
   */
  async close(key: string, opts: { byPerson?: boolean } = {}): Promise<void> {
    const c = this.sessions.get(key);
    if (!c) return;
    this.sessions.delete(key);
    this.journalOf.delete(key);
    this.listEmitter.fire();
    this.closeEmitter.fire({ key, state: c.state });
    await c.dispose({ agentClose: opts.byPerson });
  }

  /**
   * Deletes a session from our history and, where the agent offers `session/delete`, from the
   * agent's too: through a running session of that agent, else a short-lived process. A listed copy
   * of the session is closed first (`session/close` when offered). Our journal goes whatever the
   * agent answers: the person asked for it to go.
   * @param target a journal, or a session only the agent lists.
   * @returns what the agent did: `deleted`, `unsupported` (it does not delete sessions),
   *   `no-session-id` (it never named the session), or why it did not (it failed or could not start).
   */
  async deleteSession(target: { journalId: string } | { agentId: string; sessionId: string; cwd: string }): Promise<{ agent: 'deleted' | 'unsupported' | 'no-session-id' | { failed: string } }> {
    const journal = this.deps.journal;
    const entry = 'journalId' in target ? journal?.get(target.journalId) : undefined;
    if ('journalId' in target && !entry) throw new Error('That session is no longer in the journal.');
    const agentId = entry?.agentId ?? (target as { agentId: string }).agentId;
    const sessionId = entry?.sessionId ?? (target as { sessionId?: string }).sessionId;
    // A copy of it that is shown (live or a transcript) is closed the way the person closes one.
    const shown = [...this.sessions.values()].filter((c) => (entry && this.journalOf.get(c.state.key) === entry.journalId) || (sessionId && c.state.sessionId === sessionId && c.state.agentId === agentId));
    for (const c of shown) await this.close(c.state.key, { byPerson: true });
    let agent: Awaited<ReturnType<SessionManager['deleteSession']>>['agent'] = 'no-session-id';
    if (sessionId) {
      try {
        const running = [...this.sessions.values()].find((c) => c.state.agentId === agentId && c.connected)?.connection;
        const connection = running ?? (await this.connect(this.agent(agentId), entry?.cwd ?? (target as { cwd: string }).cwd));
        try {
          if (!connection.sessionSupport.delete) agent = 'unsupported';
          else {
            await connection.deleteSession(sessionId);
            agent = 'deleted';
          }
        } finally {
          if (!running) await connection.dispose();
        }
      } catch (err) {
        agent = { failed: errorMessage(err) };
      }
    }
    if (entry) journal!.delete(entry.journalId);
    this.listEmitter.fire();
    return { agent };
  }

  /**
   * `logout` (`agentCapabilities.auth.logout`) through a running session of the agent, else a
   * short-lived process. @throws Error when the agent does not offer it; the agent's JSON-RPC
   * error; {@link UnknownAgentError}; {@link AgentLaunchError}.
   */
  async logout(agentId: string, cwd: string): Promise<void> {
    const running = [...this.sessions.values()].find((c) => c.state.agentId === agentId && c.connected)?.connection;
    const connection = running ?? (await this.connect(this.agent(agentId), cwd));
    try {
      await connection.logout();
    } finally {
      if (!running) await connection.dispose();
    }
  }


  /** Closes every session; resolves when every agent and terminal process group is gone. */
  async dispose(): Promise<void> {
    const all = [...this.sessions.keys()];
    await Promise.allSettled(all.map((k) => this.close(k)));
    // What the sessions said last is on disk before the window goes.
    this.deps.journal?.flush(true);
    this.changeEmitter.dispose();
    this.listEmitter.dispose();
    this.closeEmitter.dispose();
  }
}

/**
 * A new session key: `s-` and a random UUID (122 random bits). Keys name sessions in commands, the
 * API and webview messages; a counter would let an agent or a link guess another session's key
 * (issue 16, finding 1).
 */
export function newSessionKey(): string {
  return `s-${randomUUID()}`;
}

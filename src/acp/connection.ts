/**
 * One live ACP connection to an agent: `initialize` (with a timeout), `session/new`,
 * `session/prompt`, `session/cancel`, and the client side of the protocol routed per session.
 *
 * Built on `@agentclientprotocol/sdk` 2.x (`acpSdk().client()`); the SDK validates the agent's
 * requests and notifications against the ACP v1 schema before our handlers see them (dropping the
 * items of skip-invalid lists one by one), but not its answers to our requests: those are read in
 * `answers.ts`. No `vscode`.
 * Spec: https://agentclientprotocol.com/protocol/initialization, /session-setup, /prompt-turn.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from './sdk';
import { ProtocolLog, tapStream } from './inspector';
import { CapabilityMatrix } from './capabilities';
import { Emitter, type Event } from '../common/lifecycle';
import type { AgentErrorView } from './session/types';
import { AgentProcess, type AgentLaunch } from './transport/agentProcess';
import { formatLaunchError } from './transport/launchError';
import { redactSecrets } from '../policy/redact';
import { buildClientApp, type SessionHandlers } from './clientHandlers';
import { initializeAnswer, listSessionsAnswer, loadSessionAnswer, newSessionAnswer, resumeSessionAnswer, setConfigOptionAnswer } from './answers';

/** Our client identity and capabilities, sent in `initialize`. */
export const CLIENT_CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  // We run `type: "terminal"` auth methods in a VS Code terminal (Log In to Agent…).
  auth: { terminal: true },
  // Agents' questions (`elicitation/create`, schema 1.21): a card in the thread; both modes.
  elicitation: { form: {}, url: {} },
  // Session notices (schema 1.22): a line in the thread by severity, as text. Without this an agent
  // puts them into its answer (claude-agent-acp: "**Auto mode unavailable:** …" in the reply).
  session: { notices: {} },
};

/** Lines of the stderr tail that the message of an {@link AgentLaunchError} quotes (the field keeps all). */
export const MESSAGE_STDERR_LINES = 10;

/** `view` with its message, command line and stderr tail redacted (`redactSecrets`). */
export function redactedView(view: AgentErrorView): AgentErrorView {
  return {
    ...view,
    message: redactSecrets(view.message),
    ...(view.commandLine !== undefined ? { commandLine: redactSecrets(view.commandLine) } : {}),
    ...(view.stderrTail !== undefined ? { stderrTail: view.stderrTail.map((l) => redactSecrets(l)) } : {}),
  };
}

/**
 * Thrown when an agent cannot be started or never becomes ready; `view` is shown in the sidebar.
 * What it says about the process is redacted (`redactSecrets`, the one redaction): the stderr tail
 * and the command line leave the extension through the API and the sidebar, and an agent that fails
 * to start often prints the key it was given.
 */
export class AgentLaunchError extends Error {
  /** What the sidebar shows: the failure with its stderr tail and command line redacted. */
  readonly view: AgentErrorView;
  /** The agent's last lines on stderr (at most 20), secrets redacted; empty when it wrote none. */
  readonly stderrTail: string[];
  /** The exit code, when the process exited. */
  readonly exitCode?: number | null;
  /** The signal that ended the process, when one did. */
  readonly signal?: string | null;
  /** The command line that was run, secrets redacted. */
  readonly commandLine?: string;

  /** The message is `view.message` followed by the last {@link MESSAGE_STDERR_LINES} lines of stderr. */
  constructor(view: AgentErrorView) {
    const safe = redactedView(view);
    const tail = safe.stderrTail ?? [];
    const quoted = tail.slice(-MESSAGE_STDERR_LINES);
    super(quoted.length ? `${safe.message}\nLast ${quoted.length === tail.length ? '' : `${quoted.length} of ${tail.length} `}lines on stderr:\n${quoted.map((l) => `  ${l}`).join('\n')}` : safe.message);
    this.name = 'AgentLaunchError';
    this.view = safe;
    this.stderrTail = tail;
    this.exitCode = view.exitCode;
    this.signal = view.signal;
    this.commandLine = safe.commandLine;
  }
}

/** Options for {@link AgentConnection.start}. */
export interface ConnectOptions {
  agentName: string;
  clientInfo: { name: string; title?: string; version: string };
  /** How long to wait for the `initialize` answer, in milliseconds (default 60 000). */
  initializeTimeoutMs?: number;
  onStderr?: (text: string) => void;
}

/** A connected, initialized agent. */
export class AgentConnection {
  private readonly sessions = new Map<string, SessionHandlers>();
  private readonly onDidDieEmitter = new Emitter<AgentErrorView>();
  /** Fires once if the agent process ends while the connection is in use. */
  readonly onDidDie: Event<AgentErrorView> = this.onDidDieEmitter.event;
  private disposed = false;

  private constructor(
    private readonly conn: acp.ClientConnection,
    readonly init: acp.InitializeResponse,
    private readonly proc: AgentProcess | undefined,
    private readonly agentName: string,
    /** Every JSON-RPC message of this connection, both ways (the protocol inspector's record). */
    readonly protocol: ProtocolLog,
    /** What the agent declared, exercised and failed, counted as the messages pass. */
    readonly capabilities: CapabilityMatrix,
  ) {
    void proc?.exited.then(() => {
      if (this.disposed || this.died) return;
      this.died = true;
      const view = redactedView(formatLaunchError(proc.failure('exit', { afterStart: true }), agentName));
      this.conn.close(new Error(view.message));
      this.onDidDieEmitter.fire(view);
    });
    // The stream can break while the process lives (a line over the size limit, a closed pipe):
    // the session says so instead of waiting forever, and the agent, now useless, is ended.
    conn.signal.addEventListener('abort', () => {
      // Give a process exit the moment it needs to be reported as such (it says more).
      setTimeout(() => {
        if (this.disposed || this.died) return;
        this.died = true;
        const reason = conn.signal.reason instanceof Error ? conn.signal.reason.message : String(conn.signal.reason ?? 'closed');
        this.onDidDieEmitter.fire({ message: `The connection to ${agentName} broke: ${reason}. Start a new session (or Resume this one) to go on.` });
        void proc?.kill();
      }, proc ? 200 : 0);
    }, { once: true });
  }

  private died = false;

  /**
   * Spawns the agent (own process group) and runs `initialize` with protocol v1.
   * @throws {AgentLaunchError} when the process cannot start, exits before answering, does not
   *   answer within the timeout, or answers with a protocol version we do not speak.
   */
  static async start(launch: AgentLaunch, opts: ConnectOptions): Promise<AgentConnection> {
    const proc = new AgentProcess(launch, opts.onStderr);
    return AgentConnection.connect(proc.stream, opts, proc);
  }

  /**
   * Connects over an existing stream, or to an in-process `AgentApp` (tests), and initializes.
   * @throws {AgentLaunchError} as {@link start}.
   */
  static async connect(target: acp.Stream | acp.AgentApp, opts: ConnectOptions, proc?: AgentProcess): Promise<AgentConnection> {
    const holder: { self?: AgentConnection } = {};
    const app = buildClientApp(opts.clientInfo.name, (sessionId) => holder.self?.sessions.get(sessionId), () => holder.self?.sessions.values() ?? [], (sessionId, update) => holder.self?.early(sessionId, update));
    // Messages over a stream are recorded from the first (initialize) on; an in-process app has no wire.
    const protocol = new ProtocolLog();
    // The matrix counts from the first message on, so what the record drops later still counts.
    const capabilities = new CapabilityMatrix();
    protocol.onRecord((e) => capabilities.observe(e, protocol.summary(e)));
    const conn = target instanceof acpSdk().AgentApp ? app.connect(target) : app.connect(tapStream(target as acp.Stream, protocol));
    const timeoutMs = opts.initializeTimeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    const fail = async (view: AgentErrorView): Promise<never> => {
      conn.close(new Error(view.message));
      await proc?.kill(500);
      throw new AgentLaunchError(view);
    };
    try {
      const exited = proc?.exited.then(() => 'exited' as const) ?? new Promise<never>(() => {});
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const initialize: Promise<acp.InitializeResponse> = conn.agent
        .request(acpSdk().methods.agent.initialize, {
          protocolVersion: acpSdk().PROTOCOL_VERSION,
          clientCapabilities: CLIENT_CAPABILITIES,
          clientInfo: opts.clientInfo,
        })
        .then(initializeAnswer);
      const first = await Promise.race([initialize, exited, timeout]);
      if (first === 'exited') return await fail(await exitView(proc!, opts.agentName));
      if (first === 'timeout') {
        if (proc) return await fail(formatLaunchError(proc.failure('timeout', { timeoutSeconds: timeoutMs / 1000 }), opts.agentName));
        return await fail({ message: `${opts.agentName} did not answer "initialize" within ${timeoutMs / 1000} s.` });
      }
      if (first.protocolVersion !== acpSdk().PROTOCOL_VERSION) {
        return await fail({
          message: `${opts.agentName} speaks ACP protocol version ${first.protocolVersion}; Agent Switchboard speaks version ${acpSdk().PROTOCOL_VERSION}.`,
          commandLine: proc ? [proc.launch.command, ...proc.launch.args].join(' ') : undefined,
        });
      }
      capabilities.declare(first);
      const self = new AgentConnection(conn, first, proc, opts.agentName, protocol, capabilities);
      holder.self = self;
      return self;
    } catch (err) {
      if (err instanceof AgentLaunchError) throw err;
      if (proc) {
        // The SDK sees stdout close before Node reports the exit; give the exit a moment to arrive.
        await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 1000))]);
        if (!proc.running) return await fail(await exitView(proc, opts.agentName));
      }
      return await fail({ message: `${opts.agentName} failed during "initialize": ${errorMessage(err)}`, stderrTail: proc?.stderrTail() });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The error that says how the agent's process ended (exit code or signal, stderr tail, command
   * line), once it has: for a request that failed because the agent died, e.g. during `session/new`.
   * Waits up to `waitMs` for the exit to be reported (the stream closes first).
   * @returns undefined while the process runs, or for an in-process agent.
   */
  async exitError(waitMs = 1000): Promise<AgentLaunchError | undefined> {
    const proc = this.proc;
    if (!proc) return undefined;
    await Promise.race([proc.exited, new Promise((r) => setTimeout(r, waitMs))]);
    if (proc.running) return undefined;
    return new AgentLaunchError(await exitView(proc, this.agentName));
  }

  /** Agent name and version from `initialize`, for display. */
  get agentInfo(): acp.Implementation | undefined {
    return this.init.agentInfo ?? undefined;
  }

  /** The process id of the agent (undefined for in-process agents). */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** The agent's MCP transports besides stdio (`agentCapabilities.mcpCapabilities` from `initialize`). */
  get mcpCapabilities(): acp.McpCapabilities | undefined {
    return this.init.agentCapabilities?.mcpCapabilities ?? undefined;
  }

  /**
   * `session/new` with `cwd` and the MCP servers to hand the agent; `handlers` receive the
   * session's client-side requests and updates from then on.
   */
  async newSession(cwd: string, handlers: SessionHandlers, mcpServers: acp.McpServer[] = []): Promise<acp.NewSessionResponse> {
    // Updates for the new session can come before its answer (available commands, often): they
    // are held until the answer names the session, then delivered in order.
    this.creating++;
    try {
      const raw = await this.conn.agent.request(acpSdk().methods.agent.session.new, { cwd, mcpServers, ...this.startMeta() });
      const id = (raw as { sessionId?: unknown } | null)?.sessionId;
      if (typeof id === 'string' && id) await this.startMode(id, raw);
      const res = newSessionAnswer(raw);
      if (typeof res?.sessionId !== 'string' || !res.sessionId) throw new Error(`${this.agentName} answered "session/new" without a sessionId.`);
      this.sessions.set(res.sessionId, handlers);
      const held = this.held.get(res.sessionId) ?? [];
      this.held.delete(res.sessionId);
      for (const update of held) handlers.onUpdate(update);
      return res;
    } finally {
      if (--this.creating === 0) this.held.clear();
    }
  }

  /**
   * How every session of this connection starts (`session/new`, `session/load`, `session/resume`):
   * the `_meta` sent with it and the mode it is switched to right after, when the agent took
   * another. Set before the first session; see `agentConfig/plan.ts` for why.
   */
  sessionStart: { meta?: Record<string, unknown>; modeId?: string } = {};

  private startMeta(): { _meta?: Record<string, unknown> } {
    return this.sessionStart.meta ? { _meta: structuredClone(this.sessionStart.meta) } : {};
  }

  /**
   * Switches a session that started in another mode to {@link sessionStart}'s, through its mode
   * config option or `session/set_mode`, and rewrites the answer `raw` to say so.
   * @throws Error when the agent offers no such mode (the session must not go on in the other).
   */
  private async startMode(sessionId: string, raw: unknown): Promise<void> {
    const want = this.sessionStart.modeId;
    if (!want || !raw || typeof raw !== 'object') return;
    const r = raw as { modes?: { currentModeId?: unknown; availableModes?: unknown } | null; configOptions?: unknown };
    const refuse = (current: unknown) => new Error(`${this.agentName} started the session in mode "${String(current)}", which the repository's configuration set, and offers no "${want}" mode to switch back to.`);
    const option = (Array.isArray(r.configOptions) ? (r.configOptions as Record<string, unknown>[]) : []).find((o) => o && o.type === 'select' && (o.category === 'mode' || o.id === 'mode'));
    if (option && option.currentValue !== want) {
      const values = (Array.isArray(option.options) ? (option.options as Record<string, unknown>[]) : []).flatMap((o) => (Array.isArray(o?.options) ? (o.options as Record<string, unknown>[]) : [o]));
      if (!values.some((v) => v?.value === want)) throw refuse(option.currentValue);
      r.configOptions = await this.setConfigOption(sessionId, String(option.id), want);
    }
    const modes = r.modes && typeof r.modes === 'object' ? r.modes : undefined;
    if (modes && modes.currentModeId !== want) {
      if (!option) {
        if (!(Array.isArray(modes.availableModes) && modes.availableModes.some((m: { id?: unknown } | null) => m?.id === want))) throw refuse(modes.currentModeId);
        await this.setMode(sessionId, want);
      }
      modes.currentModeId = want;
    }
  }

  /** `session/new` requests waiting for their answer. */
  private creating = 0;
  /** Updates for sessions not (yet) routed, kept while a `session/new` waits: at most 8 ids × 500 updates. */
  private readonly held = new Map<string, acp.SessionUpdate[]>();

  /** An update for a session nobody routes: held while a `session/new` waits (it may be that session's), else dropped. */
  private early(sessionId: string, update: acp.SessionUpdate): void {
    if (this.creating === 0) return;
    const list = this.held.get(sessionId) ?? (this.held.size < 8 ? [] : undefined);
    if (!list || list.length >= 500) return;
    list.push(update);
    this.held.set(sessionId, list);
  }

  /**
   * `session/load` (ACP v1, agents that declare `loadSession`): the agent replays the whole
   * conversation as `session/update`s to `handlers` (registered before the request goes out) and
   * answers when the replay is done. @throws the agent's JSON-RPC error.
   */
  loadSession(sessionId: string, cwd: string, handlers: SessionHandlers, mcpServers: acp.McpServer[] = []): Promise<acp.LoadSessionResponse | void> {
    return this.takeUp(acpSdk().methods.agent.session.load, sessionId, cwd, handlers, mcpServers).then(loadSessionAnswer);
  }

  /**
   * `session/resume` (`sessionCapabilities.resume`): the agent takes the session up again without
   * replaying it (the client already holds the transcript). @throws the agent's JSON-RPC error.
   */
  resumeSession(sessionId: string, cwd: string, handlers: SessionHandlers, mcpServers: acp.McpServer[] = []): Promise<acp.ResumeSessionResponse> {
    return this.takeUp(acpSdk().methods.agent.session.resume, sessionId, cwd, handlers, mcpServers).then(resumeSessionAnswer);
  }

  /** Routes `sessionId` to `handlers` first (a load replays before it answers), unrouted on failure. */
  private async takeUp(method: typeof acp.methods.agent.session.load | typeof acp.methods.agent.session.resume, sessionId: string, cwd: string, handlers: SessionHandlers, mcpServers: acp.McpServer[]): Promise<unknown> {
    this.sessions.set(sessionId, handlers);
    try {
      const res = await this.conn.agent.request(method, { sessionId, cwd, mcpServers, ...this.startMeta() });
      await this.startMode(sessionId, res);
      return res;
    } catch (err) {
      this.sessions.delete(sessionId);
      throw err;
    }
  }

  /** `authenticate` with one of the agent's `authMethods` (ACP v1). @throws the agent's JSON-RPC error. */
  async authenticate(methodId: string): Promise<void> {
    await this.conn.agent.request(acpSdk().methods.agent.authenticate, { methodId });
  }

  /**
   * What the agent can do with its sessions and its login (from `initialize`): an object-valued
   * marker (`{}`) means supported, omitted or `null` not (ACP v1 capabilities).
   */
  get sessionSupport(): { list: boolean; load: boolean; resume: boolean; close: boolean; delete: boolean; logout: boolean } {
    const caps = this.init.agentCapabilities;
    const sc = caps?.sessionCapabilities;
    return { list: !!sc?.list, load: !!caps?.loadSession, resume: !!sc?.resume, close: !!sc?.close, delete: !!sc?.delete, logout: !!caps?.auth?.logout };
  }

  /**
   * `session/close` (`sessionCapabilities.close`): the agent cancels the session's work and frees
   * it. Waits at most `timeoutMs`; "session not found" (-32002) counts as closed (ACP: the session
   * is gone either way). Never throws: the caller ends the process whatever the answer.
   * @returns `closed`, `unsupported` (nothing sent), `timeout`, or the error's message.
   */
  async closeSession(sessionId: string, timeoutMs = CLOSE_TIMEOUT_MS): Promise<'closed' | 'unsupported' | 'timeout' | { failed: string }> {
    if (!this.sessionSupport.close || this.disposed || this.died) return 'unsupported';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    try {
      const request = this.conn.agent.request(acpSdk().methods.agent.session.close, { sessionId }).then(() => 'closed' as const);
      // An answer after the timeout (or the connection's end) is nobody's business any more.
      request.catch(() => undefined);
      return await Promise.race([request, timeout]);
    } catch (err) {
      return isSessionNotFound(err) ? 'closed' : { failed: errorMessage(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `session/delete` (`sessionCapabilities.delete`): the agent forgets the session. "Session not
   * found" (-32002) counts as deleted. @throws Error when the agent does not offer it; the agent's
   * JSON-RPC error otherwise.
   */
  async deleteSession(sessionId: string): Promise<void> {
    if (!this.sessionSupport.delete) throw new Error(`${this.agentName} does not delete sessions (no sessionCapabilities.delete).`);
    try {
      await this.conn.agent.request(acpSdk().methods.agent.session.delete, { sessionId });
    } catch (err) {
      if (!isSessionNotFound(err)) throw err;
    }
  }

  /**
   * `logout` (`agentCapabilities.auth.logout`): the agent drops its credentials.
   * @throws Error when the agent does not offer it; the agent's JSON-RPC error otherwise.
   */
  async logout(): Promise<void> {
    if (!this.sessionSupport.logout) throw new Error(`${this.agentName} does not offer logging out (no agentCapabilities.auth.logout).`);
    await this.conn.agent.request(acpSdk().methods.agent.logout, {});
  }

  /**
   * `session/list` (`sessionCapabilities.list`), following `nextCursor` for at most `maxPages` pages.
   * @throws the agent's JSON-RPC error, or Error when the agent does not offer it.
   */
  async listSessions(cwd?: string, maxPages = 10): Promise<acp.SessionInfo[]> {
    if (!this.sessionSupport.list) throw new Error(`${this.agentName} does not list its sessions (no sessionCapabilities.list).`);
    const all: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const res = listSessionsAnswer(await this.conn.agent.request(acpSdk().methods.agent.session.list, { ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) }));
      all.push(...res.sessions);
      cursor = res.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return all;
  }

  /**
   * `session/prompt` (with the turn's trace context in `_meta` when given); resolves with the stop
   * reason when the turn ends. Aborting `signal` sends `$/cancel_request` for it (ACP v1
   * cancellation); the promise still waits for the agent's answer.
   */
  prompt(sessionId: string, prompt: acp.ContentBlock[], traceContext?: { traceparent: string; tracestate?: string }, signal?: AbortSignal): Promise<acp.PromptResponse> {
    // W3C trace context rides in `_meta` (ACP reserves `traceparent`/`tracestate` there).
    return this.conn.agent.request(acpSdk().methods.agent.session.prompt, { sessionId, prompt, ...(traceContext ? { _meta: { ...traceContext } } : {}) }, signal ? { cancellationSignal: signal } : undefined);
  }

  /** `session/set_mode`; aborting `signal` sends `$/cancel_request` for it. @throws the agent's JSON-RPC error. */
  async setMode(sessionId: string, modeId: string, signal?: AbortSignal): Promise<void> {
    await this.conn.agent.request(acpSdk().methods.agent.session.setMode, { sessionId, modeId }, signal ? { cancellationSignal: signal } : undefined);
  }

  /**
   * `session/set_config_option`: a select option takes a value id, a boolean one `true`/`false`.
   * @returns every option as the agent now has them. @throws the agent's JSON-RPC error.
   */
  async setConfigOption(sessionId: string, configId: string, value: string | boolean, signal?: AbortSignal): Promise<acp.SessionConfigOption[]> {
    const params: acp.SetSessionConfigOptionRequest = typeof value === 'boolean' ? { sessionId, configId, type: 'boolean', value } : { sessionId, configId, value };
    return setConfigOptionAnswer(await this.conn.agent.request(acpSdk().methods.agent.session.setConfigOption, params, signal ? { cancellationSignal: signal } : undefined));
  }

  /** `session/cancel` (a notification; the pending prompt then answers `cancelled`). */
  async cancel(sessionId: string): Promise<void> {
    await this.conn.agent.notify(acpSdk().methods.agent.session.cancel, { sessionId });
  }

  /** Stops routing a session's requests (further ones get `session not found`). */
  forgetSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  private readonly closers: (() => void)[] = [];

  /** Runs `fn` when the connection is disposed (at once when it already is). */
  whenDisposed(fn: () => void): void {
    if (this.disposed) fn();
    else this.closers.push(fn);
  }

  /** Closes the connection and ends the agent's whole process group. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const fn of this.closers.splice(0)) fn();
    this.sessions.clear();
    this.conn.close();
    this.onDidDieEmitter.dispose();
    await this.proc?.kill();
  }
}

/** How long `session/close` may take before the agent's process is ended anyway, in milliseconds. */
export const CLOSE_TIMEOUT_MS = 2000;

/** True for ACP's "resource not found" (-32002), which `session/close` and `session/delete` take as done. */
function isSessionNotFound(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { code?: unknown }).code === -32002;
}

/** The error view for a process that ended (or never started) before `initialize` answered. */
async function exitView(proc: AgentProcess, agentName: string): Promise<AgentErrorView> {
  // Let the last stderr bytes arrive before we report them.
  await new Promise((r) => setTimeout(r, 50));
  const failure = proc.failure('exit');
  if (failure.errno) failure.phase = 'spawn';
  return formatLaunchError(failure, agentName);
}

/** The message of an unknown thrown value (JSON-RPC errors carry `message` and `data`). */
export function errorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) {
    const e = err as { message: string; data?: unknown };
    const data = e.data === undefined ? '' : ` (${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)})`;
    return e.message + data;
  }
  return String(err);
}

/**
 * One ACP session: its state (through the pure reducer), its turn, its permission requests and
 * its client-hosted effects (files through a {@link FileSystemPort}, terminals through a
 * {@link TerminalsPort}). Implements {@link SessionHandlers} for the connection.
 *
 * No `vscode`: the editor-specific parts are behind the ports.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from './sdk';
import { Emitter, type Event } from '../common/lifecycle';
import type { SessionHandlers } from './clientHandlers';
import { errorMessage, type AgentConnection } from './connection';
import { ErrorCodes } from './extensions';
import { compatReadTextFileAnswer, compatRulesFor } from './compat';
import type { ProtocolLog } from './inspector';
import type { CapabilityMatrix } from './capabilities';
import type { Actor, EffectCheck, EffectPolicy } from '../policy/effectPolicy';
import type { DeclaredIntent } from '../policy/declare';
import type { FileIdentity } from '../fs/fileIdentity';
import { relativePathRefusal } from '../fs/containment';
import { intentHash, type CommandEffect } from '../policy/intent';
import { mayWiden, onceOnlyReason, type Decider } from '../policy/decider';
import { forwardNotice, type ForwardResult } from '../mcp/forward';
import { mergeToolCall, reduce, type SessionAction } from './session/reducer';
import { narrowestOption } from './session/permissionChoice';
import { autonomousMode, autonomySentence } from './session/autonomy';
import { createSessionState, type SessionPatch, type SessionState, type TerminalView, type ToolCallView, type WorktreeView } from './session/types';
import type { SessionSpans } from '../trace/sessionSpans';
import type { Span } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { ElicitationBroker, type ElicitationAnswerResult } from './sessionElicitation';
import { SessionHeld } from './sessionHeld';
import type { HiddenValue } from './heldEnv';
import { LoadTail } from './session/loadTail';
import { EffectLedger, type ClientEffect } from '../policy/reportedEffects';
import type { SandboxProfile } from '../sandbox/profile';
import { literalHostEntry } from '../sandbox/hostEntry';

/**
 * True when an agent's error to `session/load` or `session/resume` says it does not know the
 * session: `-32002` (resource not found: the only resource those requests name), or `-32602` /
 * `-32603` whose message or data says the session is unknown (agents built on other SDKs).
 */
export function isSessionGone(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (code === -32002) return true;
  if (code !== -32602 && code !== -32603) return false;
  const e = err as { message?: unknown; data?: unknown };
  const said = `${typeof e.message === 'string' ? e.message : ''} ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? '')}`;
  return /session/i.test(said) && /not found|unknown|no such|does not exist|doesn't exist|not exist|expired|no longer/i.test(said);
}

/** Tool call ids of the calls the editor hosts for the agent. */
const HOSTED_PREFIX = 'editor-';
const isHostedId = (id: string) => id.startsWith(HOSTED_PREFIX);
/** Client-hosted file access for one session (ACP `fs/*`). Errors thrown become JSON-RPC errors. */
export interface FileSystemPort {
  read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  /**
   * @param expected the file the gate decided on (`EffectCheck.target`; null: none was there). The
   *   write is refused when the path no longer names that same file.
   */
  write(params: acp.WriteTextFileRequest, expected?: FileIdentity | null): Promise<void>;
  /** Called when a prompt turn starts (files not read through us are compared with this moment). */
  turnStarted(): void;
}

/** Client-hosted terminals for one session (ACP `terminal/*`). */
export interface TerminalsPort {
  /**
   * Starts the checked command. `sandbox`: the profile its check carried (issue 21); the command runs
   * in exactly that profile, or (when it cannot be set up) not at all.
   */
  create(params: acp.CreateTerminalRequest, sandbox?: SandboxProfile): Promise<string>;
  output(terminalId: string): acp.TerminalOutputResponse;
  waitForExit(terminalId: string, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse>;
  kill(terminalId: string): Promise<void>;
  release(terminalId: string): Promise<void>;
  /** Kills every terminal's process group; resolves when they are gone. */
  disposeAll(): Promise<void>;
  /** A sandboxed command as it was started, to run it again with a host allowed (issue 21). */
  launched?(terminalId: string): { params: acp.CreateTerminalRequest; profile: SandboxProfile } | undefined;
  /** Hosts the sandbox refused a terminal, from the sandbox's own record. */
  blockedHosts?(terminalId: string): string[];
  /** Throttled snapshots of a terminal for the tool card. */
  onDidChange(listener: (t: TerminalView) => void): { dispose(): void };
}

/** A change of a session's state: the patches already applied to {@link SessionController.state}. */
export interface SessionChange {
  key: string;
  patches: SessionPatch[];
  rev: number;
  /** True while the agent replays history (`session/load`): shown, but not happening now. */
  replay?: boolean;
}

/** Owns one session's state and effects. */
export class SessionController implements SessionHandlers {
  readonly state: SessionState;
  private readonly changeEmitter = new Emitter<SessionChange>();
  /** Fires after every state change. */
  readonly onDidChange: Event<SessionChange> = this.changeEmitter.event;
  private readonly pendingPermissions = new Map<string, (r: acp.RequestPermissionResponse) => void>();
  /** The declared intent of each waiting permission request. */
  private readonly declared = new Map<string, DeclaredIntent>();
  /** Effects the agent did not ask about, held and asked about at the effect (issue 19). */
  private readonly held: SessionHeld;
  /** The token each held effect's card binds its approval to (issue 19), by permission id. */
  private readonly heldTokens = new Map<string, string>();
  /** What the agent reported done, by effect: each one it performed itself is recorded once, whatever its id. */
  private readonly agentEffects = new EffectLedger(() => this.state.cwd);
  /** The variables a held command's card does not show, by permission id: its allow needs a second yes. */
  private readonly hiddenValues = new Map<string, HiddenValue[]>();
  /** Who answered each request (with any "Allow for this session / workspace" choice), until the answer is recorded. */
  private readonly deciders = new Map<string, Decider>();
  /** Prompts waiting for the running turn to end (see {@link send}). */
  private readonly queue: { text: string; context?: PromptContext }[] = [];
  /** Aborts the editor-hosted tool calls still running when the session ends. */
  private readonly hostedAbort = new AbortController();
  private currentTurn: Promise<acp.PromptResponse> | undefined;
  private disposed = false;
  /** The agent's questions (`elicitation/create`): answered from the state, as permissions are. */
  private readonly questions = new ElicitationBroker({
    state: () => this.state,
    dispatch: (a) => this.dispatch(a),
    now: () => this.now(),
    audit: (d) => this.policy.recordElicitation(this.actor(), d),
    notice: (severity, text) => this.dispatch({ type: 'notice', severity, text }),
  });
  /**
   * Aborted when the session closes or its agent is restarted: every request we sent the agent for
   * this session that is still open gets `$/cancel_request` (ACP v1 cancellation).
   */
  private requests = new AbortController();
  /** The running turn: its end (Stop resolves it at once) and the signal that cancels its request. */
  private turn: { stop: AbortController; stopped: (res: acp.PromptResponse) => void } | undefined;
  /** The stopped turn the agent has not answered yet, and its grace timer (see {@link cancel}). */
  private stoppedTurn: { timer: NodeJS.Timeout } | undefined;
  /** The tool calls the last Stop ended (a permission request about one is answered `cancelled`, no card). */
  private stoppedCalls = new Set<string>();
  /** While a restarted agent replays a session we already show (`session/load`), its updates are dropped. */
  private quietReplay = false;
  /**
   * How long after Stop the agent has to answer its turn before the thread offers Restart Agent,
   * in milliseconds (`agentSwitchboard.cancelGraceSeconds`); read at each Stop.
   */
  cancelGraceMs: () => number = () => 10_000;

  /**
   * @param restored a state rebuilt from the session's journal (a session taken up again); its
   *   recorded tool calls carry on, nothing of it is announced again, and none of its permission
   *   requests can be answered (their agent process is gone; an answer would approve nothing live).
   */
  constructor(
    init: { key: string; agentId: string; agentName: string; cwd: string; agentFingerprint?: string },
    private readonly files: FileSystemPort,
    private readonly terminals: TerminalsPort,
    private readonly policy: EffectPolicy,
    private readonly now: () => number = Date.now,
    restored?: SessionState,
  ) {
    const { agentFingerprint, ...fresh } = init;
    this.state = restored ?? createSessionState(fresh);
    this.agentFingerprint = agentFingerprint;
    if (restored) {
      for (const tc of Object.values(restored.toolCalls)) this.agentEffects.shownDone(tc);
    }
    this.held = new SessionHeld({
      policy,
      state: () => this.state,
      dispatch: (a) => this.dispatch(a),
      closed: () => this.disposed,
      now: () => this.now(),
      actor: () => this.actor(),
      openCard: (params, declared, preview, signal, token, onceOnly, hidden) => this.openCard(params, declared, preview, signal, token, onceOnly, hidden),
    });
    terminals.onDidChange((t) => {
      this.dispatch({ type: 'terminal', terminal: t });
      this.held.terminalChanged(t);
    });
  }

  private recorder: ((action: SessionAction) => void) | undefined;
  private replaying = false;
  /** History the agent still sends after answering `session/load` (see `session/loadTail.ts`). */
  private readonly loadTail = new LoadTail();

  /** Hands every action of this session to `record` (the session journal) before it is applied. */
  recordWith(record: (action: SessionAction) => void): void {
    this.recorder = record;
  }

  private conn: AgentConnection | undefined;
  private spans: SessionSpans | undefined;

  /** Traces this session: its spans follow every state change; turns carry their `traceparent`. */
  traceWith(spans: SessionSpans): void {
    this.spans = spans;
  }

  /** The agent connection, once attached (the manager lists sessions through it). */
  get connection(): AgentConnection | undefined {
    return this.conn;
  }

  /** True while the agent process of this session is connected. */
  get connected(): boolean {
    return !!this.conn && !this.disposed && this.state.status !== 'error' && this.state.status !== 'closed';
  }

  /** The agent's capability matrix (declared, exercised, failed), once attached. */
  get capabilities(): CapabilityMatrix | undefined {
    return this.conn?.capabilities;
  }

  /** The agent's `initialize` answer, once attached. */
  get agentInit(): acp.InitializeResponse | undefined {
    return this.conn?.init;
  }

  /** The agent connection's message record (the protocol inspector), once attached. */
  get protocol(): ProtocolLog | undefined {
    return this.conn?.protocol;
  }

  /** Records a call the agent made to the editor's MCP server in the session's trace. */
  traceEditorToolCall(tool: string, call: { startMs: number; endMs: number; traceparent?: string }, outcome: string): void {
    this.spans?.mcpServerCall(tool, call, outcome);
  }

  /**
   * Sends `session/new` on `connection` (with the MCP servers chosen for this agent) and routes the
   * session's traffic here; the thread says which MCP servers the agent received and which not.
   * @throws the agent's JSON-RPC error when `session/new` fails (also recorded in the thread).
   */
  async attach(connection: AgentConnection, mcp?: ForwardResult, earlier?: { how: 'load' | 'resume'; sessionId: string }): Promise<'new' | 'load' | 'resume'> {
    if (this.conn !== connection) connection.onDidDie((error) => this.dispatch({ type: 'agentError', error }));
    this.conn = connection;
    this.gateChanged();
    let method = earlier ? `session/${earlier.how}` : 'session/new';
    let how: 'new' | 'load' | 'resume' = earlier?.how ?? 'new';
    try {
      // A second try on the same session (after a login) starts from "starting", not from the error.
      if (earlier || this.state.status === 'error') this.dispatch({ type: 'reattaching' });
      const servers = mcp?.servers ?? [];
      // What a load replays is history: no audit records, review entries or spans of its own.
      this.replaying = earlier?.how === 'load';
      this.loadTail.end();
      let res: acp.NewSessionResponse;
      if (!earlier) res = await connection.newSession(this.state.cwd, this, servers);
      else {
        try {
          res = { sessionId: earlier.sessionId, ...((earlier.how === 'load' ? await connection.loadSession(earlier.sessionId, this.state.cwd, this, servers) : await connection.resumeSession(earlier.sessionId, this.state.cwd, this, servers)) ?? {}) };
        } catch (err) {
          if (!isSessionGone(err)) throw err;
          // The agent no longer knows the session: one new session in its place, said in the
          // thread, and the dead id is not asked for again (the journal takes the new id).
          this.replaying = false;
          this.dispatch({ type: 'notice', severity: 'warning', text: `${this.state.agentName} no longer knows this session (${method}: ${errorMessage(err)}). A new session was started in its place: the agent does not remember the conversation above.` });
          method = 'session/new';
          how = 'new';
          res = await connection.newSession(this.state.cwd, this, servers);
        }
      }
      this.replaying = false;
      // An agent may answer before its replay is done: the rest is history too, until it is live.
      if (how === 'load') this.loadTail.begin(!this.quietReplay);
      this.dispatch({
        type: 'ready',
        sessionId: res.sessionId,
        currentModeId: res.modes?.currentModeId,
        availableModes: res.modes?.availableModes?.slice(0, 50).map((m) => ({ id: String(m.id), name: String(m.name ?? m.id), ...(m.description ? { description: String(m.description) } : {}) })),
        configOptions: res.configOptions ?? undefined,
        promptCapabilities: promptCapabilitiesOf(connection.init),
      });
      const notice = mcp && forwardNotice(mcp.report);
      if (notice) this.dispatch({ type: 'notice', severity: mcp.report.some((r) => !r.sent) ? 'warning' : 'info', text: notice });
      return how;
    } catch (err) {
      this.replaying = false;
      // "Authentication required" (-32000): say how the agent can be logged in.
      const methods = (err as { code?: unknown })?.code === -32000 ? (connection.init.authMethods ?? []) : [];
      const hint = methods.length ? ` ${this.state.agentName} needs a login first: run "Log In to Agent…" (it offers: ${methods.map((m) => m.name).join('; ')}), then try again (New session, or Resume).` : '';
      this.dispatch({ type: 'agentError', error: { message: `${method} failed: ${errorMessage(err)}${hint}` } });
      throw err;
    }
  }

  /** Records a failure that happened before a connection existed (launch errors). */
  fail(error: SessionState['error'] & object): void {
    this.dispatch({ type: 'agentError', error });
  }

  /** Adds a notice to the thread (something the person should know about this session). */
  notice(severity: 'info' | 'warning' | 'error', text: string): void {
    this.dispatch({ type: 'notice', severity, text });
  }


  /**
   * Sends `text` now when the session is ready, or queues it while a turn runs: queued prompts go
   * out one by one as turns end. Stop (cancel) takes them back out, each shown in a notice so no
   * text is lost. @returns 'sent' or 'queued'.
   * @throws Error when the session cannot take prompts (starting, closed, failed).
   */
  send(text: string, context?: PromptContext): 'sent' | 'queued' {
    const status = this.state.status;
    if (!this.currentTurn && status !== 'ready' && status !== 'prompting' && status !== 'cancelling') {
      const why = { starting: 'is still starting', closed: 'was closed', error: 'is not running (see the error in the sidebar)' }[status as string] ?? `is ${status}`;
      throw new Error(`Cannot send the prompt: the session with ${this.state.agentName} ${why}.`);
    }
    if (this.currentTurn || this.state.status === 'prompting' || this.state.status === 'cancelling') {
      if (this.state.status === 'cancelling') throw new Error(`${this.state.agentName} is stopping its turn; send again when it has.`);
      this.queue.push({ text, context });
      this.dispatch({ type: 'queue', queued: this.queue.map((q) => q.text) });
      return 'queued';
    }
    void this.prompt(text, context).catch(() => undefined);
    return 'sent';
  }

  /**
   * Sets one of the agent's configuration options (`session/set_config_option`) to one of its values.
   * @throws Error when the session is not running, the option or value is not one the agent offered,
   *   or the agent refuses.
   */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!this.conn || !sessionId || this.state.status === 'closed' || this.state.status === 'error') throw new Error('The session is not running.');
    const option = this.state.configOptions?.find((o) => o.id === configId);
    if (!option) throw new Error(`${this.state.agentName} offers no option "${configId}".`);
    if (option.type === 'boolean' ? typeof value !== 'boolean' : typeof value !== 'string' || !option.options.some((o) => o.value === value)) {
      throw new Error(`"${String(value)}" is not a value ${this.state.agentName} offers for ${option.name}.`);
    }
    const pushes = this.configPushes;
    const options = await this.conn.setConfigOption(sessionId, configId, value, this.requests.signal);
    // An answer without the options keeps what we had, with the chosen value, unless the agent
    // pushed its options while we waited: what the agent said last wins over our guess.
    if (options.length) this.dispatch({ type: 'configSet', configOptions: options });
    else if (pushes === this.configPushes) this.dispatch({ type: 'update', update: { sessionUpdate: 'config_option_update', configOptions: (this.state.configOptions ?? []).map((o) => (o.id !== configId ? toAcpOption(o) : toAcpOption({ ...o, currentValue: value } as typeof o))) } });
  }

  /**
   * Switches the agent's mode (`session/set_mode`, ACP v1 session modes) to one it offered.
   * @throws Error when the session is not running, the mode is not one the agent offered, or the agent refuses.
   */
  async setMode(modeId: string): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!this.conn || !sessionId || this.state.status === 'closed' || this.state.status === 'error') throw new Error('The session is not running.');
    if (!this.state.availableModes?.some((m) => m.id === modeId)) throw new Error(`${this.state.agentName} offers no mode "${modeId}".`);
    await this.conn.setMode(sessionId, modeId, this.requests.signal);
    this.dispatch({ type: 'modeSet', modeId });
  }

  /** Sends the next queued prompt once the session is ready again. */
  private sendQueued(): void {
    if (!this.queue.length || this.disposed || this.state.status !== 'ready') return;
    const next = this.queue.shift()!;
    this.dispatch({ type: 'queue', queued: this.queue.map((q) => q.text) });
    void this.prompt(next.text, next.context).catch(() => undefined);
  }

  /**
   * Sends a prompt turn (`session/prompt`): the text, then what `context` carries (files, a
   * selection, problems, images as ACP content blocks), and resolves with the agent's answer.
   * @throws Error when the session is not ready or a turn is already running; the agent's
   *   JSON-RPC error when the turn fails (also recorded in the thread).
   */
  async prompt(text: string, context?: PromptContext): Promise<acp.PromptResponse> {
    const sessionId = this.state.sessionId;
    if (this.currentTurn || this.state.status === 'prompting' || this.state.status === 'cancelling') {
      throw new Error(`${this.state.agentName} is still working on the previous prompt; wait for the turn to end or press Stop.`);
    }
    if (!this.conn || !sessionId || this.state.status !== 'ready') {
      const why = { starting: 'is still starting', closed: 'was closed', error: 'is not running (see the error in the sidebar)' }[this.state.status as string] ?? `is ${this.state.status}`;
      throw new Error(`Cannot send the prompt: the session with ${this.state.agentName} ${why}.`);
    }
    // Attachments are read now, as the turn starts (a queued prompt gets the files as they are then).
    let blocks: acp.ContentBlock[] = [];
    if (context) {
      this.currentTurn = Promise.resolve({ stopReason: 'end_turn' } as acp.PromptResponse);
      try {
        blocks = await context.blocks();
      } catch (err) {
        this.currentTurn = undefined;
        this.dispatch({ type: 'notice', severity: 'warning', text: `Not sent (${errorMessage(err)}): ${text}` });
        if (this.queue.length) setTimeout(() => this.sendQueued(), 0);
        throw err;
      }
    }
    this.loadTail.end();
    this.dispatch({ type: 'promptSent', text, ...(context?.labels.length ? { context: context.labels } : {}) });
    this.files.turnStarted();
    // The turn's span exists once `promptSent` is applied; its trace context rides in `_meta`.
    const stop = new AbortController();
    const request = this.conn.prompt(sessionId, [{ type: 'text', text }, ...blocks], this.spans?.traceContext(), AbortSignal.any([stop.signal, this.requests.signal]));
    // Stop ends the turn here at once (see cancel); the request's own answer comes when it comes.
    let stopped!: (res: acp.PromptResponse) => void;
    const ended = new Promise<'stopped'>((r) => (stopped = () => r('stopped')));
    const turn = { stop, stopped };
    this.turn = turn;
    const current = Promise.race([request, ended.then(() => ({ stopReason: 'cancelled' }) as acp.PromptResponse)]);
    this.currentTurn = current;
    try {
      const res = await current;
      // `usage` is unstable in ACP v1 (the stable SDK leaves an answer's extra fields in place).
      if (!stop.signal.aborted) this.dispatch({ type: 'turnEnded', stopReason: res.stopReason, usage: (res as { usage?: unknown }).usage });
      return res;
    } catch (err) {
      this.dispatch({ type: 'turnFailed', message: `The turn failed: ${errorMessage(err)}` });
      throw err;
    } finally {
      if (this.turn === turn) this.turn = undefined;
      if (this.currentTurn === current) this.currentTurn = undefined;
      // The next queued prompt goes out after this turn's callers have heard its end.
      if (this.queue.length) setTimeout(() => this.sendQueued(), 0);
      if (stop.signal.aborted) void this.awaitStopped(request);
    }
  }

  /**
   * Waits for the agent's answer to a turn the person stopped: the thread already shows it
   * cancelled. When the answer does not come within {@link cancelGraceMs}, the thread offers
   * Restart Agent; when it comes (a result, `-32800`, or an error), that offer is taken back.
   * A newer Stop, a restart or the end of the session supersede this one.
   */
  private async awaitStopped(request: Promise<acp.PromptResponse>): Promise<void> {
    if (this.stoppedTurn) clearTimeout(this.stoppedTurn.timer);
    const grace = this.cancelGraceMs();
    const mine = {
      timer: setTimeout(() => {
        if (this.stoppedTurn === mine && !this.disposed) this.dispatch({ type: 'stopOverdue', seconds: Math.round(grace / 1000) });
      }, grace),
    };
    this.stoppedTurn = mine;
    let answer: SessionAction;
    try {
      answer = { type: 'stopAnswered', stopReason: (await request).stopReason };
    } catch (err) {
      const cancelled = (err as { code?: unknown })?.code === -32800;
      answer = cancelled ? { type: 'stopAnswered', stopReason: 'cancelled' } : { type: 'stopAnswered', error: errorMessage(err) };
    }
    if (this.stoppedTurn !== mine) return;
    clearTimeout(mine.timer);
    this.stoppedTurn = undefined;
    this.dispatch(answer);
  }

  /**
   * Stops the running turn. At once, without waiting for the agent: the thread shows the turn
   * cancelled, every open permission request is answered `cancelled` (ACP requires it after
   * `session/cancel`), the prompt's caller hears `cancelled`, and the session takes the next
   * prompt. Then `session/cancel` goes to the agent, and `$/cancel_request` for the prompt request.
   * What the agent still sends for the stopped turn is shown late, attached to it (the reducer's
   * `stopping`); see {@link awaitStopped} for an agent that never answers. Does nothing when no
   * turn runs.
   */
  async cancel(): Promise<void> {
    if (!this.currentTurn || !this.conn || !this.state.sessionId) return;
    // Stop means stop: queued prompts are not sent, and each is kept in a notice to copy back.
    if (this.queue.length) {
      const dropped = this.queue.splice(0).map((q) => (q.context?.labels.length ? `${q.text} [with ${q.context.labels.join(', ')}]` : q.text));
      this.dispatch({ type: 'queue', queued: [] });
      for (const text of dropped) this.dispatch({ type: 'notice', severity: 'info', text: `Not sent (you stopped the turn): ${text}` });
    }
    const turn = this.turn;
    // The calls Stop ends: the agent may not ask about them again, even after it answered the turn.
    this.stoppedCalls = new Set(Object.values(this.state.toolCalls).filter((tc) => tc.status === 'pending' || tc.status === 'in_progress' || tc.status === 'awaiting_approval').map((tc) => tc.toolCallId));
    this.dispatch({ type: 'cancelRequested', at: this.now() });
    this.policy.stopApprovals(this.actor(), 'stop');
    this.currentTurn = undefined;
    this.turn = undefined;
    const sent = this.conn.cancel(this.state.sessionId);
    // The feature's own cancel first, then the protocol's for the request itself.
    turn?.stop.abort(new Error('The person stopped the turn.'));
    turn?.stopped({ stopReason: 'cancelled' });
    await sent;
  }

  /**
   * Moves this session to a new agent process (Restart Agent, when the agent did not answer Stop):
   * the old process is ended (its requests cancelled, its waiting permissions answered, its
   * terminals killed), then `session/resume` when the new process offers it, else `session/load`
   * (its replay is not shown again: the thread already holds the conversation), else
   * `session/new`. The thread says which. @returns how the session was taken up.
   * @throws the agent's JSON-RPC error when it refuses (also recorded in the thread).
   */
  async restart(connection: AgentConnection, mcp?: ForwardResult): Promise<'resume' | 'load' | 'new'> {
    const closedMeanwhile = async (): Promise<never> => {
      // Closed while the new process started: it must not outlive the session.
      await connection.dispose();
      throw new Error('The session was closed while its agent restarted.');
    };
    if (this.disposed) return closedMeanwhile();
    // A turn still running is stopped first, so the thread shows it ended before the process goes.
    if (this.currentTurn) await this.cancel().catch(() => undefined);
    // Nothing the old process was allowed to do carries over to the new one unasked.
    this.policy.stopApprovals(this.actor(), 'restart');
    const old = this.conn;
    const sessionId = this.state.sessionId;
    if (this.stoppedTurn) clearTimeout(this.stoppedTurn.timer);
    this.stoppedTurn = undefined;
    this.turn?.stop.abort(new Error('The agent was restarted.'));
    this.turn?.stopped({ stopReason: 'cancelled' });
    this.turn = undefined;
    this.currentTurn = undefined;
    this.requests.abort(new Error('The agent was restarted.'));
    this.requests = new AbortController();
    this.dispatch({ type: 'reattaching' });
    if (old) {
      if (sessionId) old.forgetSession(sessionId);
      await new Promise((r) => setImmediate(r));
      await old.dispose();
    }
    await this.terminals.disposeAll();
    if (this.disposed) return closedMeanwhile();
    const support = connection.sessionSupport;
    const how = sessionId && support.resume ? 'resume' : sessionId && support.load ? 'load' : 'new';
    this.quietReplay = how === 'load';
    try {
      await this.attach(connection, mcp, how === 'new' ? undefined : { how, sessionId: sessionId! });
    } finally {
      this.quietReplay = false;
    }
    const name = this.state.agentName;
    this.notice('info', {
      resume: `Restarted ${name} in a new process; it resumed this session (session/resume).`,
      load: `Restarted ${name} in a new process; it reloaded this session (session/load). Its replay of the conversation is not shown again.`,
      new: `Restarted ${name} in a new process, in a new session: ${name} can neither resume nor load sessions, so it does not remember the conversation above.`,
    }[how]);
    return how;
  }

  /**
   * Answers a waiting permission request with one of the agent's options; with `grantScope`, an
   * allow also becomes a grant for exactly this command or path, for the session or the workspace.
   *
   * The agent's `allow_always` reaches beyond this request only when a person chose it (`by:
   * 'person'`) and the request showed its command and content; otherwise it is taken as once, and
   * the agent hears its `allow_once` option when it offered one, so it is told nothing broader.
   *
   * A card that does not show some values ({@link hiddenValuesOf}) is allowed only by the person,
   * with `acceptHidden` (their second, explicit yes to values they have not seen); a reject needs none.
   * @returns false when the request is not waiting for an answer from this session (unknown, already
   *   answered, or restored from the journal), the option is not one the agent offered, a grant is
   *   asked with a reject option, a grant is asked for a request that can only be allowed once, or
   *   an allow of a card with hidden values comes without the person's `acceptHidden`.
   */
  answerPermission(permissionId: string, optionId: string, by: 'person' | 'api', grantScope?: 'session' | 'workspace' | 'always', opts: { acceptHidden?: boolean } = {}): boolean {
    const p = this.state.permissions[permissionId];
    let option = p?.options.find((o) => o.optionId === optionId);
    if (!p || p.state !== 'waiting' || !option || !this.pendingPermissions.has(permissionId)) return false;
    if (option.kind.startsWith('allow') && this.hiddenValues.has(permissionId) && !(by === 'person' && opts.acceptHidden === true)) return false;
    // A grant extends an allow; it makes no sense with a reject, nor for what the agent did not show.
    if (grantScope && (!option.kind.startsWith('allow') || p.onceOnly)) return false;
    const decider: Decider = { kind: by, ...(grantScope ? { grant: grantScope } : {}) };
    let asOnce = false;
    if (option.kind === 'allow_always' && (p.onceOnly || !mayWiden(decider))) {
      const once = p.options.find((o) => o.kind === 'allow_once');
      if (once) option = once;
      else asOnce = true;
    }
    this.deciders.set(permissionId, decider);
    this.dispatch({ type: 'permissionAnswered', permissionId, optionId: option.optionId, by, grant: grantScope ? { scope: grantScope } : undefined, ...(asOnce ? { asOnce } : {}), at: this.now() });
    return true;
  }


  /**
   * The variables whose values the waiting card `permissionId` does not show (a held command's
   * credentials, see `heldEnv.ts`), or undefined when it shows everything: allowing it then needs
   * the person's second yes (`answerPermission`'s `acceptHidden`).
   */
  hiddenValuesOf(permissionId: string): readonly HiddenValue[] | undefined {
    return this.state.permissions[permissionId]?.state === 'waiting' ? this.hiddenValues.get(permissionId) : undefined;
  }

  /**
   * Puts what the gate does with effects the agent did not ask about into the state (the header
   * and the autonomous-mode note say it): when the session attaches and when settings change.
   */
  gateChanged(): void {
    if (this.disposed) return;
    this.dispatch({ type: 'gateSettings', unrequestedEffects: this.policy.unrequestedMode() });
  }

  /** The autonomous mode the thread last noted (see {@link noteAutonomy}). */
  private autonomyNoted: string | undefined;

  /**
   * Notes in the thread, once each time it happens, that the session is now in a mode whose agent
   * does not ask before acting, and what Agent Switchboard does instead (issue 19).
   */
  private noteAutonomy(patches: readonly SessionPatch[]): void {
    if (this.replaying || !patches.some((p) => p.op === 'meta' && ('currentModeId' in p.meta || 'configOptions' in p.meta || 'unrequestedEffects' in p.meta))) return;
    const mode = autonomousMode(this.state);
    const key = mode && this.state.unrequestedEffects ? `${mode}\0${this.state.unrequestedEffects}` : undefined;
    if (key === this.autonomyNoted) return;
    this.autonomyNoted = key;
    if (mode && this.state.unrequestedEffects) this.dispatch({ type: 'notice', severity: 'info', text: autonomySentence(mode, this.state.agentName, this.state.unrequestedEffects) });
  }

  /**
   * Rejects every permission request of this session that waits (the "Reject all" of a flood of
   * cards): each with its narrowest reject option, as `by` (a held effect's reject answers the
   * agent's request with -32013). A request that offers no reject stays for the person's card.
   * @returns how many were rejected and how many still wait.
   */
  rejectAllWaiting(by: 'person' | 'api'): { rejected: number; left: number } {
    let rejected = 0;
    const waiting = Object.values(this.state.permissions).filter((p) => p.state === 'waiting').sort((a, b) => a.requestedAt - b.requestedAt);
    for (const p of waiting) {
      const option = narrowestOption(p, 'reject');
      if (option !== undefined && this.answerPermission(p.permissionId, option, by)) rejected++;
    }
    return { rejected, left: waiting.length - rejected };
  }

  private dispatch(action: SessionAction): void {
    if (this.disposed && action.type !== 'closed') return;
    this.recorder?.(action);
    const patches = reduce(this.state, action);
    // Permission answers follow the state: whatever left "waiting" is answered, by construction.
    for (const [id, resolve] of this.pendingPermissions) {
      const p = this.state.permissions[id];
      if (!p || p.state === 'waiting') continue;
      this.pendingPermissions.delete(id);
      const option = p.state === 'selected' ? p.options.find((o) => o.optionId === p.optionId) : undefined;
      const response: acp.RequestPermissionResponse = option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
      // The approval is recorded before the agent hears the answer, so its effect finds it.
      const declared = this.declared.get(id);
      this.declared.delete(id);
      // An answer that did not come through answerPermission or a grant below is nobody's click:
      // it is recorded as a replay, which approves once at most and creates nothing.
      const decider: Decider = p.state === 'cancelled' ? { kind: 'cancel' } : (this.deciders.get(id) ?? { kind: 'replay' });
      this.deciders.delete(id);
      const boundTo = this.heldTokens.get(id);
      this.heldTokens.delete(id);
      this.hiddenValues.delete(id);
      if (declared) this.policy.recordDecision(this.actor(), declared.intent, option ? { kind: option.kind, optionId: option.optionId } : 'cancelled', decider, boundTo !== undefined ? { boundTo } : undefined);
      resolve(response);
    }
    this.questions.settle();
    for (const p of patches) {
      if (this.replaying) {
        // An effect the history shows done is not done now; one still running in it can be finished
        // live, and that finish is recorded like any other.
        if (p.op === 'toolCall') this.agentEffects.shownDone(p.toolCall);
        continue;
      }
      const fresh = p.op === 'toolCall' ? this.agentEffects.reported(p.toolCall) : [];
      if (p.op === 'toolCall' && fresh.length) {
        this.policy.recordUnverified(this.actor(), p.toolCall.toolCallId, p.toolCall.title, fresh);
        // A command approved as sandboxed that the agent ran itself never passed through our sandbox (issue 21).
        const id = p.toolCall.toolCallId;
        if (fresh.some((e) => e.type === 'command') && Object.values(this.state.permissions).some((x) => x.toolCallId === id && x.display?.some((d) => d.type === 'command' && d.sandbox?.sandboxed))) {
          const text = `${this.state.agentName} ran "${p.toolCall.title}" itself, not through the editor's terminal: it was not sandboxed, whatever its card said the editor would do.`;
          queueMicrotask(() => !this.disposed && this.dispatch({ type: 'notice', severity: 'warning', text }));
        }
      }
    }
    if (patches.length) {
      if (!this.replaying) this.spans?.observe(patches);
      this.changeEmitter.fire({ key: this.state.key, patches, rev: this.state.rev, ...(this.replaying ? { replay: true } : {}) });
      this.noteAutonomy(patches);
    }
  }

  // ---- SessionHandlers: the agent's requests for this session ----

  /** `config_option_update`s received so far (see {@link setConfigOption}). */
  private configPushes = 0;

  onUpdate(update: acp.SessionUpdate): void {
    if (update.sessionUpdate === 'config_option_update') this.configPushes++;
    // The editor's own tool calls (`editor-…`) are not the agent's to change: it could slip content
    // into a card the person is about to approve.
    if ((update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && isHostedId(update.toolCallId)) return;
    if (this.quietReplay) return;
    const tail = this.loadTail.verdict(update);
    if (tail === 'quiet') return;
    if (tail === 'live') return this.dispatch({ type: 'update', update, at: this.now() });
    this.replaying = true;
    try {
      this.dispatch({ type: 'update', update, at: this.now() });
    } finally {
      this.replaying = false;
    }
  }

  async requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    this.loadTail.end();
    if (isHostedId(params.toolCall.toolCallId)) throw acpSdk().RequestError.invalidParams(undefined, 'That tool call belongs to the editor.');
    return this.askPermission(params, signal);
  }

  private async askPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    // The intent is built from the call as merged so far (earlier updates plus this request), before
    // the card is shown: the person approves exactly what the card shows, hash included.
    const preview = mergeToolCall(this.state.toolCalls[params.toolCall.toolCallId], params.toolCall, false);
    const declared = await this.policy.declare(preview, this.actor());
    if (this.state.status === 'cancelling' || this.disposed || signal.aborted) return { outcome: { outcome: 'cancelled' } };
    // After Stop, ACP's answer to every permission request is `cancelled`: one that arrives before
    // the next prompt, or about a call the stopped turn left cancelled, shows no buttons at all.
    const stoppedCall = this.stoppedCalls.has(params.toolCall.toolCallId) && this.state.toolCalls[params.toolCall.toolCallId]?.status === 'cancelled';
    if (stoppedCall || (this.state.stopping && this.state.status === 'ready')) {
      this.dispatch({ type: 'notice', severity: 'info', text: `${this.state.agentName} asked for a permission after you stopped the turn; it was answered "cancelled".` });
      return { outcome: { outcome: 'cancelled' } };
    }
    // A second request about a tool call whose card still waits would take that card over (its
    // buttons, its content) under the person's cursor: it is refused, and the waiting card stays.
    if (Object.values(this.state.permissions).some((p) => p.toolCallId === params.toolCall.toolCallId && p.state === 'waiting')) {
      this.dispatch({ type: 'notice', severity: 'warning', text: 'The agent asked again about a tool call whose permission card is still waiting; the new request was refused, so the card you are reading cannot change.' });
      return { outcome: { outcome: 'cancelled' } };
    }
    return this.openCard(params, declared, preview, signal);
  }

  /**
   * Shows a permission card for `params` with the intent `declared` (built from `preview`, which the
   * card shows frozen) and resolves with the answer: the person's, a grant's, or `cancelled` (Stop,
   * close, `signal`). `heldToken`: the card is a held effect's (issue 19), asked at the effect; its
   * approval is bound to that token. `hidden`: values the card does not show (see {@link hiddenValuesOf}).
   */
  private openCard(params: acp.RequestPermissionRequest, declared: DeclaredIntent, preview: ToolCallView, signal: AbortSignal, heldToken?: string, onceOnlyWhy?: string, hidden?: HiddenValue[]): Promise<acp.RequestPermissionResponse> {
    // An id nobody can guess (not a counter): it names the request in commands and the API.
    let permissionId = `p-${randomUUID()}`;
    while (this.state.permissions[permissionId]) permissionId = `p-${randomUUID()}`;
    return new Promise((resolve) => {
      this.pendingPermissions.set(permissionId, resolve);
      this.declared.set(permissionId, declared);
      if (heldToken !== undefined) this.heldTokens.set(permissionId, heldToken);
      if (hidden?.length) this.hiddenValues.set(permissionId, hidden);
      this.dispatch({
        type: 'permissionRequested',
        permissionId,
        toolCall: params.toolCall,
        options: params.options,
        at: this.now(),
        intentHash: intentHash(declared.intent),
        undeclared: declared.undeclared,
        grantNotes: this.policy.grantNotes(declared.intent, params.options),
        onceOnly: onceOnlyReason(declared.intent) ?? onceOnlyWhy,
        ...(declared.display ? { display: declared.display } : {}),
        ...(heldToken !== undefined ? { unrequested: true as const } : {}),
        view: preview,
      });
      // The agent withdrew its request ($/cancel_request) or the connection closed.
      signal.addEventListener('abort', () => this.dispatch({ type: 'permissionCancelled', permissionId }), { once: true });
      // A standing grant that covers every effect of the request answers it, as the person asked,
      // with the agent's allow-once option only: the agent is never told "always" by a grant (it
      // would stop asking), and the answer is recorded as the grant's, so it mints no grant.
      const grant = this.policy.grantFor(this.actor(), declared.intent);
      const allow = params.options.find((o) => o.kind === 'allow_once');
      if (grant && allow) {
        this.deciders.set(permissionId, { kind: 'grant', grantId: grant.id, description: grant.description });
        this.dispatch({ type: 'permissionAnswered', permissionId, optionId: allow.optionId, by: 'grant', grant: { scope: grant.scope, description: grant.description }, at: this.now() });
      }
    });
  }

  /**
   * A tool call the editor runs for the agent (a delegation to a remote agent that the agent asked
   * for through the editor's MCP server): it appears as a tool card, is put to the person as a
   * permission request like any other (intent, hash, audit, grants), runs only when allowed, and
   * its outcome lands on the card. `run` gets the tool call's span, the parent of what it starts.
   * @returns the text `run` produced.
   * @throws Error when the person refused or cancelled, or `run` failed (the card says so too).
   */
  async hostToolCall(
    call: { title: string; kind: acp.ToolKind; rawInput?: unknown },
    run: (parent: Span | undefined, decidedBy: string, signal: AbortSignal) => Promise<string>,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<string> {
    if (this.disposed || !this.state.sessionId) throw new Error('The session is not running.');
    // An id the agent cannot guess, and updates to it from the agent are dropped (see onUpdate).
    const toolCallId = `${HOSTED_PREFIX}${randomUUID()}`;
    // Stops with the caller (the agent withdrew its MCP request) or with the session.
    const stop = AbortSignal.any([signal, this.hostedAbort.signal]);
    this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId, title: call.title, kind: call.kind, status: 'pending', rawInput: call.rawInput } });
    const answer = await this.askPermission(
      {
        sessionId: this.state.sessionId,
        toolCall: { toolCallId },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      },
      stop,
    );
    const finish = (status: 'completed' | 'failed', text: string) =>
      this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status, content: [{ type: 'content', content: { type: 'text', text } }] } });
    if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') {
      const why = answer.outcome.outcome === 'selected' ? 'The person refused it.' : 'It was cancelled before anyone decided.';
      finish('failed', why);
      throw new Error(why);
    }
    if (stop.aborted) {
      finish('failed', 'Withdrawn before it ran.');
      throw new Error('The request was withdrawn.');
    }
    const p = Object.values(this.state.permissions).find((x) => x.toolCallId === toolCallId);
    this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' } });
    try {
      const text = await run(this.spans?.toolSpan(toolCallId), p?.answeredBy ?? 'person', stop);
      finish('completed', text);
      return text;
    } catch (err) {
      finish('failed', errorMessage(err));
      throw err;
    }
  }

  /** `elicitation/create` scoped to this session: a card in the thread (see `sessionElicitation.ts`). */
  elicit(params: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse> {
    this.loadTail.end();
    // A question for work the person stopped gets no card, as a permission request does not: the
    // stopped turn's late question, or one about a tool call Stop ended.
    const toolCallId = (params as { toolCallId?: unknown }).toolCallId;
    if ((this.state.stopping && !this.currentTurn) || (typeof toolCallId === 'string' && this.stoppedCalls.has(toolCallId))) return Promise.resolve({ action: 'cancel' });
    return this.questions.ask(params, signal);
  }

  /** `elicitation/complete`: @returns false when no card of this session has that `elicitationId`. */
  completeElicitation(elicitationId: string): boolean {
    return this.questions.complete(elicitationId);
  }

  /**
   * The person's answer to one of the agent's questions (the card's Accept / Decline / Cancel).
   * An accepted form is checked against the requested schema first; problems keep the card waiting.
   */
  answerElicitation(elicitationKey: string, action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>): ElicitationAnswerResult {
    return this.questions.answer(elicitationKey, action, content);
  }

  async readTextFile(params: acp.ReadTextFileRequest, signal?: AbortSignal): Promise<acp.ReadTextFileResponse> {
    this.mustBeOpen();
    this.mustBeAbsolute(params.path);
    let res: acp.ReadTextFileResponse;
    try {
      res = await this.files.read(params);
    } catch (err) {
      // An agent (by its agentInfo) that cannot handle the spec answer gets one it can (compat.ts).
      const answer = compatReadTextFileAnswer(compatRulesFor(this.conn?.agentInfo), err);
      if (answer) return answer;
      throw err;
    }
    // Withdrawn while we read ($/cancel_request): the agent gets -32800, not the text.
    if (signal?.aborted) throw acpSdk().RequestError.requestCancelled();
    return res;
  }

  async writeTextFile(params: acp.WriteTextFileRequest, signal?: AbortSignal): Promise<void> {
    this.mustBeOpen();
    // Before the gate: it resolves paths on disk, and a relative one would resolve against the
    // extension host's own working folder, so its refusal would name a path the agent never sent.
    this.mustBeAbsolute(params.path);
    const check = await this.policy.checkWrite(this.actor(), params.path, params.content);
    const withdrawn = () => {
      this.dispatch({ type: 'notice', severity: 'info', text: `${this.state.agentName} withdrew its write of ${params.path} before it was made; nothing was written.` });
      return acpSdk().RequestError.requestCancelled();
    };
    // Withdrawn before the write was made ($/cancel_request): nothing is written, and the thread says so.
    if (signal?.aborted) throw withdrawn();
    // Nobody approved it: held and asked about at the effect (issue 19), then checked again.
    const held = this.policy.holdable(check) ? await this.held.write(params, check, signal) : undefined;
    const allowed = held?.check ?? check;
    await this.held.perform(held, async () => {
      const toolCallId = this.gate(allowed, (tc) => tc.locations.some((l) => l.path === params.path) || tc.content.some((c) => c.type === 'diff' && c.path === params.path));
      await this.perform(allowed, toolCallId, () => this.files.write(params, allowed.target));
      this.markVerified(toolCallId, { type: 'write', path: params.path, content: params.content, base: allowed.base });
    });
  }

  /**
   * Refuses every effect of a session that was closed (its requests may still be in flight). A
   * request of an open session means the agent is live: a load's replay is over (see `loadTail`).
   */
  private mustBeOpen(): void {
    if (this.disposed) throw acpSdk().RequestError.internalError(undefined, 'The session is closed.');
    this.loadTail.end();
  }

  async createTerminal(params: acp.CreateTerminalRequest, signal?: AbortSignal): Promise<acp.CreateTerminalResponse> {
    this.mustBeOpen();
    const check = await this.policy.checkCommand(this.actor(), params);
    const held = this.policy.holdable(check) ? await this.held.command(params, check, signal) : undefined;
    const allowed = held?.check ?? check;
    // A held card shows the terminal it let run, like an agent's execute card, until it exits.
    const terminalId = await this.held.perform(held, async () => {
      const toolCallId = this.gate(allowed, (tc) => tc.kind === 'execute');
      // The profile the check carried is the one the command runs in (issue 21).
      const sandbox = allowed.effect.type === 'command' ? allowed.effect.sandbox : undefined;
      const id = await this.perform(allowed, toolCallId, () => this.terminals.create(params, sandbox), (t) => t);
      this.markVerified(toolCallId, allowed.effect as CommandEffect);
      return id;
    }, (id) => id);
    return { terminalId };
  }

  /** What this session's agent process runs (see `agentFingerprint`); grants are bound to it. */
  private readonly agentFingerprint: string | undefined;
  /** Hosts the person allowed this session's sandboxed commands from a card ("Allow host and re-run"). */
  private readonly sandboxHosts = new Set<string>();
  private reruns = 0;

  /**
   * "Allow host and re-run" (issue 21): the person allows `host`, which the sandbox refused the
   * sandboxed command of `terminalId`, and runs that command again now. The click approves a new
   * intent — the same command, folder and environment in the profile with that host — which is
   * recorded as the person's decision and passes the effect check like any other; the command runs
   * in a card of our own (its output is not sent to the agent: the thread says so). The host stays
   * allowed for this session's later commands, whose cards show it.
   * @throws Error when the terminal was not sandboxed, the sandbox did not refuse it that host, or the
   *   host is not one literal host (see `literalHostEntry`).
   */
  async allowHostAndRerun(terminalId: string, host: string): Promise<string> {
    this.mustBeOpen();
    const launched = this.terminals.launched?.(terminalId);
    if (!launched) throw new Error('That command did not run in the sandbox.');
    // Only a host the sandbox itself recorded as refused: never one a command printed. And, checked
    // again here where it takes effect, only one literal host: what the card showed and no more.
    if (!(this.terminals.blockedHosts?.(terminalId) ?? []).includes(host)) throw new Error(`The sandbox did not refuse ${host} for that command.`);
    if (literalHostEntry(host) !== host) throw new Error(`${host} is not one literal host name, so it is not allowed with one click.`);
    this.sandboxHosts.add(host);
    const who = this.actor();
    const toolCallId = `switchboard-rerun-${++this.reruns}`;
    const effect = this.policy.commandEffect(who, launched.params, await this.policy.sandboxPlan(who));
    if (!effect.sandbox?.allowedHosts.includes(host)) throw new Error(`The sandbox is not available now, so ${host} cannot be allowed for a sandboxed run.`);
    const intent = this.policy.effectIntent(who, effect, toolCallId);
    const title = `Run again with ${host} allowed: ${[launched.params.command, ...(launched.params.args ?? [])].join(' ')}`;
    this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId, title, kind: 'execute', status: 'pending', rawInput: { command: launched.params.command, ...(launched.params.args ? { args: launched.params.args } : {}), allowedHost: host } }, at: this.now() });
    this.policy.recordDecision(who, intent, { kind: 'allow_once', optionId: 'allow-host-rerun' }, { kind: 'person' });
    const check = await this.policy.checkCommand(who, launched.params);
    if (!check.allowed) {
      this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: check.message } }] }, at: this.now() });
      throw new Error(check.message);
    }
    const id = await this.perform(check, toolCallId, () => this.terminals.create(launched.params, (check.effect as CommandEffect).sandbox), (t) => t);
    this.held.trackTerminal(id, toolCallId);
    this.dispatch({ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId: id }] }, at: this.now() });
    this.dispatch({ type: 'notice', severity: 'info', text: `You allowed ${host} for this session's sandboxed commands and ran the command again; its output is in the card above. ${this.state.agentName} was not told: tell it in your next prompt if it should go on from there.` });
    return id;
  }

  /** Who acts in this session, for the policy. */
  private actor(): Actor {
    const w = this.state.worktree;
    return { sessionId: this.state.key, acpSessionId: this.state.sessionId, agentId: this.state.agentId, agentFingerprint: this.agentFingerprint, cwd: this.state.cwd, ...(w ? { roots: [this.state.cwd] } : {}), ...(this.sandboxHosts.size ? { sandboxHosts: [...this.sandboxHosts] } : {}) };
  }

  /**
   * The session works in a git worktree of its own (issue 20): from now on its effects are contained
   * in the worktree's folder, not the workspace's. Set once, before the agent starts.
   */
  setWorktree(worktree: WorktreeView): void {
    this.dispatch({ type: 'worktree', worktree });
  }

  /**
   * Refuses an effect the gate did not allow (JSON-RPC error, notice in the thread), or returns the
   * tool call it belongs to: the approval's call, else the latest unfinished call that `fits`.
   */
  private gate(check: EffectCheck, fits: (tc: ToolCallView) => boolean): string | undefined {
    if (!check.allowed) {
      this.dispatch({ type: 'effectRefused', message: check.message });
      throw new (acpSdk().RequestError)(ErrorCodes.notApproved, check.message, { reason: check.reason });
    }
    return check.source === 'approval' ? check.approval.intent.toolCallId : latestOpenCall(this.state, fits);
  }

  /**
   * Refuses an `fs/*` path that is not absolute (ACP requires absolute paths), naming it as the
   * agent sent it: `-32011` with `data.reason` `path_not_allowed`, and a notice in the thread.
   */
  private mustBeAbsolute(p: string): void {
    const refusal = relativePathRefusal(p);
    if (!refusal) return;
    this.dispatch({ type: 'effectRefused', message: refusal.message });
    throw new (acpSdk().RequestError)(ErrorCodes.pathNotAllowed, refusal.message, { reason: 'path_not_allowed', path: p });
  }

  /** Marks a tool call as performed by the client, once its effect `done` has succeeded. */
  private markVerified(toolCallId: string | undefined, done: ClientEffect): void {
    this.agentEffects.performedByClient(toolCallId ? this.state.toolCalls[toolCallId] : undefined, done);
    if (toolCallId && this.state.toolCalls[toolCallId]) this.dispatch({ type: 'effectVerified', toolCallId });
  }

  /** `terminalOf`: the terminal a started command runs in, whose exit ends the effect's span. */
  private async perform<T>(check: EffectCheck, toolCallId: string | undefined, effect: () => Promise<T>, terminalOf?: (result: T) => string): Promise<T> {
    const end = check.allowed ? this.spans?.effect(check, toolCallId) : undefined;
    try {
      const result = await effect();
      this.policy.recordResult(this.actor(), check, 'ok');
      end?.(undefined, terminalOf?.(result));
      return result;
    } catch (err) {
      this.policy.recordResult(this.actor(), check, errorMessage(err));
      end?.(errorMessage(err));
      throw err;
    }
  }

  async terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    return this.terminals.output(params.terminalId);
  }

  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    return this.terminals.waitForExit(params.terminalId, signal);
  }

  killTerminal(params: acp.KillTerminalRequest): Promise<void> {
    return this.terminals.kill(params.terminalId);
  }

  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<void> {
    return this.terminals.release(params.terminalId);
  }

  /**
   * Ends the session: answers open requests, kills its terminals and the agent's process group.
   * With `agentClose` (the person closed it) an agent that offers `session/close` is asked to close
   * the session first, waiting at most `CLOSE_TIMEOUT_MS`; the process ends whatever it answers.
   */
  async dispose(opts: { agentClose?: boolean } = {}): Promise<void> {
    if (this.disposed) return;
    const live = this.connected && this.state.sessionId;
    // What the editor runs for this session's agent (a delegation under way) stops with it.
    this.hostedAbort.abort(new Error('The session closed.'));
    if (this.stoppedTurn) clearTimeout(this.stoppedTurn.timer);
    this.stoppedTurn = undefined;
    // Every request still open for this session gets `$/cancel_request` before the process ends.
    this.requests.abort(new Error('The session closed.'));
    this.turn?.stopped({ stopReason: 'cancelled' });
    this.dispatch({ type: 'closed' });
    this.spans?.end();
    this.disposed = true;
    // Closed means no further effect: the session's requests are unrouted and its approvals and
    // session grants dropped before we wait for the agent's `session/close` answer (up to 2 s),
    // so nothing it asks for in that time is performed.
    if (this.state.sessionId) {
      this.conn?.forgetSession(this.state.sessionId);
    }
    this.policy.forgetSession(this.state.key);
    if (opts.agentClose && live && this.conn) await this.conn.closeSession(live);
    // The cancellations are queued writes: let them reach the agent before its stream closes.
    await new Promise((r) => setImmediate(r));
    await Promise.allSettled([this.terminals.disposeAll(), this.conn?.dispose()]);
    this.changeEmitter.dispose();
  }
}

/**
 * What a prompt carries besides its text: the names of its attachments (for the thread) and how
 * to make their ACP content blocks, called when the turn starts (files read then, not when queued).
 */
export interface PromptContext {
  labels: string[];
  blocks(): Promise<acp.ContentBlock[]>;
}

/** A config option as ACP shapes it (the inverse of the reducer's view). */
function toAcpOption(o: NonNullable<SessionState['configOptions']>[number]): acp.SessionConfigOption {
  const base = { id: o.id, name: o.name, ...(o.description ? { description: o.description } : {}), ...(o.category ? { category: o.category } : {}) };
  if (o.type === 'boolean') return { ...base, type: 'boolean', currentValue: o.currentValue };
  return { ...base, type: 'select', currentValue: o.currentValue, options: o.options.map((v) => ({ value: v.value, name: v.name, ...(v.description ? { description: v.description } : {}) })) };
}

/** The agent's `promptCapabilities` (ACP v1 `initialize`), all false when absent. */
function promptCapabilitiesOf(init: acp.InitializeResponse): { image: boolean; audio: boolean; embeddedContext: boolean } {
  const p = init.agentCapabilities?.promptCapabilities;
  return { image: !!p?.image, audio: !!p?.audio, embeddedContext: !!p?.embeddedContext };
}

/** The most recent tool call that is not finished and satisfies `fits`. */
function latestOpenCall(state: SessionState, fits: (tc: ToolCallView) => boolean): string | undefined {
  const open = Object.values(state.toolCalls).filter((tc) => !['completed', 'failed', 'rejected', 'cancelled'].includes(tc.status) && fits(tc));
  return open.at(-1)?.toolCallId;
}

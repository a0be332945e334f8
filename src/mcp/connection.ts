/**
 * One MCP server as the host runs it: a `@modelcontextprotocol/client` 2.x `Client` in `auto`
 * version negotiation (the 2026-07-28 stateless revision when the server offers `server/discover`,
 * else the 2025 `initialize` handshake), over stdio or Streamable HTTP. It keeps the server's status
 * (starting, running, error with the stderr tail), its catalog (tools, resources, prompts; refreshed
 * on `list_changed`), and calls tools with cancellation. A stdio server runs in its own process
 * group ({@link GroupStdioTransport}), so stopping it leaves no orphan behind.
 *
 * A server that is not up within the startup budget is shown as slow but still waited for, so one
 * that comes up late is registered late. No `vscode`. Spec: PROTOCOLS.md §2 (MCP eras), §3.
 */
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpSdk } from './sdk';
import { GroupStdioTransport, type StdioLaunch } from './stdioTransport';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { EMPTY_CATALOG, listTolerant, type ListSource, type McpCatalog, type McpListKind } from './catalog';
import { Emitter, type Event } from '../common/lifecycle';
import { errorMessage } from '../acp/connection';
import type { McpTransportSpec } from './config';
import { elicitationProblems, withDefaults, type ElicitationAnswer, type Elicitor } from './elicitation';
import { offersTasks, RawDispatcher, TaskRunner, type TaskProgress } from './tasks';
import { isUnauthorized, McpOAuthProvider, type AuthorizationPort, type OAuthProviderOptions, type SecretStore } from './oauth';
import type { McpTracer } from '../trace/mcpSpans';
import { addOtelEnv } from '../trace/receiver';

/** Where a server is in its life. */
export type McpServerState =
  | { state: 'stopped' }
  /** `signIn`: the authorization page the person has to complete (HTTP servers with OAuth). */
  | { state: 'starting'; since: number; slow: boolean; signIn?: string }
  | { state: 'running'; since: number; era: 'modern' | 'legacy'; protocolVersion: string; serverName: string; serverVersion: string; instructions?: string }
  | { state: 'error'; message: string; stderrTail: string[] };

export type { McpCatalog, McpListProblem } from './catalog';

/** Options of a connection. */
export interface McpConnectionOptions {
  clientInfo: { name: string; version: string };
  /**
   * Milliseconds after which a starting server is shown as slow (it is still waited for); a
   * function is asked at each start, so a changed setting applies to the next start without a reload.
   */
  startupBudgetMs: number | (() => number);
  /** The environment stdio servers inherit (the person's); entries of the definition override it. */
  baseEnv: NodeJS.ProcessEnv;
  /** Lines of stderr kept for error reports. */
  stderrLines?: number;
  /**
   * Asks the person when the server sends a form-mode `elicitation/create`. Without it the client
   * does not declare elicitation and servers cannot ask.
   */
  elicit?: Elicitor;
  /** OAuth for HTTP servers that require it: where credentials live and how the browser is reached. */
  oauth?: { store: SecretStore; port: AuthorizationPort; options: OAuthProviderOptions };
  /** Traces the requests we send (their context goes in `params._meta`). */
  tracer?: McpTracer;
  /**
   * OpenTelemetry exporter variables for a stdio server we launch (pointing at our receiver), or
   * undefined to give none. The server also gets `TRACEPARENT`. Its own definition wins.
   */
  otelEnv?: (serverId: string) => Promise<Record<string, string> | undefined>;
  /**
   * Starts a stdio server inside the sandbox when its definition asks for it (`"sandbox": true`) or
   * the settings do (issue 21), or its resolved transport names the reach its approval was given
   * for (`reach`, then only in a profile that reaches exactly that): returns the launch to start
   * (unchanged when not sandboxed), or throws with the reason the server cannot be started
   * sandboxed; it is then not started at all.
   */
  sandboxLaunch?: (launch: StdioLaunch, requested: boolean, reach?: string) => Promise<StdioLaunch>;
}


/** Rounds of `input_required` one request may take before it fails (MCP 2026-07-28 MRTR). */
export const MRTR_MAX_ROUNDS = 8;

/** A running (or failed) MCP server. */
export class McpServerConnection {
  private client: Client | undefined;
  private stdio: GroupStdioTransport | undefined;
  private http: StreamableHTTPClientTransport | undefined;
  private oauth: McpOAuthProvider | undefined;
  /** Tool calls as tasks, for servers that offer the Tasks extension. */
  private tasks: TaskRunner | undefined;
  /** Raw requests on the client's transport (task calls, and lists the SDK refused whole). */
  private dispatcher: RawDispatcher | undefined;
  /** Counts starts and stops: a start that was overtaken (restart, sign-out) gives up quietly. */
  private generation = 0;
  private signingIn: { pending: Promise<URLSearchParams>; done: Promise<void> } | undefined;
  private stderr: string[] = [];
  /** Tracing variables for the next stdio launch (never overriding the definition's or the person's). */
  private tracingEnv: Record<string, string> = {};
  private stopping = false;
  /** The era verdict of an earlier start, when the probe cannot be sent again (a stdio server that exits on it). */
  private prior: { kind: 'legacy' } | undefined;
  /** A new 2025-era HTTP session being set up after the server forgot ours (404), shared by the calls that met it. */
  private renewing: { from: Client; done: Promise<void> } | undefined;
  /** Clients replaced by a renewal: closed once their requests in flight have their own answers. */
  private readonly retired = new WeakSet<Client>();
  /** Our requests in flight per client (a retired client is closed when its count reaches 0). */
  private readonly inflight = new Map<Client, number>();
  private _state: McpServerState = { state: 'stopped' };
  private _catalog: McpCatalog = EMPTY_CATALOG;
  private _listed = false;
  private readonly emitter = new Emitter<void>();
  /** Fires when the state or the catalog changes. */
  readonly onDidChange: Event<void> = this.emitter.event;

  constructor(
    readonly id: string,
    readonly name: string,
    private readonly transport: McpTransportSpec,
    private readonly options: McpConnectionOptions,
  ) {}

  get state(): McpServerState {
    return this._state;
  }

  get catalog(): McpCatalog {
    return this._catalog;
  }

  /** True once the catalog has been listed since the server started (pins compare only then). */
  get listed(): boolean {
    return this._listed;
  }

  /** The stdio server's process id, which is also its process-group id on POSIX. */
  get pid(): number | undefined {
    return this.stdio?.pid;
  }

  /** The last lines the server wrote to stderr (stdio only). */
  get stderrTail(): string[] {
    return [...this.stderr];
  }

  /**
   * Starts the server and lists its catalog. Resolves when it is running or has failed (the state
   * says which); never rejects.
   */
  async start(): Promise<void> {
    const gen = ++this.generation;
    this.stopping = false;
    this._listed = false;
    this.stderr = [];
    this.set({ state: 'starting', since: Date.now(), slow: false });
    const slowTimer = setTimeout(() => {
      if (this._state.state === 'starting') this.set({ ...this._state, slow: true });
    }, startupBudget(this.options.startupBudgetMs));
    let client: Client | undefined;
    try {
      await this.prepareTracing();
      client = await this.connect(gen);
      // The catalog is listed before the server counts as running, so "running" always has its tools.
      this._catalog = await this.listCatalog(client);
      this._listed = true;
      const info = client.getServerVersion();
      this.set({
        state: 'running',
        since: Date.now(),
        era: client.getProtocolEra() ?? 'legacy',
        protocolVersion: client.getNegotiatedProtocolVersion() ?? '?',
        serverName: info?.title ?? info?.name ?? this.name,
        serverVersion: info?.version ?? '?',
        instructions: client.getInstructions(),
      });
    } catch (err) {
      if (err instanceof Superseded) return;
      if (!this.stopping) {
        // A process that died says why on stderr, often a moment after the pipe closed.
        if (this.transport.type === 'stdio') await new Promise((r) => setTimeout(r, 150));
        const why = telling(this.stderr);
        this.fail(`could not start${this.exitText()}: ${why ? `${why} (${errorMessage(err)})` : errorMessage(err)}`);
      }
      await (client ?? this.client)?.close().catch(() => undefined);
    } finally {
      clearTimeout(slowTimer);
    }
  }

  /**
   * Connects a new client; when an HTTP server answers that it needs authorization, waits for the
   * person's sign-in in the browser (the SDK's OAuth flow started it), redeems the code and connects
   * again. A stdio server that exits on the `server/discover` probe (servers on older SDKs end on
   * any request before `initialize`) is started again, fresh, for the 2025 handshake, and that
   * verdict is kept for later starts. @throws Error when the server cannot be reached or the sign-in fails.
   */
  private async connect(gen: number): Promise<Client> {
    for (let attempt = 1; ; attempt++) {
      const client = this.makeClient();
      this.client = client;
      const transport = this.createTransport();
      try {
        await client.connect(transport, this.prior ? { prior: this.prior } : undefined);
        if (gen !== this.generation) throw new Superseded();
        client.onclose = () => this.closed();
        void this.tasks?.close();
        this.dispatcher = new RawDispatcher(transport);
        this.tasks = offersTasks(client) ? this.taskRunner(client, this.dispatcher) : undefined;
        return client;
      } catch (err) {
        if (this.transport.type === 'stdio' && !this.prior && diedOnProbe(err) && !this.stopping && gen === this.generation) {
          this.prior = { kind: 'legacy' };
          await client.close().catch(() => undefined);
          // The tail is the new process's: the probe's exit was expected and says nothing about it.
          this.stderr = [];
          continue;
        }
        const pending = !(err instanceof Superseded) && isUnauthorized(err) && attempt <= 2 ? this.oauth?.takePendingAuthorization() : undefined;
        if (!pending || this.stopping || gen !== this.generation) {
          await client.close().catch(() => undefined);
          throw gen !== this.generation ? new Superseded() : err;
        }
        if (this._state.state === 'starting') this.set({ ...this._state, signIn: this.oauth?.pendingUrl?.toString() });
        try {
          await this.completeSignIn(pending);
        } finally {
          await client.close().catch(() => undefined);
        }
        if (gen !== this.generation) throw new Superseded();
        if (this._state.state === 'starting') this.set({ ...this._state, signIn: undefined });
      }
    }
  }

  private taskRunner(client: Client, dispatcher: RawDispatcher): TaskRunner {
    const elicit = this.options.elicit;
    return new TaskRunner({
      client,
      dispatcher,
      endpointId: this.id,
      clientInfo: this.options.clientInfo,
      clientCapabilities: this.capabilities(),
      tools: () => this._catalog.tools,
      elicit: elicit && ((message, schema, s) => this.ask(elicit, message, schema, s ?? new AbortController().signal)),
    });
  }

  /**
   * Waits for the browser's redirect and exchanges its code for tokens (the SDK checks `iss`, RFC
   * 9207). Callers that met the same sign-in share one exchange: a code is redeemed once.
   */
  private completeSignIn(pending: Promise<URLSearchParams>): Promise<void> {
    if (this.signingIn?.pending === pending) return this.signingIn.done;
    const done = (async () => {
      let params: URLSearchParams;
      try {
        params = await pending;
      } catch (err) {
        throw new Error(`it needs you to sign in, and the sign-in did not complete: ${errorMessage(err)}`);
      }
      const http = this.http;
      if (!http) throw new Error('the sign-in finished after the server was stopped.');
      this.oauth?.redeeming(params.get('state'));
      await http.finishAuth(params);
    })();
    this.signingIn = { pending, done };
    done.then(
      () => this.signingIn?.done === done && (this.signingIn = undefined),
      () => this.signingIn?.done === done && (this.signingIn = undefined),
    );
    return done;
  }

  /**
   * Runs a request; when the server asks for more authorization on the way (a 401, or a 403
   * `insufficient_scope` step-up), waits for the sign-in and runs it again (at most twice). When a
   * 2025-era HTTP server answers 404 to our session (it restarted and forgot it), starts one new
   * session (MCP 2025-11-25, Streamable HTTP "Session Management") and runs the request once more.
   */
  private async withSignIn<T>(run: (client: Client) => Promise<T>): Promise<T> {
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      await this.renewing?.done.catch(() => undefined);
      const client = this.runningClient();
      this.inflight.set(client, (this.inflight.get(client) ?? 0) + 1);
      try {
        return await run(client);
      } catch (err) {
        // Only a request the server itself refused (its own 404: it never ran) is sent again. A
        // retired client is closed only once its requests have their own answers, so none is cut
        // off and sent twice (a tool call the server ran before it forgot the session).
        if (!renewed && this.sessionGone(err)) {
          renewed = true;
          await this.renewSession(client);
          continue;
        }
        const pending = isUnauthorized(err) && attempt <= 2 ? this.oauth?.takePendingAuthorization() : undefined;
        if (!pending) throw err;
        await this.completeSignIn(pending);
      } finally {
        const left = (this.inflight.get(client) ?? 1) - 1;
        if (left > 0) this.inflight.set(client, left);
        else {
          this.inflight.delete(client);
          if (this.retired.has(client)) void client.close().catch(() => undefined);
        }
      }
    }
  }

  /** True when `err` is a 404 to a 2025-era HTTP request that carried a session. */
  private sessionGone(err: unknown): boolean {
    const status = (err as { status?: unknown } | undefined)?.status;
    return status === 404 && this.transport.type === 'http' && this._state.state === 'running' && this._state.era === 'legacy';
  }

  /**
   * Replaces `from` (whose session the server no longer knows) by a new client with a new session,
   * and lists the catalog again; calls that met the same 404 share the one renewal.
   * @throws Error when the new session cannot be started (the server is then shown failed, with why).
   */
  private async renewSession(from: Client): Promise<void> {
    if (this.client !== from) return;
    if (this.renewing?.from === from) return this.renewing.done;
    const gen = this.generation;
    const done = (async () => {
      // The old client goes quietly, once its requests in flight have their answers (see withSignIn):
      // its close is not the server stopping.
      from.onclose = undefined;
      this.retired.add(from);
      if (!this.inflight.get(from)) void from.close().catch(() => undefined);
      const client = await this.connect(gen);
      this._catalog = await this.listCatalog(client);
      this.emitter.fire();
    })();
    this.renewing = { from, done };
    try {
      await done;
    } catch (err) {
      if (!(err instanceof Superseded) && gen === this.generation) this.fail(`lost its session and could not start a new one: ${errorMessage(err)}`);
      throw err;
    } finally {
      if (this.renewing?.done === done) this.renewing = undefined;
    }
  }

  /** What this client declares: form elicitation when someone can answer (defaults applied by the SDK, SEP-1034). */
  private capabilities(): Record<string, unknown> {
    return this.options.elicit ? { elicitation: { form: { applyDefaults: true } } } : {};
  }

  private makeClient(): Client {
    const client = new (mcpSdk().Client)(this.options.clientInfo, {
      capabilities: this.capabilities(),
      // The probe waits a while on its own: a slow server is still starting, not an old one.
      versionNegotiation: { mode: 'auto', probe: { timeoutMs: 10_000, maxRetries: 0 } },
      // 2026-07-28 multi round-trip requests: the SDK answers each round and retries with a new id,
      // echoing `requestState` exactly; a server that never completes is given up on after this many.
      inputRequired: { maxRounds: MRTR_MAX_ROUNDS },
      listChanged: {
        tools: { onChanged: (err, tools) => this.listChanged(client, 'tools', err, tools) },
        resources: { onChanged: (err, resources) => this.listChanged(client, 'resources', err, resources) },
        prompts: { onChanged: (err, prompts) => this.listChanged(client, 'prompts', err, prompts) },
      },
    });
    if (this.options.elicit) this.handleElicitation(client, this.options.elicit);
    return client;
  }

  /** The authorization page a sign-in is waiting on, to open again if the person closed it. */
  get signInUrl(): string | undefined {
    return this.oauth?.pendingUrl?.toString();
  }

  /** True when this (HTTP) server is used with OAuth tokens the person signed in for. */
  get signedIn(): boolean {
    return this.oauth?.signedIn ?? false;
  }

  /** Forgets this server's OAuth credentials (stored per server and issuer). */
  async signOut(): Promise<void> {
    await this.oauth?.signOut();
  }

  private handleElicitation(client: Client, elicit: Elicitor): void {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const p = request.params;
      // Only form mode is declared; the SDK refuses URL mode before it reaches us.
      if (p.mode === 'url') return { action: 'decline' as const };
      return this.ask(elicit, p.message, p.requestedSchema as Record<string, unknown>, ctx.mcpReq.signal);
    });
  }

  /** Asks the person and checks an accepted answer against the schema. @throws Error when it does not match. */
  private async ask(elicit: Elicitor, message: string, requestedSchema: Record<string, unknown>, signal: AbortSignal): Promise<ElicitationAnswer> {
    const answer = await elicit({ serverId: this.id, serverName: this.name, message, requestedSchema }, signal);
    if (answer.action !== 'accept') return answer;
    const problems = elicitationProblems(requestedSchema, withDefaults(requestedSchema, answer.content));
    // The form checks as the person types; this is the last guard before values leave the editor.
    if (problems.length) throw new Error(`The answer does not match what the server asked for: ${problems.join('; ')}`);
    return answer;
  }

  /** Lists tools, resources and prompts again (each only when the server offers it). */
  async refresh(): Promise<void> {
    const client = this.client;
    if (!client || this._state.state !== 'running') return;
    try {
      this._catalog = await this.listCatalog(client);
      this._listed = true;
      this.emitter.fire();
    } catch (err) {
      this.fail(`listing its tools failed: ${errorMessage(err)}`);
    }
  }

  /**
   * Lists tools, resources, resource templates and prompts (each only when the server offers it).
   * An item that does not match its schema is left out and reported; the others are kept.
   * @throws Error when a list fails as a whole (the server's error, or no list at all).
   */
  private async listCatalog(client: Client): Promise<McpCatalog> {
    const caps = client.getServerCapabilities() ?? {};
    const source = this.listSource(client);
    const none = { items: [], problems: [] };
    const [tools, resources, resourceTemplates, prompts] = await Promise.all([
      caps.tools ? listTolerant(source, 'tools') : none,
      caps.resources ? listTolerant(source, 'resources') : none,
      // Templates are optional even for servers with resources: a refusal of this one list costs nothing else.
      caps.resources ? listTolerant(source, 'resourceTemplates').catch(() => none) : none,
      caps.prompts ? listTolerant(source, 'prompts') : none,
    ]);
    return {
      tools: tools.items,
      resources: resources.items,
      resourceTemplates: resourceTemplates.items,
      prompts: prompts.items,
      problems: [...tools.problems, ...resources.problems, ...resourceTemplates.problems, ...prompts.problems],
    };
  }

  private listSource(client: Client): ListSource {
    const dispatcher = this.dispatcher;
    if (!dispatcher) throw new Error(`The MCP server "${this.name}" is not connected.`);
    return {
      client,
      dispatcher,
      envelope: () => {
        const version = client.getNegotiatedProtocolVersion();
        if (client.getProtocolEra() !== 'modern' || !version) return undefined;
        return {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': this.options.clientInfo,
          'io.modelcontextprotocol/clientCapabilities': this.capabilities(),
        };
      },
      headerChecked: () => client.getProtocolEra() === 'modern' && this.transport.type === 'http',
    };
  }

  /**
   * Calls a tool. Aborting `signal` cancels the call the way the server's era expects (the SDK
   * sends `notifications/cancelled`; a task is cancelled with `tasks/cancel`). A server that offers
   * the Tasks extension may run the call as a task: `onTask` hears each status it reports.
   * @throws Error when the server is not running, the task failed or was cancelled, or the server's JSON-RPC error.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal, onTask?: (t: TaskProgress) => void): Promise<CallToolResult> {
    return this.traced('tools/call', name, (_meta) =>
      this.withSignIn(async (client) => {
        // The Tasks extension's client takes no `_meta`: a task call is traced on our side only.
        if (this.tasks && offersTasks(client)) return this.tasks.call(name, args, signal, onTask);
        return (await client.callTool({ name, arguments: args, ...(_meta ? { _meta } : {}) }, { signal })) as CallToolResult;
      }),
    );
  }

  /** Reads a resource. @throws Error when not running, or the server's error. */
  async readResource(uri: string): Promise<Awaited<ReturnType<Client['readResource']>>> {
    return this.traced('resources/read', uri, (_meta) => this.withSignIn((client) => client.readResource({ uri, ...(_meta ? { _meta } : {}) })));
  }

  /** Gets a prompt. @throws Error when not running, or the server's error. */
  async getPrompt(name: string, args: Record<string, string>): Promise<Awaited<ReturnType<Client['getPrompt']>>> {
    return this.traced('prompts/get', name, (_meta) => this.withSignIn((client) => client.getPrompt({ name, arguments: args, ...(_meta ? { _meta } : {}) })));
  }

  /** Runs one request under its span; a result with `isError` marks the span failed too. */
  private async traced<T>(method: string, target: string, run: (meta: Record<string, string> | undefined) => Promise<T>): Promise<T> {
    // A server that is not running gets no request (the call fails at once) and so no span.
    const t = this._state.state === 'running' ? this.options.tracer?.call(this.id, method, target, this._state.protocolVersion) : undefined;
    try {
      const result = await run(t?.meta as Record<string, string> | undefined);
      t?.end((result as { isError?: boolean } | undefined)?.isError ? 'the tool reported an error' : undefined);
      return result;
    } catch (err) {
      t?.end(errorMessage(err));
      throw err;
    }
  }

  /** The tracing variables of a stdio server's launch: our receiver, and its trace as TRACEPARENT. */
  private async prepareTracing(): Promise<void> {
    this.tracingEnv = {};
    const tracer = this.options.tracer;
    if (!tracer) return;
    const { traceparent } = tracer.serverStarted(this.id, this.name);
    if (this.transport.type !== 'stdio') return;
    let otel: Record<string, string> | undefined;
    try {
      otel = await this.options.otelEnv?.(this.id);
    } catch {
      otel = undefined;
    }
    if (otel) this.tracingEnv = { ...otel, TRACEPARENT: traceparent };
  }

  /** Stops the server (closes the transport; a stdio server's process ends with it). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.http = undefined;
    this.oauth?.cancel();
    void this.tasks?.close();
    this.tasks = undefined;
    await client?.close().catch(() => undefined);
    this._catalog = EMPTY_CATALOG;
    this.set({ state: 'stopped' });
  }

  /** Stops and starts again. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    // The window may be closing: the process group is told to stop now, not after an await.
    this.stdio?.killNow();
    void this.stop();
    this.emitter.dispose();
  }

  private runningClient(): Client {
    if (!this.client || this._state.state !== 'running') throw new Error(`The MCP server "${this.name}" is not running.`);
    return this.client;
  }

  private createTransport() {
    const t = this.transport;
    if (t.type === 'http') {
      const o = this.options.oauth;
      if (o && !this.oauth) this.oauth = new McpOAuthProvider(t.url, o.store, o.port, o.options, t.oauth);
      return (this.http = new (mcpSdk().StreamableHTTPClientTransport)(new URL(t.url), { requestInit: { headers: t.headers }, authProvider: this.oauth }));
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.options.baseEnv)) if (v !== undefined) env[k] = v;
    for (const [k, v] of Object.entries(t.env)) {
      if (v === null) delete env[k];
      else env[k] = v;
    }
    // What the person or the definition already says about OpenTelemetry wins over ours (all or nothing).
    if (this.tracingEnv.TRACEPARENT) {
      const { TRACEPARENT, ...ours } = this.tracingEnv;
      const wanted: Record<string, string | null | undefined> = { ...env };
      for (const [k, v] of Object.entries(t.env)) wanted[k] = v;
      addOtelEnv(wanted, ours, TRACEPARENT);
      for (const [k, v] of Object.entries(wanted)) if (typeof v === 'string' && env[k] === undefined && !(k in t.env)) env[k] = v;
    }
    const max = this.options.stderrLines ?? 40;
    let partial = '';
    const sandbox = this.options.sandboxLaunch;
    const tracer = this.options.tracer;
    // The server's span says whether it runs sandboxed, once the launch is known.
    const prepare = sandbox || tracer?.serverLaunched
      ? async (l: StdioLaunch) => {
          const launch = sandbox ? await sandbox(l, t.sandbox === true, t.sandboxReach) : l;
          tracer?.serverLaunched?.(this.id, launch.sandbox);
          return launch;
        }
      : undefined;
    const transport = (this.stdio = new GroupStdioTransport({ command: t.command, args: t.args, env, cwd: t.cwd }, (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
      partial = lines.pop() ?? '';
      this.stderr.push(...lines.filter((l) => l.length));
      if (this.stderr.length > max) this.stderr.splice(0, this.stderr.length - max);
    }, undefined, prepare));
    return transport;
  }

  private closed(): void {
    // A server that already failed keeps its reason: the close that follows (our own SIGTERM) is not news.
    if (this.stopping || this._state.state === 'error') return;
    const why = telling(this.stderr);
    this.fail(`stopped${this.exitText()}${why ? `: ${why}` : ''}.`);
  }

  /** " (exit code 3)" / " (signal SIGKILL)" once the stdio process has ended, else "". */
  private exitText(): string {
    const e = this.stdio?.exit;
    if (!e) return '';
    return e.signal ? ` (signal ${e.signal})` : ` (exit code ${e.code})`;
  }

  /**
   * A list the server announced as changed: the SDK's fresh list, or, when the SDK refused it whole
   * (an invalid item), the list again item by item. Other failures keep the list as it was.
   */
  private listChanged(client: Client, kind: McpListKind, err: Error | null, items: unknown[] | null): void {
    const apply = (list: unknown[], problems: McpCatalog['problems']) => {
      if (client !== this.client) return;
      this._catalog = { ...this._catalog, [kind]: list, problems: [...this._catalog.problems.filter((p) => p.list !== kind), ...problems] };
      this.emitter.fire();
    };
    if (!err) return apply(items ?? [], []);
    if (!this.dispatcher) return;
    void listTolerant(this.listSource(client), kind).then(
      (r) => apply(r.items, r.problems),
      () => undefined,
    );
  }

  private fail(msg: string): void {
    this.set({ state: 'error', message: `MCP server "${this.name}" ${msg}`, stderrTail: this.stderrTail });
  }

  private set(s: McpServerState): void {
    // The server's trace span ends with its life.
    if (s.state === 'stopped' || s.state === 'error') this.options.tracer?.serverStopped(this.id, s.state === 'error' ? s.message : undefined);
    this._state = s;
    this.emitter.fire();
  }
}

/** True for the SDK's error when the connection closed while `server/discover` was being probed. */
function diedOnProbe(err: unknown): boolean {
  return /closed during the server\/discover probe/.test(errorMessage(err));
}

/** The startup budget in milliseconds: a function is asked now (the setting may have changed). */
function startupBudget(budget: number | (() => number)): number {
  return typeof budget === 'function' ? budget() : budget;
}

/** A start that a later start or a stop overtook. */
class Superseded extends Error {
  constructor() {
    super('superseded by a later start or stop');
  }
}

/** The stderr line that best says what went wrong: the last error-like line, else the last line. */
export function telling(lines: readonly string[]): string | undefined {
  const errorLike = /error|cannot|can't|not found|no such|ENOENT|EACCES|denied|fatal|exception|failed|refused/i;
  return [...lines].reverse().find((l) => errorLike.test(l)) ?? lines.at(-1);
}


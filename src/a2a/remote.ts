/**
 * One remote A2A agent the person added: its checked card and an `@a2a-js/sdk` client over the
 * interface we chose (JSON-RPC or HTTP+JSON). Delegating sends `SendStreamingMessage` when the card
 * offers streaming (else `SendMessage`, then `GetTask` polls), follows the task until it ends or
 * waits for input, re-attaches with `SubscribeToTask` when a stream breaks off, replies to
 * `input-required` on the same task, and cancels with `CancelTask`.
 *
 * Traced: each task is an `invoke_agent {agent}` CLIENT span (GenAI semconv) carrying the task id,
 * state and artifacts, a child of the span that caused it (an agent's tool call) or a root of the
 * trace `traceKey` claims; each A2A request is a CLIENT span under it, and its `traceparent` goes in
 * the HTTP headers of that request. No `vscode`. Spec: PROTOCOLS.md §4.2–4.4, §5.3.
 */
import { randomUUID } from 'node:crypto';
import type { Message, StreamResponse, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aSdk } from './sdk';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { Emitter, type Event } from '../common/lifecycle';
import { GEN_AI, SWITCHBOARD } from '../trace/semconv';
import { traceContextOf, under, type Tracing } from '../trace/tracing';
import { fetchAgentCard, type CheckedCard, type FetchCardOptions } from './card';
import { applyEvent, applyTask, INTERRUPTED, messageText, newTask, pushMessage, TERMINAL, type RemoteTask } from './taskModel';

/** A task delegated to the agent, with its trace span and the last error. */
export interface DelegatedTask {
  /** Our id for it (the agent's task id may not be known yet). */
  localId: string;
  task: RemoteTask;
  /** True while a request or stream for it is open. */
  busy: boolean;
  error?: string;
  /** Who asked: the person from the panel, or an agent of a session (its key). */
  requestedBy: { kind: 'person' } | { kind: 'agent'; sessionKey: string; agentName: string };
}

/** Where a delegation's spans go. */
export interface DelegationTrace {
  /** The store key that claims a new root trace (the remote agent's own trace, or a session). */
  traceKey: string;
  /** The span that caused the delegation (its task span becomes a child). */
  parent?: Span;
}

/** Options of a remote agent. */
export interface RemoteAgentDeps {
  tracing?: Tracing;
  fetch?: typeof fetch;
  /** Milliseconds between `GetTask` polls when the agent does not stream (default 1000). */
  pollMs?: number;
  /** Milliseconds a single request may take (default 30 000). */
  requestTimeoutMs?: number;
  /** Milliseconds a stream may stay silent before it is dropped and the task is re-read (default 300 000). */
  streamIdleMs?: number;
  /** Tasks kept per agent; the oldest ended ones go first (default 100). */
  maxTasks?: number;
}

/** Options of {@link RemoteAgent.connect}. */
export interface ConnectOptions extends FetchCardOptions {
  /**
   * The thumbprint of the key that signed the card when the person added the agent: a card now
   * signed with another key is refused (the person adds the agent again to trust the new key).
   */
  expectedThumbprint?: string;
}

/** A remote agent and its tasks. */
export class RemoteAgent {
  private readonly entries = new Map<string, DelegatedTask>();
  private readonly spans = new Map<string, Span>();
  /** Open requests and streams, by task: cancelling a task stops its own, disposing stops all. */
  private readonly aborts = new Map<string, Set<AbortController>>();
  private readonly inFlight = new Map<string, number>();
  private readonly emitter = new Emitter<DelegatedTask | undefined>();
  private disposed = false;
  /** Fires when a task changes (undefined: the agent itself changed). */
  readonly onDidChange: Event<DelegatedTask | undefined> = this.emitter.event;

  private constructor(
    readonly id: string,
    readonly checked: CheckedCard,
    private readonly client: Client,
    private readonly deps: RemoteAgentDeps,
  ) {}

  /**
   * Reads and checks the card at `url` and opens a client to the agent, over exactly the interface
   * the check chose (the SDK is given a card with that interface alone).
   * @throws Error when the card cannot be used (see {@link fetchAgentCard}), its signature does not
   *   match (a tampered card is not talked to), or it is signed with another key than expected.
   */
  static async connect(id: string, url: string, deps: RemoteAgentDeps = {}, options: ConnectOptions = {}): Promise<RemoteAgent> {
    const checked = await fetchAgentCard(url, { ...options, fetch: deps.fetch ?? options.fetch });
    const sig = checked.signature;
    if (sig.state === 'failed') {
      throw new Error(`The card of "${checked.card.name}" is signed, but its signature does not match (${sig.reason}). It may have been changed after signing; it is not used.`);
    }
    if (options.expectedThumbprint && (sig.state !== 'verified' || sig.thumbprint !== options.expectedThumbprint)) {
      throw new Error(`The card of "${checked.card.name}" is ${sig.state === 'verified' ? 'now signed with a different key' : 'no longer signed'} than when you added it. Remove the agent and add it again if you trust it as it is now.`);
    }
    // Redirects of A2A requests are refused: a POST must not be carried to a host nobody checked.
    const base = deps.fetch ?? fetch;
    const fetchImpl: typeof fetch = (input, init) => base(input, { ...init, redirect: 'error' });
    const transport = { fetchImpl, legacyCompat: { enabled: true } };
    const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } = a2aSdk();
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory(transport), new RestTransportFactory(transport)],
        preferredTransports: [checked.chosen.protocolBinding],
      }),
    );
    const only = checked.card.supportedInterfaces.filter((i) => i.url === checked.chosen.url && i.protocolBinding.toUpperCase() === checked.chosen.protocolBinding).slice(0, 1).map((i) => ({ ...i, protocolBinding: checked.chosen.protocolBinding }));
    const client = await factory.createFromAgentCard({ ...checked.card, supportedInterfaces: only });
    return new RemoteAgent(id, checked, client, deps);
  }

  get name(): string {
    return this.checked.card.name;
  }

  /** The tasks, oldest first. */
  get tasks(): DelegatedTask[] {
    return [...this.entries.values()];
  }

  task(localId: string): DelegatedTask | undefined {
    return this.entries.get(localId);
  }

  /**
   * Delegates `text` as a new task and follows it until it ends or waits for input.
   * @returns the task (its state says how it went; `error` when a request failed).
   */
  async delegate(text: string, trace: DelegationTrace, requestedBy: DelegatedTask['requestedBy'] = { kind: 'person' }): Promise<DelegatedTask> {
    const entry: DelegatedTask = { localId: randomUUID(), task: newTask(text), busy: false, requestedBy };
    this.entries.set(entry.localId, entry);
    this.prune();
    this.startSpan(entry, trace);
    await this.send(entry, text);
    return entry;
  }

  /**
   * Answers a task that waits for input (`input-required`) with `text`, on the same task.
   * @throws Error when the task is unknown, not waiting, or still receiving from the agent.
   */
  async reply(localId: string, text: string): Promise<DelegatedTask> {
    const entry = this.entries.get(localId);
    if (!entry) throw new Error('That task is not known here.');
    if (!INTERRUPTED.has(entry.task.state)) throw new Error(`The task is ${entry.task.state}; only a task that waits for input takes a reply.`);
    if (entry.busy) throw new Error('The agent is still sending on this task; reply once it has finished.');
    pushMessage(entry.task, 'user', text);
    await this.send(entry, text);
    return entry;
  }

  /**
   * Cancels the task: asks the agent (`CancelTask`) and stops following it. A task the agent has not
   * named yet is stopped here only (its request is aborted).
   * @throws Error when the task is unknown or already ended.
   */
  async cancel(localId: string): Promise<DelegatedTask> {
    const entry = this.entries.get(localId);
    if (!entry) throw new Error('That task is not known here.');
    if (TERMINAL.has(entry.task.state)) throw new Error(`The task is already ${entry.task.state}.`);
    if (!entry.task.taskId) {
      this.abortTask(localId);
      this.update(entry, () => {
        entry.task.state = 'canceled';
        entry.task.statusText = 'Cancelled here before the agent named the task.';
      });
      return entry;
    }
    const task = await this.call(entry, 'CancelTask', (options) => this.client.cancelTask({ tenant: '', id: entry.task.taskId, metadata: undefined }, options));
    if (task) this.update(entry, () => applyTask(entry.task, task));
    return entry;
  }

  /** Reads the task again (`GetTask`). */
  async refresh(localId: string): Promise<DelegatedTask | undefined> {
    const entry = this.entries.get(localId);
    if (!entry?.task.taskId) return entry;
    const task = await this.call(entry, 'GetTask', (options) => this.client.getTask({ tenant: '', id: entry.task.taskId, historyLength: undefined }, options));
    if (task) this.update(entry, () => applyTask(entry.task, task));
    return entry;
  }

  /** Stops following every task (streams are closed; the agent's tasks are not cancelled). */
  dispose(): void {
    this.disposed = true;
    for (const id of [...this.aborts.keys()]) this.abortTask(id);
    for (const [id, span] of this.spans) {
      span.setAttribute(SWITCHBOARD.a2aTaskState, this.entries.get(id)?.task.state ?? 'unknown');
      span.end();
    }
    this.spans.clear();
    this.emitter.dispose();
  }

  private abortTask(localId: string): void {
    for (const a of this.aborts.get(localId) ?? []) a.abort();
    this.aborts.delete(localId);
  }

  /** Keeps at most `maxTasks`, dropping the oldest ended ones. */
  private prune(): void {
    const max = this.deps.maxTasks ?? 100;
    for (const [id, e] of this.entries) {
      if (this.entries.size <= max) break;
      if (TERMINAL.has(e.task.state) && !e.busy) this.entries.delete(id);
    }
  }

  private async send(entry: DelegatedTask, text: string): Promise<void> {
    const message: Message = {
      messageId: randomUUID(),
      contextId: entry.task.contextId,
      taskId: entry.task.taskId,
      role: a2aSdk().Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    // Without streaming, the agent answers at once and the task is polled: a long task must not hold one request open.
    const streaming = !!this.checked.card.capabilities?.streaming;
    const request = { tenant: '', message, configuration: streaming ? undefined : { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }, metadata: undefined };
    entry.error = undefined;
    // A reply is answered with the task as it was (still waiting) until the agent takes it up: that
    // status is stale, and the task is followed until its status changes.
    const stale = INTERRUPTED.has(entry.task.state) ? statusKey(entry.task) : undefined;
    if (streaming) {
      await this.call(entry, 'SendStreamingMessage', (options) => this.consume(entry, this.client.sendMessageStream(request, options), options.abort), false, true);
    } else {
      const result = await this.call(entry, 'SendMessage', (options) => this.client.sendMessage(request, options));
      if (result && 'status' in result) this.update(entry, () => applyTask(entry.task, result as Task));
      else if (result)
        this.update(entry, () => {
          // A direct reply: the agent answered without a task.
          pushMessage(entry.task, 'agent', messageText(result as Message));
          entry.task.state = 'completed';
        });
    }
    await this.follow(entry, stale);
  }

  /**
   * Folds a stream's events into the task until it ends or waits for input; a stream silent for
   * longer than `streamIdleMs` is dropped (the task is then re-read).
   */
  private async consume(entry: DelegatedTask, stream: AsyncGenerator<StreamResponse>, abort: AbortController): Promise<void> {
    const idleMs = this.deps.streamIdleMs ?? 300_000;
    let idle = setTimeout(() => abort.abort(new Error(`no event for ${idleMs} ms`)), idleMs);
    try {
      for await (const event of stream) {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(new Error(`no event for ${idleMs} ms`)), idleMs);
        this.update(entry, () => applyEvent(entry.task, event));
        // A status update that asks for input ends this exchange (a reply starts the next); the
        // `task` event that opens a reply's stream still carries the old interrupted state.
        if (TERMINAL.has(entry.task.state) || (event.payload?.$case === 'statusUpdate' && INTERRUPTED.has(entry.task.state))) break;
      }
    } finally {
      clearTimeout(idle);
    }
  }

  /** Until the task ends or waits: re-attach once with SubscribeToTask, else poll GetTask. */
  private async follow(entry: DelegatedTask, stale?: string): Promise<void> {
    let subscribed = false;
    const since = Date.now();
    const waits = () => INTERRUPTED.has(entry.task.state) && statusKey(entry.task) !== stale;
    const open = () => !this.disposed && this.entries.has(entry.localId) && !!entry.task.taskId && !TERMINAL.has(entry.task.state) && !waits();
    // A stream that broke off after the agent named the task is not the end of it: re-attach.
    if (entry.error && open()) entry.error = undefined;
    while (open() && !entry.error) {
      if (this.checked.card.capabilities?.streaming && !subscribed) {
        subscribed = true;
        await this.call(entry, 'SubscribeToTask', (options) => this.consume(entry, this.client.resubscribeTask({ tenant: '', id: entry.task.taskId }, options), options.abort), true, true);
        continue;
      }
      await new Promise((r) => setTimeout(r, this.deps.pollMs ?? 1000));
      if (!open()) return;
      if (stale !== undefined && statusKey(entry.task) === stale && Date.now() - since > (this.deps.requestTimeoutMs ?? 30_000) * 10) {
        entry.error = 'The agent has not taken up the reply; refresh the task later.';
        return;
      }
      const task = await this.call(entry, 'GetTask', (options) => this.client.getTask({ tenant: '', id: entry.task.taskId, historyLength: undefined }, options));
      if (task) this.update(entry, () => applyTask(entry.task, task));
    }
  }

  /**
   * One A2A request under its own CLIENT span, with that span's `traceparent` in the headers, and a
   * time limit (streams have their idle limit instead). A failure is kept on the task (`error`), not
   * thrown, unless the caller only tries (`quiet`).
   */
  private async call<T>(
    entry: DelegatedTask,
    method: string,
    run: (options: { signal: AbortSignal; serviceParameters: Record<string, string>; abort: AbortController }) => Promise<T>,
    quiet = false,
    streaming = false,
  ): Promise<T | undefined> {
    const tracer = this.deps.tracing?.tracer;
    const parent = this.spans.get(entry.localId);
    const span = tracer?.startSpan(method, { kind: SpanKind.CLIENT, attributes: { [SWITCHBOARD.spanKind]: 'a2a', 'rpc.system': this.checked.chosen.protocolBinding === 'JSONRPC' ? 'jsonrpc' : 'http', 'rpc.method': method, 'server.address': new URL(this.checked.chosen.url).host, ...(entry.task.taskId ? { [SWITCHBOARD.a2aTaskId]: entry.task.taskId } : {}) } }, under(parent));
    const headers: Record<string, string> = {};
    if (span) Object.assign(headers, traceContextOf(span));
    const abort = new AbortController();
    const mine = this.aborts.get(entry.localId) ?? new Set<AbortController>();
    mine.add(abort);
    this.aborts.set(entry.localId, mine);
    const signal = streaming ? abort.signal : AbortSignal.any([abort.signal, AbortSignal.timeout(this.deps.requestTimeoutMs ?? 30_000)]);
    this.inFlight.set(entry.localId, (this.inFlight.get(entry.localId) ?? 0) + 1);
    entry.busy = true;
    this.emitter.fire(entry);
    try {
      return await run({ signal, serviceParameters: headers, abort });
    } catch (err) {
      const message = signal.aborted && signal.reason instanceof Error ? `${signal.reason.message}` : err instanceof Error ? err.message : String(err);
      span?.setStatus({ code: SpanStatusCode.ERROR, message });
      // A task cancelled here is not an error of the agent's.
      if (!quiet && !this.disposed && entry.task.state !== 'canceled') entry.error = `${method} failed: ${message}`;
      return undefined;
    } finally {
      mine.delete(abort);
      const left = (this.inFlight.get(entry.localId) ?? 1) - 1;
      this.inFlight.set(entry.localId, left);
      entry.busy = left > 0;
      span?.end();
      this.settle(entry);
      if (!this.disposed) this.emitter.fire(entry);
    }
  }

  private startSpan(entry: DelegatedTask, trace: DelegationTrace): void {
    const tracing = this.deps.tracing;
    if (!tracing) return;
    const card = this.checked.card;
    const span = tracing.tracer.startSpan(
      `invoke_agent ${card.name}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [SWITCHBOARD.spanKind]: 'delegation',
          [GEN_AI.operationName]: 'invoke_agent',
          [GEN_AI.agentName]: card.name,
          [GEN_AI.agentId]: this.checked.cardUrl,
          [SWITCHBOARD.agentVersion]: card.version ?? '',
          [SWITCHBOARD.a2aCardSignature]: this.checked.signature.state,
          // From the panel the person both asks and decides; an agent's request was decided on its tool card.
          ...(entry.requestedBy.kind === 'person' ? { [SWITCHBOARD.decidedBy]: 'person', [SWITCHBOARD.requestedBy]: 'person' } : { [SWITCHBOARD.requestedBy]: `agent:${entry.requestedBy.agentName}` }),
          'server.address': new URL(this.checked.chosen.url).host,
        },
      },
      under(trace.parent),
    );
    if (!trace.parent) tracing.store.claim(trace.traceKey, span.spanContext().traceId);
    this.spans.set(entry.localId, span);
  }

  private update(entry: DelegatedTask, apply: () => unknown): void {
    apply();
    const span = this.spans.get(entry.localId);
    if (span) {
      const t = entry.task;
      span.setAttributes({
        [SWITCHBOARD.a2aTaskState]: t.state,
        ...(t.taskId ? { [SWITCHBOARD.a2aTaskId]: t.taskId } : {}),
        ...(t.contextId ? { [GEN_AI.conversationId]: t.contextId } : {}),
        [SWITCHBOARD.a2aArtifacts]: t.artifacts.map((a) => a.name),
      });
      this.deps.tracing?.touch(span);
    }
    // The span ends with the task, whichever path (stream, poll, direct reply) ended it.
    this.settle(entry);
    if (!this.disposed) this.emitter.fire(entry);
  }

  /** Ends the task's span once the task ended (or failed to start). */
  private settle(entry: DelegatedTask): void {
    const span = this.spans.get(entry.localId);
    const state = entry.task.state;
    const failedToStart = !!entry.error && !entry.task.taskId;
    if (!span || (!TERMINAL.has(state) && !failedToStart)) return;
    span.setAttribute(SWITCHBOARD.a2aTaskState, failedToStart ? 'not started' : state);
    if (state === 'failed' || state === 'rejected' || failedToStart) span.setStatus({ code: SpanStatusCode.ERROR, message: entry.error ?? entry.task.statusText ?? state });
    span.end();
    this.spans.delete(entry.localId);
  }
}

/** What identifies a task's status: a reply is taken up once this changes. */
function statusKey(t: RemoteTask): string {
  return `${t.state}|${t.updatedAt ?? ''}|${t.statusText ?? ''}`;
}

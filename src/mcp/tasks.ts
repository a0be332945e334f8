/**
 * Tool calls that run as tasks (the MCP Tasks extension `io.modelcontextprotocol/tasks`, SEP-2663,
 * for the 2026-07-28 revision): when a server advertises the extension, a call may come back as a
 * task handle; it is followed with `tasks/get` at the server's `pollIntervalMs`, its status shown
 * as it changes, and cancelled with `tasks/cancel`. `tasks/result` and `tasks/list` (the 2025-11-25
 * experimental shapes) are not used.
 *
 * The polling, the state machine and the wire shapes come from `@modelcontextprotocol/ext-tasks`.
 * The SDK client's codecs refuse `resultType: "task"`, so that library needs a raw request path:
 * {@link RawDispatcher} sends JSON-RPC on the client's own transport and takes the answers to its
 * requests before the client sees them. No `vscode`. Spec: PROTOCOLS.md §2.1 (Tasks extension).
 */
import type { CallToolResult, Client, JSONRPCMessage, Tool, Transport } from '@modelcontextprotocol/client';
import type { ElicitationAnswer } from './elicitation';
import { mcpSdk } from './sdk';

/** A task's status as the explorer shows it. */
export interface TaskProgress {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  pollIntervalMs?: number;
}

type RawResponse = { kind: 'result'; result: never } | { kind: 'error'; error: { code: number; message: string; data?: never } };

/**
 * Sends raw JSON-RPC requests over a connected client's transport; their responses are taken off
 * the transport before the SDK client would reject them. Ids are strings of our own, so they never
 * meet the client's numeric ids.
 */
export class RawDispatcher {
  private seq = 0;
  private readonly pending = new Map<string, (r: RawResponse) => void>();

  constructor(private readonly transport: Transport) {
    const inner = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: { code: number; message: string } };
      if (typeof m.id === 'string' && m.method === undefined && this.pending.has(m.id)) {
        const settle = this.pending.get(m.id)!;
        this.pending.delete(m.id);
        settle(m.error ? { kind: 'error', error: m.error as never } : { kind: 'result', result: m.result as never });
        return;
      }
      (inner as ((msg: JSONRPCMessage, extra?: unknown) => void) | undefined)?.(message, extra);
    };
  }

  /** Sends `request` ({method, params}); resolves with its result or error. Aborting sends `notifications/cancelled`. */
  dispatch = (request: unknown, options?: { signal?: AbortSignal }): Promise<RawResponse> => {
    const id = `switchboard-task-${++this.seq}`;
    const r = request as { method: string; params?: Record<string, unknown> };
    return new Promise<RawResponse>((resolve, reject) => {
      const signal = options?.signal;
      const onAbort = () => {
        this.pending.delete(id);
        void this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled' } } as JSONRPCMessage).catch(() => undefined);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, (res) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(res);
      });
      this.transport.send({ jsonrpc: '2.0', id, method: r.method, ...(r.params ? { params: r.params } : {}) } as JSONRPCMessage).catch((err: unknown) => {
        this.pending.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  };
}

/** True when a connected client's server offers the Tasks extension (2026-07-28 era). */
export function offersTasks(client: Client): boolean {
  const ext = (client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions?.['io.modelcontextprotocol/tasks'];
  return client.getProtocolEra() === 'modern' && !!ext && typeof ext === 'object';
}

/** What a task-capable call needs from the connection. */
export interface TaskCallContext {
  client: Client;
  dispatcher: RawDispatcher;
  endpointId: string;
  clientInfo: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
  tools: () => readonly Tool[];
  /** Answers a form elicitation the task asks for while it runs (`input_required`). */
  elicit?: (message: string, requestedSchema: Record<string, unknown>, signal?: AbortSignal) => Promise<ElicitationAnswer>;
}

type Session = Awaited<ReturnType<typeof openSession>>;

async function openSession(ctx: TaskCallContext) {
  const tasks = await mcpSdk().tasksExtension();
  return tasks.createTaskSessionFromClient(ctx.client, {
    endpointId: ctx.endpointId,
    rawDispatch: ctx.dispatcher.dispatch as never,
    v2RequestFraming: { protocolVersion: ctx.client.getNegotiatedProtocolVersion() ?? '2026-07-28', clientInfo: ctx.clientInfo, clientCapabilities: ctx.clientCapabilities as never },
    tools: {
      currentTool: (n) => {
        const t = ctx.tools().find((x) => x.name === n);
        return t ? tasks.toolDeclarationFromMcpTool(t) : undefined;
      },
    },
    onInputRequest: async (request, info) => {
      if (request.kind !== 'elicitation' || !ctx.elicit) throw new Error(`The task asked for ${request.kind}, which this client does not offer.`);
      const p = request.params as { message?: string; requestedSchema?: Record<string, unknown> };
      return (await ctx.elicit(p.message ?? '', p.requestedSchema ?? { type: 'object', properties: {} }, info.signal)) as never;
    },
  });
}

/**
 * The task-capable calls of one connected client. ext-tasks allows one session per client, so the
 * session is opened on the first call and shared by every call until {@link TaskRunner.close}.
 */
export class TaskRunner {
  private session: Promise<Session> | undefined;

  constructor(private readonly ctx: TaskCallContext) {}

  /**
   * Calls a tool, letting the server run it as a task: reports each status change to `onTask`,
   * cancels the task (`tasks/cancel`) when `signal` aborts, and resolves with the tool's result.
   * @throws Error when the task failed or was cancelled, or the server's JSON-RPC error.
   */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal, onTask?: (t: TaskProgress) => void): Promise<CallToolResult> {
    this.session ??= openSession(this.ctx);
    const session = await this.session;
    // Cancelling before the server has answered the tools/call aborts that request (notifications/cancelled);
    // once there is a task, it is cancelled with tasks/cancel below.
    const initiating = new AbortController();
    const early = () => initiating.abort(signal?.reason);
    signal?.addEventListener('abort', early, { once: true });
    if (signal?.aborted) early();
    let execution: Awaited<ReturnType<Session['callTool']>>;
    try {
      execution = await session.callTool(name, args as never, { task: { preference: 'prefer' }, signal: initiating.signal });
    } catch (err) {
      if (signal?.aborted) throw new Error('The call was cancelled.');
      throw err;
    } finally {
      signal?.removeEventListener('abort', early);
    }
    const onAbort = () => void execution.cancel().catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const { outcome } = await execution.settle({
        onEvent: (e) => {
          if (e.type === 'task') onTask?.({ taskId: e.task.taskId, status: e.task.status, statusMessage: e.task.statusMessage, pollIntervalMs: e.task.suggestedPollIntervalMs });
        },
      });
      if (outcome.status === 'cancelled') throw new Error('The task was cancelled.');
      if (outcome.status === 'failed') throw new Error(`The task failed: ${outcome.error.message}`);
      // A result that came back directly (no task) is raw wire: its discriminator is not part of the result.
      const { resultType: _wire, ...result } = outcome.result as CallToolResult & { resultType?: string };
      return result as CallToolResult;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Closes the session (the connection is stopping or reconnecting). */
  async close(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    await (await s?.catch(() => undefined))?.close().catch(() => undefined);
  }
}

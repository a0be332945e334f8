/**
 * A deliberately small ACP client for tests: spawns an agent process, speaks ACP v1 over its stdio
 * with the SDK's `acp.client()` builder, answers permission requests by a fixed policy, and
 * implements `fs/*` and `terminal/*` directly on disk and with child processes. It records what
 * happened (every JSON-RPC message, updates, permission requests, file and terminal calls) so tests
 * can assert on the agent's behaviour.
 *
 * It is NOT the extension's client (that lives in src/acp): it exists to prove that agents and
 * fakes work, independently of the code under test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { AgentLaunch } from './agents';

/** How permission requests are answered. A function gets the request and decides. */
export type PermissionPolicy =
  | 'allow'
  | 'allow_always'
  | 'reject'
  /** Send `session/cancel`, then answer `cancelled` (what a client does when the person presses stop). */
  | 'cancel'
  /** Never answer (to test cancellation while a prompt is open). */
  | 'hang'
  | ((request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>);

/** Options of {@link MiniClient.start}. */
export interface MiniClientOptions {
  launch: AgentLaunch;
  /** Working directory of the agent process, and default `cwd` of new sessions. */
  cwd: string;
  permission?: PermissionPolicy;
  /** Advertise `fs.readTextFile`/`fs.writeTextFile` (default true). */
  fs?: boolean;
  /** Advertise `terminal` (default true). */
  terminal?: boolean;
  /** Replaces the on-disk write, e.g. to refuse a write with an error. */
  writeTextFile?: (params: acp.WriteTextFileRequest) => void | Promise<void>;
}

/** One JSON-RPC message as seen on the wire. */
export interface WireRecord {
  dir: 'to-agent' | 'from-agent';
  msg: acp.AnyMessage;
}

/** A terminal the agent asked for. */
export interface MiniTerminal {
  id: string;
  params: acp.CreateTerminalRequest;
  proc: ChildProcess;
  output: string;
  truncated: boolean;
  exit?: acp.TerminalExitStatus;
  exited: Promise<acp.TerminalExitStatus>;
  released: boolean;
}

/** A spawned agent plus a connected minimal client. */
export class MiniClient {
  /** Every JSON-RPC message in both directions, in order. */
  readonly wire: WireRecord[] = [];
  /** Every `session/update` notification. */
  readonly updates: acp.SessionNotification[] = [];
  /** Every permission request, with the answer given. */
  readonly permissions: { request: acp.RequestPermissionRequest; response?: acp.RequestPermissionResponse }[] = [];
  readonly fsReads: acp.ReadTextFileRequest[] = [];
  readonly fsWrites: acp.WriteTextFileRequest[] = [];
  /** Terminals by id (kept after release, marked `released`). */
  readonly terminals = new Map<string, MiniTerminal>();
  /** Every `terminal/*` request, in order. */
  readonly terminalCalls: { method: string; params: unknown }[] = [];
  /** Agent stderr so far. */
  stderr = '';
  /** Resolves when the agent process exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The agent process. */
  readonly child: ChildProcess;

  private readonly connection: acp.ClientConnection;
  private readonly sessionCwds = new Map<string, string>();
  private terminalSeq = 0;
  private hasExited = false;

  private constructor(private readonly options: MiniClientOptions) {
    const { command, args, env } = options.launch;
    // Own process group, so close() can take down anything the agent started.
    this.child = spawn(command, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.hasExited = true;
        resolve({ code, signal });
      });
    });
    this.child.on('error', (error) => {
      this.stderr += `spawn error: ${error.message}\n`;
    });
    this.child.stdin?.on('error', () => undefined); // agent died: writes fail, requests reject
    this.child.stderr?.on('data', (d: Buffer) => {
      this.stderr += d.toString('utf8');
    });

    const base = acp.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
    );
    const writer = base.writable.getWriter();
    const wire = this.wire;
    const stream: acp.Stream = {
      readable: base.readable.pipeThrough(
        new TransformStream<acp.AnyMessage, acp.AnyMessage>({
          transform(msg, controller) {
            wire.push({ dir: 'from-agent', msg });
            controller.enqueue(msg);
          },
        }),
      ),
      writable: new WritableStream<acp.AnyMessage>({
        async write(msg) {
          wire.push({ dir: 'to-agent', msg });
          await writer.write(msg);
        },
        close: () => writer.close(),
        abort: (reason) => writer.abort(reason),
      }),
    };
    this.connection = this.buildApp().connect(stream);
  }

  /** Spawns the agent and connects. Call {@link initialize} next. */
  static start(options: MiniClientOptions): MiniClient {
    return new MiniClient(options);
  }

  /** The SDK context for calling the agent directly. */
  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  /** Sends `initialize` with the configured capabilities. */
  initialize(): Promise<acp.InitializeResponse> {
    const fsCap = this.options.fs ?? true;
    return this.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: fsCap, writeTextFile: fsCap },
        terminal: this.options.terminal ?? true,
      },
      clientInfo: { name: 'mini-test-client', title: 'Mini test client', version: '0.0.0' },
    });
  }

  /** Sends `session/new` and returns the session id. */
  async newSession(cwd = this.options.cwd): Promise<string> {
    const res = await this.agent.request('session/new', { cwd, mcpServers: [] });
    this.sessionCwds.set(res.sessionId, cwd);
    return res.sessionId;
  }

  /** Sends one text prompt and waits for the turn to end. */
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
    return this.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  }

  /** Sends `session/cancel`. */
  cancel(sessionId: string): Promise<void> {
    return this.agent.notify('session/cancel', { sessionId });
  }

  /** Updates of one kind (`sessionUpdate` value), in order. */
  updatesOf<K extends acp.SessionUpdate['sessionUpdate']>(kind: K): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
    return this.updates
      .map((n) => n.update)
      .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
  }

  /** Concatenated text of all `agent_message_chunk`s. */
  agentText(): string {
    return this.updatesOf('agent_message_chunk')
      .map((u) => (u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  /** Requests the agent sent, by method. */
  requestsFromAgent(method: string): acp.AnyMessage[] {
    return this.wire.filter((r) => r.dir === 'from-agent' && 'method' in r.msg && r.msg.method === method).map((r) => r.msg);
  }

  /** Polls until `check` returns true (every 10 ms) or fails after `timeoutMs`. */
  async waitUntil(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /**
   * Closes the connection, stops every terminal's process group and the agent's process group
   * (SIGTERM, then SIGKILL after `graceMs`).
   */
  async close(graceMs = 3000): Promise<void> {
    this.connection.close();
    for (const t of this.terminals.values()) killGroup(t.proc, 'SIGKILL');
    if (this.hasExited) return;
    this.child.stdin?.end();
    killGroup(this.child, 'SIGTERM');
    const done = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r(null), graceMs))]);
    if (!done) killGroup(this.child, 'SIGKILL');
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, 1000))]);
  }

  private buildApp(): acp.ClientApp {
    return acp
      .client({ name: 'mini-test-client' })
      .onNotification('session/update', ({ params }) => {
        this.updates.push(params);
      })
      .onRequest('session/request_permission', async ({ params, agent }) => {
        const entry: (typeof this.permissions)[number] = { request: params };
        this.permissions.push(entry);
        const response = await this.answerPermission(params, agent);
        entry.response = response;
        return response;
      })
      .onRequest('fs/read_text_file', ({ params }) => {
        this.fsReads.push(params);
        if (!fs.existsSync(params.path)) throw acp.RequestError.resourceNotFound(params.path);
        let content = fs.readFileSync(params.path, 'utf8');
        if (params.line || params.limit) {
          const start = Math.max(0, (params.line ?? 1) - 1);
          const lines = content.split('\n');
          content = lines.slice(start, params.limit ? start + params.limit : undefined).join('\n');
        }
        return { content };
      })
      .onRequest('fs/write_text_file', async ({ params }) => {
        this.fsWrites.push(params);
        if (this.options.writeTextFile) {
          await this.options.writeTextFile(params);
          return {};
        }
        fs.mkdirSync(path.dirname(params.path), { recursive: true });
        fs.writeFileSync(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/create', params });
        return { terminalId: this.createTerminal(params).id };
      })
      .onRequest('terminal/output', ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/output', params });
        const t = this.terminal(params.terminalId);
        return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/wait_for_exit', params });
        return await this.terminal(params.terminalId).exited;
      })
      .onRequest('terminal/kill', ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/kill', params });
        const t = this.terminal(params.terminalId);
        if (!t.exit) killGroup(t.proc, 'SIGKILL');
        return {};
      })
      .onRequest('terminal/release', ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/release', params });
        const t = this.terminal(params.terminalId);
        killGroup(t.proc, 'SIGKILL');
        t.released = true;
        return {};
      });
  }

  private async answerPermission(
    params: acp.RequestPermissionRequest,
    agent: acp.ClientContext,
  ): Promise<acp.RequestPermissionResponse> {
    const policy = this.options.permission ?? 'allow';
    if (typeof policy === 'function') return policy(params);
    if (policy === 'hang') return new Promise<never>(() => undefined);
    if (policy === 'cancel') {
      await agent.notify('session/cancel', { sessionId: params.sessionId });
      return { outcome: { outcome: 'cancelled' } };
    }
    const wanted: acp.PermissionOptionKind[] =
      policy === 'allow' ? ['allow_once', 'allow_always'] : policy === 'allow_always' ? ['allow_always', 'allow_once'] : ['reject_once', 'reject_always'];
    for (const kind of wanted) {
      const option = params.options.find((o) => o.kind === kind);
      if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
    }
    return { outcome: { outcome: 'cancelled' } };
  }

  private terminal(id: string): MiniTerminal {
    const t = this.terminals.get(id);
    if (!t || t.released) throw acp.RequestError.resourceNotFound(id);
    return t;
  }

  private createTerminal(params: acp.CreateTerminalRequest): MiniTerminal {
    const id = `term-${++this.terminalSeq}`;
    // A command without args is one shell string (claude-code-acp sends it that way); without cwd
    // it runs in the session's directory, never in this process's own.
    const oneString = !params.args || params.args.length === 0;
    const cwd = params.cwd ?? this.sessionCwds.get(params.sessionId) ?? this.options.cwd;
    const env = { ...this.options.launch.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    const proc = spawn(params.command, params.args ?? [], {
      cwd,
      env,
      shell: oneString ? '/bin/sh' : false,
      detached: true, // own group: kill/release reach grandchildren too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const limit = params.outputByteLimit ?? 1 << 20;
    const t: MiniTerminal = {
      id,
      params,
      proc,
      output: '',
      truncated: false,
      released: false,
      exited: new Promise((resolve) => {
        proc.on('exit', (code, signal) => {
          t.exit = { exitCode: code, signal };
          // Let the pipes drain before reporting, unless a grandchild keeps them open.
          const settle = () => resolve(t.exit!);
          proc.once('close', settle);
          setTimeout(settle, 200);
        });
      }),
    };
    const append = (d: Buffer) => {
      t.output += d.toString('utf8');
      if (Buffer.byteLength(t.output) > limit) {
        t.output = Buffer.from(t.output).subarray(-limit).toString('utf8');
        t.truncated = true;
      }
    };
    proc.stdout?.on('data', append);
    proc.stderr?.on('data', append);
    proc.on('error', (error) => append(Buffer.from(`spawn error: ${error.message}\n`)));
    this.terminals.set(id, t);
    return t;
  }
}

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // group already gone
  }
}

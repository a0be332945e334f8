/**
 * One prompt turn of the offline demo agent: the small toolkit its scripted scenarios are written
 * with (streamed chunks, tool calls, permission requests, client file system and terminals), plus
 * the cancellation plumbing every step goes through.
 *
 * Cancellation model: `session/cancel` aborts the turn's {@link AbortSignal}. Every await that can
 * block on the client (permission prompts, file writes, terminal waits, delays) is raced against
 * that signal, so the turn answers `stopReason: "cancelled"` at once, even while a request to the
 * client is still open. The late answer to that request is then ignored.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import * as path from 'node:path';
import type {
  AgentContext,
  ClientCapabilities,
  ContentBlock,
  PermissionOption,
  SessionUpdate,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';

/** Thrown inside a scenario when the client cancelled the turn; the prompt handler turns it into `cancelled`. */
export class TurnCancelled extends Error {
  constructor() {
    super('prompt turn cancelled by the client');
    this.name = 'TurnCancelled';
  }
}

/** What a scenario remembers across the turns of one session. */
export interface SessionMemory {
  /** Tool kinds the person answered "Always allow" for; such tool calls are not asked about again. */
  alwaysAllowed: Set<string>;
  /** Counts turns so tool call ids stay unique within the session. */
  turns: number;
  /** The MCP servers the client gave in `session/new`. */
  mcpServers: McpServer[];
  /** Every update sent in this session (replayed by `session/load`). */
  history?: SessionUpdate[];
  /** The session mode the client set (`session/set_mode`); in `autoEdit` nothing is asked first. */
  mode?: string;
}

/** Knobs read from the environment (see `readDemoOptions`). */
export interface DemoOptions {
  /** Delay between read and write in the `write-conflict` scenario. */
  delayMs: number;
  /** Number of ten-byte chunks the `chunks` scenario streams. */
  chunks: number;
  /** Whether `grandchild-terminal` kills and releases its terminal itself when cancelled. */
  releaseOnCancel: boolean;
  /** Where the `chunks` scenario writes how long sending took (`SWITCHBOARD_DEMO_TIMING_FILE`; benchmarks). */
  timingFile?: string;
}

/** The answer to a permission request, reduced to what the scenarios branch on. */
export type PermissionDecision =
  | { kind: 'allow'; optionId: string; always: boolean }
  | { kind: 'reject'; optionId: string }
  | { kind: 'cancelled' };

/** Result of a client-side file write: either fine, or the JSON-RPC error message to show. */
export type WriteResult = { ok: true } | { ok: false; message: string };

/** The three options real agents (claude-code-acp) offer, in their order. */
export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** Everything a scenario needs to run one turn. */
export interface DemoTurnInit {
  client: AgentContext;
  sessionId: string;
  /** The session's working directory (absolute, from `session/new`). */
  cwd: string;
  caps: ClientCapabilities;
  prompt: ContentBlock[];
  signal: AbortSignal;
  options: DemoOptions;
  memory: SessionMemory;
}

/** Toolkit for one prompt turn. Methods throw {@link TurnCancelled} once the turn is cancelled. */
export class DemoTurn {
  readonly client: AgentContext;
  readonly sessionId: string;
  readonly cwd: string;
  readonly caps: ClientCapabilities;
  readonly prompt: ContentBlock[];
  readonly options: DemoOptions;
  readonly memory: SessionMemory;
  readonly signal: AbortSignal;

  constructor(init: DemoTurnInit) {
    this.client = init.client;
    this.sessionId = init.sessionId;
    this.cwd = init.cwd;
    this.caps = init.caps;
    this.prompt = init.prompt;
    this.options = init.options;
    this.memory = init.memory;
    this.signal = init.signal;
  }

  /** True once `session/cancel` arrived for this turn. */
  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Stops the script at a step boundary once the turn is cancelled. */
  checkpoint(): void {
    if (this.signal.aborted) throw new TurnCancelled();
  }

  /**
   * Waits for `work`, but gives up as soon as the turn is cancelled. A late settlement of `work` is
   * swallowed so it can never become an unhandled rejection.
   */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    if (this.signal.aborted) return Promise.reject(new TurnCancelled());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new TurnCancelled());
      this.signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Cancellable pause; used to make streaming visible and to open timing windows for tests. */
  sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    return this.race(done).finally(() => clearTimeout(timer));
  }

  /** Sends one `session/update` (unless the turn is already cancelled). */
  async update(update: SessionUpdate): Promise<void> {
    this.checkpoint();
    this.memory.history?.push(update);
    await this.client.notify('session/update', { sessionId: this.sessionId, update });
  }

  /** Sends a `session/update` even after cancellation (final tool call states are still worth showing). */
  async updateAlways(update: SessionUpdate): Promise<void> {
    this.memory.history?.push(update);
    await this.client.notify('session/update', { sessionId: this.sessionId, update }).catch(() => undefined);
  }

  /**
   * Streams one agent message as several `agent_message_chunk`s sharing a fresh `messageId`, the
   * way real agents do. `pieces` may contain empty strings: clients must cope with empty chunks.
   */
  async say(pieces: string[], delayMs = 15): Promise<void> {
    const messageId = randomUUID();
    for (const text of pieces) {
      await this.update({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } });
      if (delayMs > 0) await this.sleep(delayMs);
    }
  }

  /** Streams a thought (`agent_thought_chunk`), shown collapsed by most clients. */
  async think(pieces: string[], delayMs = 15): Promise<void> {
    const messageId = randomUUID();
    for (const text of pieces) {
      await this.update({ sessionUpdate: 'agent_thought_chunk', messageId, content: { type: 'text', text } });
      if (delayMs > 0) await this.sleep(delayMs);
    }
  }

  /** Sends a `tool_call_update`. Final states go out even after cancellation. */
  async toolUpdate(update: ToolCallUpdate): Promise<void> {
    await this.updateAlways({ sessionUpdate: 'tool_call_update', ...update });
  }

  /** A tool call id unique within the session (turn number + name). */
  toolCallId(name: string): string {
    return `demo-${name}-${this.memory.turns}`;
  }

  /** Absolute path of a file under the session's working directory. */
  resolve(relative: string): string {
    return path.join(this.cwd, relative);
  }

  /**
   * Asks the person through `session/request_permission`. With `rememberAs` (a tool kind), an
   * earlier "Always allow" for that kind in this session grants it without asking, as real agents do.
   */
  async askPermission(toolCall: ToolCallUpdate, rememberAs?: string): Promise<PermissionDecision> {
    // Auto Edit approves itself, as an agent's automatic mode does: the client is not asked.
    if (this.memory.mode === 'autoEdit') return { kind: 'allow', optionId: 'allow', always: false };
    if (rememberAs && this.memory.alwaysAllowed.has(rememberAs)) {
      return { kind: 'allow', optionId: 'allow_always', always: true };
    }
    this.checkpoint();
    const response = await this.race(
      this.client.request('session/request_permission', {
        sessionId: this.sessionId,
        toolCall,
        options: PERMISSION_OPTIONS,
      }),
    );
    const outcome = response.outcome;
    if (outcome.outcome === 'cancelled') return { kind: 'cancelled' };
    const option = PERMISSION_OPTIONS.find((o) => o.optionId === outcome.optionId);
    if (option?.kind === 'allow_always') {
      if (rememberAs) this.memory.alwaysAllowed.add(rememberAs);
      return { kind: 'allow', optionId: option.optionId, always: true };
    }
    if (option?.kind === 'allow_once') return { kind: 'allow', optionId: option.optionId, always: false };
    // Unknown option ids are treated as a refusal: never act on an answer we did not offer.
    return { kind: 'reject', optionId: outcome.optionId };
  }

  /**
   * Reads a text file, through the client when it offers `fs.readTextFile` (so unsaved editor
   * buffers are seen), else from disk. Returns `null` when the file does not exist or cannot be read.
   */
  async readTextFile(absPath: string): Promise<string | null> {
    if (this.caps.fs?.readTextFile) {
      try {
        const res = await this.race(this.client.request('fs/read_text_file', { sessionId: this.sessionId, path: absPath }));
        return res.content;
      } catch (error) {
        if (error instanceof TurnCancelled) throw error;
        return null;
      }
    }
    try {
      return await nodeFs.readFile(absPath, 'utf8');
    } catch {
      return null;
    }
  }

  /**
   * Writes a text file through the client (`fs/write_text_file`) when it offers `fs.writeTextFile`,
   * else to disk. A JSON-RPC error (the client refused, e.g. the file changed meanwhile) comes back
   * as `{ok: false, message}` so the scenario can report it and go on.
   */
  async writeTextFile(absPath: string, content: string): Promise<WriteResult> {
    try {
      if (this.caps.fs?.writeTextFile) {
        await this.race(this.client.request('fs/write_text_file', { sessionId: this.sessionId, path: absPath, content }));
      } else {
        await nodeFs.mkdir(path.dirname(absPath), { recursive: true });
        await nodeFs.writeFile(absPath, content, 'utf8');
      }
      return { ok: true };
    } catch (error) {
      if (error instanceof TurnCancelled) throw error;
      return { ok: false, message: errorText(error) };
    }
  }

  /**
   * Runs one shell command line in a client terminal (`terminal/create` without args), waits for it
   * and releases it. A JSON-RPC error (the client refused the command) comes back as `{ok: false}`.
   */
  async runCommand(command: string, cwd?: string): Promise<WriteResult> {
    if (!this.caps.terminal) return { ok: false, message: 'the client has no terminal capability' };
    try {
      const { terminalId } = await this.race(this.client.request('terminal/create', { sessionId: this.sessionId, command, ...(cwd ? { cwd } : {}) }));
      await this.race(this.client.request('terminal/wait_for_exit', { sessionId: this.sessionId, terminalId }));
      await this.race(this.client.request('terminal/release', { sessionId: this.sessionId, terminalId }));
      return { ok: true };
    } catch (error) {
      if (error instanceof TurnCancelled) throw error;
      return { ok: false, message: errorText(error) };
    }
  }

  /** Plain text of the prompt's text blocks (resource links and the like are named, not inlined). */
  promptText(): string {
    return this.prompt
      .map((block) => {
        if (block.type === 'text') return block.text;
        if (block.type === 'resource_link') return `[${block.name}]`;
        return '';
      })
      .filter(Boolean)
      // Blocks are separate parts of the prompt (the person's text, then attached problems).
      .join('\n\n');
  }
}

/** Message of a thrown value, including the JSON-RPC `data` details when the client sent any. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const data = (error as { data?: unknown }).data;
    // The SDK wraps a client's thrown Error as `Internal error` + `{details}`: surface the details.
    const details = data && typeof data === 'object' ? (data as { details?: unknown }).details : undefined;
    if (typeof details === 'string' && details) return `${error.message}: ${details}`;
    const detail = typeof data === 'string' ? data : data && typeof data === 'object' ? JSON.stringify(data) : '';
    return detail && detail !== '{}' ? `${error.message} (${detail})` : error.message;
  }
  return String(error);
}

/** A text block wrapped as tool call content. */
export function textContent(text: string): { type: 'content'; content: { type: 'text'; text: string } } {
  return { type: 'content', content: { type: 'text', text } };
}

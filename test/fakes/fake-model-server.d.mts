/** Type declarations for `fake-model-server.mjs` (the project's offline fake model API). */

/** File the scripted model asks the agent to write (relative to the workspace). */
export declare const FILE_NAME: string;
/** Content of that file. */
export declare const FILE_CONTENT: string;
/** Shell command the scripted model asks the agent to run. */
export declare const SHELL_CMD: string;
/** Final answer, streamed in several pieces. */
export declare const FINAL_TEXT: string;
/** Known scenarios. */
export declare const SCENARIOS: readonly FakeModelScenario[];

/**
 * `write-shell`: write tool, then shell tool, then final text. `text`: final text only. `slow`: text
 * only, paced (one piece every 500 ms for about 30 s) in the OpenAI Responses and Gemini dialects,
 * so a test can cancel mid-turn; other dialects answer it like `text`.
 */
export type FakeModelScenario = 'write-shell' | 'text' | 'slow';

/** Options of {@link startFakeModelServer}. */
export interface FakeModelServerOptions {
  /** Absolute directory the scripted tool calls point into. */
  workspace: string;
  /** Defaults to `write-shell`. */
  scenario?: FakeModelScenario;
  /** JSONL file receiving every request (secret headers redacted). */
  logFile?: string;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
}

/** What the server recorded about one request. */
export interface FakeModelRequest {
  method: string;
  path: string;
  model?: string;
  stream: boolean;
  /** `anthropic`, `anthropic-count-tokens`, `openai-chat`, `openai-responses`, `gemini-<operation>`, `models` or `unhandled`. */
  api?: string;
  /** Tool names the agent offered. */
  tools?: string[];
  /** Tool results since the person's last message. */
  toolResults?: number;
  /** The scripted model's move. */
  move?: 'tool' | 'text' | 'aux';
  /** Tool the model called, when `move` is `tool`. */
  tool?: string;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL and the proxy variables. */
  url: string;
  port: number;
  /** Refused egress attempts: `"CONNECT host:443"` or `"GET http://host/path"`. */
  stray: string[];
  /** Every request served, in order. */
  requests: FakeModelRequest[];
  /** Points the scripted tool calls into another absolute directory (a session's worktree made later). */
  setWorkspace(dir: string): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Starts the fake model server on 127.0.0.1. */
export declare function startFakeModelServer(options: FakeModelServerOptions): Promise<FakeModelServer>;

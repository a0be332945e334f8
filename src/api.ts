/**
 * The public API that `activate()` returns. Other extensions and our tests drive sessions through
 * it; every operation also exists as a command (`agentSwitchboard.*`).
 *
 * Usage:
 * ```ts
 * const api = await vscode.extensions.getExtension<SwitchboardApi>('agent-switchboard.agent-switchboard')!.activate();
 * const key = await api.startSession({ agentId: 'demo' });
 * api.onDidChangeSession((e) => { ... api.answerPermission(key, permissionId, optionId) ... });
 * const { stopReason } = await api.prompt(key, 'Create hello.md');
 * ```
 */
import type { CompareView } from './worktrees/compare';
import type { SessionPatch, SessionState } from './acp/session/types';
import type { AgentChoice, SessionSummary } from './views/session/protocol';
import type { TurnChanges } from './edits/review';
import type { McpServerState } from './mcp/connection';
import type { SpanRecord } from './trace/otlp';
import type { DelegatedTask } from './a2a/remote';
import type { EntrySummary } from './acp/inspector';
import type { CapabilityRow } from './acp/capabilities';
import type { AgentVersionCapabilities } from './acp/capabilityBook';
import type { JournalEntry } from './acp/session/journal';
import type { ContextItem } from './acp/promptContext';

export type { SessionPatch, SessionState, AgentChoice, SessionSummary, SpanRecord };

/** A standing grant as the API shows it. */
export interface GrantInfo {
  id: string;
  scope: 'session' | 'workspace' | 'always';
  sessionKey?: string;
  pattern: { kind: 'write' | 'command'; commandExact?: string; commandPrefix?: string; allowOptions?: string[]; commandRegex?: string; pathGlob?: string; cwd?: string; agentId?: string };
  expiresAt?: number;
  source: 'person' | 'agent_allow_always' | 'api';
  description: string;
  /** SHA-256 of the agent's resolved command, args and env the grant is bound to. */
  agentFingerprint?: string;
  /** Why the grant never applies (a stored grant without a fingerprint). */
  inert?: string;
}

/** The gate's effective settings and what the workspace's settings did to them. */
export interface GateSettingsInfo {
  policy: {
    write: 'ask' | 'allow' | 'deny';
    command: 'ask' | 'allow' | 'deny';
    dryRun: boolean;
    deny: GrantInfo['pattern'][];
    allow: GrantInfo['pattern'][];
    protectedTargets: 'ask' | 'deny';
    grantMinutes: number;
  };
  agentIds: string[];
  workspace: { tightened: string[]; ignored: string[] };
}

/** A change of one session: the patches applied and the session's state after them. */
export interface SessionChangeEvent {
  key: string;
  patches: readonly SessionPatch[];
  /** A read-only view of the live state; copy it (`structuredClone`) to keep it. */
  state: Readonly<SessionState>;
}

/** Version 1 of the Agent Switchboard API. */
export interface SwitchboardApi {
  readonly apiVersion: 1;
  /** Agents that can be started, with availability (presets are unavailable until found on PATH). */
  agents(): AgentChoice[];
  /**
   * Starts a session with `agentId` in `cwd` (default: the first workspace folder) and shows it in
   * the sidebar. Resolves with the session key once `session/new` has answered.
   * @throws Error for an unknown or unavailable agent, an untrusted workspace, no folder, a relative
   *   `cwd`, or a launch failure (the message then carries the exit code/signal and stderr tail).
   *
   * `worktree` (issue 20): the session works in a new git worktree of `cwd`'s repository, outside
   * the workspace, on a branch of its own: from `head`, or `head+changes` (HEAD plus the uncommitted
   * changes of tracked files); its files and terminals are contained there. Throws with the reason
   * when the folder cannot have one (not a git repository, submodules, Git LFS, a sparse checkout).
   */
  startSession(options: { agentId: string; cwd?: string; worktree?: 'head' | 'head+changes' }): Promise<string>;
  /**
   * Sends a prompt turn and resolves when it ends.
   * @throws Error when the session is unknown, busy or not ready, or the agent fails the turn.
   */
  prompt(sessionKey: string, text: string): Promise<{ stopReason: string }>;
  /**
   * Sends `text` as the sidebar does: at once when the session is ready, else queued until the
   * running turn ends (`state.queued` lists what waits; Stop takes it back out into notices).
   * @throws Error when the session is starting, stopping, closed or failed.
   */
  send(sessionKey: string, text: string): 'sent' | 'queued';
  /**
   * {@link send} with attachments (files, a selection, symbols, problems, images; see
   * src/acp/promptContext.ts). They are checked at once (zod shape; paths inside the workspace, with
   * symlinks resolved; images only for agents that take them) and read when the turn starts.
   * @throws Error for a malformed item, a path outside the workspace, an image the agent cannot
   *   take, or a session that cannot take prompts.
   */
  sendWithContext(sessionKey: string, text: string, context: ContextItem[]): Promise<'sent' | 'queued'>;
  /**
   * Sets one of the agent's configuration options (`session(key).configOptions`, ACP
   * `session/set_config_option`): a value id for a select option, true/false for a boolean one.
   * @throws Error when the session is not running, or the option or value is not one the agent offered.
   */
  setConfigOption(sessionKey: string, configId: string, value: string | boolean): Promise<void>;
  /**
   * Switches the agent's mode (`session/set_mode`) to one of `session(key).availableModes`.
   * @throws Error when the mode is not offered or the agent refuses it.
   */
  setMode(sessionKey: string, modeId: string): Promise<void>;
  /** Stops the running turn (`session/cancel`); open permission requests are answered `cancelled`. */
  cancel(sessionKey: string): Promise<void>;
  /** A deep copy of a session's state, or undefined for an unknown key. */
  session(sessionKey: string): SessionState | undefined;
  /** All sessions of the window. */
  sessions(): SessionSummary[];
  /** Subscribes to every change of every session. */
  onDidChangeSession(listener: (e: SessionChangeEvent) => void): { dispose(): void };
  /**
   * Answers a waiting permission request with one of the options the agent offered. With
   * `{grant: 'session' | 'workspace' | 'always'}` an allow also becomes a grant for exactly this
   * command or path. Without `grant`, the agent's `allow_always` is taken as once (no session-wide
   * approval, no grant; the agent hears its `allow_once` option when it offered one): only a
   * person's click, or an explicit `grant`, reaches beyond one request.
   * @returns false when the request is not waiting, the option is not one of the agent's, a grant
   *   is asked with a reject option, or a grant is asked for a request that can only be allowed once
   *   (its `onceOnly` says why: the agent did not show the command or the content), or an allow is
   *   asked for a held command whose card hides a credential's value (only the person allows that,
   *   with a second yes; its `undeclared` notes name the variables).
   */
  answerPermission(sessionKey: string, permissionId: string, optionId: string, options?: { grant?: 'session' | 'workspace' | 'always' }): boolean;
  /**
   * Runs the command `agentSwitchboard.<name>` with arguments, as this API's caller. Commands that
   * act (answer, approve, start, run, send, undo, delete…) refuse arguments that come any other
   * way, because a `command:` link in a notification or Markdown can pass any JSON
   * (src/common/commandArgs.ts); with `vscode.commands.executeCommand` they take no arguments (then
   * they ask the person) or an item of their own view.
   * @throws Error for a command id outside `agentSwitchboard.*`; otherwise what the command throws.
   */
  runCommand<T = unknown>(command: string, ...args: unknown[]): Thenable<T>;
  /** Standing grants (session, workspace, always), newest last. */
  grants(): GrantInfo[];
  /**
   * The gate's effective settings: the policy from the person's user settings, tightened by the
   * workspace's; the agent ids on offer (user settings and presets only); and what the workspace's
   * settings tightened or tried and were ignored (one sentence each).
   */
  gateSettings(): GateSettingsInfo;
  /** Revokes a grant; false for an unknown id. Recorded in the audit log. */
  revokeGrant(id: string): boolean;
  /**
   * Agents' file changes by turn (oldest first), each file with its base text (and `base.uncertain`,
   * the reason, when that text is not known for certain: Undo then refuses), hunks and the
   * person's decisions; only `sessionKey`'s when given. Keep / Undo / Restore Checkpoint are the
   * commands `agentSwitchboard.review.*` with `{type: 'hunk' | 'file' | 'turn', ...}`, run through
   * {@link SwitchboardApi.runCommand}.
   */
  changes(sessionKey?: string): TurnChanges[];
  /**
   * The MCP servers the window knows (settings, `.vscode/mcp.json`, `.mcp.json`): their state, or
   * why they are held back, their tools, and each listed item left out for not matching its schema
   * (`problems`, one line each). Start them with the command `agentSwitchboard.mcp.start`;
   * run a tool with `agentSwitchboard.mcp.runTool` and `({type: 'tool', serverId, name}, args)`.
   */
  mcpServers(): { id: string; name: string; source: string; held?: string; catalogChanged?: string; catalogChangeDetails: string[]; state?: McpServerState; tools: string[]; problems: string[] }[];
  /**
   * The spans of a session's trace, in start order: ours (session, `invoke_agent` turns,
   * `execute_tool` calls, permission waits with their decisions) and those the agent exported to our
   * OTLP receiver. Times in milliseconds since the epoch; a live span has no `endMs`.
   */
  traceSpans(sessionKey: string): SpanRecord[];
  /**
   * The remote A2A agents the person added, with the tasks delegated to them (add one with
   * `agentSwitchboard.a2a.add` and a URL; delegate with `agentSwitchboard.a2a.delegate`,
   * `({type: 'agent', agentId}, text)`). Their trace is `traceSpans('remote:' + id)`.
   */
  remoteAgents(): { id: string; url: string; name?: string; version?: string; signature?: string; error?: string; tasks: DelegatedTask[] }[];
  /**
   * The JSON-RPC messages of a session's agent connection so far, oldest first (`out` to the agent,
   * `in` from it; a response named by its request's method). *Show Protocol Inspector* shows them
   * with their content; its Export writes them redacted.
   */
  protocolLog(sessionKey: string): EntrySummary[];
  /**
   * The capability matrix of a session's agent: what it declared at `initialize`, what it has
   * exercised on the wire and what failed (the inspector's Capabilities tab).
   */
  capabilities(sessionKey: string): CapabilityRow[];
  /**
   * Each version of agent `agentId` this person has run: what it declared at its latest
   * `initialize`, and how often each capability was exercised and failed over all its sessions.
   */
  agentCapabilities(agentId: string): AgentVersionCapabilities[];
  /** Closes a session and ends its agent and terminals. */
  closeSession(sessionKey: string): Promise<void>;
  /**
   * "Allow host and re-run" (issue 21): allows `host`, which the sandbox refused the sandboxed
   * command of `terminalId`, for this session's sandboxed commands, and runs that command again now
   * in a card of our own (the click is the approval of the new intent).
   * @returns the new terminal's id.
   * @throws Error when the terminal was not sandboxed, the sandbox did not refuse it that host, or the
   *   host is not one literal host name (a pattern such as `*.example.com` is never allowed this way).
   */
  allowSandboxHost(sessionKey: string, terminalId: string, host: string): Promise<string>;
  /** Every journaled session (this window's and earlier ones'), most recently updated first. */
  sessionHistory(): JournalEntry[];
  /** Shows a journaled session's transcript, read-only. @returns its session key. */
  restoreSession(journalId: string): string;
  /**
   * Takes a session up again in a new agent process: a listed session by key, a journaled one by
   * `journalId`, or one the agent lists (`agentId` + `sessionId`). @returns the new session key.
   * @throws Error when the agent can neither resume nor load sessions, or refuses this one.
   */
  resumeSession(target: { key: string } | { journalId: string } | { agentId: string; sessionId: string }): Promise<string>;
  /**
   * The worktrees made for sessions (issue 20) and still on disk: `state` says whether they were
   * applied to the main folder or committed; `sessionKey` names the session working there. Apply,
   * commit and discard with `runCommand('agentSwitchboard.worktree.apply' | '.commit' | '.discard',
   * { worktreeId, message?, confirmed? })`.
   */
  worktrees(): Promise<{ id: string; branch: string; dir: string; repo: string; base: string; state: string; sessionKey?: string }[]>;
  /**
   * A comparison started with `runCommand('agentSwitchboard.sendToSeveral', { agentIds, prompt,
   * cwd?, testCommand?, from? })` (which returns its id): per agent its session, worktree, status, time,
   * usage, changed files with diffs and the test command's exit code. `settled`: wait until every
   * agent's turn ended and its test ran. Keep one with `runCommand('agentSwitchboard.compare.keep',
   * { compareId, worktreeId, discardOthers? })`.
   */
  comparison(id: string, opts?: { settled?: boolean }): Promise<CompareView | undefined>;
  /** The agent's own sessions in the workspace folder (`session/list`); `supported` false when it lists none. */
  agentSessions(agentId: string): Promise<{ supported: boolean; sessions: { sessionId: string; cwd: string; title?: string | null; updatedAt?: string | null }[] }>;
}

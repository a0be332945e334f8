/**
 * Serializable state of one ACP session as the person sees it: the thread, tool calls, the plan,
 * permission requests and the turn. It is the model behind the sidebar, and the same object is sent
 * to the webview as a snapshot; later changes travel as {@link SessionPatch}es.
 *
 * Pure: no `vscode`, no I/O. Shapes follow ACP v1 (`session/update`, `session/request_permission`,
 * https://agentclientprotocol.com/protocol/prompt-turn and /protocol/tool-calls).
 */
import type { PermissionOptionKind, PlanEntryPriority, PlanEntryStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { TurnUsageView, UsageView } from './usage';

/** Status of a tool call: ACP's four, plus the states a client adds around approval and cancelling. */
export type ToolCallStatusView =
  | 'pending'
  | 'awaiting_approval'
  | 'in_progress'
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'cancelled';

/** One item of tool-call content, reduced to what the UI shows. */
export type ToolContentView =
  | {
      type: 'text';
      text: string;
      /** Set on what a page is sent when `text` is only the first characters: the full length. */
      totalChars?: number;
      /**
       * Set on what a page is sent when `text` is left out (empty) because it is the text the page
       * already has for this item of the call (see `elideShownTexts`); `applyPatch` puts it back.
       */
      sameText?: true;
    }
  | { type: 'resource'; uri: string; name: string; text?: string }
  | { type: 'image'; mimeType: string; dataLength: number }
  | {
      type: 'diff';
      path: string;
      /** `null` means the agent creates the file. */
      oldText: string | null;
      newText: string;
      added: number;
      removed: number;
    }
  /**
   * A client terminal the agent embeds. `unavailable`: this window holds no terminal of that id
   * (it ran in an earlier agent process or window, or the agent named one it never created), so
   * views show a placeholder instead of waiting for it to start.
   */
  | { type: 'terminal'; terminalId: string; unavailable?: true };

/** A file location a tool call touches (`ToolCallLocation`, line is 1-based). */
export interface LocationView {
  path: string;
  line?: number;
}

/** A tool call as merged from `tool_call`, every `tool_call_update` and any permission request. */
export interface ToolCallView {
  toolCallId: string;
  title: string;
  kind: ToolKind;
  status: ToolCallStatusView;
  content: ToolContentView[];
  locations: LocationView[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** True when the agent never announced the call with `tool_call` (an orphan update or permission). */
  placeholder: boolean;
  /** Id of the permission request that concerns this call, if any. */
  permissionId?: string;
  /**
   * Who performed the call's effect: `client` = we performed it after matching an approved intent;
   * `agent` = the agent did it itself, so the client could not verify it.
   */
  verification?: 'client' | 'agent';
  /**
   * When the agent last said anything about this call (host clock, ms since the epoch): its
   * `tool_call` / `tool_call_update`s and permission requests, or the person's answer. The card
   * shows a running call silent for minutes (see `webview/session/silence.ts`).
   */
  updatedAt?: number;
}

/** An option the agent offers in `session/request_permission`. */
export interface PermissionOptionView {
  optionId: string;
  name: string;
  kind: PermissionOptionKind;
}

/** A permission request: waiting for the person, or how it ended. */
export interface PermissionView {
  permissionId: string;
  toolCallId: string;
  options: PermissionOptionView[];
  state: 'waiting' | 'selected' | 'cancelled';
  /** The `optionId` the person chose (state `selected`). */
  optionId?: string;
  /** Who answered: the person in the sidebar, the public API, or the client cancelling the turn. */
  answeredBy?: 'person' | 'api' | 'cancel' | 'grant';
  /** The grant the answer created (`For this session / workspace / Always`), or the grant that answered it. */
  grant?: { scope: 'session' | 'workspace' | 'always'; description?: string };
  requestedAt: number;
  /** SHA-256 of the declared intent (RFC 8785 canonical JSON); the card shows its first 12 digits. */
  intentHash?: string;
  /** Plain sentences on what the agent did not declare (e.g. the content it will write). */
  undeclared?: string[];
  /**
   * Plain sentences on what a broader answer would grant beyond this request (the agent's "always"
   * on an edit becomes a grant to write any workspace file): the card says them beside that choice.
   */
  grantNotes?: string[];
  /**
   * Why this request can only be allowed once ("The agent did not show the command, so this can
   * only be allowed once."): the card offers no grant and no "always", and says this sentence.
   */
  onceOnly?: string;
  /** The agent's `allow_always` was chosen but recorded as once only (see `onceOnly`, or who answered). */
  asOnce?: boolean;
  /**
   * What an approval lets through, computed by the extension from the declared intent itself (never
   * from the agent's content blocks): the card shows this, as text, while the request waits.
   */
  display?: IntentDisplayView[];
  /**
   * Asked at the effect (issue 19): the agent sent `fs/write_text_file` or `terminal/create` without
   * asking first, and the request is held until the person answers this card, which Agent
   * Switchboard made from the effect request itself (the agent cannot change it).
   */
  unrequested?: true;
}

/**
 * One effect of a declared intent as the card shows it (built by `src/policy/declare.ts`).
 * - `command`: `line` is the command line exactly as the gate compares it (argv joined with spaces),
 *   `argv` its words; `line` null when the agent named no command (any one command in `cwd` once),
 *   and `unreadable` when it named one the client cannot read (no command is let through).
 * - `write`: the path as the gate names it; `content` the text the intent's hash was taken of when it
 *   came from the raw input (the card's diff blocks do not show it), cut to `MAX_DISPLAY_CONTENT`
 *   characters (`totalChars` says how many there were); `source` says where the content came from.
 * - `tool`: a call the agent performs itself.
 */
export type IntentDisplayView =
  /** `env`: for a held `terminal/create`, each variable it sets as `NAME=value` text, secrets redacted. */
  | {
      type: 'command';
      line: string | null;
      argv: string[];
      cwd: string;
      envNames: string[];
      unreadable?: true;
      env?: string[];
      /** The sandbox in words (issue 21): the profile the intent carries, or that the command runs unsandboxed because the sandbox is unavailable. Our text. */
      sandbox?: { sandboxed: boolean; text: string };
    }
  | { type: 'write'; path: string; source: 'diff' | 'rawInput' | 'none'; content?: { text: string; totalChars: number } }
  /**
   * `url`: the address a `fetch` call says it reads; `plan`: the plan a `switch_mode` call puts to
   * the person (both from its raw input, as text, bounded). Shown, not enforced: the agent acts itself.
   * `cut`: the url or plan is longer than the card shows (the card then offers the whole request).
   */
  | { type: 'tool'; title: string; url?: string; plan?: string; cut?: true };

/** Characters of a raw-input write's content that the card shows; beyond, it says the rest is not shown. */
export const MAX_DISPLAY_CONTENT = 20_000;
/** Characters of a `fetch` call's URL that the card shows. */
export const MAX_TOOL_URL = 4_000;

/** A client-hosted terminal as shown in a tool card. */
export interface TerminalView {
  terminalId: string;
  commandLine: string;
  cwd: string;
  /** Tail of the output (bounded); `truncated` says bytes were dropped at the front. */
  output: string;
  truncated: boolean;
  exitStatus?: { exitCode: number | null; signal: string | null };
  /** Hosts the sandbox refused this command, from the sandbox's own record (issue 21): the card offers to allow each and run it again. */
  sandboxBlocked?: string[];
  /** How many changes of a sandboxed command its overlay held back (from the sandbox's record), once it has exited. */
  sandboxHeldBack?: number;
  /**
   * `agent`: a terminal the agent ran itself, in its own process (codex-acp, claude-agent-acp):
   * this editor neither ran nor sandboxed it; its output and exit came in the tool call's `_meta`
   * (`terminal_output_delta` / `terminal_output`, `terminal_exit`). Absent: one the client runs.
   */
  owner?: 'agent';
}

/** A launch or connection failure, with everything a person needs to fix it. */
export interface AgentErrorView {
  message: string;
  commandLine?: string;
  pathUsed?: string;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string[];
}

/** One entry of the thread, in order. Tool calls and permissions are referenced by id. */
export type ThreadEntry =
  /**
   * `context` names what was attached to the prompt (files, a selection, problems, images).
   * `echo` is set on the person's own prompt (from `promptSent`): how many characters of its text
   * the agent has sent back as `user_message_chunk`s, which are absorbed, never shown twice.
   */
  | { kind: 'user'; id: string; text: string; messageId?: string; context?: string[]; echo?: number; late?: true }
  | { kind: 'agent'; id: string; text: string; messageId?: string; attachments: ToolContentView[]; late?: true }
  | { kind: 'thought'; id: string; text: string; messageId?: string; late?: true }
  | { kind: 'tool_call'; id: string; toolCallId: string; late?: true }
  /** `usage`: the turn's own tokens from the `session/prompt` answer (never the context window). */
  | { kind: 'turn_end'; id: string; stopReason: string; usage?: TurnUsageView }
  /** `action`: a button the notice offers while it applies (Restart Agent, after a Stop the agent did not answer). */
  | { kind: 'notice'; id: string; severity: 'info' | 'warning' | 'error'; text: string; error?: AgentErrorView; action?: 'restartAgent' }
  /** An agent's question (`elicitation/create`); the card is replaced (same id) as it is answered. */
  | { kind: 'elicitation'; id: string; elicitation: ElicitationView };

/**
 * A turn the person stopped whose `session/prompt` the agent has not answered yet. The thread
 * shows the turn cancelled at once; what the agent still sends for it is marked `late` (see
 * ARCHITECTURE.md, "The turn").
 */
export interface StoppingView {
  /** When Stop was pressed (host clock, ms since the epoch). */
  since: number;
  /** The `turn_end` entry Stop wrote. */
  turnEndId: string;
  /** The `messageId`s of the stopped turn's messages: later chunks with these ids go to those messages. */
  messageIds: string[];
  /** Set when the grace period passed without an answer: the notice offering Restart Agent. */
  overdueNoticeId?: string;
}

/**
 * An agent's `elicitation/create` (ACP v1, schema 1.21) as its card shows it. Never holds the values
 * the person typed: those go to the agent and nowhere else (not the journal, the trace or the audit).
 * - `form`: `requestedSchema` is the schema reduced to the spec's primitives (`checkedSchema`).
 * - `url`: `url` is the whole address as the agent sent it (shown as text, never a link); `host`
 *   is where it leads, or `refused` says why the editor will not open it.
 * State: `waiting` for the person; `accept` / `decline` / `cancel` is the answer the agent got;
 * `completed` (URL mode) is set when the agent sends `elicitation/complete`.
 */
export interface ElicitationView {
  /** Our id for the request (not guessable); webview answers name it. */
  elicitationKey: string;
  mode: 'form' | 'url';
  message: string;
  toolCallId?: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
  /** The agent's `elicitationId` (URL mode), matched by `elicitation/complete`. */
  elicitationId?: string;
  host?: string;
  refused?: string;
  state: 'waiting' | 'accept' | 'decline' | 'cancel';
  /** Who ended the question: the person, the turn's Stop / the session's end, or the agent withdrawing it. */
  answeredBy?: 'person' | 'cancel' | 'agent';
  /** Field names the person answered (accept); their values are not kept. */
  fields?: string[];
  completed?: boolean;
  requestedAt: number;
}

/** A plan entry (`plan` update; each update replaces the whole plan). */
export interface PlanEntryView {
  content: string;
  priority: PlanEntryPriority;
  /** The status the agent declared, kept as it sent it. */
  status: PlanEntryStatus;
  /**
   * Set when the turn ended while the agent still had this entry `in_progress`: nothing works on it
   * any more, so views show it as stopped, not running. The agent's next `plan` update replaces it.
   */
  stopped?: PlanStop;
}

/**
 * How the turn that left a plan entry in progress ended: `cancelled` (Stop, or the window ended
 * mid-turn and the transcript was restored), `failed` (the prompt request failed, or the agent
 * crashed), `closed` (the session was closed mid-turn), `ended` (the agent ended its turn, or a
 * loaded session's history, without finishing the entry).
 */
export type PlanStop = 'cancelled' | 'failed' | 'closed' | 'ended';

/**
 * A session configuration option the agent offers (ACP `SessionConfigOption`: a model, a reasoning
 * level, a switch), with groups flattened into `group` labels.
 */
export type ConfigOptionView = { id: string; name: string; description?: string; category?: string } & (
  | { type: 'select'; currentValue: string; options: { value: string; name: string; description?: string; group?: string }[] }
  | { type: 'boolean'; currentValue: boolean }
);

/** What the agent accepts in a prompt besides text and resource links (`promptCapabilities`). */
export interface PromptCapabilitiesView {
  image: boolean;
  audio: boolean;
  embeddedContext: boolean;
}

/** Where the session is in its life. */
export type SessionStatus = 'starting' | 'ready' | 'prompting' | 'cancelling' | 'closed' | 'error';

/** The whole state of one session. */
export interface SessionState {
  /** Our handle for the session; equals the ACP `sessionId` once `session/new` answered. */
  key: string;
  sessionId?: string;
  agentId: string;
  agentName: string;
  cwd: string;
  status: SessionStatus;
  /** The agent's title for the session (`session_info_update`), plain text of at most {@link MAX_TITLE_CHARS}. */
  title?: string;
  /** The agent's last activity in the session (`session_info_update.updatedAt`), epoch milliseconds. */
  updatedAt?: number;
  /** The context window, from the agent's last valid `usage_update` (see `usage.ts`). */
  usage?: UsageView;
  entries: ThreadEntry[];
  toolCalls: Record<string, ToolCallView>;
  permissions: Record<string, PermissionView>;
  terminals: Record<string, TerminalView>;
  plan: PlanEntryView[];
  availableCommands: { name: string; description: string }[];
  currentModeId?: string;
  /** The modes the agent offers (from `session/new`), for the mode picker. */
  availableModes?: { id: string; name: string; description?: string }[];
  /** The configuration options the agent offers (`session/set_config_option`), for their pickers. */
  configOptions?: ConfigOptionView[];
  /** What prompts may carry (images, embedded files), from `initialize`. */
  promptCapabilities?: PromptCapabilitiesView;
  lastStopReason?: string;
  /** Prompts the person sent while a turn ran, oldest first; each is sent when the turn before it ends. */
  queued?: string[];
  error?: AgentErrorView;
  /** The stopped turn the agent has not answered yet, if any. */
  stopping?: StoppingView;
  /**
   * What the gate does with a write or command the agent did not ask about (`agentSwitchboard.policy.
   * unrequestedEffects`): `ask` holds it and asks at the effect, `refuse` refuses it. The header's
   * note on an agent mode that does not ask says which (see `autonomy.ts`).
   */
  unrequestedEffects?: 'ask' | 'refuse';
  /**
   * The git worktree the session works in (issue 20): its folder (the session's files and terminals
   * are contained there, not in the workspace folder), branch and main repository. Absent for a
   * session in the workspace folder itself.
   */
  worktree?: WorktreeView;
  /** Incremented for every patch; the webview uses it to detect a gap and ask for a snapshot. */
  rev: number;
  /** Counter for entry ids, kept in the state so ids survive a snapshot round trip. */
  nextEntry: number;
}

/**
 * A change to {@link SessionState}. Typed upserts and appends rather than RFC 6902 JSON Patch, so
 * that appending a streamed chunk costs the chunk, not the whole message.
 */
export type SessionPatch =
  | { op: 'entry'; entry: ThreadEntry }
  | { op: 'appendText'; entryId: string; text: string }
  | { op: 'toolCall'; toolCall: ToolCallView }
  | { op: 'permission'; permission: PermissionView }
  | { op: 'terminal'; terminal: TerminalView }
  | { op: 'plan'; plan: PlanEntryView[] }
  | {
      op: 'meta';
      meta: Partial<
        Pick<SessionState, 'status' | 'title' | 'updatedAt' | 'usage' | 'sessionId' | 'lastStopReason' | 'error' | 'currentModeId' | 'availableModes' | 'availableCommands' | 'queued' | 'configOptions' | 'promptCapabilities' | 'stopping' | 'unrequestedEffects' | 'worktree'>
      >;
    };

/** A session's git worktree (see `SessionState.worktree`; `src/worktrees/`). */
export interface WorktreeView {
  id: string;
  /** The worktree's folder: the only root of the session's files and terminals. */
  dir: string;
  branch: string;
  /** The main working tree it will be applied to. */
  repo: string;
}

/** Longest session title kept from an agent's `session_info_update` (longer is cut, with "…"). */
export const MAX_TITLE_CHARS = 200;

/** A fresh, empty session state. */
export function createSessionState(init: { key: string; agentId: string; agentName: string; cwd: string }): SessionState {
  return {
    ...init,
    status: 'starting',
    entries: [],
    toolCalls: {},
    permissions: {},
    terminals: {},
    plan: [],
    availableCommands: [],
    rev: 0,
    nextEntry: 0,
  };
}

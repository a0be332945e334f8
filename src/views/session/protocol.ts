/**
 * Typed messages between the session sidebar webview and the extension.
 * The webview imports this file with `import type` only.
 *
 * Lifecycle (ARCHITECTURE.md habit 6): the webview posts `ready`; the extension answers with a
 * `snapshot`; afterwards it sends `patches` for the shown session. Each `patches` message carries the
 * session's `rev` after applying them; a webview that sees a gap posts `requestSnapshot`.
 */
import type { AgentUnavailability } from '../../config/agentProblems';
import type { SessionPatch, SessionState } from '../../acp/session/types';
import type { EarlierPage } from '../../acp/session/window';
import type { ContextItem } from '../../acp/promptContext';
import type { TurnSummary } from '../../edits/turnSummary';

/** A suggestion for an @-mention: what it attaches, its label and a detail line. */
export interface MentionItem {
  item: ContextItem;
  label: string;
  detail?: string;
}

/** An agent the person can start a session with. */
export interface AgentChoice {
  id: string;
  name: string;
  /** False when the command was not found on PATH; `reason` says why. */
  available: boolean;
  reason?: string;
  /** An invalid entry of `agentSwitchboard.agents`: `reason` is "<name or id>: <what is wrong>". */
  invalid?: boolean;
  /** Why it cannot start, in kind, and for a malformed entry what is wrong (see `agentRowLabel`). */
  unavailable?: AgentUnavailability;
  problem?: string;
  /** A clearly labelled offline demo (scripted, no model). */
  demo?: boolean;
}

/** One line of the session list. */
export interface SessionSummary {
  key: string;
  agentName: string;
  title: string;
  status: SessionState['status'];
  waiting: number;
}

/** Extension → webview. */
export type HostMessage =
  /**
   * `current` holds the newest entries only (acp/session/window.ts); `omittedEntries` came before
   * them and are sent on `requestEarlier`.
   */
  | { type: 'snapshot'; agents: AgentChoice[]; sessions: SessionSummary[]; current: SessionState | null; omittedEntries: number; workspaceTrusted: boolean; hasWorkspace: boolean }
  /** The answer to `requestEarlier`: the entries before `beforeEntryId`; `page` is absent when that entry is unknown. */
  | { type: 'earlierEntries'; key: string; beforeEntryId: string; page?: EarlierPage }
  /**
   * `fromRev`: the session's rev before the first patch (the extension merges a batch's patches, see
   * `patchesForPage`); absent, `rev - patches.length`.
   */
  | { type: 'patches'; key: string; fromRev?: number; rev: number; patches: SessionPatch[] }
  | { type: 'sessions'; sessions: SessionSummary[] }
  | { type: 'agents'; agents: AgentChoice[] }
  /** The answer to `searchMentions`. */
  | { type: 'mentionResults'; requestId: number; items: MentionItem[] }
  /** Something to attach to the next prompt (from an editor command: a selection, a file, problems). */
  | { type: 'contextItem'; item: ContextItem; label: string }
  /** The prompt was not sent (`reason`): the page puts it back in the box so nothing is lost. */
  | { type: 'promptRefused'; text: string; reason: string }
  /**
   * The extension host's clock (ms since the epoch): after each snapshot, and every 30 s while a
   * tool call of the shown session is pending or running, for its "silent for N min" label.
   */
  | { type: 'clock'; now: number }
  /** A keyboard command for the page: send what is in the prompt box, or move focus to the next / previous card. */
  | { type: 'keyCommand'; command: KeyCommand }
  /** An answer to an agent's question was not sent: `problems` say why (the card stays, with what was typed). */
  | { type: 'elicitationProblems'; key: string; elicitationKey: string; problems: string[] }
  /** What restoring the files to before message `entryId` would do (see messageActions.ts); `refused`: why not now. */
  | { type: 'checkpointPreview'; key: string; entryId: string; files: CheckpointFileView[]; laterTurns: number; refused?: string }
  /** How the restore asked from message `entryId` ended: files put back, files left alone and why. */
  | { type: 'checkpointRestored'; key: string; entryId: string; restored: string[]; skipped: { name: string; why: string }[]; refused?: string }
  /**
   * Message `entryId` for the prompt box (Edit and resend): its text, the attachments still known
   * (`missing`: labels of those that are not), and how many files a restore to before it would put back.
   */
  | { type: 'messageForEdit'; key: string; entryId: string; text: string; context: { item: ContextItem; label: string }[]; missing: string[]; restorable: number }
  /**
   * What the agent changed in each ended turn of session `key`, with the person's decisions, whole
   * (after the snapshot and on every change): the review's own state, read for the thread.
   * `worktree`: the session works in one; `applied` once it was applied to the main folder after
   * its newest change.
   */
  | { type: 'turnChanges'; key: string; turns: TurnSummary[]; worktree?: { branch: string; applied: boolean } };

/** A file of a checkpoint as the thread names it: relative to the session's folder; `leftAlone` says why the restore will leave it. */
export interface CheckpointFileView {
  name: string;
  leftAlone?: string;
}

/** What the keyboard commands ask the page to do (agentSwitchboard.sendFromBox / nextCard / previousCard). */
export type KeyCommand = 'send' | 'nextCard' | 'previousCard';

/** Webview → extension. Every command is re-checked by the extension (the webview holds no authority). */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'requestSnapshot' }
  /** The page of entries before `beforeEntryId` (the first one the page holds). */
  | { type: 'requestEarlier'; key: string; beforeEntryId: string }
  /** Starts a session with `agentId`; with `prompt`, sends it (and `context`) as the session's first turn. */
  | { type: 'startSession'; agentId: string; prompt?: string; context?: ContextItem[] }
  | { type: 'selectSession'; key: string }
  /** `context`: what the person attached (files, a selection, symbols, problems, images). */
  | { type: 'prompt'; key: string; text: string; context?: ContextItem[] }
  /** Files and symbols matching an @-mention being typed. */
  | { type: 'searchMentions'; requestId: number; query: string }
  /** Attach the active editor's file, selection or problems to the prompt. */
  | { type: 'addContext'; what: 'file' | 'selection' | 'diagnostics' }
  /** Set one of the agent's configuration options (`session/set_config_option`). */
  | { type: 'setConfigOption'; key: string; configId: string; value: string | boolean }
  | { type: 'cancel'; key: string }
  /** Switch the agent's mode (`session/set_mode`) to one it offered. */
  | { type: 'setMode'; key: string; modeId: string }
  | { type: 'answerPermission'; key: string; permissionId: string; optionId: string; grant?: 'session' | 'workspace' | 'always' }
  /** Reject every request of the session that waits (a flood of cards): each with its narrowest reject. */
  | { type: 'rejectAllWaiting'; key: string }
  /** The waiting permission card that holds the focus now (`null`: none); the keyboard's approve answers it. */
  | { type: 'cardFocus'; key: string; permissionId: string | null }
  /** Answer an agent's question (`elicitation/create`); `content` is the form's values (accept, form mode). */
  | { type: 'answerElicitation'; key: string; elicitationKey: string; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  /** Open a URL-mode question's page: the extension names its host, asks, then opens the address it holds. */
  | { type: 'openElicitationUrl'; key: string; elicitationKey: string }
  | { type: 'openLocation'; path: string; line?: number }
  | { type: 'showTerminal'; key: string; terminalId: string }
  /** "Allow host and re-run" on a sandboxed command the sandbox refused `host` (issue 21). */
  | { type: 'allowSandboxHost'; key: string; terminalId: string; host: string }
  | { type: 'reviewToolCall'; key: string; toolCallId: string }
  /**
   * The end-of-turn row: Keep all / Undo all of turn `turn` (as the Changes view's turn does),
   * Review it (the Changes view and its first diff), or Apply the session's worktree to the main folder.
   */
  | { type: 'turnAction'; key: string; turn: number; action: 'keep' | 'undo' | 'review' | 'apply' }
  /** Open the review diff of one change of session `key` (a file of the end-of-turn row). */
  | { type: 'openChange'; key: string; changeId: string }
  /** Open the whole diff of a card's content item `index` (the preview shows part of it). */
  | { type: 'openToolDiff'; key: string; toolCallId: string; index: number }
  /** Open a card's whole raw input (the card shows only part of what it approves). */
  | { type: 'openToolInput'; key: string; toolCallId: string }
  | { type: 'closeSession'; key: string }
  /** Take a closed or restored session up again (`session/resume` or `session/load`). */
  | { type: 'resumeSession'; key: string }
  /** End the session's agent process and start a new one for it (offered when the agent did not answer Stop). */
  | { type: 'restartAgent'; key: string }
  /** Open the session in an editor tab of its own. */
  | { type: 'openInTab'; key: string }
  /** What restoring the files to before the person's message `entryId` would do (answered with `checkpointPreview`). */
  | { type: 'previewCheckpoint'; key: string; entryId: string }
  /** Restore the files to before message `entryId`: the person confirmed the preview's count in the page. */
  | { type: 'restoreCheckpoint'; key: string; entryId: string }
  /** Open message `entryId` for editing (answered with `messageForEdit`: its text, attachments, what a restore would put back). */
  | { type: 'editMessage'; key: string; entryId: string }
  /** Send message `entryId`, edited, as a new turn: after restoring the files to before it when `restore`. */
  | { type: 'resendMessage'; key: string; entryId: string; text: string; restore: boolean; context?: ContextItem[] }
  | { type: 'configureAgents' }
  /** Open what fixes an unavailable agent (`agentId`), or list them all. */
  | { type: 'showUnavailableAgents'; agentId?: string };

/**
 * The session reducer: turns ACP `session/update`s and client-side events into
 * {@link SessionPatch}es and applies them to a {@link SessionState}.
 *
 * It tolerates what real agents send (seen in recorded claude-code-acp, claude-agent-acp and
 * opencode transcripts): a second `tool_call` for the same id with more detail, updates for ids
 * never announced, empty chunks, `messageId` on chunks, and permission requests for tool calls that
 * were never announced. Pure: no `vscode`, no I/O.
 *
 * Spec: ACP v1 `session/update` (https://agentclientprotocol.com/protocol/prompt-turn),
 * tool calls (https://agentclientprotocol.com/protocol/tool-calls).
 */
import { agentTerminalUpdates } from './agentTerminals';
import type {
  ContentBlock,
  PermissionOption,
  SessionConfigOption,
  SessionConfigSelectGroup,
  SessionConfigSelectOption,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import { diffLines } from 'diff';
import { intentDisplaySchema } from './intentDisplay';
import { elicitationViewSchema } from './elicitationView';
import { applyPatches, findEntryIndex } from './patch';
import { turnUsageFrom, usageFromUpdate } from './usage';
import { MAX_TITLE_CHARS } from './types';
import type {
  AgentErrorView,
  ElicitationView,
  IntentDisplayView,
  ConfigOptionView,
  PromptCapabilitiesView,
  LocationView,
  PlanEntryView,
  PlanStop,
  SessionPatch,
  SessionState,
  TerminalView,
  ThreadEntry,
  ToolCallStatusView,
  ToolCallView,
  ToolContentView,
  WorktreeView,
} from './types';

/** Everything that can change a session. `update` carries a validated ACP `SessionUpdate`. */
export type SessionAction =
  /** `at`: when it arrived (host clock, ms); absent in journals written before it was recorded. */
  | { type: 'update'; update: SessionUpdate; at?: number }
  | {
      type: 'ready';
      sessionId: string;
      currentModeId?: string;
      availableModes?: { id: string; name: string; description?: string }[];
      configOptions?: SessionConfigOption[];
      promptCapabilities?: PromptCapabilitiesView;
    }
  /** `context` names what the prompt carries besides its text. */
  | { type: 'promptSent'; text: string; context?: string[] }
  /** The agent accepted `session/set_config_option` and answered with every option. */
  | { type: 'configSet'; configOptions: SessionConfigOption[] }
  /** `usage`: the prompt answer's `usage` as the agent sent it (unstable; checked before it is shown). */
  | { type: 'turnEnded'; stopReason: string; usage?: unknown }
  | { type: 'turnFailed'; message: string }
  /** The person pressed Stop (`at`: host clock, ms): the turn ends here at once, cancelled. */
  | { type: 'cancelRequested'; at?: number }
  /** The agent answered the `session/prompt` of a turn the person had stopped (or it failed). */
  | { type: 'stopAnswered'; stopReason?: string; error?: string }
  /** The grace period after Stop passed without an answer: the thread offers Restart Agent. */
  | { type: 'stopOverdue'; seconds: number }
  | {
      type: 'permissionRequested';
      permissionId: string;
      toolCall: ToolCallUpdate;
      options: PermissionOption[];
      at: number;
      intentHash?: string;
      undeclared?: string[];
      /** What the agent's broader options would grant (see `PermissionView.grantNotes`). */
      grantNotes?: string[];
      /** Why this request can only be allowed once (the card offers no broader choice and says this). */
      onceOnly?: string;
      /** The tool call exactly as the intent was built from it; the card shows this, frozen. */
      view?: ToolCallView;
      /** What the intent lets through, as the card shows it (see `PermissionView.display`). */
      display?: IntentDisplayView[];
      /** Asked at the effect: the agent sent no permission request (see `PermissionView.unrequested`). */
      unrequested?: true;
    }
  | {
      type: 'permissionAnswered';
      permissionId: string;
      optionId: string;
      by: 'person' | 'api' | 'grant';
      grant?: { scope: 'session' | 'workspace' | 'always'; description?: string };
      /** The chosen option is the agent's `allow_always`, but it was recorded (and holds) as once only. */
      asOnce?: boolean;
      /** When it was answered (host clock, ms): the tool call's silence counts from here. */
      at?: number;
    }
  | { type: 'permissionCancelled'; permissionId: string }
  /** An agent's `elicitation/create` (the view as the card shows it, in state `waiting`). */
  | { type: 'elicitationRequested'; elicitation: ElicitationView }
  /** The question ended with `action` (the values, if any, went to the agent and are not here). */
  | { type: 'elicitationAnswered'; elicitationKey: string; action: 'accept' | 'decline' | 'cancel'; by: 'person' | 'cancel' | 'agent'; fields?: string[] }
  /** `elicitation/complete`: the out-of-band interaction of a URL-mode question finished. */
  | { type: 'elicitationCompleted'; elicitationId: string }
  | { type: 'effectVerified'; toolCallId: string }
  | { type: 'effectRefused'; message: string }
  | { type: 'terminal'; terminal: TerminalView }
  | { type: 'agentError'; error: AgentErrorView }
  | { type: 'notice'; severity: 'info' | 'warning' | 'error'; text: string }
  /** The agent accepted `session/set_mode`. */
  | { type: 'modeSet'; modeId: string }
  /** The prompts waiting for the running turn to end changed. */
  | { type: 'queue'; queued: string[] }
  /** The session is being connected to a new agent process (`session/load` or `session/resume`). */
  | { type: 'reattaching' }
  /** What the gate does with effects the agent did not ask about (the setting, when the session starts and when it changes). */
  | { type: 'gateSettings'; unrequestedEffects: 'ask' | 'refuse' }
  /** The session works in a git worktree of its own (set once, when it starts). */
  | { type: 'worktree'; worktree: WorktreeView }
  | { type: 'closed' };

const EFFECT_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move', 'execute']);
const TERMINAL_STATES: ReadonlySet<ToolCallStatusView> = new Set(['completed', 'failed', 'rejected', 'cancelled']);

/**
 * Applies `action` to `state` in place and returns the patches that describe the change (already
 * applied), for forwarding to views.
 */
export function reduce(state: SessionState, action: SessionAction): SessionPatch[] {
  const patches = derive(state, action);
  applyPatches(state, patches);
  return patches;
}

function derive(state: SessionState, action: SessionAction): SessionPatch[] {
  switch (action.type) {
    case 'update':
      return fromUpdate(state, action.update, action.at);
    case 'ready': {
      // An agent that offers its mode as a config option is switched through that option only: the
      // legacy `modes` it also sends for older clients are not kept beside it (ACP session config
      // options: "Clients SHOULD use them instead of the modes field").
      const configOptions = action.configOptions?.length ? configOptionsView(action.configOptions) : [];
      const modes = configOptions.some((o) => o.category === 'mode')
        ? { currentModeId: undefined, availableModes: undefined }
        : { currentModeId: action.currentModeId, ...(action.availableModes?.length ? { availableModes: action.availableModes } : {}) };
      // A loaded session's history may leave plan entries in progress; no turn runs them now.
      return [
        ...settlePlan(state, 'ended'),
        {
          op: 'meta',
          meta: {
            status: 'ready',
            sessionId: action.sessionId,
            ...modes,
            ...(configOptions.length ? { configOptions } : {}),
            ...(action.promptCapabilities ? { promptCapabilities: action.promptCapabilities } : {}),
          },
        },
      ];
    }
    case 'configSet':
      return configMeta(action.configOptions);
    case 'modeSet':
      return [{ op: 'meta', meta: { currentModeId: action.modeId } }];
    case 'promptSent':
      return [
        { op: 'entry', entry: { kind: 'user', id: newEntryId(state), text: action.text, ...(action.context?.length ? { context: action.context } : {}), echo: 0 } },
        { op: 'meta', meta: { status: 'prompting', lastStopReason: undefined } },
      ];
    case 'turnEnded':
      // A journal written before Stop ended the turn at once holds the agent's late answer as a
      // turnEnded: the turn already ended, so it only settles the stop.
      if (state.stopping && state.status !== 'prompting' && state.status !== 'cancelling') return settleStopping(state, `${state.agentName} answered the stopped turn (${action.stopReason}).`);
      return endTurn(state, action.stopReason, action.usage);
    case 'turnFailed':
      return [
        ...closeWaiting(state, 'cancel'),
        ...settlePlan(state, 'failed'),
        { op: 'entry', entry: { kind: 'notice', id: newEntryId(state), severity: 'error', text: action.message } },
        { op: 'meta', meta: { status: state.status === 'error' || state.status === 'closed' ? state.status : 'ready' } },
      ];
    case 'cancelRequested':
      return stopTurn(state, action.at ?? 0);
    case 'stopAnswered':
      if (!state.stopping) return [];
      return settleStopping(state, action.error ? `${state.agentName} ended the stopped turn with an error: ${action.error}` : `${state.agentName} answered the stopped turn after all (${action.stopReason ?? 'no reason'}).`);
    case 'stopOverdue': {
      if (!state.stopping || state.stopping.overdueNoticeId) return [];
      const id = newEntryId(state);
      return [
        { op: 'entry', entry: { kind: 'notice', id, severity: 'warning', text: overdueText(state, action.seconds), action: 'restartAgent' } },
        { op: 'meta', meta: { stopping: { ...state.stopping, overdueNoticeId: id } } },
      ];
    }
    case 'permissionRequested':
      return permissionRequested(state, action);
    case 'permissionAnswered':
      return permissionAnswered(state, action.permissionId, action.optionId, action.by, action.grant, action.asOnce, action.at);
    case 'permissionCancelled':
      return cancelPermission(state, action.permissionId);
    case 'elicitationRequested':
      return elicitationRequested(state, action.elicitation);
    case 'elicitationAnswered':
      return elicitationAnswered(state, action.elicitationKey, action.action, action.by, action.fields);
    case 'elicitationCompleted':
      return elicitationCompleted(state, action.elicitationId);
    case 'effectVerified': {
      const tc = state.toolCalls[action.toolCallId];
      return tc ? [{ op: 'toolCall', toolCall: { ...tc, verification: 'client' } }] : [];
    }
    case 'effectRefused':
      return [{ op: 'entry', entry: { kind: 'notice', id: newEntryId(state), severity: 'warning', text: `Refused: ${action.message}` } }];
    case 'terminal':
      return [{ op: 'terminal', terminal: action.terminal }];
    case 'agentError':
      return [
        ...settleStopping(state, `${state.agentName} never answered the stopped turn: its connection ended.`),
        ...closeWaiting(state, 'cancel'),
        ...settlePlan(state, 'failed'),
        { op: 'entry', entry: { kind: 'notice', id: newEntryId(state), severity: 'error', text: action.error.message, error: action.error } },
        { op: 'meta', meta: { status: 'error', error: action.error } },
      ];
    case 'notice':
      return [{ op: 'entry', entry: { kind: 'notice', id: newEntryId(state), severity: action.severity, text: action.text } }];
    case 'queue':
      return [{ op: 'meta', meta: { queued: action.queued } }];
    case 'worktree': {
      const w = action.worktree;
      // From a journal, as untrusted as any file: four bounded strings or nothing.
      const ok = !!w && [w.id, w.dir, w.branch, w.repo].every((x) => typeof x === 'string' && x.length > 0 && x.length <= 4096);
      return ok && !state.worktree ? [{ op: 'meta', meta: { worktree: { id: w.id, dir: w.dir, branch: w.branch, repo: w.repo } } }] : [];
    }
    case 'gateSettings':
      if (action.unrequestedEffects !== 'ask' && action.unrequestedEffects !== 'refuse') return [];
      return state.unrequestedEffects === action.unrequestedEffects ? [] : [{ op: 'meta', meta: { unrequestedEffects: action.unrequestedEffects } }];
    case 'reattaching':
      return [...settleStopping(state, `${state.agentName} never answered the stopped turn: its process was ended.`), { op: 'meta', meta: { status: 'starting', error: undefined, queued: undefined } }];
    case 'closed':
      return [...settleStopping(state, `${state.agentName} never answered the stopped turn: the session was closed.`), ...closeWaiting(state, 'cancel'), ...settlePlan(state, 'closed'), { op: 'meta', meta: { status: 'closed' } }];
  }
}

/**
 * The agent's configuration options as the pickers show them: groups flattened, at most 50 options
 * of at most 500 values each (an agent cannot make the header unbounded). Options of a type this
 * client does not know are left out.
 */
export function configOptionsView(raw: readonly SessionConfigOption[]): ConfigOptionView[] {
  const out: ConfigOptionView[] = [];
  for (const o of raw.slice(0, 50)) {
    const base = { id: String(o.id), name: String(o.name ?? o.id), ...(o.description ? { description: String(o.description) } : {}), ...(o.category ? { category: String(o.category) } : {}) };
    if (o.type === 'boolean') out.push({ ...base, type: 'boolean', currentValue: !!o.currentValue });
    else if (o.type === 'select') {
      const values: { value: string; name: string; description?: string; group?: string }[] = [];
      for (const item of o.options as (SessionConfigSelectOption | SessionConfigSelectGroup)[]) {
        if ('group' in item) for (const v of item.options) values.push({ value: String(v.value), name: String(v.name), ...(v.description ? { description: String(v.description) } : {}), group: String(item.name) });
        else values.push({ value: String(item.value), name: String(item.name), ...(item.description ? { description: String(item.description) } : {}) });
      }
      out.push({ ...base, type: 'select', currentValue: String(o.currentValue), options: values.slice(0, 500) });
    }
  }
  return out;
}

/** Every answer and update carries the full list; one with a `mode` option retires the legacy modes. */
function configMeta(raw: readonly SessionConfigOption[]): SessionPatch[] {
  const configOptions = configOptionsView(raw);
  return [{ op: 'meta', meta: { configOptions, ...(configOptions.some((o) => o.category === 'mode') ? { availableModes: undefined, currentModeId: undefined } : {}) } }];
}

function newEntryId(state: SessionState): string {
  // Patches are applied after derive() returns, so reserve ids here to keep several in one action unique.
  return `e${state.nextEntry++}`;
}

function fromUpdate(state: SessionState, u: SessionUpdate, at?: number): SessionPatch[] {
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      return chunk(state, 'agent', u.content, u.messageId ?? undefined);
    case 'agent_thought_chunk':
      return chunk(state, 'thought', u.content, u.messageId ?? undefined);
    case 'user_message_chunk':
      return chunk(state, 'user', u.content, u.messageId ?? undefined);
    case 'tool_call':
      return upsertToolCall(state, u, true, at);
    case 'tool_call_update':
      return upsertToolCall(state, u, false, at);
    case 'plan': {
      const plan: PlanEntryView[] = u.entries.map((e) => ({ content: e.content, priority: e.priority, status: e.status }));
      // A plan that arrives when no turn runs (late, or after the session ended) runs nothing either.
      const idle = state.status === 'ready' || state.status === 'closed' || state.status === 'error';
      return [{ op: 'plan', plan: idle ? stopInProgress(plan, state.status === 'closed' ? 'closed' : state.status === 'error' ? 'failed' : 'ended') : plan }];
    }
    case 'available_commands_update':
      return [{ op: 'meta', meta: { availableCommands: u.availableCommands.map((c) => ({ name: c.name, description: c.description })) } }];
    case 'current_mode_update':
      // Legacy modes are ignored while the agent offers config options (see 'ready').
      return state.configOptions?.some((o) => o.category === 'mode') ? [] : [{ op: 'meta', meta: { currentModeId: u.currentModeId } }];
    case 'config_option_update':
      return configMeta(u.configOptions);
    case 'session_info_update':
      return sessionInfo(u);
    case 'usage_update': {
      // A window the agent reports in numbers we cannot use keeps the meter as it was.
      const usage = usageFromUpdate(u);
      return usage ? [{ op: 'meta', meta: { usage } }] : [];
    }
    case 'notice': {
      const severity = u.severity === 'error' || u.severity === 'warning' ? u.severity : 'info';
      const text = u.description ? `${u.title}: ${u.description}` : u.title;
      return [{ op: 'entry', entry: { kind: 'notice', id: newEntryId(state), severity, text } }];
    }
    default:
      // compaction is not shown yet; ignoring it loses nothing.
      return [];
  }
}

type MessageKind = 'agent' | 'thought' | 'user';
type MessageEntry = Extract<ThreadEntry, { kind: MessageKind }>;

/**
 * A message chunk. A chunk continues the last entry when it is a message of the same kind and
 * either carries no `messageId` or the same one; a new `messageId` starts a new message (ACP: "a
 * change in messageId indicates a new message"), also after a message that had none. The agent's
 * echo of the person's prompt is absorbed by that prompt's entry (see {@link echoOf}); the
 * person's own entry is never appended to. After Stop, a chunk of one of the stopped turn's
 * messages goes to that message, and a new message is marked late (see {@link lateMark}).
 */
function chunk(state: SessionState, kind: MessageKind, content: ContentBlock, messageId: string | undefined): SessionPatch[] {
  if (content.type === 'text' && content.text === '') return []; // agents open a message with an empty chunk; it carries nothing
  if (kind === 'user') {
    const echo = echoOf(state, content, messageId);
    if (echo) return echo;
  }
  const stopped = stoppedMessage(state, kind, messageId);
  const last = stopped ?? state.entries[state.entries.length - 1];
  const continues =
    last !== undefined &&
    last.kind === kind &&
    !(last.kind === 'user' && last.echo !== undefined) &&
    (messageId === undefined || last.messageId === messageId);
  // A stopped turn's message that grows after Stop says so.
  const relabel: SessionPatch[] = stopped && !stopped.late ? [{ op: 'entry', entry: { ...stopped, late: true } }] : [];
  if (content.type === 'text') {
    if (continues) return [...relabel, { op: 'appendText', entryId: last.id, text: content.text }];
    return [{ op: 'entry', entry: newMessage(state, kind, content.text, messageId) }];
  }
  const attachment = contentBlockView(content);
  if (kind !== 'agent') {
    // Non-text user or thought blocks are shown as a short text marker.
    const text = `[${attachment.type === 'resource' ? attachment.name : attachment.type}]`;
    if (continues) return [...relabel, { op: 'appendText', entryId: last.id, text }];
    return [{ op: 'entry', entry: newMessage(state, kind, text, messageId) }];
  }
  if (continues && last.kind === 'agent') {
    return [{ op: 'entry', entry: { ...last, attachments: [...last.attachments, attachment], ...(stopped ? { late: true as const } : {}) } }];
  }
  const entry = newMessage(state, 'agent', '', messageId) as Extract<ThreadEntry, { kind: 'agent' }>;
  entry.attachments = [attachment];
  return [{ op: 'entry', entry }];
}

/**
 * The agent's echo of the person's prompt (`user_message_chunk`s repeating what `promptSent`
 * showed): absorbed by the prompt's own entry while it matches the prompt text from where the echo
 * got to, so the prompt is not shown twice; the first `messageId` seen is kept on the entry.
 * Non-text blocks are absorbed while the prompt carried attachments (the entry names them).
 * Anything else is not an echo (undefined). Only the newest user entry of the thread, while no
 * agent output followed it, can be echoed.
 */
function echoOf(state: SessionState, content: ContentBlock, messageId: string | undefined): SessionPatch[] | undefined {
  const last = state.entries[state.entries.length - 1];
  if (last?.kind !== 'user' || last.echo === undefined) return undefined;
  if (messageId !== undefined && last.messageId !== undefined && last.messageId !== messageId) return undefined;
  let echo = last.echo;
  if (content.type === 'text') {
    if (!last.text.startsWith(content.text, echo)) return undefined;
    echo += content.text.length;
  } else if (!last.context?.length) return undefined;
  return [{ op: 'entry', entry: { ...last, echo, ...(last.messageId === undefined && messageId !== undefined ? { messageId } : {}) } }];
}

/** The entry of the stopped turn's message with `messageId`, while the agent has not answered Stop. */
function stoppedMessage(state: SessionState, kind: MessageKind, messageId: string | undefined): MessageEntry | undefined {
  const stopping = state.stopping;
  if (!stopping || messageId === undefined || !stopping.messageIds.includes(messageId)) return undefined;
  const end = findEntryIndex(state, stopping.turnEndId);
  for (let i = end - 1; i >= 0 && i >= end - 2000; i--) {
    const e = state.entries[i];
    if (e.kind === 'user' && e.echo !== undefined) break;
    if (e.kind === kind && e.messageId === messageId) return e;
  }
  return undefined;
}

/**
 * `late: true` for an entry created after Stop, before the person's next prompt, while the agent
 * has not answered the stopped turn: it belongs to that turn, and the thread shows it so.
 */
function lateMark(state: SessionState): { late?: true } {
  return state.stopping && state.status !== 'prompting' && state.status !== 'cancelling' ? { late: true } : {};
}

function newMessage(state: SessionState, kind: MessageKind, text: string, messageId: string | undefined): ThreadEntry {
  const id = newEntryId(state);
  if (kind === 'agent') return { kind, id, text, messageId, attachments: [], ...lateMark(state) };
  return { kind, id, text, messageId, ...lateMark(state) };
}

/** Converts an ACP content block to its view; binary data is summarised, never copied. */
export function contentBlockView(block: ContentBlock): ToolContentView {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', mimeType: block.mimeType, dataLength: block.data.length };
    case 'audio':
      return { type: 'text', text: `[audio ${block.mimeType}]` };
    case 'resource_link':
      return { type: 'resource', uri: block.uri, name: block.title ?? block.name };
    case 'resource': {
      const r = block.resource;
      return { type: 'resource', uri: r.uri, name: r.uri, text: 'text' in r ? r.text : undefined };
    }
  }
}

/** Converts ACP tool-call content; a diff carries its line counts for the card's summary. */
export function toolContentView(c: ToolCallContent): ToolContentView {
  switch (c.type) {
    case 'content':
      return contentBlockView(c.content);
    case 'terminal':
      return { type: 'terminal', terminalId: c.terminalId };
    case 'diff': {
      const { added, removed } = countChangedLines(c.oldText ?? '', c.newText);
      return { type: 'diff', path: c.path, oldText: c.oldText ?? null, newText: c.newText, added, removed };
    }
  }
}

/**
 * Lines added and removed between two texts (the `diff` package's line diff). The diff is bounded
 * to 50 ms so that a huge file cannot stall the extension host; past that, the counts are the two
 * texts' line counts (an upper bound) rather than exact.
 */
export function countChangedLines(oldText: string, newText: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  const parts = diffLines(oldText, newText, { timeout: 50 });
  if (!parts) return { added: lineCount(newText), removed: lineCount(oldText) };
  for (const part of parts) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

function lineCount(text: string): number {
  if (!text) return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function locationsView(locs: ToolCallLocation[]): LocationView[] {
  return locs.map((l) => (l.line == null ? { path: l.path } : { path: l.path, line: l.line }));
}

/** Merges a `tool_call` (announce) or `tool_call_update` (patch) into the tool call's view. */
function upsertToolCall(state: SessionState, u: ToolCallUpdate & { title?: string | null }, announce: boolean, at?: number): SessionPatch[] {
  const existing = state.toolCalls[u.toolCallId];
  // While the person decides, what the card shows is frozen: an update may not change the content,
  // command, paths, kind or title under the person's eyes (only its status and output). Frozen for
  // as long as its request waits, not only while its status says so: an agent could otherwise set
  // the status first and swap the content in the next update.
  const waits = existing?.permissionId !== undefined && state.permissions[existing.permissionId]?.state === 'waiting';
  const frozen = existing?.status === 'awaiting_approval' || waits;
  const update = frozen ? { toolCallId: u.toolCallId, status: u.status, rawOutput: u.rawOutput } : u;
  // A terminal the agent runs itself lives in the call's `_meta` (its output is not the card's
  // content, so it is read also while the card is frozen): recorded before the call that shows it.
  const merged = mergeToolCall(existing, update, announce);
  const terms = agentTerminalUpdates(state, u._meta, merged);
  const known = terms.length ? { ...state, terminals: { ...state.terminals, ...Object.fromEntries(terms.map((t) => [t.terminalId, t])) } } : state;
  const toolCall = withTerminalsKnown(known, merged);
  if (at !== undefined) toolCall.updatedAt = at;
  const patches: SessionPatch[] = [...terms.map((terminal): SessionPatch => ({ op: 'terminal', terminal })), { op: 'toolCall', toolCall }];
  if (!existing) patches.push({ op: 'entry', entry: { kind: 'tool_call', id: newEntryId(state), toolCallId: u.toolCallId, ...lateMark(state) } });
  return patches;
}

/**
 * A tool call's view after a `tool_call` (announce) or `tool_call_update` / permission request
 * (patch): provided fields replace, `content` and `locations` replace whole arrays, and an empty
 * `rawInput` does not erase an earlier one. Pure; also used to preview a call before it is shown.
 */
export function mergeToolCall(existing: ToolCallView | undefined, u: ToolCallUpdate & { title?: string | null }, announce: boolean): ToolCallView {
  const base: ToolCallView = existing ?? {
    toolCallId: u.toolCallId,
    title: u.title || `Tool call ${u.toolCallId}`,
    kind: 'other',
    status: 'pending',
    content: [],
    locations: [],
    placeholder: !announce,
  };
  const next: ToolCallView = { ...base, placeholder: announce ? false : base.placeholder };
  if (u.title) next.title = u.title;
  if (u.kind) next.kind = u.kind as ToolKind;
  if (u.status) next.status = mergeStatus(base.status, u.status);
  if (u.content) next.content = u.content.map(toolContentView);
  if (u.locations) next.locations = locationsView(u.locations);
  if (u.rawInput !== undefined && !isEmptyObject(u.rawInput)) next.rawInput = u.rawInput;
  if (u.rawOutput !== undefined) next.rawOutput = u.rawOutput;
  // An effectful call that completes without passing through the client was performed by the agent itself.
  if (next.status === 'completed' && !next.verification && EFFECT_KINDS.has(next.kind)) next.verification = 'agent';
  return next;
}

/**
 * `tc` with each terminal it embeds that this session holds no terminal for marked `unavailable`
 * (a terminal from before a resume or load, or one never created here). A terminal's first view
 * is dispatched before `terminal/create` answers, so a terminal the agent could have been handed is
 * always known by the time it is embedded.
 */
function withTerminalsKnown(state: SessionState, tc: ToolCallView): ToolCallView {
  if (!tc.content.some((c) => c.type === 'terminal' && !!c.unavailable === !!state.terminals[c.terminalId])) return tc;
  const content = tc.content.map((c): ToolContentView => (c.type !== 'terminal' ? c : state.terminals[c.terminalId] ? { type: 'terminal', terminalId: c.terminalId } : { type: 'terminal', terminalId: c.terminalId, unavailable: true }));
  return { ...tc, content };
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

function mergeStatus(current: ToolCallStatusView, incoming: string): ToolCallStatusView {
  // While the person decides, the agent's own "pending" must not hide the approval prompt.
  if (current === 'awaiting_approval' && incoming === 'pending') return current;
  // The agent reports a rejected call as failed; "rejected" says more.
  if (current === 'rejected' && incoming === 'failed') return current;
  if (current === 'cancelled' && (incoming === 'failed' || incoming === 'pending' || incoming === 'in_progress')) return current;
  return incoming as ToolCallStatusView;
}

function permissionRequested(
  state: SessionState,
  a: Extract<SessionAction, { type: 'permissionRequested' }>,
): SessionPatch[] {
  const patches = upsertToolCall(state, a.toolCall, false);
  const first = patches[0] as Extract<SessionPatch, { op: 'toolCall' }>;
  // The person must approve what the intent was built from, not what arrived since.
  if (a.view) first.toolCall = withTerminalsKnown(state, { ...a.view });
  const tc = first.toolCall;
  // A closed session asks nobody: a request that arrives after it ends is cancelled on arrival.
  const closed = state.status === 'closed';
  tc.status = closed ? 'cancelled' : 'awaiting_approval';
  tc.permissionId = a.permissionId;
  tc.updatedAt = a.at;
  patches.push({
    op: 'permission',
    permission: {
      permissionId: a.permissionId,
      toolCallId: a.toolCall.toolCallId,
      options: a.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
      state: closed ? 'cancelled' : 'waiting',
      ...(closed ? { answeredBy: 'cancel' as const } : {}),
      requestedAt: a.at,
      intentHash: a.intentHash,
      undeclared: a.undeclared,
      ...(a.grantNotes?.length ? { grantNotes: a.grantNotes } : {}),
      ...(a.onceOnly ? { onceOnly: a.onceOnly } : {}),
      ...(a.unrequested === true ? { unrequested: true as const } : {}),
      ...displayField(a.display),
    },
  });
  return patches;
}

/**
 * The display form, only when it has the shape the card expects: a journal replayed from disk is
 * not trusted to have one (a malformed entry is dropped, and the card shows no intent section).
 */
function displayField(d: unknown): { display?: IntentDisplayView[] } {
  const parsed = intentDisplaySchema.safeParse(d);
  return parsed.success ? { display: parsed.data } : {};
}

function permissionAnswered(
  state: SessionState,
  permissionId: string,
  optionId: string,
  by: 'person' | 'api' | 'grant',
  grant?: { scope: 'session' | 'workspace' | 'always'; description?: string },
  asOnce?: boolean,
  at?: number,
): SessionPatch[] {
  const p = state.permissions[permissionId];
  if (!p || p.state !== 'waiting') return [];
  const option = p.options.find((o) => o.optionId === optionId);
  const patches: SessionPatch[] = [{ op: 'permission', permission: { ...p, state: 'selected', optionId, answeredBy: by, grant, ...(asOnce ? { asOnce: true } : {}) } }];
  const tc = state.toolCalls[p.toolCallId];
  if (tc && tc.status === 'awaiting_approval') {
    const rejected = option?.kind === 'reject_once' || option?.kind === 'reject_always';
    patches.push({ op: 'toolCall', toolCall: { ...tc, status: rejected ? 'rejected' : 'pending', ...(at !== undefined ? { updatedAt: at } : {}) } });
  }
  return patches;
}

function cancelPermission(state: SessionState, permissionId: string): SessionPatch[] {
  const p = state.permissions[permissionId];
  if (!p || p.state !== 'waiting') return [];
  const patches: SessionPatch[] = [{ op: 'permission', permission: { ...p, state: 'cancelled', answeredBy: 'cancel' } }];
  const tc = state.toolCalls[p.toolCallId];
  if (tc && tc.status === 'awaiting_approval') patches.push({ op: 'toolCall', toolCall: { ...tc, status: 'cancelled' } });
  return patches;
}

/**
 * Every waiting permission and question becomes cancelled: the ACP rule after `session/cancel`, by
 * construction (the controller answers each request from the state that results).
 */
function closeWaiting(state: SessionState, _by: 'cancel'): SessionPatch[] {
  const patches: SessionPatch[] = [];
  for (const p of Object.values(state.permissions)) {
    if (p.state === 'waiting') patches.push(...cancelPermission(state, p.permissionId));
  }
  for (const e of state.entries) {
    if (e.kind === 'elicitation' && e.elicitation.state === 'waiting') patches.push({ op: 'entry', entry: { ...e, elicitation: { ...e.elicitation, state: 'cancel', answeredBy: 'cancel' } } });
  }
  return patches;
}

/** The entry of the question `match` picks, searching from the newest. */
function findElicitation(state: SessionState, match: (v: ElicitationView) => boolean): Extract<ThreadEntry, { kind: 'elicitation' }> | undefined {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e.kind === 'elicitation' && match(e.elicitation)) return e;
  }
  return undefined;
}

function elicitationRequested(state: SessionState, raw: ElicitationView): SessionPatch[] {
  // A journal replayed from disk is not trusted to hold a card's shape: a malformed one is dropped.
  const parsed = elicitationViewSchema.safeParse(raw);
  if (!parsed.success) return [];
  const v = parsed.data;
  // A closed session asks nobody: a question that arrives after it ended is cancelled on arrival.
  const closed = state.status === 'closed' || state.status === 'error';
  const elicitation: ElicitationView = closed ? { ...v, state: 'cancel', answeredBy: 'cancel' } : { ...v, state: 'waiting' };
  return [{ op: 'entry', entry: { kind: 'elicitation', id: newEntryId(state), elicitation } }];
}

function elicitationAnswered(state: SessionState, key: string, action: 'accept' | 'decline' | 'cancel', by: 'person' | 'cancel' | 'agent', fields?: string[]): SessionPatch[] {
  const e = findElicitation(state, (v) => v.elicitationKey === key);
  // Exactly one answer: a question that is no longer waiting keeps the answer it got.
  if (!e || e.elicitation.state !== 'waiting') return [];
  return [{ op: 'entry', entry: { ...e, elicitation: { ...e.elicitation, state: action, answeredBy: by, ...(fields ? { fields } : {}) } } }];
}

function elicitationCompleted(state: SessionState, elicitationId: string): SessionPatch[] {
  const e = findElicitation(state, (v) => v.mode === 'url' && v.elicitationId === elicitationId);
  if (!e || e.elicitation.completed) return [];
  // Completed before anyone answered: the agent no longer needs the answer, the buttons go.
  const waiting = e.elicitation.state === 'waiting';
  return [{ op: 'entry', entry: { ...e, elicitation: { ...e.elicitation, completed: true, ...(waiting ? { state: 'cancel' as const, answeredBy: 'agent' as const } : {}) } } }];
}

/**
 * A `session_info_update`: the title as plain text (control and bidi characters out, whitespace
 * folded, cut to {@link MAX_TITLE_CHARS}), `null` clearing it; `updatedAt` only when it is a date.
 * Fields the update leaves out stay as they were.
 */
function sessionInfo(u: { title?: unknown; updatedAt?: unknown }): SessionPatch[] {
  const meta: Extract<SessionPatch, { op: 'meta' }>['meta'] = {};
  if (u.title === null) meta.title = undefined;
  else if (typeof u.title === 'string') meta.title = cleanTitle(u.title);
  if (u.updatedAt === null) meta.updatedAt = undefined;
  else if (typeof u.updatedAt === 'string') {
    const at = Date.parse(u.updatedAt);
    if (Number.isFinite(at)) meta.updatedAt = at;
  }
  return Object.keys(meta).length ? [{ op: 'meta', meta }] : [];
}

/** An agent's title as the session's name: one line of plain text, bounded; empty is no title. */
export function cleanTitle(title: string): string | undefined {
  const flat = title.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  return flat.length > MAX_TITLE_CHARS ? `${flat.slice(0, MAX_TITLE_CHARS - 1)}…` : flat;
}

/**
 * Stop: the turn ends here at once, cancelled, whether or not the agent hears (ACP `session/cancel`
 * asks it to answer the prompt `cancelled`; a deaf agent never does). Its waiting permissions are
 * cancelled, its unfinished tool calls and plan entries stopped, and the session takes the next
 * prompt. `stopping` remembers the turn until the agent answers, so what it still sends for the
 * turn is shown as late, not as part of the next one. No turn running: only waiting permissions.
 */
function stopTurn(state: SessionState, at: number): SessionPatch[] {
  if (state.status !== 'prompting' && state.status !== 'cancelling') return closeWaiting(state, 'cancel');
  const patches = endTurn(state, 'cancelled');
  const turnEnd = patches.find((p): p is Extract<SessionPatch, { op: 'entry' }> => p.op === 'entry' && p.entry.kind === 'turn_end');
  const messageIds = new Set<string>();
  for (let i = state.entries.length - 1; i >= 0 && messageIds.size < 100; i--) {
    const e = state.entries[i];
    if (e.kind === 'user' && e.echo !== undefined) break;
    if ((e.kind === 'agent' || e.kind === 'thought' || e.kind === 'user') && e.messageId !== undefined) messageIds.add(e.messageId);
  }
  patches.push({ op: 'meta', meta: { stopping: { since: at, turnEndId: turnEnd!.entry.id, messageIds: [...messageIds] } } });
  return patches;
}

/** The stopped turn is settled (answered, or its agent gone): the Restart offer becomes `text`. */
function settleStopping(state: SessionState, text: string): SessionPatch[] {
  const stopping = state.stopping;
  if (!stopping) return [];
  const patches: SessionPatch[] = [];
  const i = stopping.overdueNoticeId ? findEntryIndex(state, stopping.overdueNoticeId) : -1;
  const notice = state.entries[i];
  if (notice?.kind === 'notice') patches.push({ op: 'entry', entry: { kind: 'notice', id: notice.id, severity: 'info', text } });
  patches.push({ op: 'meta', meta: { stopping: undefined } });
  return patches;
}

function overdueText(state: SessionState, seconds: number): string {
  return `${state.agentName} has not answered Stop after ${seconds} s. The turn is cancelled here, and what the agent still sends for it is marked "after Stop". Restart Agent ends its process and starts a new one (it resumes or reloads this session when the agent supports that).`;
}

function endTurn(state: SessionState, stopReason: string, rawUsage?: unknown): SessionPatch[] {
  const patches = closeWaiting(state, 'cancel');
  if (stopReason === 'cancelled') {
    for (const tc of Object.values(state.toolCalls)) {
      if (!TERMINAL_STATES.has(tc.status)) patches.push({ op: 'toolCall', toolCall: { ...tc, status: 'cancelled' } });
    }
  }
  patches.push(...settlePlan(state, stopReason === 'cancelled' ? 'cancelled' : 'ended'));
  const usage = turnUsageFrom(rawUsage);
  patches.push({ op: 'entry', entry: { kind: 'turn_end', id: newEntryId(state), stopReason, ...(usage ? { usage } : {}) } });
  patches.push({ op: 'meta', meta: { status: state.status === 'closed' || state.status === 'error' ? state.status : 'ready', lastStopReason: stopReason } });
  return patches;
}

/**
 * When a turn ends, nothing is in progress any more: ACP leaves a plan entry's status to the agent,
 * and an agent that is stopped, fails or ends its turn mid-step sends no last `plan` update. The
 * entries it left `in_progress` keep that declared status and are marked {@link PlanStop stopped},
 * so no view shows them as running. No patch when nothing changes.
 */
function settlePlan(state: SessionState, how: PlanStop): SessionPatch[] {
  const plan = stopInProgress(state.plan, how);
  return plan === state.plan ? [] : [{ op: 'plan', plan }];
}

/** `plan` with its unstopped `in_progress` entries marked stopped by `how`; the same array when there are none. */
function stopInProgress(plan: PlanEntryView[], how: PlanStop): PlanEntryView[] {
  if (!plan.some((e) => e.status === 'in_progress' && !e.stopped)) return plan;
  return plan.map((e) => (e.status === 'in_progress' && !e.stopped ? { ...e, stopped: how } : e));
}

/**
 * The editor's view of one A2A task, folded from what the remote agent sends: the `Task` of
 * `SendMessage`/`GetTask`, and the stream events (`task`, `message`, `statusUpdate`,
 * `artifactUpdate` — parts of an artifact update with `append` are added to the artifact with the
 * same id). Bounded, so a remote agent cannot grow the extension host without limit. No `vscode`.
 * Spec: PROTOCOLS.md §4.3 (A2A 1.0 data model).
 */
import type { Message, Task, TaskState } from '@a2a-js/sdk';
import { a2aSdk } from './sdk';
import type { StreamResponse } from '@a2a-js/sdk';

/** A task state by its A2A 1.0 name, lower-cased (`TASK_STATE_INPUT_REQUIRED` → `input-required`). */
export type RemoteTaskState = 'submitted' | 'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'unknown';

/** States after which the task changes no more. */
export const TERMINAL: ReadonlySet<RemoteTaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
/** States in which the agent waits for the person (the stream ends; a reply continues the task). */
export const INTERRUPTED: ReadonlySet<RemoteTaskState> = new Set(['input-required', 'auth-required']);

/** One part of a message or artifact, as shown. */
export type PartView =
  | { type: 'text'; text: string }
  | { type: 'data'; json: string }
  | { type: 'url'; url: string; mediaType: string }
  | { type: 'raw'; bytes: number; mediaType: string; filename: string };

/** An artifact the agent produced. */
export interface RemoteArtifact {
  artifactId: string;
  name: string;
  description: string;
  parts: PartView[];
}

/** A task as the editor shows it. */
export interface RemoteTask {
  taskId: string;
  contextId: string;
  /** The text the person (or agent) delegated. */
  request: string;
  state: RemoteTaskState;
  /** The text of the agent's status message, if any. */
  statusText?: string;
  updatedAt?: string;
  artifacts: RemoteArtifact[];
  /** The conversation of the task, oldest first (at most {@link LIMITS}.messages). */
  messages: { role: 'user' | 'agent'; text: string }[];
  /** Characters kept (messages and artifact parts), against {@link LIMITS}.taskChars. */
  size: number;
  /** True once something the agent sent was dropped for the budget. */
  truncated?: boolean;
}

/**
 * Bounds on what one task keeps: `textBytes` per part or message (characters), `taskChars` for the
 * whole task; past the budget, new parts are dropped and the task is marked truncated.
 */
export const LIMITS = { messages: 200, artifacts: 100, partsPerArtifact: 1000, textBytes: 1024 * 1024, taskChars: 16 * 1024 * 1024 } as const;

let names: Record<number, RemoteTaskState> | undefined;
/** The SDK's numeric states by name; built on first use (the SDK is loaded lazily). */
function NAMES(): Record<number, RemoteTaskState> {
  const { TaskState } = a2aSdk();
  return (names ??= {
    [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
    [TaskState.TASK_STATE_WORKING]: 'working',
    [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
    [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
    [TaskState.TASK_STATE_COMPLETED]: 'completed',
    [TaskState.TASK_STATE_FAILED]: 'failed',
    [TaskState.TASK_STATE_CANCELED]: 'canceled',
    [TaskState.TASK_STATE_REJECTED]: 'rejected',
  });
}

/** The state's name; a JSON enum string (`"TASK_STATE_WORKING"`) is accepted too. */
export function stateName(state: TaskState | string | undefined): RemoteTaskState {
  if (typeof state === 'string') {
    const n = a2aSdk().TaskState[state as keyof typeof TaskState];
    return typeof n === 'number' ? (NAMES()[n] ?? 'unknown') : 'unknown';
  }
  return state === undefined ? 'unknown' : (NAMES()[state] ?? 'unknown');
}

/** A part as shown; text is cut at {@link LIMITS}.textBytes characters. */
export function partView(part: { content?: { $case: string; value: unknown }; mediaType?: string; filename?: string }): PartView | undefined {
  const c = part.content;
  if (!c) return undefined;
  if (c.$case === 'text') return { type: 'text', text: cut(String(c.value ?? '')) };
  if (c.$case === 'data') return { type: 'data', json: cut(safeJson(c.value)) };
  if (c.$case === 'url') return { type: 'url', url: String(c.value ?? ''), mediaType: part.mediaType ?? '' };
  if (c.$case === 'raw') {
    const v = c.value as { byteLength?: number; length?: number } | string | undefined;
    const bytes = typeof v === 'string' ? Math.floor((v.length * 3) / 4) : (v?.byteLength ?? v?.length ?? 0);
    return { type: 'raw', bytes, mediaType: part.mediaType ?? '', filename: part.filename ?? '' };
  }
  return undefined;
}

/** The text of a message's parts (non-text parts named in brackets). */
export function messageText(message: Pick<Message, 'parts'> | undefined): string {
  if (!message) return '';
  return cut(
    (message.parts ?? [])
      .map((p) => partView(p))
      .filter((p): p is PartView => !!p)
      .map((p) => (p.type === 'text' ? p.text : p.type === 'data' ? p.json : p.type === 'url' ? `[${p.url}]` : `[${p.filename || 'file'}, ${p.bytes} bytes]`))
      .join('\n'),
  );
}

/** A new task as the editor starts it, before the agent answered. */
export function newTask(request: string): RemoteTask {
  const text = cut(request);
  return { taskId: '', contextId: '', request: text, state: 'submitted', artifacts: [], messages: [{ role: 'user', text }], size: text.length };
}

/** Folds a full `Task` (from SendMessage, GetTask, CancelTask or a `task` event) into `t`. */
export function applyTask(t: RemoteTask, task: Task): void {
  t.taskId = task.id || t.taskId;
  t.contextId = task.contextId || t.contextId;
  applyStatus(t, task.status);
  if (task.artifacts?.length) {
    for (const a of t.artifacts) for (const p of a.parts) t.size -= partSize(p);
    t.artifacts = [];
    for (const a of task.artifacts.slice(0, LIMITS.artifacts)) addArtifact(t, a, false);
  }
}

/** Folds one stream event into `t`. @returns the task id the event was about ('' for a bare message). */
export function applyEvent(t: RemoteTask, event: StreamResponse): string {
  const p = event.payload;
  if (!p) return '';
  if (p.$case === 'task') {
    applyTask(t, p.value);
    return p.value.id;
  }
  if (p.$case === 'message') {
    pushMessage(t, p.value.role === 2 ? 'agent' : 'user', messageText(p.value));
    return p.value.taskId;
  }
  if (p.$case === 'statusUpdate') {
    t.taskId ||= p.value.taskId;
    t.contextId ||= p.value.contextId;
    applyStatus(t, p.value.status);
    return p.value.taskId;
  }
  if (p.$case === 'artifactUpdate') {
    if (p.value.artifact) addArtifact(t, p.value.artifact, p.value.append);
    return p.value.taskId;
  }
  return '';
}

function applyStatus(t: RemoteTask, status: Task['status']): void {
  if (!status) return;
  // An ended task stays ended: a late event on an old stream cannot bring it back to life.
  if (TERMINAL.has(t.state) && !TERMINAL.has(stateName(status.state))) return;
  t.state = stateName(status.state);
  t.updatedAt = status.timestamp ?? t.updatedAt;
  const text = messageText(status.message);
  t.statusText = text || undefined;
  if (text && t.messages.at(-1)?.text !== text) pushMessage(t, 'agent', text);
}

function addArtifact(t: RemoteTask, a: Task['artifacts'][number], append: boolean): void {
  const parts = (a.parts ?? []).map((p) => partView(p)).filter((p): p is PartView => !!p).filter((p) => spend(t, partSize(p)));
  const existing = t.artifacts.find((x) => x.artifactId === a.artifactId);
  if (existing && append) {
    existing.parts.push(...parts.slice(0, Math.max(0, LIMITS.partsPerArtifact - existing.parts.length)));
    return;
  }
  const artifact: RemoteArtifact = { artifactId: a.artifactId, name: a.name || a.artifactId, description: a.description ?? '', parts: parts.slice(0, LIMITS.partsPerArtifact) };
  if (existing) {
    for (const p of existing.parts) t.size -= partSize(p);
    Object.assign(existing, artifact);
  }
  else if (t.artifacts.length < LIMITS.artifacts) t.artifacts.push(artifact);
}

/** Adds a message to the task's conversation, within the budget. */
export function pushMessage(t: RemoteTask, role: 'user' | 'agent', text: string): void {
  if (!text || !spend(t, text.length)) return;
  t.messages.push({ role, text });
  if (t.messages.length > LIMITS.messages) t.messages.splice(0, t.messages.length - LIMITS.messages);
}

function partSize(p: PartView): number {
  return p.type === 'text' ? p.text.length : p.type === 'data' ? p.json.length : p.type === 'url' ? p.url.length : 64;
}

/** Takes `n` characters from the task's budget; false (and truncated) when it is spent. */
function spend(t: RemoteTask, n: number): boolean {
  if (t.size + n > LIMITS.taskChars) {
    t.truncated = true;
    return false;
  }
  t.size += n;
  return true;
}

/** The text of an artifact: text parts joined, data as JSON, links and files named. */
export function artifactText(a: RemoteArtifact): string {
  return a.parts.map((p) => (p.type === 'text' ? p.text : p.type === 'data' ? p.json : p.type === 'url' ? `<${p.url}>` : `[${p.filename || 'file'}: ${p.bytes} bytes${p.mediaType ? `, ${p.mediaType}` : ''}]`)).join('');
}

function cut(s: string): string {
  return s.length > LIMITS.textBytes ? `${s.slice(0, LIMITS.textBytes)}… [cut at ${LIMITS.textBytes} characters]` : s;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? 'null';
  } catch {
    return '[data that cannot be shown]';
  }
}

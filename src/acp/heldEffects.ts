/**
 * Effects the agent did not ask about, asked at the effect (issue 19). Some agents never send
 * `session/request_permission` before `fs/write_text_file` or `terminal/create` (an automatic mode,
 * Gemini CLI's `autoEdit` / `yolo`, Claude Code's `bypassPermissions`). Under `ask` such a request is
 * held, unanswered, and put to the person as a card of our own made from the request itself: the
 * exact diff against the current text, or the exact command with its folder and environment. The
 * person's answer covers that one request (see `policy/gate.ts` `Approval.boundTo`).
 *
 * This file builds the card and the sentences; `sessionController.ts` holds the request and asks.
 * Pure: no `vscode`, no I/O.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { IntentDisplayView, PermissionView } from './session/types';
import type { CommandEffect, WriteEffect } from '../policy/intent';
import { redactSecrets } from '../policy/redact';

/** Held effects of one session that may wait at once; more are refused at once (a flood would bury the thread). */
export const MAX_HELD_EFFECTS = 100;

/** Characters of one `NAME=value` line of a held command's environment that the card shows. */
const MAX_ENV_LINE = 4_000;

/** The options of a held effect's card: ours, so their ids and kinds are known (the agent offered none). */
export const HELD_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** What the controller shows for a held effect: the tool call of the card, and what allowing lets through. */
export interface HeldCard {
  /** A `tool_call` update without its id (the controller picks one the agent cannot name). */
  toolCall: Omit<acp.ToolCall, 'toolCallId'>;
  display: IntentDisplayView[];
  /** Sentences under the buttons. */
  notes: string[];
}

/**
 * The card of a held `fs/write_text_file`: "Write <path>" (or "Create <path>" for a new file) with
 * the diff from the text the write replaces (`base`, the open document's unsaved text included;
 * null when there is no file) to exactly the content the agent sent.
 * @param absPath the path as the agent sent it (absolute); `effect.path` is the gate's name for it.
 */
export function heldWriteCard(absPath: string, content: string, base: string | null, effect: WriteEffect): HeldCard {
  const verb = base === null ? 'Create' : 'Write';
  return {
    toolCall: {
      title: `${verb} ${effect.path}`,
      kind: 'edit',
      status: 'pending',
      locations: [{ path: absPath }],
      content: [{ type: 'diff', path: absPath, oldText: base, newText: content }],
    },
    display: [{ type: 'write', path: effect.path, source: 'diff' }],
    notes: effect.hardLinked ? ['This file has more than one hard link: it may be the same file as one outside the workspace.'] : [],
  };
}

/**
 * The card of a held `terminal/create`: "Run <command line>" with the words as the gate compares
 * them, the folder, and every environment variable the request sets as `NAME=value` (a secret's
 * value redacted: the journal keeps what the card shows).
 */
export function heldCommandCard(params: acp.CreateTerminalRequest, effect: CommandEffect): HeldCard {
  const argv = effect.command === null ? [] : [effect.command, ...effect.args];
  const line = argv.join(' ');
  const env = (params.env ?? []).map((e) => oneEnvLine(e.name, e.value));
  return {
    toolCall: { title: `Run ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`, kind: 'execute', status: 'pending' },
    display: [{ type: 'command', line, argv, cwd: effect.cwd, envNames: [...effect.envNames], ...(env.length ? { env } : {}) }],
    notes: [],
  };
}

function oneEnvLine(name: string, value: string): string {
  const line = redactSecrets(`${name}=${value}`);
  return line.length > MAX_ENV_LINE ? `${line.slice(0, MAX_ENV_LINE - 1)}…` : line;
}

/** Why a held effect was not performed: the person's answer, or what ended the wait. */
export type HeldEnd = 'rejected' | 'timeout' | 'withdrawn' | 'stopped' | 'closed' | 'changed' | 'flood';

/**
 * The sentence the agent gets (as the JSON-RPC error message) and the card shows, for a held
 * effect that was not performed. `what` names the effect ("Writing src/a.ts", "Running `npm test`").
 */
export function heldRefusal(end: HeldEnd, what: string, minutes: number): string {
  switch (end) {
    case 'rejected':
      return `${what}: the person rejected it. The agent did not ask with session/request_permission first; Agent Switchboard asked at the effect.`;
    case 'timeout':
      return `${what}: nobody answered within ${minutes} minute${minutes === 1 ? '' : 's'}, so it was refused and nothing was performed.`;
    case 'withdrawn':
      return `${what}: the agent withdrew the request before the person answered; nothing was performed.`;
    case 'stopped':
      return `${what}: the person stopped the turn; nothing was performed.`;
    case 'closed':
      return `${what}: the session closed; nothing was performed.`;
    case 'changed':
      return `${what}: the file changed while the person's answer was pending, so it is not the write they saw; nothing was written. Read the file again and retry.`;
    case 'flood':
      return `${what}: ${MAX_HELD_EFFECTS} requests already wait for the person; refused at once. Ask with session/request_permission, or wait for the answers.`;
  }
}

/** The `data.reason` of the error a held effect ends with (machine-readable, stable). */
export const HELD_REASON: Record<HeldEnd, string> = {
  rejected: 'rejected_at_effect',
  timeout: 'no_answer',
  withdrawn: 'withdrawn',
  stopped: 'cancelled',
  closed: 'session_closed',
  changed: 'changed_while_held',
  flood: 'too_many_held',
};

/** Held effects of a session that wait now. */
export function waitingHeld(permissions: Record<string, PermissionView>): number {
  let n = 0;
  for (const p of Object.values(permissions)) if (p.unrequested && p.state === 'waiting') n++;
  return n;
}

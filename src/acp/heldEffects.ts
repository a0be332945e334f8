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
import os from 'node:os';
import type * as acp from '@agentclientprotocol/sdk';
import type { IntentDisplayView, PermissionView } from './session/types';
import { intentDisplaySchema } from './session/intentDisplay';
import type { CommandEffect, WriteEffect } from '../policy/intent';
import { describeProfile } from '../sandbox/profile';
import { hidesValue, hiddenValuesNote, type HiddenValue } from './heldEnv';

export { isCredentialName } from './heldEnv';

/** Held effects of one session that may wait at once; more are refused at once (a flood would bury the thread). */
export const MAX_HELD_EFFECTS = 100;

/**
 * What a held command's card shows whole, or the command is not held at all: a card that cut,
 * dropped or hid part of what runs would have the person approve something they did not see.
 */
export const HELD_LIMITS = { lineChars: 20_000, argv: 1_000, envEntries: 100, envLineChars: 4_000 } as const;

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
  /** Sentences the card says above its buttons, one line each. */
  notes: string[];
  /**
   * The variables whose values the card does not show (see `heldEnv.ts`): an allow of such a card
   * needs the person's second, explicit yes. Empty when the card shows every value.
   */
  hidden: HiddenValue[];
}

/**
 * The card of a held `fs/write_text_file`: "Write <path>" (or "Create <path>" for a new file) with
 * the diff from the text the write replaces (`base`, the open document's unsaved text included;
 * null when there is no file) to exactly the content the agent sent.
 * @param absPath the path as the agent sent it (absolute); `effect.path` is the gate's name for it.
 */
export function heldWriteCard(absPath: string, content: string, base: string | null, effect: WriteEffect): HeldCard {
  // Only a file that is not there is created: a file there whose text was not read is never held
  // (see `unshowable`), so `null` here means "no file".
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
    hidden: [],
  };
}

/**
 * The card of a held `terminal/create`: "Run <command line>" with the words as the gate compares
 * them, the folder, and every environment variable the request sets as `NAME=value`, whole, but for
 * a credential's value that cannot choose what runs (`heldEnv.ts` `hidesValue`): that one shows its
 * name and length, is kept nowhere (the journal keeps what the card shows), and is listed in
 * `hidden`, with a note saying why and that allowing asks once more.
 */
export function heldCommandCard(params: acp.CreateTerminalRequest, effect: CommandEffect): HeldCard {
  const argv = effect.command === null ? [] : [effect.command, ...effect.args];
  const line = argv.join(' ');
  const hidden: HiddenValue[] = [];
  const env = (params.env ?? []).map((e) => {
    if (!hidesValue(e.name, e.value)) return `${e.name}=${e.value}`;
    hidden.push({ name: e.name, chars: e.value.length });
    return `${e.name}=⟨value hidden: the name says it is a credential; ${e.value.length} characters⟩`;
  });
  return {
    toolCall: { title: `Run ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`, kind: 'execute', status: 'pending' },
    display: [{ type: 'command', line, argv, cwd: effect.cwd, envNames: [...effect.envNames], ...(env.length ? { env } : {}), ...(effect.sandbox ? { sandbox: { sandboxed: true, text: describeProfile(effect.sandbox, os.homedir()) } } : {}) }],
    notes: hidden.length ? [hiddenValuesNote(hidden)] : [],
    hidden,
  };
}

/**
 * Why a held effect cannot be put to the person whole (then it is refused at once, `not_showable`),
 * or undefined when its card shows all of it. For a write: a path outside the workspace folders
 * (the write would be refused after the answer), or a file that exists but whose text was not read
 * (the card could not show what the write replaces, and would call it "Create"). For a command: a
 * line, argv or environment past {@link HELD_LIMITS}. And any card whose display the session model
 * would not accept (it drops a display it cannot check).
 * @param exists for a write: whether a file is at the path now (its identity), when known.
 */
export function unshowable(card: HeldCard, effect: WriteEffect | CommandEffect, base: string | null | undefined, exists: boolean | undefined, params?: acp.CreateTerminalRequest): string | undefined {
  if (effect.type === 'write') {
    if (effect.path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(effect.path)) return 'the path is outside the workspace folders, where Agent Switchboard does not write';
    if (base === undefined || (base === null && exists !== false)) return 'the file is there but its text could not be read (not text in its encoding, or not a regular file), so a card could not show what the write replaces';
  } else {
    const argv = effect.command === null ? [] : [effect.command, ...effect.args];
    if (argv.join(' ').length > HELD_LIMITS.lineChars || argv.length > HELD_LIMITS.argv) return `the command line is longer than a card shows whole (${HELD_LIMITS.lineChars} characters, ${HELD_LIMITS.argv} words)`;
    const env = params?.env ?? [];
    if (env.length > HELD_LIMITS.envEntries) return `it sets ${env.length} environment variables; a card shows at most ${HELD_LIMITS.envEntries}`;
    if (env.some((e) => e.name.length + e.value.length + 1 > HELD_LIMITS.envLineChars)) return `an environment variable is longer than a card shows whole (${HELD_LIMITS.envLineChars} characters)`;
  }
  if (!intentDisplaySchema.safeParse(card.display).success) return 'what it does cannot be shown on a card';
  return undefined;
}

/** Why a held effect was not performed: the person's answer, or what ended the wait. */
export type HeldEnd = 'rejected' | 'timeout' | 'withdrawn' | 'stopped' | 'closed' | 'changed' | 'flood' | 'unshowable';

/**
 * The sentence the agent gets (as the JSON-RPC error message) and the card shows, for a held
 * effect that was not performed. `what` names the effect ("Writing src/a.ts", "Running `npm test`").
 */
export function heldRefusal(end: HeldEnd, what: string, minutes: number, why?: string): string {
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
    case 'unshowable':
      return `${what}: refused at once, without asking: it cannot be shown to the person whole${why ? ` (${why})` : ''}. Ask with session/request_permission, or send a request a card can show.`;
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
  unshowable: 'not_showable',
};

/** Held effects of a session that wait now. */
export function waitingHeld(permissions: Record<string, PermissionView>): number {
  let n = 0;
  for (const p of Object.values(permissions)) if (p.unrequested && p.state === 'waiting') n++;
  return n;
}

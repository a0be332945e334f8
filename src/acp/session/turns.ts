/**
 * Which thread entries start a turn. The person's own prompt is the entry the reducer writes for
 * `promptSent` (it carries `echo`); a user message the agent sends (`user_message_chunk`, ACP v1
 * session/update), replayed history or an echo of the prompt does not start a turn. The Changes
 * view counts turns this way, so an agent cannot move a turn's start (which decides how old a
 * change looks) by sending user messages. Pure; no `vscode`.
 */
import type { SessionState, ThreadEntry } from './types';

/** True for the person's own prompt (the reducer's `promptSent`), not a user message the agent sent. */
export function isPersonsPrompt(e: ThreadEntry): e is Extract<ThreadEntry, { kind: 'user' }> {
  return e.kind === 'user' && e.echo !== undefined;
}

/** The turn number of a session: how many prompts the person has sent in it (0 before the first). */
export function turnOf(state: Pick<SessionState, 'entries'>): number {
  let n = 0;
  for (const e of state.entries) if (isPersonsPrompt(e)) n++;
  return n;
}

/**
 * The tail of a `session/load` replay: history the agent still sends after it answered the load.
 *
 * ACP says the agent replays the whole conversation as `session/update` notifications and then
 * answers `session/load` (https://agentclientprotocol.com/protocol/session-setup#loading-sessions).
 * gemini-cli 0.61.0 answers while its replay is still being sent: its `loadSession` starts
 * `streamHistory` without awaiting it, so the answer lands among the replayed messages and tool
 * calls, wherever its own timing puts it (seen in test/integration/36-gemini.test.ts). Taken as
 * live, that history would be recorded as effects the agent performed unchecked, listed in the
 * Changes view, traced as new tool calls, or (after Restart Agent) shown a second time.
 *
 * So after a load's answer, the agent's history updates (messages, thoughts, tool calls, plans) are
 * still taken as the replay until the session is live again: the person sends a prompt, or the agent
 * sends a request of this session (a permission, a file, a terminal, a question), which only a live
 * agent does. Updates about the session itself (modes, options, commands, usage, title) are live
 * at once: they describe now, not the past. Pure; no `vscode`.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';

/** How an update that arrives now is taken: `live`, part of a shown replay, or of one not shown again. */
export type TailVerdict = 'live' | 'history' | 'quiet';

/** The `session/update` kinds a replay is made of. */
const HISTORY: ReadonlySet<SessionUpdate['sessionUpdate']> = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

/** One session's load tail: opened by a load's answer, closed when the session is live again. */
export class LoadTail {
  private open: 'history' | 'quiet' | undefined;

  /**
   * A `session/load` was answered: `quiet` when its replay is not shown (the thread already holds
   * the conversation: Restart Agent), `history` when it is shown as the replay it is.
   */
  begin(shown: boolean): void {
    this.open = shown ? 'history' : 'quiet';
  }

  /** The session is live (a prompt, an agent's request, a new attach): later updates are live. */
  end(): void {
    this.open = undefined;
  }

  /** True while a load's late history is still taken as its replay. */
  get isOpen(): boolean {
    return this.open !== undefined;
  }

  /** How `update`, arriving now, is taken. */
  verdict(update: SessionUpdate): TailVerdict {
    return this.open && HISTORY.has(update.sessionUpdate) ? this.open : 'live';
  }
}

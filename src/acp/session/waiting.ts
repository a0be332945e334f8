/**
 * What waits for the person in a session: its permission requests (asked by the agent, or held by
 * Agent Switchboard at the effect) and the agent's questions (elicitation), with the oldest first —
 * the words the status bar's "waiting for you" says about sessions that are not on screen. Pure.
 */
import type { SessionState } from './types';
import { sessionTitle } from './promptSummary';

/** One session that waits for the person. */
export interface WaitingSession {
  key: string;
  agentName: string;
  title: string;
  /** Requests that wait: permission requests and questions. */
  count: number;
  /** The oldest request in words: "asks permission: Edit shared.txt", "asks: Which branch?". */
  what: string;
  /** When the oldest request came (ms since the epoch). */
  since: number;
}

/** What session `s` waits for the person for, or undefined when nothing waits. */
export function waitingOf(s: Pick<SessionState, 'key' | 'agentName' | 'title' | 'entries' | 'permissions' | 'toolCalls'>): WaitingSession | undefined {
  const asks: { at: number; what: string }[] = [];
  for (const p of Object.values(s.permissions)) {
    if (p.state === 'waiting') asks.push({ at: p.requestedAt, what: `asks permission: ${s.toolCalls[p.toolCallId]?.title ?? 'a tool call'}` });
  }
  for (const e of s.entries) {
    if (e.kind === 'elicitation' && e.elicitation.state === 'waiting') asks.push({ at: e.elicitation.requestedAt, what: `asks: ${e.elicitation.message}` });
  }
  if (!asks.length) return undefined;
  asks.sort((a, b) => a.at - b.at);
  return { key: s.key, agentName: s.agentName, title: sessionTitle(s), count: asks.length, what: oneLine(asks[0].what, 120), since: asks[0].at };
}

/** The status bar's words for the sessions that wait and are not on screen (oldest request first). */
export interface WaitingWords {
  /** "Demo agent waits for you", "2 sessions wait for you". */
  text: string;
  /** One line per session: who, which session, what it asks. */
  tooltip: string;
  /** The session one click shows: the one that has waited longest. */
  key: string;
}

/** The status bar's words for `waiting`, or undefined when none waits. */
export function waitingWords(waiting: readonly WaitingSession[]): WaitingWords | undefined {
  if (!waiting.length) return undefined;
  const list = [...waiting].sort((a, b) => a.since - b.since);
  const first = list[0];
  const text = list.length === 1 ? `${first.agentName} waits for you` : `${list.length} sessions wait for you`;
  const lines = list.map((w) => `${w.agentName} · ${w.title}: ${w.what}${w.count > 1 ? ` (and ${w.count - 1} more)` : ''}`);
  return { text, tooltip: `${lines.join('\n')}\n\nClick to show ${list.length === 1 ? 'it' : `${first.agentName} · ${first.title}`} in the side bar.`, key: first.key };
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

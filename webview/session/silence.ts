/**
 * "Silent for N min": a tool call the agent reports as pending or running that it has said nothing
 * about for a while. The clock is the extension host's (its `clock` messages, see
 * views/session/surface.ts), the same clock that stamped `ToolCallView.updatedAt`, so the page's
 * own clock cannot skew it and tests can set it. The label changes at most once a minute, and only
 * the label is redrawn (never the card, never every second).
 */
import type { ToolCallView } from '../../src/acp/session/types';

/** A running call counts as silent after this long without an update from the agent (ms). */
export const SILENT_AFTER_MS = 2 * 60_000;

/**
 * Whole minutes `tc` has been silent at host time `now` (ms), or undefined when it is not silent:
 * not pending / in progress (a card awaiting the person's approval waits on the person, not the
 * agent), no time known, or less than {@link SILENT_AFTER_MS}.
 */
export function silentMinutes(tc: Pick<ToolCallView, 'status' | 'updatedAt'>, now: number | undefined): number | undefined {
  if (now === undefined || tc.updatedAt === undefined) return undefined;
  if (tc.status !== 'pending' && tc.status !== 'in_progress') return undefined;
  const ms = now - tc.updatedAt;
  return ms >= SILENT_AFTER_MS ? Math.floor(ms / 60_000) : undefined;
}

/** The card's words for {@link silentMinutes}. */
export function silentLabel(minutes: number): string {
  return minutes >= 120 ? `silent for ${Math.floor(minutes / 60)} h` : `silent for ${minutes} min`;
}

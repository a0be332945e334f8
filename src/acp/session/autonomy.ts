/**
 * Does the agent's current mode act without asking? Several agents offer modes in which they send
 * `fs/write_text_file` or `terminal/create` without `session/request_permission` first (Gemini CLI's
 * `autoEdit` and `yolo`, Claude Code's `acceptEdits` and `bypassPermissions`, an "auto" or "full
 * access" approval preset). The header says so and the thread notes it when such a mode is chosen,
 * so the person knows why cards marked "asked nothing before acting" appear (issue 19).
 *
 * The agent names its modes, so this reads untrusted text; it only decides whether a sentence is
 * shown, never what the gate does (every unasked effect is held or refused whatever the mode says).
 * Pure: no `vscode`; shared by the extension and the session webview.
 */
import type { SessionState } from './types';

/** Mode ids and names that say the agent will not ask: auto…, yolo, bypass…, accept edits, full access. */
const AUTONOMOUS = /yolo|bypass|\bauto(?![a-z])|auto[-_ ]?(edit|accept|approv|run)|autoedit|accept[-_ ]?edits|full[-_ ]?(access|auto)|dangerous|skip[-_ ]?permission/i;

/** Config option ids that hold an approval policy even when their category is not `mode`. */
const APPROVAL_OPTION = /approv|permission|sandbox|autonomy/i;

/** The mode the session is in when it is one in which the agent says it will not ask; its name for the sentence. */
export function autonomousMode(state: Pick<SessionState, 'currentModeId' | 'availableModes' | 'configOptions'>): string | undefined {
  for (const o of state.configOptions ?? []) {
    if (o.type !== 'select' || !(o.category === 'mode' || APPROVAL_OPTION.test(o.id))) continue;
    const v = o.options.find((x) => x.value === o.currentValue);
    const name = v?.name ?? o.currentValue;
    if (AUTONOMOUS.test(o.currentValue) || AUTONOMOUS.test(name)) return oneLine(name);
  }
  const id = state.currentModeId;
  if (!id) return undefined;
  const mode = state.availableModes?.find((m) => m.id === id);
  if (AUTONOMOUS.test(id) || (mode && AUTONOMOUS.test(mode.name))) return oneLine(mode?.name ?? id);
  return undefined;
}

/**
 * The sentence for a session in an autonomous mode: that the agent will not ask, and what Agent
 * Switchboard does instead under `unrequestedEffects` (`ask`: holds each write and command and asks;
 * `refuse`: refuses them).
 */
export function autonomySentence(mode: string, agentName: string, unrequested: 'ask' | 'refuse'): string {
  return unrequested === 'refuse'
    ? `In "${mode}" ${agentName} does not ask before it writes files or runs commands. Writes and commands nobody approved are refused (agentSwitchboard.policy.unrequestedEffects is "refuse"); choose a mode that asks, or set it to "ask".`
    : `In "${mode}" ${agentName} does not ask before it writes files or runs commands. Agent Switchboard holds each write and command it sends and asks you here first.`;
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/**
 * The `unasked-writes` scenario: an agent that acts without asking, several requests at once, as an
 * agent in an automatic mode does. The prompt is JSON `{"files": ["a.txt", …]}` (paths relative to
 * the session's folder); each file is written with `fs/write_text_file` at the same time, without
 * `session/request_permission`, and the answer lists each outcome (`<file>: written` or
 * `<file>: refused <message>`). Agent Switchboard holds each one and asks at the effect (issue 19).
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import { errorText, type DemoTurn } from './turn';

/** Runs the writes of the prompt at once; returns `end_turn`. */
export async function unaskedWritesTurn(turn: DemoTurn): Promise<StopReason> {
  let files: string[];
  try {
    files = (JSON.parse(turn.promptText()) as { files: string[] }).files.filter((f) => typeof f === 'string').slice(0, 500);
  } catch (err) {
    await turn.say([`unasked-writes: the prompt is not {"files":[…]}: ${errorText(err)}\n`], 0);
    return 'end_turn';
  }
  const results = await Promise.all(
    files.map(async (f) => {
      const r = await turn.writeTextFile(turn.resolve(f), `Written by the unasked-writes scenario: ${f}\n`);
      return `${f}: ${r.ok ? 'written' : `refused ${r.message}`}`;
    }),
  );
  await turn.say(['unasked-writes results:\n\n', ...results.map((l) => `- ${l}\n`)], 0);
  return 'end_turn';
}

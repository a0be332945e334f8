/**
 * The `unasked-writes` scenario: an agent that acts without asking, several requests at once, as an
 * agent in an automatic mode does. The prompt is JSON `{"files": ["a.txt", …], "lines"?: n}` (paths
 * relative to the session's folder; `lines`: how many lines each file gets, default 1); each file is
 * written with `fs/write_text_file` at the same time, without
 * `session/request_permission`, and the answer lists each outcome (`<file>: written` or
 * `<file>: refused <message>`). Agent Switchboard holds each one and asks at the effect (issue 19).
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import { errorText, type DemoTurn } from './turn';

/** Runs the writes of the prompt at once; returns `end_turn`. */
export async function unaskedWritesTurn(turn: DemoTurn): Promise<StopReason> {
  let files: string[];
  let lines = 1;
  try {
    const asked = JSON.parse(turn.promptText()) as { files: string[]; lines?: number };
    files = asked.files.filter((f) => typeof f === 'string').slice(0, 500);
    if (typeof asked.lines === 'number' && asked.lines >= 1) lines = Math.min(10_000, Math.floor(asked.lines));
  } catch (err) {
    await turn.say([`unasked-writes: the prompt is not {"files":[…]}: ${errorText(err)}\n`], 0);
    return 'end_turn';
  }
  const results = await Promise.all(
    files.map(async (f) => {
      const text = Array.from({ length: lines }, (_, i) => `Written by the unasked-writes scenario: ${f}${lines > 1 ? `, line ${i + 1}` : ''}\n`).join('');
      const r = await turn.writeTextFile(turn.resolve(f), text);
      return `${f}: ${r.ok ? 'written' : `refused ${r.message}`}`;
    }),
  );
  await turn.say(['unasked-writes results:\n\n', ...results.map((l) => `- ${l}\n`)], 0);
  return 'end_turn';
}

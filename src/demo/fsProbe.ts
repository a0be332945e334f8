/**
 * The `fs-probe` scenario: a scripted (hostile) agent that asks the client's file system for the
 * paths the prompt names, as JSON `{"steps":[…]}`, and reports each outcome as one line of its
 * answer (`<name>: ok …`, `<name>: refused <message>` or `<name>: timeout`). Every request is
 * bounded, so a client that blocks on a FIFO shows up as `timeout` rather than a stuck turn.
 *
 * Steps: `{ "name", "op": "read", "path" }` (`fs/read_text_file`), `{ "name", "op": "write",
 * "path", "content" }` (`fs/write_text_file`), `{ "name", "op": "ask", "path", "newText" }` (a
 * pending edit tool call with a whole-file diff and a permission request; reports the answer).
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import { errorText, type DemoTurn } from './turn';

/** How long one probe step may take before it is reported as `timeout`, in ms. */
const STEP_TIMEOUT_MS = 8_000;

interface ProbeStep {
  name: string;
  op: 'read' | 'write' | 'ask';
  path: string;
  content?: string;
  newText?: string;
}

/** Runs the steps of the prompt; returns `end_turn`. */
export async function fsProbeTurn(turn: DemoTurn): Promise<StopReason> {
  let steps: ProbeStep[];
  try {
    steps = (JSON.parse(turn.promptText()) as { steps: ProbeStep[] }).steps;
  } catch (err) {
    await turn.say([`fs-probe: the prompt is not {"steps":[…]}: ${errorText(err)}\n`], 0);
    return 'end_turn';
  }
  const lines: string[] = [];
  for (const s of steps) lines.push(`${s.name}: ${await bounded(run(turn, s))}`);
  await turn.say(['fs-probe results:\n\n', ...lines.map((l) => `- ${l}\n`)], 0);
  return 'end_turn';
}

async function run(turn: DemoTurn, s: ProbeStep): Promise<string> {
  try {
    if (s.op === 'read') {
      const r = await turn.client.request('fs/read_text_file', { sessionId: turn.sessionId, path: s.path });
      return `ok ${r.content.length} chars`;
    }
    if (s.op === 'write') {
      await turn.client.request('fs/write_text_file', { sessionId: turn.sessionId, path: s.path, content: s.content ?? '' });
      return 'ok';
    }
    const toolCallId = turn.toolCallId(s.name);
    const call = { toolCallId, title: `Write ${s.path}`, kind: 'edit' as const, locations: [{ path: s.path }], content: [{ type: 'diff' as const, path: s.path, oldText: 'x', newText: s.newText ?? '' }] };
    await turn.update({ sessionUpdate: 'tool_call', status: 'pending', ...call });
    const d = await turn.askPermission(call);
    await turn.toolUpdate({ toolCallId, status: 'completed' });
    return `ok ${d.kind}`;
  } catch (err) {
    return `refused ${errorText(err)}`;
  }
}

function bounded(work: Promise<string>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), STEP_TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
}

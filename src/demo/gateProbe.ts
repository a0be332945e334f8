/**
 * The `gate-probe` scenario: a scripted agent that tries, over real stdio, every effect the
 * client's permission gate must refuse, around the ones it must perform, and reports each outcome
 * as one line of its answer (`<case>: performed` or `<case>: refused <message>`).
 */
import os from 'node:os';
import type { StopReason } from '@agentclientprotocol/sdk';
import type { DemoTurn, WriteResult } from './turn';

/** File the probe writes, relative to the session cwd. */
export const GATE_PROBE_FILE = 'gate/probe.txt';
/** Content the probe declares (and is approved for). */
export const GATE_PROBE_CONTENT = 'approved content\n';
/** Command the probe declares (and is approved for). */
export const GATE_PROBE_COMMAND = 'echo GATE_PROBE_OK';

/** Runs the probe; returns `end_turn`. */
export async function gateProbeTurn(turn: DemoTurn): Promise<StopReason> {
  const file = turn.resolve(GATE_PROBE_FILE);
  const lines: string[] = [];
  const note = (name: string, r: WriteResult) => lines.push(`${name}: ${r.ok ? 'performed' : `refused ${r.message}`}`);

  note('unapproved write', await turn.writeTextFile(file, 'nobody approved this\n'));

  const editId = turn.toolCallId('probe-edit');
  const edit = { toolCallId: editId, title: `Write ${GATE_PROBE_FILE}`, kind: 'edit' as const, locations: [{ path: file }], content: [{ type: 'diff' as const, path: file, oldText: null, newText: GATE_PROBE_CONTENT }] };
  await turn.update({ sessionUpdate: 'tool_call', status: 'pending', ...edit });
  const editDecision = await turn.askPermission(edit);
  lines.push(`edit permission: ${editDecision.kind}`);
  note('content changed after approval', await turn.writeTextFile(file, 'something else\n'));
  note('approved write', await turn.writeTextFile(file, GATE_PROBE_CONTENT));
  note('second use of allow-once', await turn.writeTextFile(file, GATE_PROBE_CONTENT));
  await turn.toolUpdate({ toolCallId: editId, status: 'completed' });

  const runId = turn.toolCallId('probe-run');
  const run = { toolCallId: runId, title: GATE_PROBE_COMMAND, kind: 'execute' as const, rawInput: { command: GATE_PROBE_COMMAND } };
  await turn.update({ sessionUpdate: 'tool_call', status: 'pending', ...run });
  const runDecision = await turn.askPermission(run);
  lines.push(`command permission: ${runDecision.kind}`);
  note('different command', await turn.runCommand(`${GATE_PROBE_COMMAND}; echo EXTRA`));
  note('different cwd', await turn.runCommand(GATE_PROBE_COMMAND, os.tmpdir()));
  note('approved command', await turn.runCommand(GATE_PROBE_COMMAND));
  await turn.toolUpdate({ toolCallId: runId, status: 'completed' });

  await turn.say(['Gate probe results:\n\n', ...lines.map((l) => `- ${l}\n`)], 0);
  return 'end_turn';
}

/**
 * The `gate-borrow` scenario: writes the probe's approved content without asking, as if another
 * session's approval applied here; reports `borrowed write: performed|refused …`.
 */
export async function gateBorrowTurn(turn: DemoTurn): Promise<StopReason> {
  const r = await turn.writeTextFile(turn.resolve(GATE_PROBE_FILE), GATE_PROBE_CONTENT);
  await turn.say([`- borrowed write: ${r.ok ? 'performed' : `refused ${r.message}`}\n`], 0);
  return 'end_turn';
}

/**
 * The `run-commands` scenario: the prompt is JSON `{"commands": [{"command": "…", "ask"?: true,
 * "pauseMs"?: n}]}`; each command is announced as an `execute` tool call, asked about with
 * `session/request_permission` when `ask` is true (else run without asking, as an agent in an
 * automatic mode does), run in a client terminal after `pauseMs` (so a test can change a setting
 * between the approval and the effect), and its exit code and output put on the card's `rawOutput`.
 * The answer lists `<i>: exit <code>`, `<i>: rejected` or `<i>: refused <message>` per command.
 * The sandbox tests drive it (issue 21).
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import { errorText, TurnCancelled, type DemoTurn } from './turn';
import { runInClientTerminal } from './scenarios';

interface Asked {
  command: string;
  ask?: boolean;
  pauseMs?: number;
}

/** Runs the prompt's commands one after another; returns `end_turn`. */
export async function runCommandsTurn(turn: DemoTurn): Promise<StopReason> {
  let commands: Asked[];
  try {
    const asked = JSON.parse(turn.promptText()) as { commands: Asked[] };
    commands = asked.commands.filter((c) => c && typeof c.command === 'string').slice(0, 50);
  } catch (err) {
    await turn.say([`run-commands: the prompt is not {"commands":[…]}: ${errorText(err)}\n`], 0);
    return 'end_turn';
  }
  const results: string[] = [];
  for (const [i, c] of commands.entries()) {
    const toolCallId = turn.toolCallId(`run-${i}`);
    const rawInput = { command: c.command };
    await turn.update({ sessionUpdate: 'tool_call', toolCallId, title: `\`${c.command}\``, kind: 'execute', status: 'pending', rawInput });
    if (c.ask) {
      const decision = await turn.askPermission({ toolCallId, title: `\`${c.command}\``, kind: 'execute', rawInput });
      if (decision.kind === 'cancelled') throw new TurnCancelled();
      if (decision.kind === 'reject') {
        await turn.toolUpdate({ toolCallId, status: 'failed' });
        results.push(`${i}: rejected`);
        continue;
      }
    }
    if (c.pauseMs) await turn.race(new Promise((r) => setTimeout(r, Math.min(60_000, c.pauseMs!))));
    const run = await runInClientTerminal(turn, toolCallId, c.command);
    if (!run.ok) {
      results.push(`${i}: refused ${run.message}`);
      continue;
    }
    await turn.toolUpdate({ toolCallId, status: run.exitCode === 0 ? 'completed' : 'failed', rawOutput: { exitCode: run.exitCode, signal: run.signal, output: run.output } });
    results.push(`${i}: exit ${String(run.exitCode)}`);
  }
  await turn.say(['run-commands results:\n\n', ...results.map((l) => `- ${l}\n`)], 0);
  return 'end_turn';
}

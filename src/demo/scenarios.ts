/**
 * The scripted prompt turns of the offline demo agent. `demo` is what a person sees when they try
 * the extension without any real agent; the others are narrow scripts the test suites drive to
 * reproduce one protocol situation each (write conflicts, unannounced permission requests,
 * process clean-up, streaming volume).
 *
 * Each script mirrors what real agents were seen doing on the wire (claude-code-acp 0.16.2): tool
 * calls announced twice, an empty first message chunk, `messageId`s on chunks, and terminal
 * commands sent as ONE shell string without `args` or `cwd`.
 */
import * as fs from 'node:fs';
import { gateBorrowTurn, gateProbeTurn } from './gateProbe';
import { diskWriterTurn } from './diskWriter';
import { editorMcpTurn } from './editorMcp';
import { fsProbeTurn } from './fsProbe';
import { elicitTurn } from './elicit';
import { unaskedWritesTurn } from './unasked';
import { runCommandsTurn } from './runCommands';
import { promptTarget, targetContent } from './promptTarget';
import type { PlanEntry, StopReason, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { type DemoTurn, TurnCancelled, errorText, textContent } from './turn';

/** Scenario names that run over the protocol (the others fail before speaking ACP at all). */
export type ProtocolScenario = 'demo' | 'grandchild-terminal' | 'write-conflict' | 'permission-only' | 'echo' | 'chunks' | 'many-entries' | 'gate-probe' | 'gate-borrow' | 'disk-writer' | 'editor-mcp' | 'fs-probe' | 'elicit' | 'lenient-cards' | 'unasked-writes' | 'run-commands' | 'cumulative-output';

/** File the `demo` turn writes, relative to the session's cwd. */
export const DEMO_FILE = 'demo/hello.md';
/** Content the `demo` turn writes into {@link DEMO_FILE}. */
export const DEMO_FILE_CONTENT = [
  '# Hello from the offline demo agent',
  '',
  'This file was written by the **offline demo agent** that ships with Agent Switchboard,',
  'through the ACP method `fs/write_text_file`, after you approved the edit.',
  '',
  'No model and no network were involved: the agent is a script.',
  '',
].join('\n');
/** Shell command of the `demo` turn, sent as one string without args or cwd (like claude-code-acp). */
export const DEMO_SHELL_COMMAND = 'echo DEMO_SHELL_OK && ls';
/** Output byte limit the scripts ask for on `terminal/create` (claude-code-acp's value). */
export const TERMINAL_OUTPUT_LIMIT = 32000;
/**
 * Command of the `grandchild-terminal` turn: a shell that leaves a background grandchild and a
 * foreground child, both long-lived, so tests can check that kill/release/cancel reap the group.
 */
export const GRANDCHILD_COMMAND = "sh -c 'echo SWITCHBOARD_GRANDCHILD_READY; sleep 300 & sleep 300'";
/** File the `write-conflict` turn reads and rewrites, relative to the session's cwd. */
export const CONFLICT_FILE = 'conflict.txt';
/** Line the `write-conflict` turn appends to what it read. */
export const CONFLICT_APPENDED_LINE = 'Appended by the offline demo agent.\n';
/** File named in the `permission-only` turn's (never announced) tool call. */
export const UNANNOUNCED_FILE = 'notes.md';

/** Runs one scripted turn; returns the stop reason or throws {@link TurnCancelled}. */
export type ScenarioScript = (turn: DemoTurn) => Promise<StopReason>;

/** Script per protocol scenario. */
export const SCENARIOS: Record<ProtocolScenario, ScenarioScript> = {
  demo: demoTurn,
  'grandchild-terminal': grandchildTerminalTurn,
  'write-conflict': writeConflictTurn,
  'permission-only': permissionOnlyTurn,
  echo: echoTurn,
  'lenient-cards': lenientCardsTurn,
  chunks: chunksTurn,
  'many-entries': manyEntriesTurn,
  'gate-probe': gateProbeTurn,
  'gate-borrow': gateBorrowTurn,
  'disk-writer': diskWriterTurn,
  'editor-mcp': editorMcpTurn,
  'fs-probe': fsProbeTurn,
  elicit: elicitTurn,
  'unasked-writes': unaskedWritesTurn,
  'run-commands': runCommandsTurn,
  'cumulative-output': cumulativeOutputTurn,
};

// ---------------------------------------------------------------------------------------------
// demo

function planSteps(file: string): string[] {
  return [
    `Read ${file} and propose an edit`,
    `Write ${file} (asks you first)`,
    `Run \`${DEMO_SHELL_COMMAND}\` in a terminal (asks you first)`,
    'Summarise what happened',
  ];
}
const PLAN_LENGTH = 4;

async function sendPlan(turn: DemoTurn, done: number, file = DEMO_FILE): Promise<void> {
  const entries: PlanEntry[] = planSteps(file).map((content, i) => ({
    content,
    priority: i < 3 ? 'high' : 'medium',
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
  }));
  await turn.update({ sessionUpdate: 'plan', entries });
}

/**
 * The showcase turn: plan, streamed text, a thought, an edit with a diff that needs approval and
 * goes through `fs/write_text_file`, a shell command in a client terminal that needs approval,
 * and a streamed markdown summary.
 */
async function demoTurn(turn: DemoTurn): Promise<StopReason> {
  // The file the prompt names, when it names one inside the folder; else the demo's own file.
  const target = promptTarget(turn.promptText(), turn.cwd);
  const file = target.kind === 'file' ? target.relative : DEMO_FILE;
  await sendPlan(turn, 0, file);
  // Real agents open with an empty chunk; clients must not render an empty bubble for it.
  // The first line says what this is: a script that does one thing whatever the prompt says.
  await turn.say([
    '',
    'Hi! I am the **offline demo agent**: ',
    'no model, no network, just a script. ',
    'I create or edit the file your prompt names (for example `create notes/todo.md with a list`) ',
    'and run one shell command, asking you before each step.\n\n',
    target.kind === 'file'
      ? `Your prompt names \`${file}\`, so I will propose an edit to it.`
      : target.kind === 'outside'
        ? `Your prompt names \`${target.named}\`, which is outside this folder: I do not write there, so I will propose an edit to \`${DEMO_FILE}\` instead.`
        : `Your prompt names no file, so I will propose an edit to \`${DEMO_FILE}\`.`,
  ]);
  await turn.think([
    'The person wants to see what an agent can do. ',
    'Read the file first so the diff shows the real change, ',
    'then ask before touching anything.',
  ]);

  const edit = await demoEdit(turn, target.kind === 'file' ? target : undefined);
  await sendPlan(turn, 2, file);
  const shell = await demoShell(turn);
  await sendPlan(turn, 3, file);

  await turn.say(
    splitWords(
      [
        '## Demo finished',
        '',
        'Here is what happened in this turn:',
        '',
        `- **Edit** of \`${file}\`: ${edit}`,
        `- **Shell** command \`${DEMO_SHELL_COMMAND}\`: ${shell}`,
        '- **Network**: none. This agent is a script that ships with the extension.',
        '',
        'Ask again to replay the demo, or connect a real agent from the agent list.',
      ].join('\n'),
      8,
    ),
  );
  await sendPlan(turn, PLAN_LENGTH, file);
  return 'end_turn';
}

/** The edit step of the demo turn; returns a one-line outcome for the summary. */
async function demoEdit(turn: DemoTurn, target?: { relative: string; absolute: string }): Promise<string> {
  const name = target?.relative ?? DEMO_FILE;
  const file = target?.absolute ?? turn.resolve(DEMO_FILE);
  const toolCallId = turn.toolCallId('edit');
  // First announcement carries no detail yet, exactly like claude-code-acp's streaming tool input.
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'Write',
    kind: 'edit',
    status: 'pending',
    rawInput: {},
    content: [],
    locations: [],
  });
  const oldText = await turn.readTextFile(file);
  await sendPlan(turn, 1, name);
  const title = `Write ${name}`;
  const newText = target ? targetContent(name, turn.promptText(), oldText) : DEMO_FILE_CONTENT;
  const rawInput = { file_path: file, content: newText };
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title,
    kind: 'edit',
    status: 'pending',
    rawInput,
    locations: [{ path: file, line: 1 }],
    content: [{ type: 'diff', path: file, oldText, newText }],
  });

  const decision = await turn.askPermission({ toolCallId, title, rawInput }, 'edit');
  if (decision.kind === 'cancelled') throw new TurnCancelled();
  if (decision.kind === 'reject') {
    await failTool(turn, toolCallId, 'Rejected by the user.');
    return 'you rejected it, so nothing was written.';
  }
  await turn.toolUpdate({ toolCallId, status: 'in_progress' });
  const result = await turn.writeTextFile(file, newText);
  if (!result.ok) {
    await failTool(turn, toolCallId, `Could not write ${name}: ${result.message}`);
    return `the write failed (\`${result.message}\`).`;
  }
  await turn.toolUpdate({
    toolCallId,
    status: 'completed',
    rawOutput: { message: `Wrote ${file}` },
    // Where the change is, so a client can open what was written.
    locations: [{ path: file, line: 1 }],
  });
  return oldText === null ? 'created through `fs/write_text_file`.' : 'updated through `fs/write_text_file`.';
}

/** The shell step of the demo turn; returns a one-line outcome for the summary. */
async function demoShell(turn: DemoTurn): Promise<string> {
  const toolCallId = turn.toolCallId('shell');
  const description = 'Print a marker and list the working directory';
  const title = `\`${DEMO_SHELL_COMMAND}\``;
  const rawInput = { command: DEMO_SHELL_COMMAND, description };
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'Terminal',
    kind: 'execute',
    status: 'pending',
    rawInput: {},
    content: [],
  });
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title,
    kind: 'execute',
    status: 'pending',
    rawInput,
    content: [textContent(description)],
  });

  const decision = await turn.askPermission({ toolCallId, title, rawInput }, 'execute');
  if (decision.kind === 'cancelled') throw new TurnCancelled();
  if (decision.kind === 'reject') {
    await failTool(turn, toolCallId, 'Rejected by the user.');
    return 'you rejected it, so nothing ran.';
  }
  if (!turn.caps.terminal) {
    await failTool(turn, toolCallId, 'This client offers no terminals (clientCapabilities.terminal is false).');
    return 'not run: the client offers no terminals.';
  }
  const run = await runInClientTerminal(turn, toolCallId, DEMO_SHELL_COMMAND);
  if (!run.ok) return `it could not start (\`${run.message}\`).`;
  const code = run.exitCode;
  await turn.toolUpdate({
    toolCallId,
    status: code === 0 ? 'completed' : 'failed',
    rawOutput: { exitCode: code, signal: run.signal, output: run.output, truncated: run.truncated },
  });
  return code === 0 ? 'ran in a client terminal and exited with code `0`.' : `exited with code \`${String(code)}\`.`;
}

type TerminalRun =
  | { ok: true; exitCode: number | null; signal: string | null; output: string; truncated: boolean }
  | { ok: false; message: string };

/**
 * `terminal/create` → embed the terminal in the tool call → `terminal/wait_for_exit` →
 * `terminal/output` → `terminal/release`, the sequence claude-code-acp uses. On cancellation the
 * terminal is released without waiting, so the `cancelled` answer is not held up.
 */
export async function runInClientTerminal(turn: DemoTurn, toolCallId: string, command: string): Promise<TerminalRun> {
  const sessionId = turn.sessionId;
  let terminalId: string;
  try {
    ({ terminalId } = await turn.race(
      turn.client.request('terminal/create', { sessionId, command, outputByteLimit: TERMINAL_OUTPUT_LIMIT }),
    ));
  } catch (error) {
    if (error instanceof TurnCancelled) throw error;
    const message = errorText(error);
    await failTool(turn, toolCallId, `terminal/create failed: ${message}`);
    return { ok: false, message };
  }
  await turn.toolUpdate({ toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });

  let released = false;
  const release = () => {
    released = true;
    return turn.client.request('terminal/release', { sessionId, terminalId }).then(
      () => undefined,
      () => undefined,
    );
  };
  try {
    const exit = await turn.race(turn.client.request('terminal/wait_for_exit', { sessionId, terminalId }));
    const out = await turn.race(turn.client.request('terminal/output', { sessionId, terminalId }));
    await release();
    return {
      ok: true,
      exitCode: exit.exitCode ?? null,
      signal: exit.signal ?? null,
      output: out.output,
      truncated: out.truncated,
    };
  } catch (error) {
    if (!released) void release();
    if (error instanceof TurnCancelled) throw error;
    const message = errorText(error);
    await failTool(turn, toolCallId, `terminal request failed: ${message}`);
    return { ok: false, message };
  }
}

async function failTool(turn: DemoTurn, toolCallId: string, message: string): Promise<void> {
  const content: ToolCallContent[] = [textContent(message)];
  await turn.toolUpdate({ toolCallId, status: 'failed', content });
}

// ---------------------------------------------------------------------------------------------
// test scripts

/**
 * Starts a command that leaves a grandchild behind, shows its terminal, then waits for
 * `session/cancel` (→ `cancelled`) or for the terminal to end on its own, e.g. killed from the
 * client's UI (→ `end_turn`, tool call completed/failed with the exit status).
 */
async function grandchildTerminalTurn(turn: DemoTurn): Promise<StopReason> {
  const toolCallId = turn.toolCallId('grandchild');
  const sessionId = turn.sessionId;
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `\`${GRANDCHILD_COMMAND}\``,
    kind: 'execute',
    status: 'pending',
    rawInput: { command: GRANDCHILD_COMMAND },
  });
  if (!turn.caps.terminal) {
    await failTool(turn, toolCallId, 'This client offers no terminals.');
    return 'end_turn';
  }
  const { terminalId } = await turn.race(
    turn.client.request('terminal/create', {
      sessionId,
      command: GRANDCHILD_COMMAND,
      outputByteLimit: TERMINAL_OUTPUT_LIMIT,
    }),
  );
  await turn.toolUpdate({ toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
  try {
    const exit = await turn.race(turn.client.request('terminal/wait_for_exit', { sessionId, terminalId }));
    await turn.client.request('terminal/release', { sessionId, terminalId }).catch(() => undefined);
    await turn.toolUpdate({
      toolCallId,
      status: exit.exitCode === 0 ? 'completed' : 'failed',
      rawOutput: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null },
    });
    await turn.say([`The command ended on its own (exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}).`], 0);
    return 'end_turn';
  } catch (error) {
    // By default, behave like a careless agent that leaves the terminal to the client: the client
    // must still reap the whole process group. SWITCHBOARD_DEMO_RELEASE_ON_CANCEL=1 cleans up.
    if (error instanceof TurnCancelled && turn.options.releaseOnCancel) {
      void turn.client
        .request('terminal/kill', { sessionId, terminalId })
        .catch(() => undefined)
        .then(() => turn.client.request('terminal/release', { sessionId, terminalId }))
        .catch(() => undefined);
    }
    throw error;
  }
}

/**
 * Reads {@link CONFLICT_FILE} through the client, waits `delayMs` (time for a test or a person to
 * change the file), then writes an edited version and reports whether the client accepted it.
 */
async function writeConflictTurn(turn: DemoTurn): Promise<StopReason> {
  const file = turn.resolve(CONFLICT_FILE);
  const toolCallId = turn.toolCallId('conflict');
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `Edit ${CONFLICT_FILE}`,
    kind: 'edit',
    status: 'pending',
    rawInput: {},
    locations: [{ path: file }],
  });
  const oldText = await turn.readTextFile(file);
  if (oldText === null) {
    await failTool(turn, toolCallId, `Could not read ${CONFLICT_FILE}.`);
    await turn.say([`I could not read \`${CONFLICT_FILE}\`.`], 0);
    return 'end_turn';
  }
  const newText = oldText + CONFLICT_APPENDED_LINE;
  await turn.update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `Edit ${CONFLICT_FILE}`,
    kind: 'edit',
    status: 'in_progress',
    rawInput: { file_path: file, content: newText },
    locations: [{ path: file }],
    content: [{ type: 'diff', path: file, oldText, newText }],
  });
  await turn.sleep(turn.options.delayMs);
  const result = await turn.writeTextFile(file, newText);
  if (result.ok) {
    await turn.toolUpdate({ toolCallId, status: 'completed' });
    await turn.say([`Wrote \`${CONFLICT_FILE}\`.`], 0);
  } else {
    await failTool(turn, toolCallId, result.message);
    await turn.say([`The client refused the write: ${result.message}`], 0);
  }
  return 'end_turn';
}

/**
 * Asks permission for a tool call that was never announced with `tool_call` (agents do this), then
 * reports the answer as text: `selected <optionId>` or `cancelled`.
 */
async function permissionOnlyTurn(turn: DemoTurn): Promise<StopReason> {
  const file = turn.resolve(UNANNOUNCED_FILE);
  const toolCall: ToolCallUpdate = {
    toolCallId: `demo-unannounced-${turn.memory.turns}`,
    title: `Edit ${UNANNOUNCED_FILE}`,
    kind: 'edit',
    status: 'pending',
    locations: [{ path: file }],
    content: [{ type: 'diff', path: file, oldText: null, newText: 'Notes from the offline demo agent.\n' }],
    rawInput: { file_path: file },
  };
  let text: string;
  try {
    // No remembering here: every turn of this script must reach the client.
    const decision = await turn.askPermission(toolCall);
    text = decision.kind === 'cancelled' ? 'cancelled' : `selected ${decision.optionId}`;
  } catch (error) {
    if (error instanceof TurnCancelled) {
      await turn.updateAlways({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'cancelled' } });
    }
    throw error;
  }
  await turn.say([text], 0);
  return 'end_turn';
}

/** URL the `lenient-cards` turn's fetch call names. */
export const LENIENT_FETCH_URL = 'https://example.test/docs?q=acp&lang=en';

/**
 * Cards other clients got wrong (issue 18): a tool call embedding a terminal this client never
 * created (as after a resume), then a `fetch` call and a `switch_mode` call that ask permission, each
 * showing what it will do (the URL, the plan).
 */
async function lenientCardsTurn(turn: DemoTurn): Promise<StopReason> {
  await turn.update({ sessionUpdate: 'tool_call', toolCallId: turn.toolCallId('old-terminal'), title: 'npm test (from before the resume)', kind: 'execute', status: 'completed', content: [{ type: 'terminal', terminalId: 'term-from-an-earlier-process' }, textContent('12 passing')] });
  const fetch = await turn.askPermission({ toolCallId: turn.toolCallId('fetch'), title: 'Fetch the ACP docs', kind: 'fetch', status: 'pending', rawInput: { url: LENIENT_FETCH_URL } });
  const plan = await turn.askPermission({ toolCallId: turn.toolCallId('plan'), title: 'Ready to code?', kind: 'switch_mode', status: 'pending', rawInput: { plan: '1. Read the tests\n2. Fix the reducer\n3. Run the suite' } });
  await turn.say([`fetch: ${fetch.kind === 'cancelled' ? 'cancelled' : fetch.optionId}; plan: ${plan.kind === 'cancelled' ? 'cancelled' : plan.optionId}`], 0);
  return 'end_turn';
}

/** Streams the prompt's text back in exactly three chunks of one message. */
async function echoTurn(turn: DemoTurn): Promise<StopReason> {
  const chars = Array.from(turn.promptText()); // code points, so no surrogate pair is split
  const size = Math.ceil(chars.length / 3);
  const pieces = [0, 1, 2].map((i) => chars.slice(i * size, (i + 1) * size).join(''));
  await turn.say(pieces, 0);
  // What came with the text, so a client can see what it sent (resources, images, links).
  const attached = turn.prompt.filter((b) => b.type !== 'text').map((b) => {
    if (b.type === 'resource') return `resource ${b.resource.uri} (${'text' in b.resource ? `${b.resource.text.length} chars` : 'blob'})`;
    if (b.type === 'resource_link') return `link ${b.uri}`;
    if (b.type === 'image') return `image ${b.mimeType} (${b.data.length} base64 chars)`;
    return b.type;
  });
  if (attached.length) await turn.say([`\n\nAttached: ${attached.join('; ')}`], 0);
  return 'end_turn';
}

/**
 * Streams `chunks` ten-byte chunks (`000000001\n`, `000000002\n`, ...) with no pauses, for
 * throughput benchmarks; the concatenation is easy to check for order and loss.
 */
async function chunksTurn(turn: DemoTurn): Promise<StopReason> {
  const pieces: string[] = [];
  for (let i = 1; i <= turn.options.chunks; i++) pieces.push(`${String(i).padStart(9, '0')}\n`);
  const startedAt = Date.now();
  await turn.say(pieces, 0);
  // The agent's own time to send them all: the baseline of the stream-to-screen benchmark (PF8).
  if (turn.options.timingFile) fs.writeFileSync(turn.options.timingFile, JSON.stringify({ chunks: pieces.length, startedAt, sentMs: Date.now() - startedAt }));
  return 'end_turn';
}

/** Updates and final size of the `cumulative-output` scenario (issue 22, PF10). */
export const CUMULATIVE_UPDATES = 200;
export const CUMULATIVE_BYTES = 2 * 1024 * 1024;

/**
 * A tool whose output is re-sent whole on every update (PF10): 200 `tool_call_update`s, each
 * replacing the call's content with text growing to 2 MiB (~200 MB in all). It grows at its end, as
 * a build's or a test run's output does (its first 100,000 characters, what a card shows, stay the
 * same once written); the last line says which update it is (`update 200/200` last), and the card's
 * count of characters not shown tells the updates apart on screen.
 * With a timing file, writes `{ updates, startedAt, sentMs, lastAt }` (epoch ms).
 */
async function cumulativeOutputTurn(turn: DemoTurn): Promise<StopReason> {
  const toolCallId = turn.toolCallId('build');
  await turn.update({ sessionUpdate: 'tool_call', toolCallId, title: 'Build (output re-sent whole)', kind: 'execute', status: 'in_progress', rawInput: { command: 'make' } });
  const line = `${'x'.repeat(1023)}\n`;
  const startedAt = Date.now();
  for (let i = 1; i <= CUMULATIVE_UPDATES; i++) {
    const bytes = Math.round((i / CUMULATIVE_UPDATES) * CUMULATIVE_BYTES);
    const tail = `update ${i}/${CUMULATIVE_UPDATES}\n`;
    const text = line.repeat(Math.ceil(bytes / line.length)).slice(0, Math.max(0, bytes - tail.length)) + tail;
    await turn.update({ sessionUpdate: 'tool_call_update', toolCallId, content: [{ type: 'content', content: { type: 'text', text } }] });
  }
  const lastAt = Date.now();
  await turn.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
  if (turn.options.timingFile) fs.writeFileSync(turn.options.timingFile, JSON.stringify({ updates: CUMULATIVE_UPDATES, startedAt, sentMs: lastAt - startedAt, lastAt }));
  return 'end_turn';
}

/**
 * A long thread: `chunks` completed read tool calls, each followed by a one-line message (two
 * entries apiece), for the session page's windowing (only the newest entries are sent and built).
 */
async function manyEntriesTurn(turn: DemoTurn): Promise<StopReason> {
  for (let i = 1; i <= turn.options.chunks; i++) {
    const toolCallId = turn.toolCallId(`read-${i}`);
    await turn.update({ sessionUpdate: 'tool_call', toolCallId, title: `Read notes/${i}.md`, kind: 'read', status: 'completed', rawInput: { path: `notes/${i}.md` }, content: [], locations: [] });
    await turn.update({ sessionUpdate: 'agent_message_chunk', messageId: `m${i}`, content: { type: 'text', text: `Step ${i}: notes/${i}.md read.` } });
  }
  return 'end_turn';
}

/** Splits text into about `n` pieces at word boundaries (keeping the spaces and newlines). */
function splitWords(text: string, n: number): string[] {
  const words = text.split(/(?<=\s)/);
  const per = Math.max(1, Math.ceil(words.length / n));
  const out: string[] = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''));
  return out;
}

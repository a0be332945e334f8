/**
 * Self-checks of the test fixtures themselves: the offline demo agent (every scenario the other
 * suites rely on), its CJS bundle, and the fake model server driving the real claude-code-acp.
 *
 * All of it through the extension's own client stack (SessionManager → AgentConnection →
 * SessionController, SessionTerminals, and MemoryFiles with the real write-check ledger), and
 * asserted on the resulting SessionState wherever the state shows it. The only instrumentation is
 * two thin recording subclasses of the file and terminal ports, for what the state does not keep
 * (which files the agent read, the `terminal/*` calls it made).
 *
 * Covered in test/acp/stdio.test.ts and therefore not repeated here: the no-initialize timeout
 * (and that the silent agent is killed), and that closing a session after a cancelled
 * grandchild-terminal turn leaves no `sleep 300` and no agent process behind.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import * as esbuild from 'esbuild';
import { AgentLaunchError, type AgentConnection } from '../../src/acp/connection';
import type { SessionController } from '../../src/acp/sessionController';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { PermissionOptionView, PermissionView, SessionPatch, SessionState, ThreadEntry, ToolCallView } from '../../src/acp/session/types';
import type { ResolvedAgent } from '../../src/config/agents';
import { CONFLICT_APPENDED_LINE, CONFLICT_FILE, DEMO_FILE, DEMO_FILE_CONTENT, DEMO_SHELL_COMMAND, GRANDCHILD_COMMAND } from '../../src/demo/scenarios';
import { DEMO_AGENT_INFO, EXIT_STDERR_LINES } from '../../src/demo/demoApp';
import { allowAll, testPolicy } from '../fakes/policy';
import { claudeCodeAcpLaunch } from '../fakes/agents';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, SHELL_CMD, startFakeModelServer } from '../fakes/fake-model-server.mjs';
import { MemoryFiles } from '../fakes/memoryFiles';

const ROOT = path.resolve(__dirname, '..', '..');
/** These tests are about the demo agent, not the gate: every effect is let through (the gate has its own tests). */
const POLICY = (files: MemoryFiles) => allowAll({ readCurrent: async (p) => files.docs.get(p)?.text ?? null });
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

// ---------------------------------------------------------------------------------------------
// recording ports (the product's own implementations, plus a log)

/** MemoryFiles that also logs every read and every write request (refused ones included). */
class RecordingFiles extends MemoryFiles {
  readonly reads: string[] = [];
  readonly writeRequests: { path: string; content: string }[] = [];

  override async read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    this.reads.push(params.path);
    return super.read(params);
  }

  override async write(params: acp.WriteTextFileRequest): Promise<void> {
    this.writeRequests.push({ path: params.path, content: params.content });
    return super.write(params);
  }
}

/** SessionTerminals that logs the `terminal/*` requests it serves, in order. */
class RecordingTerminals extends SessionTerminals {
  readonly calls: { method: string; terminalId?: string; params?: acp.CreateTerminalRequest }[] = [];

  override async create(params: acp.CreateTerminalRequest): Promise<string> {
    const terminalId = await super.create(params);
    this.calls.push({ method: 'terminal/create', terminalId, params });
    return terminalId;
  }

  override output(terminalId: string): acp.TerminalOutputResponse {
    this.calls.push({ method: 'terminal/output', terminalId });
    return super.output(terminalId);
  }

  override waitForExit(terminalId: string, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    this.calls.push({ method: 'terminal/wait_for_exit', terminalId });
    return super.waitForExit(terminalId, signal);
  }

  override kill(terminalId: string): Promise<void> {
    this.calls.push({ method: 'terminal/kill', terminalId });
    return super.kill(terminalId);
  }

  override release(terminalId: string): Promise<void> {
    this.calls.push({ method: 'terminal/release', terminalId });
    return super.release(terminalId);
  }

  get methods(): string[] {
    return this.calls.map((c) => c.method);
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

/** The parent's env without any demo knobs (they come from the agent definition only). */
function envWithoutDemoKnobs(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SWITCHBOARD_DEMO_')) env[k] = v;
  return env;
}

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/**
 * Live (non-zombie) processes in a process group. Zombies are skipped: orphans are reparented to
 * PID 1, which on these machines reaps them only after a second or two.
 */
function liveInGroup(pgid: number): number {
  const table = execFileSync('ps', ['-eo', 'pgid=,stat='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && stat && !stat.startsWith('Z')).length;
}

/** Polls `check` every 10 ms; fails after `timeoutMs`. */
async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The live connection behind a controller (private field), for its `initialize` answer and pid. */
function connectionOf(c: SessionController): AgentConnection {
  return (c as unknown as { connection: AgentConnection }).connection;
}

/** How a test answers permission requests. */
type PermissionPolicy = (p: PermissionView, c: SessionController) => void;

/** Answers with the first offered option of the wanted kinds (by the public API, like an extension would). */
function choose(...kinds: PermissionOptionView['kind'][]): PermissionPolicy {
  return (p, c) => {
    const option = kinds.map((k) => p.options.find((o) => o.kind === k)).find(Boolean);
    assert.ok(option, `no option of kind ${kinds.join('/')} in ${JSON.stringify(p.options)}`);
    assert.equal(c.answerPermission(p.permissionId, option.optionId, 'api'), true);
  };
}
const ALLOW = choose('allow_once', 'allow_always');
const REJECT = choose('reject_once', 'reject_always');

/**
 * Records every patch of `c` and answers each waiting permission with `policy` (asynchronously,
 * never from inside the controller's own dispatch).
 */
function observe(c: SessionController, policy?: PermissionPolicy): SessionPatch[] {
  const patches: SessionPatch[] = [];
  c.onDidChange((ch) => {
    patches.push(...ch.patches);
    if (!policy) return;
    for (const p of ch.patches) {
      if (p.op === 'permission' && p.permission.state === 'waiting') {
        const permission = p.permission;
        setImmediate(() => policy(permission, c));
      }
    }
  });
  return patches;
}

function agentEntries(s: SessionState): Extract<ThreadEntry, { kind: 'agent' }>[] {
  return s.entries.filter((e): e is Extract<ThreadEntry, { kind: 'agent' }> => e.kind === 'agent');
}

function agentText(s: SessionState): string {
  return agentEntries(s)
    .map((e) => e.text)
    .join('');
}

/** The text pieces that made up the agent messages, in order: one per non-empty streamed chunk. */
function agentPieces(patches: SessionPatch[]): string[] {
  const agentIds = new Set<string>();
  const pieces: string[] = [];
  for (const p of patches) {
    if (p.op === 'entry' && p.entry.kind === 'agent' && !agentIds.has(p.entry.id)) {
      agentIds.add(p.entry.id);
      pieces.push(p.entry.text);
    } else if (p.op === 'appendText' && agentIds.has(p.entryId)) {
      pieces.push(p.text);
    }
  }
  return pieces;
}

function toolCallsOfKind(s: SessionState, kind: string): ToolCallView[] {
  return Object.values(s.toolCalls).filter((t) => t.kind === kind);
}

function textContents(t: ToolCallView | undefined): string[] {
  return (t?.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : []));
}

// ---------------------------------------------------------------------------------------------

describe('offline demo agent (through the extension client)', function () {
  this.timeout(20_000);
  let workspace: string;
  let manager: SessionManager;
  let agents: ResolvedAgent[];
  let files: RecordingFiles;
  let terminals: RecordingTerminals | undefined;

  function defineAgent(id: string, args: string[], env: Record<string, string>): void {
    agents.push({
      id,
      name: `Demo ${id}`,
      command: process.execPath,
      resolvedCommand: process.execPath,
      args,
      env,
      source: 'settings',
      available: true,
    });
  }

  /** Starts the demo agent with `scenario` in the workspace and records its session. */
  async function startDemo(scenario: string, opts: { env?: Record<string, string>; permission?: PermissionPolicy } = {}) {
    const id = `demo-${scenario}-${agents.length}`;
    defineAgent(id, ['--import', TSX_LOADER, DEMO_ENTRY], { SWITCHBOARD_DEMO_SCENARIO: scenario, ...opts.env });
    const c = await manager.start(id, workspace);
    const patches = observe(c, opts.permission);
    return { c, patches };
  }

  beforeEach(() => {
    workspace = tempDir('switchboard-demo-');
    agents = [];
    files = new RecordingFiles();
    terminals = undefined;
    manager = new SessionManager({
      agents: () => agents,
      baseEnv: envWithoutDemoKnobs,
      initializeTimeoutMs: () => 10_000,
      clientInfo: { name: 'demo-agent-test', version: '0' },
      filesFor: () => files,
      policy: POLICY(files),
      terminalsFor: (_key, cwd) => (terminals = new RecordingTerminals(cwd, () => process.env, { killGraceMs: 300 })),
    });
  });
  afterEach(async () => {
    await manager.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('runs the demo turn: plan, chunks, thought, edit twice with diff, permissions, fs write, terminal, markdown', async () => {
    const file = path.join(workspace, DEMO_FILE);
    files.docs.set(file, { text: 'previous text\n', version: 1, dirty: false });
    // A file on disk in the session cwd, so the `ls` of the shell step proves where it ran.
    fs.writeFileSync(path.join(workspace, 'cwd-marker.txt'), '');
    const { c, patches } = await startDemo('demo', { permission: ALLOW });

    const init = connectionOf(c).init;
    assert.deepEqual(init.agentInfo, DEMO_AGENT_INFO);
    assert.equal(init.agentCapabilities?.loadSession, true, 'it remembers sessions (list, load, resume)');
    assert.equal((await c.prompt('show me')).stopReason, 'end_turn');
    const s = c.state;
    assert.equal(s.status, 'ready');
    assert.equal(s.lastStopReason, 'end_turn');
    assert.deepEqual(s.entries.at(-1), { kind: 'turn_end', id: s.entries.at(-1)?.id, stopReason: 'end_turn' });

    assert.ok(patches.filter((p) => p.op === 'plan').length >= 2, 'plan updates');
    assert.equal(s.plan.length, 4);
    assert.ok(s.plan.every((e) => e.status === 'completed'), 'final plan all completed');

    // Two messages (intro and summary), each with its own messageId, streamed in several chunks;
    // the empty opening chunk leaves no empty bubble.
    const messages = agentEntries(s);
    assert.equal(messages.length, 2);
    assert.ok(messages.every((m) => typeof m.messageId === 'string' && m.text !== ''), 'messageId on every message');
    assert.notEqual(messages[0].messageId, messages[1].messageId);
    assert.match(messages[0].text, /^Hi! I am the \*\*offline demo agent\*\*/);
    assert.ok(agentPieces(patches).length >= 5, 'several message chunks');
    assert.ok(s.entries.some((e) => e.kind === 'thought' && e.text.length > 0), 'thought');

    // The edit tool call is announced twice: empty first, then with the diff of what it read.
    const [edit] = toolCallsOfKind(s, 'edit');
    const editPatches = patches.flatMap((p) => (p.op === 'toolCall' && p.toolCall.toolCallId === edit.toolCallId ? [p.toolCall] : []));
    assert.equal(editPatches[0].title, 'Write');
    assert.deepEqual(editPatches[0].content, []);
    assert.equal(editPatches[0].rawInput, undefined, 'first announcement has empty rawInput');
    assert.equal(edit.title, `Write ${DEMO_FILE}`);
    assert.deepEqual(edit.locations, [{ path: file, line: 1 }]);
    assert.deepEqual(edit.content, [{ type: 'diff', path: file, oldText: 'previous text\n', newText: DEMO_FILE_CONTENT, added: DEMO_FILE_CONTENT.split('\n').length - 1, removed: 1 }]);
    assert.equal(edit.placeholder, false);
    assert.equal(edit.status, 'completed');
    assert.deepEqual(files.reads, [file]);
    assert.equal(s.entries.filter((e) => e.kind === 'tool_call').length, Object.keys(s.toolCalls).length, 'a repeated tool_call adds no second card');
    assert.equal(Object.keys(s.toolCalls).length, 2);

    const permissions = Object.values(s.permissions);
    assert.deepEqual(
      permissions.map((p) => p.options.map((o) => o.kind)),
      [
        ['allow_always', 'allow_once', 'reject_once'],
        ['allow_always', 'allow_once', 'reject_once'],
      ],
    );
    assert.ok(permissions.every((p) => p.state === 'selected' && p.optionId === 'allow' && p.answeredBy === 'api'));
    assert.deepEqual(files.writes, [file]);
    assert.equal(files.docs.get(file)?.text, DEMO_FILE_CONTENT);
    assert.match(DEMO_FILE_CONTENT, /offline demo agent/);

    // One shell string, no args, no cwd; then wait, output, release.
    assert.ok(terminals);
    const create = terminals.calls[0];
    assert.deepEqual(create.params, { sessionId: s.sessionId, command: DEMO_SHELL_COMMAND, outputByteLimit: 32000 });
    assert.deepEqual(terminals.methods, ['terminal/create', 'terminal/wait_for_exit', 'terminal/output', 'terminal/release']);
    assert.equal(terminals.manager.has(create.terminalId!), false, 'released');
    const terminal = s.terminals[create.terminalId!];
    assert.equal(terminal.commandLine, DEMO_SHELL_COMMAND);
    assert.equal(terminal.cwd, workspace);
    assert.match(terminal.output, /DEMO_SHELL_OK/);
    assert.match(terminal.output, /cwd-marker\.txt/, 'ls ran in the session cwd');
    assert.deepEqual(terminal.exitStatus, { exitCode: 0, signal: null });
    const [shell] = toolCallsOfKind(s, 'execute');
    assert.ok(shell.content.some((ct) => ct.type === 'terminal' && ct.terminalId === create.terminalId));
    assert.equal(shell.status, 'completed');

    // The summary is its own message and carries the markdown.
    const summary = messages[1].text;
    assert.match(summary, /^## Demo finished$/m);
    assert.match(summary, /^- \*\*Edit\*\*.*updated through `fs\/write_text_file`/m);
    assert.match(summary, /`echo DEMO_SHELL_OK && ls`/);
  });

  it('creates the file when it did not exist (oldText null)', async () => {
    const file = path.join(workspace, DEMO_FILE);
    const { c } = await startDemo('demo', { permission: ALLOW });
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    const [edit] = toolCallsOfKind(c.state, 'edit');
    const diff = edit.content[0];
    assert.ok(diff?.type === 'diff');
    assert.equal(diff.oldText, null);
    assert.deepEqual(files.reads, [file], 'tried to read it first');
    assert.deepEqual(files.writes, [file]);
    assert.equal(files.docs.get(file)?.text, DEMO_FILE_CONTENT);
    assert.match(agentText(c.state), /created through `fs\/write_text_file`/);
  });

  it('creates the file the prompt names, reports where it wrote, and says it is a script', async () => {
    const file = path.join(workspace, 'notes', 'todo.md');
    const { c } = await startDemo('demo', { permission: ALLOW });
    assert.equal((await c.prompt('create notes/todo.md with a list')).stopReason, 'end_turn');
    const [edit] = toolCallsOfKind(c.state, 'edit');
    assert.equal(edit.title, 'Write notes/todo.md');
    assert.equal(edit.status, 'completed');
    assert.deepEqual(edit.locations, [{ path: file, line: 1 }]);
    assert.deepEqual(files.writes, [file]);
    assert.match(files.docs.get(file)?.text ?? '', /^# todo\n[\s\S]*- \[ \] First item/);
    assert.match(agentText(c.state), /just a script/);
  });

  it('does not write outside the folder when the prompt names such a path', async () => {
    const { c } = await startDemo('demo', { permission: ALLOW });
    assert.equal((await c.prompt('create ../outside.md')).stopReason, 'end_turn');
    assert.deepEqual(files.writes, [path.join(workspace, DEMO_FILE)]);
    assert.match(agentText(c.state), /outside this folder/);
  });

  it('marks rejected tool calls rejected and goes on', async () => {
    const { c } = await startDemo('demo', { permission: REJECT });
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    const permissions = Object.values(c.state.permissions);
    assert.equal(permissions.length, 2);
    assert.ok(permissions.every((p) => p.state === 'selected' && p.optionId === 'reject'));
    assert.deepEqual(files.writeRequests, []);
    assert.deepEqual(terminals?.calls, []);
    assert.deepEqual(Object.keys(c.state.terminals), []);
    const calls = Object.values(c.state.toolCalls);
    assert.equal(calls.length, 2);
    for (const t of calls) {
      assert.equal(t.status, 'rejected', `${t.title} rejected (the agent's "failed" does not hide it)`);
      assert.deepEqual(textContents(t), ['Rejected by the user.']);
    }
    assert.match(agentText(c.state), /you rejected it, so nothing was written/);
    assert.match(agentText(c.state), /you rejected it, so nothing ran/);
  });

  it('reports a write refused by the ledger (the person edited meanwhile) as a failed tool call and continues', async () => {
    const file = path.join(workspace, DEMO_FILE);
    files.docs.set(file, { text: 'v1\n', version: 1, dirty: false });
    const { c } = await startDemo('demo', {
      permission: (p, ctl) => {
        // While the edit waits for approval, the person types into the document the agent read.
        if (ctl.state.toolCalls[p.toolCallId]?.kind === 'edit') files.personEdits(file, 'v1\nmy unsaved work\n');
        ALLOW(p, ctl);
      },
    });
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    const [edit] = toolCallsOfKind(c.state, 'edit');
    assert.equal(edit.status, 'failed');
    const [message] = textContents(edit);
    assert.match(message, /^Could not write demo\/hello\.md: Write refused for .*hello\.md: the document changed \(version 1 → 2\) since the agent read it/);
    assert.deepEqual(files.writeRequests.map((w) => w.path), [file], 'the agent did try');
    assert.deepEqual(files.writes, []);
    assert.equal(files.docs.get(file)?.text, 'v1\nmy unsaved work\n', "the person's text stays");
    assert.equal(terminals?.methods[0], 'terminal/create', 'went on to the shell step');
    assert.equal(toolCallsOfKind(c.state, 'execute')[0].status, 'completed');
    assert.match(agentText(c.state), /the write failed/);
  });

  it('answers cancelled promptly when the turn is stopped while a permission request is open', async () => {
    // The client answers the open request "cancelled" and sends session/cancel (both in cancel()).
    let cancelledAt = 0;
    const { c } = await startDemo('demo', {
      permission: (_p, ctl) => {
        cancelledAt = Date.now();
        void ctl.cancel();
      },
    });
    const res = await c.prompt('go');
    const took = Date.now() - cancelledAt;
    assert.equal(res.stopReason, 'cancelled');
    assert.ok(cancelledAt > 0, 'a permission was requested');
    assert.ok(took < 1000, `cancelled within 1 s (took ${took} ms)`);
    const permissions = Object.values(c.state.permissions);
    assert.equal(permissions.length, 1, 'the shell step was never reached');
    assert.equal(permissions[0].state, 'cancelled');
    assert.equal(permissions[0].answeredBy, 'cancel');
    assert.equal(toolCallsOfKind(c.state, 'edit')[0].status, 'cancelled');
    assert.deepEqual(files.writeRequests, []);
    assert.deepEqual(terminals?.calls, []);
    assert.equal(c.state.status, 'ready');
    assert.equal(c.state.lastStopReason, 'cancelled');
  });

  it('exit-stderr: exits 1 before initialize, and the launch error carries its three stderr lines', async () => {
    defineAgent('exit', ['--import', TSX_LOADER, DEMO_ENTRY], { SWITCHBOARD_DEMO_SCENARIO: 'exit-stderr' });
    await assert.rejects(manager.start('exit', workspace), (err: unknown) => {
      assert.ok(err instanceof AgentLaunchError);
      assert.equal(err.view.exitCode, 1);
      assert.deepEqual(err.view.stderrTail, [...EXIT_STDERR_LINES]);
      return true;
    });
  });

  it('echo: streams the prompt back in three chunks of one message', async () => {
    const { c, patches } = await startDemo('echo');
    assert.equal((await c.prompt('hello, switchboard ✓')).stopReason, 'end_turn');
    assert.equal(agentPieces(patches).length, 3);
    const messages = agentEntries(c.state);
    assert.equal(messages.length, 1, 'one message');
    assert.equal(typeof messages[0].messageId, 'string');
    assert.equal(messages[0].text, 'hello, switchboard ✓');
  });

  it('chunks: streams N ten-byte chunks in order', async () => {
    const { c, patches } = await startDemo('chunks', { env: { SWITCHBOARD_DEMO_CHUNKS: '2000' } });
    const t0 = Date.now();
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    const ms = Date.now() - t0;
    const pieces = agentPieces(patches);
    assert.equal(pieces.length, 2000);
    assert.ok(pieces.every((p) => Buffer.byteLength(p) === 10), 'every chunk ten bytes');
    const lines = agentText(c.state).split('\n').filter(Boolean);
    assert.equal(lines.length, 2000);
    assert.equal(lines[0], '000000001');
    assert.equal(lines[1999], '000002000');
    assert.ok(lines.every((l, i) => Number(l) === i + 1), 'in order, none lost');
    console.log(`      (2000 chunks in ${ms} ms)`);
  });

  it('permission-only: asks for a never-announced tool call and reports the answer', async () => {
    const { c } = await startDemo('permission-only', { permission: ALLOW });
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    const permissions = Object.values(c.state.permissions);
    assert.equal(permissions.length, 1);
    const call = c.state.toolCalls[permissions[0].toolCallId];
    assert.equal(call.placeholder, true, 'never announced with tool_call');
    assert.equal(call.title, 'Edit notes.md');
    assert.equal(call.permissionId, permissions[0].permissionId);
    assert.equal(agentText(c.state), 'selected allow');
  });

  it('write-conflict: reads, waits, writes, and reports the write the ledger refused', async () => {
    const file = path.join(workspace, CONFLICT_FILE);
    files.docs.set(file, { text: 'original\n', version: 1, dirty: false });
    const { c } = await startDemo('write-conflict', { env: { SWITCHBOARD_DEMO_DELAY_MS: '300' } });
    // Once the agent shows its diff (it has read the file), the person edits during its delay.
    let edited = false;
    c.onDidChange(() => {
      const call = toolCallsOfKind(c.state, 'edit')[0];
      if (!edited && call?.content.some((ct) => ct.type === 'diff')) {
        edited = true;
        files.personEdits(file, 'original\nthe person typed this\n');
      }
    });
    const t0 = Date.now();
    assert.equal((await c.prompt('go')).stopReason, 'end_turn');
    assert.ok(Date.now() - t0 >= 300, 'waited the delay');
    assert.ok(edited, 'saw the diff before the write');
    assert.deepEqual(files.reads, [file]);
    assert.deepEqual(files.writeRequests, [{ path: file, content: `original\n${CONFLICT_APPENDED_LINE}` }]);
    assert.deepEqual(files.writes, []);
    assert.equal(files.docs.get(file)?.text, 'original\nthe person typed this\n');
    const call = toolCallsOfKind(c.state, 'edit')[0];
    assert.equal(call.status, 'failed');
    assert.ok(textContents(call).some((t) => /changed \(version 1 → 2\) since the agent read it/.test(t)), JSON.stringify(call.content));
    assert.match(agentText(c.state), /refused the write/);
  });

  it('grandchild-terminal: one shell string; after session/cancel the agent leaves its terminal running', async () => {
    const { c } = await startDemo('grandchild-terminal');
    const turn = c.prompt('go');
    await waitUntil(() => Object.values(c.state.terminals).some((t) => t.output.includes('SWITCHBOARD_GRANDCHILD_READY')), 10_000, 'command output');
    assert.ok(terminals);
    const [create] = terminals.calls;
    assert.deepEqual(create.params, { sessionId: c.state.sessionId, command: GRANDCHILD_COMMAND, outputByteLimit: 32000 });
    const terminal = c.state.terminals[create.terminalId!];
    assert.equal(terminal.commandLine, GRANDCHILD_COMMAND);
    assert.equal(terminal.cwd, workspace);
    const [call] = toolCallsOfKind(c.state, 'execute');
    assert.ok(call.content.some((ct) => ct.type === 'terminal' && ct.terminalId === create.terminalId));
    const pgid = terminals.manager.snapshot(create.terminalId!).pid!;

    await c.cancel();
    assert.equal((await turn).stopReason, 'cancelled');
    assert.equal(c.state.toolCalls[call.toolCallId].status, 'cancelled');
    // The shell(s) and both sleeps still run: by default the agent leaves cleanup to the client,
    // which does it when the session closes (checked in stdio.test.ts).
    assert.deepEqual(terminals.methods, ['terminal/create', 'terminal/wait_for_exit']);
    assert.ok(liveInGroup(pgid) >= 3, 'terminal group still running after the cancelled turn');
    await manager.close(c.state.key);
    assert.equal(liveInGroup(pgid), 0, 'closing the session ended the terminal group');
  });

  it('grandchild-terminal with SWITCHBOARD_DEMO_RELEASE_ON_CANCEL=1 kills and releases its terminal itself', async () => {
    const { c } = await startDemo('grandchild-terminal', { env: { SWITCHBOARD_DEMO_RELEASE_ON_CANCEL: '1' } });
    const turn = c.prompt('go');
    await waitUntil(() => Object.values(c.state.terminals).some((t) => t.output.includes('SWITCHBOARD_GRANDCHILD_READY')), 10_000, 'command output');
    assert.ok(terminals);
    const terminalId = terminals.calls[0].terminalId!;
    const pgid = terminals.manager.snapshot(terminalId).pid!;
    await c.cancel();
    assert.equal((await turn).stopReason, 'cancelled');
    const rec = terminals;
    await waitUntil(() => !rec.manager.has(terminalId), 5000, 'terminal/release');
    assert.deepEqual(terminals.methods, ['terminal/create', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release']);
    // Gone while the session is still open: the agent's kill/release did it, not session close.
    assert.equal(c.state.status, 'ready');
    assert.equal(liveInGroup(pgid), 0, 'terminal group ended by the agent');
    assert.ok(c.state.terminals[terminalId].exitStatus, 'exit shown in the terminal card');
  });

  it('works as the CJS bundle the extension ships (esbuild, node20)', async () => {
    const outDir = tempDir('switchboard-demo-bundle-');
    try {
      const outfile = path.join(outDir, 'demo-agent.js');
      await esbuild.build({
        entryPoints: [DEMO_ENTRY],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        mainFields: ['module', 'main'],
        logLevel: 'silent',
      });
      defineAgent('bundled', [outfile], { SWITCHBOARD_DEMO_SCENARIO: 'echo' });
      const c = await manager.start('bundled', workspace);
      assert.deepEqual(connectionOf(c).agentInfo, DEMO_AGENT_INFO);
      assert.equal((await c.prompt('bundled')).stopReason, 'end_turn');
      assert.equal(agentText(c.state), 'bundled');
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  });
});

describe('claude-code-acp against the fake model server (through the extension client)', function () {
  this.timeout(60_000);
  let root: string;
  let manager: SessionManager | undefined;
  let fake: Awaited<ReturnType<typeof startFakeModelServer>> | undefined;

  beforeEach(() => {
    root = tempDir('switchboard-claude-');
  });
  afterEach(async () => {
    await manager?.dispose();
    await fake?.close();
    manager = fake = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('completes one write-shell turn through fs/write_text_file and terminal/create', async () => {
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'README.md'), '# test workspace\n');
    fake = await startFakeModelServer({ workspace, logFile: path.join(root, 'model-requests.jsonl') });
    const launch = claudeCodeAcpLaunch({ home: path.join(root, 'home'), fakeUrl: fake.url });
    const files = new RecordingFiles();
    let terminals: RecordingTerminals | undefined;
    let stderr = '';
    manager = new SessionManager({
      agents: () => [
        { id: 'claude', name: 'claude-code-acp', command: launch.command, resolvedCommand: launch.command, args: launch.args, env: launch.env, source: 'settings', available: true },
      ],
      // The recipe's env is complete and curated (no IS_SANDBOX): inherit nothing on top of it.
      baseEnv: () => ({}),
      initializeTimeoutMs: () => 30_000,
      clientInfo: { name: 'demo-agent-test', version: '0' },
      filesFor: () => files,
      // The real gate with every effect on "ask": the agent's approved write and command must pass it.
      policy: testPolicy({ roots: [workspace], readCurrent: async (p) => files.docs.get(p)?.text ?? null }),
      terminalsFor: (_key, cwd) => (terminals = new RecordingTerminals(cwd, () => launch.env, { killGraceMs: 300 })),
      onStderr: (_id, text) => (stderr += text),
    });

    const c = await manager.start('claude', workspace);
    assert.equal(connectionOf(c).agentInfo?.name, '@zed-industries/claude-code-acp');
    observe(c, ALLOW);
    const res = await c.prompt('Create hello.txt, then run a shell command, then summarise.');
    assert.equal(res.stopReason, 'end_turn', `stderr:\n${stderr.slice(-2000)}`);

    const target = path.join(workspace, FILE_NAME);
    assert.deepEqual(files.writeRequests, [{ path: target, content: FILE_CONTENT }]);
    assert.deepEqual(files.writes, [target]);
    assert.equal(files.docs.get(target)?.text, FILE_CONTENT);

    assert.ok(terminals);
    const create = terminals.calls.find((call) => call.method === 'terminal/create');
    assert.equal(create?.params?.command, SHELL_CMD);
    const terminal = c.state.terminals[create.terminalId!];
    assert.match(terminal.output, /ACP_SHELL_OK/);
    assert.deepEqual(terminal.exitStatus, { exitCode: 0, signal: null });
    assert.equal(terminal.cwd, workspace);
    assert.equal(fs.readFileSync(path.join(workspace, 'shell-marker.txt'), 'utf8'), 'ACP_SHELL_OK\n', 'the shell ran in the workspace');

    const permissions = Object.values(c.state.permissions);
    assert.equal(permissions.length, 2, 'asked for the edit and the shell command');
    assert.ok(permissions.every((p) => p.state === 'selected'));
    const calls = Object.values(c.state.toolCalls);
    assert.ok(calls.some((t) => t.content.some((ct) => ct.type === 'diff' && ct.path === target && ct.newText === FILE_CONTENT)), 'diff in a tool call');
    assert.ok(calls.some((t) => t.content.some((ct) => ct.type === 'terminal' && ct.terminalId === create.terminalId)), 'terminal in a tool call');
    assert.ok(calls.every((t) => t.status === 'completed'), JSON.stringify(calls.map((t) => [t.title, t.status])));
    assert.equal(agentText(c.state), FINAL_TEXT);
    assert.equal(c.state.lastStopReason, 'end_turn');
    assert.deepEqual(
      fake.requests.filter((r) => r.api === 'anthropic' && r.move !== 'aux').map((r) => r.move),
      ['tool', 'tool', 'text'],
    );
    if (fake.stray.length) console.log(`      (refused egress: ${fake.stray.join(', ')})`);
  });
});

/**
 * Self-checks of the test fixtures themselves: the offline demo agent (every scenario the other
 * suites rely on), its CJS bundle, and the fake model server driving the real claude-code-acp.
 * All of it through `test/fakes/miniClient.ts`, not through the extension's own client.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { CONFLICT_APPENDED_LINE, DEMO_FILE, DEMO_FILE_CONTENT, DEMO_SHELL_COMMAND, GRANDCHILD_COMMAND } from '../../src/demo/scenarios';
import { DEMO_AGENT_INFO, EXIT_STDERR_LINES } from '../../src/demo/demoApp';
import { claudeCodeAcpLaunch, type AgentLaunch } from '../fakes/agents';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, SHELL_CMD, startFakeModelServer } from '../fakes/fake-model-server.mjs';
import { MiniClient, type MiniClientOptions } from '../fakes/miniClient';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

/** The parent's env without any demo knobs, plus the given ones. */
function demoEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SWITCHBOARD_DEMO_')) env[k] = v;
  return { ...env, ...extra };
}

function demoLaunch(scenario: string, extra: Record<string, string> = {}): AgentLaunch {
  return {
    command: process.execPath,
    args: ['--import', TSX_LOADER, DEMO_ENTRY],
    env: demoEnv({ SWITCHBOARD_DEMO_SCENARIO: scenario, ...extra }),
  };
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

describe('offline demo agent', function () {
  this.timeout(20_000);
  let workspace: string;
  const clients: MiniClient[] = [];

  async function start(scenario: string, options: Partial<MiniClientOptions> = {}, env: Record<string, string> = {}) {
    const client = MiniClient.start({ launch: demoLaunch(scenario, env), cwd: workspace, ...options });
    clients.push(client);
    return client;
  }

  async function startSession(scenario: string, options: Partial<MiniClientOptions> = {}, env: Record<string, string> = {}) {
    const client = await start(scenario, options, env);
    const init = await client.initialize();
    const sessionId = await client.newSession();
    return { client, init, sessionId };
  }

  beforeEach(() => {
    workspace = tempDir('switchboard-demo-');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('runs the demo turn: plan, chunks, thought, edit twice with diff, permissions, fs write, terminal, markdown', async () => {
    const file = path.join(workspace, DEMO_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'previous text\n');
    const { client, init, sessionId } = await startSession('demo');

    assert.deepEqual(init.agentInfo, DEMO_AGENT_INFO);
    assert.equal(init.agentCapabilities?.loadSession, false);
    const res = await client.prompt(sessionId, 'show me');
    assert.equal(res.stopReason, 'end_turn');

    assert.ok(client.updatesOf('plan').length >= 2, 'plan updates');
    const chunks = client.updatesOf('agent_message_chunk');
    assert.ok(chunks.length >= 5, 'several message chunks');
    assert.ok(chunks.some((c) => c.content.type === 'text' && c.content.text === ''), 'one empty chunk');
    assert.ok(chunks.every((c) => typeof c.messageId === 'string'), 'messageId on chunks');
    assert.ok(client.updatesOf('agent_thought_chunk').length > 0, 'thought');

    // The edit tool call is announced twice: empty first, then with the diff of what it read.
    const editCalls = client.updatesOf('tool_call').filter((u) => u.kind === 'edit');
    assert.equal(editCalls.length, 2);
    assert.equal(editCalls[0].toolCallId, editCalls[1].toolCallId);
    assert.deepEqual(editCalls[0].rawInput, {});
    assert.deepEqual(editCalls[0].content, []);
    assert.deepEqual(editCalls[1].locations, [{ path: file, line: 1 }]);
    assert.deepEqual(editCalls[1].content, [{ type: 'diff', path: file, oldText: 'previous text\n', newText: DEMO_FILE_CONTENT }]);
    assert.deepEqual(client.fsReads.map((r) => r.path), [file]);

    assert.deepEqual(
      client.permissions.map((p) => p.request.options.map((o) => o.kind)),
      [
        ['allow_always', 'allow_once', 'reject_once'],
        ['allow_always', 'allow_once', 'reject_once'],
      ],
    );
    assert.deepEqual(client.fsWrites.map((w) => w.path), [file]);
    assert.equal(fs.readFileSync(file, 'utf8'), DEMO_FILE_CONTENT);
    assert.match(DEMO_FILE_CONTENT, /offline demo agent/);

    // One shell string, no args, no cwd; then wait, output, release.
    const create = client.terminalCalls.find((c) => c.method === 'terminal/create');
    assert.deepEqual(create?.params, { sessionId, command: DEMO_SHELL_COMMAND, outputByteLimit: 32000 });
    assert.deepEqual(
      client.terminalCalls.map((c) => c.method),
      ['terminal/create', 'terminal/wait_for_exit', 'terminal/output', 'terminal/release'],
    );
    const [terminal] = client.terminals.values();
    assert.match(terminal.output, /DEMO_SHELL_OK/);
    assert.match(terminal.output, /demo/, 'ls ran in the session cwd');
    const updates = client.updatesOf('tool_call_update');
    assert.ok(updates.some((u) => u.content?.some((c) => c.type === 'terminal' && c.terminalId === terminal.id)));
    const finals = updates.filter((u) => u.status === 'completed').map((u) => u.toolCallId);
    assert.equal(new Set(finals).size, 2, 'edit and shell completed');

    // The summary is its own message (new messageId) and carries the markdown.
    const lastId = chunks[chunks.length - 1].messageId;
    assert.notEqual(lastId, chunks[0].messageId);
    const text = chunks
      .filter((c) => c.messageId === lastId)
      .map((c) => (c.content.type === 'text' ? c.content.text : ''))
      .join('');
    assert.match(text, /^## Demo finished$/m);
    assert.match(text, /^- \*\*Edit\*\*/m);
    assert.match(text, /`echo DEMO_SHELL_OK && ls`/);
  });

  it('creates the file when it did not exist (oldText null)', async () => {
    const { client, sessionId } = await startSession('demo');
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    const detailed = client.updatesOf('tool_call').filter((u) => u.kind === 'edit')[1];
    assert.equal(detailed.content?.[0]?.type === 'diff' && detailed.content[0].oldText, null);
    assert.equal(fs.readFileSync(path.join(workspace, DEMO_FILE), 'utf8'), DEMO_FILE_CONTENT);
  });

  it('marks rejected tool calls failed and goes on', async () => {
    const { client, sessionId } = await startSession('demo', { permission: 'reject' });
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    assert.equal(client.permissions.length, 2);
    assert.equal(client.fsWrites.length, 0);
    assert.equal(client.terminalCalls.length, 0);
    const failed = client.updatesOf('tool_call_update').filter((u) => u.status === 'failed');
    assert.equal(failed.length, 2);
    assert.match(client.agentText(), /rejected/);
  });

  it('reports a refused fs/write_text_file as a failed tool call and continues', async () => {
    const { client, sessionId } = await startSession('demo', {
      writeTextFile: () => {
        throw new Error('file changed on disk since it was read');
      },
    });
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    const failed = client.updatesOf('tool_call_update').find((u) => u.status === 'failed');
    assert.ok(failed, 'a failed update');
    const content = failed.content?.[0];
    assert.ok(content?.type === 'content' && content.content.type === 'text');
    assert.match(content.content.text, /file changed on disk since it was read/);
    assert.ok(client.terminalCalls.length > 0, 'went on to the shell step');
  });

  it('answers cancelled promptly when cancelled while a permission request is open', async () => {
    const { client, sessionId } = await startSession('demo', { permission: 'hang' });
    const turn = client.prompt(sessionId, 'go');
    await client.waitUntil(() => client.permissions.length === 1, 10_000, 'permission request');
    const t0 = Date.now();
    await client.cancel(sessionId);
    assert.equal((await turn).stopReason, 'cancelled');
    assert.ok(Date.now() - t0 < 1000, `cancelled within 1 s (took ${Date.now() - t0} ms)`);
    assert.equal(client.fsWrites.length, 0);
  });

  it("ends the turn cancelled when the client answers the permission 'cancelled' after session/cancel", async () => {
    const { client, sessionId } = await startSession('demo', { permission: 'cancel' });
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'cancelled');
    assert.equal(client.fsWrites.length, 0);
  });

  it('exit-stderr: three stderr lines, exit code 1, initialize fails', async () => {
    const client = await start('exit-stderr');
    await assert.rejects(client.initialize());
    const { code } = await client.exited;
    assert.equal(code, 1);
    assert.deepEqual(client.stderr.trimEnd().split('\n'), [...EXIT_STDERR_LINES]);
  });

  it('no-initialize: never answers and stays alive', async () => {
    const client = await start('no-initialize');
    let answered = false;
    void client.initialize().then(
      () => (answered = true),
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(answered, false);
    assert.equal(client.child.exitCode, null, 'still running');
    assert.ok(client.wire.some((r) => r.dir === 'to-agent'), 'initialize was sent');
  });

  it('echo: streams the prompt back in three chunks of one message', async () => {
    const { client, sessionId } = await startSession('echo');
    assert.equal((await client.prompt(sessionId, 'hello, switchboard ✓')).stopReason, 'end_turn');
    const chunks = client.updatesOf('agent_message_chunk');
    assert.equal(chunks.length, 3);
    assert.equal(new Set(chunks.map((c) => c.messageId)).size, 1);
    assert.equal(client.agentText(), 'hello, switchboard ✓');
  });

  it('chunks: streams N ten-byte chunks in order', async () => {
    const { client, sessionId } = await startSession('chunks', {}, { SWITCHBOARD_DEMO_CHUNKS: '2000' });
    const t0 = Date.now();
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    const ms = Date.now() - t0;
    const lines = client.agentText().split('\n').filter(Boolean);
    assert.equal(lines.length, 2000);
    assert.equal(lines[0], '000000001');
    assert.equal(lines[1999], '000002000');
    assert.ok(client.updatesOf('agent_message_chunk').every((c) => c.content.type === 'text' && Buffer.byteLength(c.content.text) === 10));
    console.log(`      (2000 chunks in ${ms} ms)`);
  });

  it('permission-only: asks for a never-announced tool call and reports the answer', async () => {
    const { client, sessionId } = await startSession('permission-only');
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    assert.equal(client.permissions.length, 1);
    const id = client.permissions[0].request.toolCall.toolCallId;
    assert.ok(!client.updates.some((n) => 'toolCallId' in n.update && n.update.toolCallId === id), 'never announced');
    assert.equal(client.agentText(), 'selected allow');
  });

  it('write-conflict: reads, waits, writes, and reports a refused write', async () => {
    const file = path.join(workspace, 'conflict.txt');
    fs.writeFileSync(file, 'original\n');
    const { client, sessionId } = await startSession(
      'write-conflict',
      {
        writeTextFile: () => {
          throw new Error('conflict: conflict.txt changed since the agent read it');
        },
      },
      { SWITCHBOARD_DEMO_DELAY_MS: '300' },
    );
    const t0 = Date.now();
    assert.equal((await client.prompt(sessionId, 'go')).stopReason, 'end_turn');
    assert.ok(Date.now() - t0 >= 300, 'waited the delay');
    assert.deepEqual(client.fsReads.map((r) => r.path), [file]);
    assert.deepEqual(client.fsWrites.map((w) => w.content), [`original\n${CONFLICT_APPENDED_LINE}`]);
    const failed = client.updatesOf('tool_call_update').find((u) => u.status === 'failed');
    assert.ok(failed?.content?.some((c) => c.type === 'content' && c.content.type === 'text' && /changed since the agent read it/.test(c.content.text)));
    assert.match(client.agentText(), /refused/);
  });

  it('grandchild-terminal: one shell string, turn ends cancelled on session/cancel', async () => {
    const { client, sessionId } = await startSession('grandchild-terminal');
    const turn = client.prompt(sessionId, 'go');
    await client.waitUntil(() => client.terminals.size === 1, 10_000, 'terminal/create');
    const [terminal] = client.terminals.values();
    assert.deepEqual(terminal.params, { sessionId, command: GRANDCHILD_COMMAND, outputByteLimit: 32000 });
    await client.waitUntil(() => terminal.output.includes('SWITCHBOARD_GRANDCHILD_READY'), 5000, 'command output');
    assert.ok(client.updatesOf('tool_call_update').some((u) => u.content?.some((c) => c.type === 'terminal' && c.terminalId === terminal.id)));
    await client.cancel(sessionId);
    assert.equal((await turn).stopReason, 'cancelled');
    // The shell(s) and both sleeps still run: by default the agent leaves cleanup to the client.
    assert.ok(liveInGroup(terminal.proc.pid!) >= 3, 'terminal group still running after the cancelled turn');
    await client.close();
    await client.waitUntil(() => liveInGroup(terminal.proc.pid!) === 0, 3000, 'the terminal group to die');
  });

  it('grandchild-terminal with SWITCHBOARD_DEMO_RELEASE_ON_CANCEL=1 kills and releases its terminal itself', async () => {
    const { client, sessionId } = await startSession('grandchild-terminal', {}, { SWITCHBOARD_DEMO_RELEASE_ON_CANCEL: '1' });
    const turn = client.prompt(sessionId, 'go');
    await client.waitUntil(() => client.terminals.size === 1, 10_000, 'terminal/create');
    await client.cancel(sessionId);
    assert.equal((await turn).stopReason, 'cancelled');
    await client.waitUntil(() => client.terminalCalls.some((c) => c.method === 'terminal/release'), 5000, 'terminal/release');
    assert.deepEqual(
      client.terminalCalls.map((c) => c.method),
      ['terminal/create', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release'],
    );
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
      const client = MiniClient.start({
        launch: { command: process.execPath, args: [outfile], env: demoEnv({ SWITCHBOARD_DEMO_SCENARIO: 'echo' }) },
        cwd: workspace,
      });
      clients.push(client);
      await client.initialize();
      const sessionId = await client.newSession();
      assert.equal((await client.prompt(sessionId, 'bundled')).stopReason, 'end_turn');
      assert.equal(client.agentText(), 'bundled');
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  });
});

describe('claude-code-acp against the fake model server', function () {
  this.timeout(60_000);

  it('completes one write-shell turn through fs/write_text_file and terminal/create', async () => {
    const root = tempDir('switchboard-claude-');
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'README.md'), '# test workspace\n');
    const fake = await startFakeModelServer({ workspace, logFile: path.join(root, 'model-requests.jsonl') });
    const client = MiniClient.start({
      launch: claudeCodeAcpLaunch({ home: path.join(root, 'home'), fakeUrl: fake.url }),
      cwd: workspace,
      permission: 'allow',
    });
    try {
      const init = await client.initialize();
      assert.equal(init.agentInfo?.name, '@zed-industries/claude-code-acp');
      const sessionId = await client.newSession();
      const res = await client.prompt(sessionId, 'Create hello.txt, then run a shell command, then summarise.');
      assert.equal(res.stopReason, 'end_turn', `stderr:\n${client.stderr.slice(-2000)}`);

      const target = path.join(workspace, FILE_NAME);
      assert.deepEqual(client.fsWrites.map((w) => [w.path, w.content]), [[target, FILE_CONTENT]]);
      assert.equal(fs.readFileSync(target, 'utf8'), FILE_CONTENT);
      const create = client.terminalCalls.find((c) => c.method === 'terminal/create')?.params as { command: string; args?: string[] };
      assert.equal(create?.command, SHELL_CMD);
      assert.equal(fs.readFileSync(path.join(workspace, 'shell-marker.txt'), 'utf8'), 'ACP_SHELL_OK\n');
      assert.equal(client.permissions.length, 2, 'asked for the edit and the shell command');
      assert.ok(client.updatesOf('tool_call').some((u) => u.content?.some((c) => c.type === 'diff')), 'diff in a tool call');
      assert.equal(client.agentText(), FINAL_TEXT);
      assert.deepEqual(
        fake.requests.filter((r) => r.api === 'anthropic' && r.move !== 'aux').map((r) => r.move),
        ['tool', 'tool', 'text'],
      );
      if (fake.stray.length) console.log(`      (refused egress: ${fake.stray.join(', ')})`);
    } finally {
      await client.close();
      await fake.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

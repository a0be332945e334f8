/**
 * The ACP client over real stdio: SessionManager spawns the scripted agent (src/demo, through tsx)
 * as its own process group. Launch failures, the initialize timeout, a full demo turn, and process
 * cleanup checked from the process table.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentLaunchError } from '../../src/acp/connection';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { SessionController } from '../../src/acp/sessionController';
import type { ResolvedAgent } from '../../src/config/agents';
import { MemoryFiles } from '../fakes/memoryFiles';
import { testPolicy } from '../fakes/policy';
import type { PolicyDefaults } from '../../src/policy/gate';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;

function agent(id: string, scenario: string | undefined, extra: Partial<ResolvedAgent> = {}): ResolvedAgent {
  return {
    id,
    name: `Agent ${id}`,
    command: process.execPath,
    resolvedCommand: process.execPath,
    args: ['--import', TSX, DEMO],
    env: scenario ? { SWITCHBOARD_DEMO_SCENARIO: scenario } : {},
    source: 'settings',
    available: true,
    ...extra,
  };
}

/** Live (not zombie) processes of a process group, from the process table. */
function liveInGroup(pgid: number): number {
  const table = execFileSync('ps', ['-eo', 'pgid=,stat='], { encoding: 'utf8' });
  return table.split('\n').map((l) => l.trim().split(/\s+/)).filter(([g, st]) => Number(g) === pgid && st && !st.startsWith('Z')).length;
}

/** Live processes whose command line is exactly `cmd`. */
/**
 * Live processes running exactly `cmd`, other than those in `before` (a process another test left
 * to be reaped must not count as this test's).
 */
function liveCommands(cmd: string, before: ReadonlySet<string> = new Set()): number {
  return livePids(cmd).filter((p) => !before.has(p)).length;
}

function livePids(cmd: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return table.split('\n').map((l) => l.trim().split(/\s+/)).filter(([, st, ...args]) => st !== undefined && !st.startsWith('Z') && args.join(' ') === cmd).map(([pid]) => pid);
}

describe('ACP client over real stdio', function () {
  this.timeout(30_000);
  let cwd: string;
  let files: MemoryFiles;
  let manager: SessionManager;
  /** The gate's defaults for the current test (every effect asks unless a test says otherwise). */
  let defaults: Partial<PolicyDefaults>;
  const agents: ResolvedAgent[] = [
    agent('demo', 'demo'),
    agent('exit', 'exit-stderr'),
    // A marker argument lets the test find this process in the process table.
    agent('silent', 'no-initialize', { args: ['--import', TSX, DEMO, `--marker=silent-${process.pid}`] }),
    agent('grandchild', 'grandchild-terminal'),
    agent('probe', 'gate-probe'),
    agent('borrow', 'gate-borrow'),
    agent('missing', undefined, { command: 'no-such-agent-xyz', resolvedCommand: 'no-such-agent-xyz', args: ['--acp'] }),
  ];

  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-stdio-')));
    files = new MemoryFiles();
    defaults = {};
    manager = new SessionManager({
      policy: testPolicy({ roots: [cwd], readCurrent: async (p) => files.docs.get(p)?.text ?? null, defaults: () => defaults }),
      agents: () => agents,
      baseEnv: () => process.env,
      // Generous: the demo agent runs from source through tsx, slow on a busy machine.
      initializeTimeoutMs: () => 6000,
      clientInfo: { name: 'stdio-test', version: '0' },
      filesFor: () => files,
      terminalsFor: (_key, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 300 }),
    });
  });

  afterEach(async () => {
    await manager.dispose();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('runs a demo turn: plan, stream, edit with permission, terminal, answer', async () => {
    const c = await manager.start('demo', cwd);
    const answered: string[] = [];
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          const allow = p.permission.options.find((o) => o.kind === 'allow_once')!;
          answered.push(allow.optionId);
          setTimeout(() => c.answerPermission(p.permission.permissionId, allow.optionId, 'api'), 5);
        }
      }
    });
    const res = await c.prompt('show me');
    assert.equal(res.stopReason, 'end_turn');
    assert.deepEqual(c.state.entries.filter((e) => e.kind === 'notice'), [], 'nothing refused');
    assert.equal(answered.length, 2);
    assert.deepEqual(files.writes, [path.join(cwd, 'demo', 'hello.md')]);
    const term = Object.values(c.state.terminals)[0];
    assert.match(term.output, /DEMO_SHELL_OK/);
    assert.deepEqual(term.exitStatus, { exitCode: 0, signal: null });
    assert.ok(c.state.plan.length > 0);
    assert.ok(c.state.entries.some((e) => e.kind === 'thought'));
    const edit = Object.values(c.state.toolCalls).find((t) => t.kind === 'edit')!;
    assert.equal(edit.status, 'completed');
    assert.equal(c.state.entries.filter((e) => e.kind === 'tool_call').length, Object.keys(c.state.toolCalls).length, 'a repeated tool_call adds no second card');
  });

  it('the permission gate over stdio: each refusal case fails closed, approved effects run', async () => {
    const c = await manager.start('probe', cwd);
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          setTimeout(() => c.answerPermission(p.permission.permissionId, p.permission.options.find((o) => o.kind === 'allow_once')!.optionId, 'api'), 5);
        }
      }
    });
    assert.equal((await c.prompt('probe the gate')).stopReason, 'end_turn');
    const answer = c.state.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    const outcome = (name: string) => new RegExp(`- ${name}: (performed|refused)`).exec(answer)?.[1];
    assert.equal(outcome('unapproved write'), 'refused', answer);
    assert.equal(outcome('content changed after approval'), 'refused');
    assert.equal(outcome('approved write'), 'performed');
    assert.equal(outcome('second use of allow-once'), 'refused');
    assert.equal(outcome('different command'), 'refused');
    assert.equal(outcome('different cwd'), 'refused');
    assert.equal(outcome('approved command'), 'performed');
    assert.match(answer, /matches no approved intent/);
    // Fail closed: exactly the approved write and the approved command happened.
    assert.deepEqual(files.writes, [path.join(cwd, 'gate', 'probe.txt')]);
    assert.equal(files.docs.get(path.join(cwd, 'gate', 'probe.txt'))?.text, 'approved content\n');
    assert.equal(Object.keys(c.state.terminals).length, 1);
    assert.match(Object.values(c.state.terminals)[0].output, /GATE_PROBE_OK/);
    assert.equal(c.state.entries.filter((e) => e.kind === 'notice' && /Refused/.test(e.text)).length, 5, 'each refusal is shown in the thread');
  });

  it('another session cannot use this session\'s approval or "always" grant, over stdio', async () => {
    const a = await manager.start('probe', cwd);
    a.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          const always = p.permission.options.find((o) => o.kind === 'allow_always')!;
          setTimeout(() => a.answerPermission(p.permission.permissionId, always.optionId, 'api'), 5);
        }
      }
    });
    await a.prompt('probe and always allow');
    const b = await manager.start('probe', cwd); // same agent, its own process and session
    const borrow = await manager.start('borrow', cwd);
    assert.notEqual(b.state.key, a.state.key);
    const writesBefore = files.writes.length;
    await borrow.prompt('use the other session\'s approval');
    const answer = borrow.state.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    assert.match(answer, /borrowed write: refused .*matches no approved intent/);
    assert.equal(files.writes.length, writesBefore, 'the other session wrote nothing');
    assert.ok(writesBefore >= 1, 'the first session\'s "always" grant covered its own writes');
    await b.dispose();
  });

  it('an agent that exits 1 shows exit code, stderr tail, command line and PATH', async () => {
    await assert.rejects(manager.start('exit', cwd), (err: unknown) => {
      assert.ok(err instanceof AgentLaunchError);
      assert.match(err.view.message, /exited with code 1 before it was ready/);
      assert.equal(err.view.exitCode, 1);
      assert.ok(err.view.stderrTail?.some((l) => /config missing/.test(l)), JSON.stringify(err.view.stderrTail));
      assert.match(err.view.commandLine ?? '', /demoAgent\.ts/);
      assert.equal(err.view.pathUsed, process.env.PATH);
      return true;
    });
    const s = manager.list()[0].state;
    assert.equal(s.status, 'error');
    assert.equal(s.entries.at(-1)?.kind, 'notice');
  });

  it('an agent that never answers initialize times out and is killed', async () => {
    const before = Date.now();
    await assert.rejects(manager.start('silent', cwd), (err: unknown) => {
      assert.ok(err instanceof AgentLaunchError);
      assert.match(err.message, /did not answer "initialize" within 6 s/);
      return true;
    });
    assert.ok(Date.now() - before < 14000);
    // No process of ours may be left: look for the demo agent with that scenario.
    const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
    const left = table.split('\n').map((l) => l.trim().split(/\s+/)).find(([, st, ...args]) => !st?.startsWith('Z') && args.join(' ').includes(`--marker=silent-${process.pid}`));
    assert.equal(left, undefined);
  });

  it('a command that is not on PATH says so', async () => {
    await assert.rejects(manager.start('missing', cwd), (err: unknown) => {
      assert.ok(err instanceof AgentLaunchError);
      assert.match(err.view.message, /"no-such-agent-xyz" was not found/);
      assert.equal(err.view.commandLine, 'no-such-agent-xyz --acp');
      return true;
    });
  });

  it('cancel and close leave no terminal grandchild and no agent process', async () => {
    // This scenario runs its command without asking: let commands through for this test.
    defaults = { command: 'allow' };
    const earlier = new Set(livePids('sleep 300'));
    const c: SessionController = await manager.start('grandchild', cwd);
    const agentPid = (c as unknown as { connection: { pid: number } }).connection.pid;
    assert.ok(liveInGroup(agentPid) >= 1);
    const turn = c.prompt('start it');
    const deadline = Date.now() + 10_000;
    while (!Object.values(c.state.terminals).some((t) => t.output.includes('READY')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(liveCommands('sleep 300', earlier), 2, 'child and grandchild are running');
    await c.cancel();
    assert.equal((await turn).stopReason, 'cancelled');
    await manager.close(c.state.key);
    assert.equal(liveCommands('sleep 300', earlier), 0);
    assert.equal(liveInGroup(agentPid), 0, 'agent process group gone');
  });

  it('an agent killed during the session is reported with its signal', async () => {
    const c = await manager.start('demo', cwd);
    const agentPid = (c as unknown as { connection: { pid: number } }).connection.pid;
    process.kill(agentPid, 'SIGKILL');
    const deadline = Date.now() + 5000;
    while (c.state.status !== 'error' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(c.state.status, 'error');
    assert.match(c.state.error?.message ?? '', /killed by SIGKILL during the session/);
  });
});

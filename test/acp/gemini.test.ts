/**
 * gemini-cli 0.61 (a real agent, offline against the fake model server's Gemini dialect) creates a
 * file through our `fs/write_text_file`: it reads the target first, and the compatibility rule
 * (src/acp/compat.ts) answers its read of a missing file with empty text instead of -32002, which
 * its bundled ACP connection cannot classify. Also: reject writes nothing, and the agent's own
 * shell runs in the session's folder.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { SessionController } from '../../src/acp/sessionController';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';
import { geminiCliLaunch } from '../fakes/agents';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';

const PROMPT = 'Create a file named hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.';

/** Answers every permission request of `c` with the first option of `kind`. */
function answerAll(c: SessionController, kind: 'allow_once' | 'reject_once'): { dispose(): void } {
  return c.onDidChange(() => {
    for (const p of Object.values(c.state.permissions)) {
      if (p.state !== 'waiting') continue;
      const option = p.options.find((o) => o.kind === kind);
      if (option) setTimeout(() => c.answerPermission(p.permissionId, option.optionId, 'person'), 5);
    }
  });
}

describe('gemini-cli (real agent): creating a file through the client', function () {
  this.timeout(120_000);
  let root: string;
  const fakes: FakeModelServer[] = [];
  const managers: SessionManager[] = [];

  /** A gemini-cli session in `workspace`, its model a fake server scripted for that folder. */
  const start = async (workspace: string) => {
    const fake = await startFakeModelServer({ workspace });
    fakes.push(fake);
    const launch = geminiCliLaunch({ home: path.join(root, 'home'), fakeUrl: fake.url });
    const agents: ResolvedAgent[] = [{ id: 'gemini', name: 'Gemini CLI', command: launch.command, resolvedCommand: launch.command, args: launch.args, env: launch.env, source: 'settings', available: true }];
    const files = new MemoryFiles();
    const m = new SessionManager({
      agents: () => agents,
      baseEnv: () => ({}),
      initializeTimeoutMs: () => 60_000,
      clientInfo: { name: 'gemini-test', version: '0' },
      filesFor: () => files,
      policy: allowAll(),
      terminalsFor: (_k, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
    });
    managers.push(m);
    return { c: await m.start('gemini', workspace), files };
  };

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-gemini-')));
  });
  after(async () => {
    for (const m of managers) await m.dispose();
    for (const f of fakes) await f.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('approve: the file is created through fs/write_text_file, the shell runs in the agent, the rule shows on the wire', async () => {
    const workspace = path.join(root, 'approve');
    fs.mkdirSync(workspace);
    const { c, files } = await start(workspace);
    const sub = answerAll(c, 'allow_once');
    try {
      assert.equal((await c.prompt(PROMPT)).stopReason, 'end_turn');
    } finally {
      sub.dispose();
    }
    const file = path.join(workspace, FILE_NAME);
    const calls = Object.values(c.state.toolCalls);
    assert.equal(files.docs.get(file)?.text, FILE_CONTENT, `written through fs/write_text_file; tool calls: ${JSON.stringify(calls).slice(0, 2000)}`);
    const write = calls.find((t) => t.kind === 'edit');
    assert.equal(write?.status, 'completed');
    // gemini runs its shell itself: the marker is on disk, no terminal/create reached us.
    const shell = calls.find((t) => t.kind === 'execute');
    assert.equal(shell?.status, 'completed');
    assert.equal(shell?.verification, 'agent');
    assert.equal(fs.readFileSync(path.join(workspace, 'shell-marker.txt'), 'utf8').trim(), 'ACP_SHELL_OK');
    const rows = c.capabilities!.rows();
    assert.equal(rows.find((r) => r.capability === 'terminal/create')?.exercised, 0);
    assert.ok((rows.find((r) => r.capability === 'fs/read_text_file: compatibility rule applied (gemini-cli/missing-file-reads-empty)')?.exercised ?? 0) >= 1, JSON.stringify(rows));
    const marked = c.protocol!.all().filter((e) => e.dir === 'out' && JSON.stringify(e.message).includes('agentSwitchboard/compatibilityRule'));
    assert.ok(marked.length >= 1, 'the answer the rule changed is marked in the inspector record');
    assert.ok(JSON.stringify(c.state.entries).includes(FINAL_TEXT.slice(0, 30)));
    assert.deepEqual(c.connection!.sessionSupport, { list: false, load: true, resume: false, close: false, delete: false, logout: false }, 'what gemini-cli 0.61 declares');
  });

  it('reject: nothing is written and the turn still ends', async () => {
    const workspace = path.join(root, 'reject');
    fs.mkdirSync(workspace);
    const { c, files } = await start(workspace);
    const sub = answerAll(c, 'reject_once');
    let stopReason: string;
    try {
      ({ stopReason } = await c.prompt(PROMPT));
    } finally {
      sub.dispose();
    }
    assert.ok(['end_turn', 'cancelled'].includes(stopReason), stopReason);
    assert.equal(files.writes.length, 0, 'no fs/write_text_file was performed');
    assert.ok(!fs.existsSync(path.join(workspace, 'shell-marker.txt')), 'the rejected shell command did not run');
    assert.ok(Object.values(c.state.permissions).some((p) => p.state !== 'waiting'), 'a permission was asked and answered');
  });
});

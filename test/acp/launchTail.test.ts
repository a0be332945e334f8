/**
 * Issue 18, holdout: the error that `api.startSession` throws (the SessionManager's, passed on
 * unchanged by app.ts) lacked the stderr tail its TSDoc promises. An agent that writes to stderr and
 * exits, before `initialize` or during `session/new`, now fails with an AgentLaunchError whose
 * message quotes the tail and whose `stderrTail` field holds it, secrets redacted.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentLaunchError } from '../../src/acp/connection';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { MemoryFiles } from '../fakes/memoryFiles';
import { testPolicy } from '../fakes/policy';

const KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';

/** Writes three lines to stderr (one with a key) and exits 3, at once or when `session/new` arrives. */
const SCRIPT = (when: 'start' | 'session/new') => `
const die = () => {
  process.stderr.write('loading config from ~/.agent\\n');
  process.stderr.write('using ANTHROPIC_API_KEY=${KEY}\\n');
  process.stderr.write('fatal: the model refused the key (401)\\n');
  setTimeout(() => process.exit(3), 20);
};
if (${JSON.stringify(when)} === 'start') die();
else {
  let buf = '';
  process.stdin.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\\n')) >= 0; ) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } }) + '\\n');
      if (m.method === 'session/new') die();
    }
  });
}`;

function agent(id: string, when: 'start' | 'session/new'): ResolvedAgent {
  return { id, name: `Agent ${id}`, command: process.execPath, resolvedCommand: process.execPath, args: ['-e', SCRIPT(when)], env: {}, source: 'settings', available: true };
}

describe('the launch error of an agent that writes to stderr and exits carries the tail (api.startSession)', function () {
  this.timeout(30_000);
  let cwd: string;
  let manager: SessionManager;

  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-tail-')));
    const files = new MemoryFiles();
    manager = new SessionManager({
      policy: testPolicy({ roots: [cwd], readCurrent: async () => null }),
      agents: () => [agent('early', 'start'), agent('late', 'session/new')],
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 10_000,
      clientInfo: { name: 'tail-test', version: '0' },
      filesFor: () => files,
      terminalsFor: (_key, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 300 }),
    });
  });
  afterEach(async () => {
    await manager.dispose();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  for (const id of ['early', 'late']) {
    it(`${id === 'early' ? 'before initialize' : 'during session/new'}: message and stderrTail hold the lines, the key redacted`, async () => {
      const err = await manager.start(id, cwd).then(
        () => assert.fail('started'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof AgentLaunchError, String(err));
      assert.match(err.message, /exited with code 3 before it was ready/);
      assert.match(err.message, /lines on stderr:\n {2}loading config from ~\/\.agent\n {2}using ANTHROPIC_API_KEY=\[redacted\]\n {2}fatal: the model refused the key \(401\)$/);
      assert.deepEqual(err.stderrTail, ['loading config from ~/.agent', 'using ANTHROPIC_API_KEY=[redacted]', 'fatal: the model refused the key (401)']);
      assert.equal(err.exitCode, 3);
      assert.match(err.commandLine ?? '', /-e/);
      const everything = JSON.stringify({ message: err.message, view: err.view, tail: err.stderrTail, state: manager.list()[0].state });
      assert.ok(!everything.includes(KEY), 'the key appears nowhere: not in the error, its view, nor the session shown');
    });
  }
});

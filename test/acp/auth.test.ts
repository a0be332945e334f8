/**
 * "Authentication required" (-32000) on `session/new` (issue 18, item 6): the person is offered the
 * agent's `authMethods`; an agent method is sent as `authenticate` and `session/new` is tried once
 * more; a `type: "terminal"` method runs the login, then the agent is started again (a new process,
 * `initialize` again) and is never sent `authenticate`. The demo agent runs as a real process with
 * `SWITCHBOARD_DEMO_REQUIRE_AUTH=1` (its terminal login is `demo-agent --login`).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentConnection } from '../../src/acp/connection';
import { SessionManager, type AuthChoice, type AuthPort } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const tempDir = (p: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

describe('authentication required on session/new (issue 18, item 6)', function () {
  this.timeout(60_000);
  let workspace: string;
  let demoState: string;
  let manager: SessionManager;
  let authenticated: string[];
  let started: AgentConnection[];
  const real = { authenticate: AgentConnection.prototype.authenticate, start: AgentConnection.start };

  beforeEach(() => {
    workspace = tempDir('switchboard-auth-ws-');
    demoState = tempDir('switchboard-auth-demo-');
    authenticated = [];
    started = [];
    AgentConnection.prototype.authenticate = async function (this: AgentConnection, methodId: string) {
      authenticated.push(methodId);
      return real.authenticate.call(this, methodId);
    };
    AgentConnection.start = async (...args: Parameters<typeof AgentConnection.start>) => {
      const c = await real.start.apply(AgentConnection, args);
      started.push(c);
      return c;
    };
    const agents: ResolvedAgent[] = [{ id: 'demo', name: 'Demo', command: process.execPath, resolvedCommand: process.execPath, args: ['--import', TSX_LOADER, DEMO_ENTRY], env: { SWITCHBOARD_DEMO_REQUIRE_AUTH: '1', SWITCHBOARD_DEMO_STATE_DIR: demoState, SWITCHBOARD_DEMO_SCENARIO: 'echo' }, source: 'settings', available: true }];
    const files = new MemoryFiles();
    manager = new SessionManager({
      agents: () => agents,
      baseEnv: () => ({ ...process.env }),
      initializeTimeoutMs: () => 15_000,
      clientInfo: { name: 'auth-test', version: '0' },
      filesFor: () => files,
      policy: allowAll(),
      terminalsFor: (_key, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
    });
  });
  afterEach(async () => {
    AgentConnection.prototype.authenticate = real.authenticate;
    AgentConnection.start = real.start;
    await manager.dispose();
    for (const d of [workspace, demoState]) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A person who picks `methodId`; a terminal login runs as a plain child process here. */
  function person(methodId: string | undefined): AuthPort & { offered: AuthChoice[][]; ran: string[][] } {
    const offered: AuthChoice[][] = [];
    const ran: string[][] = [];
    return {
      offered,
      ran,
      choose: async (_agent, methods) => {
        offered.push([...methods]);
        return methods.find((m) => m.id === methodId);
      },
      runTerminal: (_agent, method, cwd) =>
        new Promise<void>((resolve, reject) => {
          ran.push([method.terminal.command, ...method.terminal.args]);
          const child = spawn(method.terminal.command, method.terminal.args, { cwd, env: method.terminal.env, stdio: 'ignore' });
          child.on('error', reject);
          child.on('exit', () => resolve());
        }),
    };
  }

  it('offers the agent\'s methods, sends authenticate for an agent method, and retries session/new once', async () => {
    const p = person('demo-token');
    const c = await manager.start('demo', workspace, p);
    assert.equal(c.state.status, 'ready');
    assert.ok(c.state.sessionId);
    assert.deepEqual(p.offered.map((list) => list.map((m) => [m.id, !!m.terminal])), [[['demo-login', true], ['demo-token', false]]]);
    assert.deepEqual(authenticated, ['demo-token']);
    assert.equal(started.length, 1, 'the same process');
    assert.equal(c.state.error, undefined, 'the first failure is not left as the session\'s error');
    assert.match(c.state.entries.map((e) => ('text' in e ? e.text : '')).join('\n'), /Logging in to Demo \(Use the demo token\)/);
    assert.equal((await c.prompt('hello')).stopReason, 'end_turn');
  });

  it('runs a terminal method\'s login, then starts the agent again and never sends authenticate', async () => {
    const p = person('demo-login');
    const c = await manager.start('demo', workspace, p);
    assert.equal(c.state.status, 'ready');
    assert.deepEqual(p.ran, [[process.execPath, '--import', TSX_LOADER, DEMO_ENTRY, '--login']]);
    assert.deepEqual(authenticated, [], 'no authenticate for a terminal method');
    assert.equal(started.length, 2, 'a new agent process after the login');
    assert.notEqual(started[0].pid, started[1].pid);
    assert.equal(c.connection, started[1]);
    assert.equal(started[1].protocol.all().filter((e) => (e.message as { method?: string }).method === 'initialize').length, 1, 'initialized again');
    assert.equal((await c.prompt('hello')).stopReason, 'end_turn');
  });

  it('keeps the error when the person declines, and tries once only when the login did not take', async () => {
    await assert.rejects(manager.start('demo', workspace, person(undefined)), /Authentication required/i);
    assert.equal(manager.list().at(-1)!.state.status, 'error');
    assert.deepEqual(authenticated, []);
    // A terminal "login" that does not log in: one more session/new, then the error.
    const noop: AuthPort = { choose: async (_a, methods) => methods.find((m) => m.terminal), runTerminal: async () => undefined };
    await assert.rejects(manager.start('demo', workspace, noop), /Authentication required/i);
    assert.equal(started.length, 3, 'one restart, no loop');
    // Without a port (the API's starts) nothing is asked.
    await assert.rejects(manager.start('demo', workspace), /Authentication required/i);
  });
});

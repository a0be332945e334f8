/**
 * Agent management inside a real VS Code:
 * - *Install Agent from Registry…* with a local registry file: a binary agent whose archive matches
 *   its SHA-256 is installed into the extension's storage, added to the agents and runs a real
 *   session; the same archive under a wrong digest is refused and nothing is added; an npx agent
 *   (claude-code-acp from npm) is installed with npm and answers a turn against the fake model server.
 * - *Log In to Agent…*: an agent that answers `session/new` with "authentication required" is
 *   logged in through its terminal method (its own command in a VS Code terminal) and through an
 *   agent method (`authenticate`), after which sessions start.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, runCommand, extensionPath, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { sha256, tarGz } from '../fakes/registry/archives';
import { claudeCodeAcpLaunch } from '../fakes/agents';
import { FINAL_TEXT, startFakeModelServer } from '../fakes/fake-model-server.mjs';

const DEMO = () => path.join(extensionPath(), 'dist', 'demo-agent.js');

describe('agents from the registry and logins', () => {
  let server: http.Server;
  let baseUrl: string;
  let tmp: string;
  let archive: Buffer;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'as-registry-'));
    // A "binary" agent: a shell script that runs the demo agent with the editor's runtime.
    archive = tarGz([
      { type: 'dir', name: 'bin/' },
      { type: 'file', name: 'bin/demo-acp', content: '#!/bin/sh\nexec "$DEMO_NODE" "$DEMO_SCRIPT" "$@"\n', mode: 0o644 },
    ]);
    server = http.createServer((req, res) => {
      if (req.url === '/demo-acp-1.0.0.tar.gz') res.end(archive);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const binary = (digest: string) => ({
      'linux-x86_64': { archive: `${baseUrl}/demo-acp-1.0.0.tar.gz`, cmd: './bin/demo-acp', env: { DEMO_NODE: process.execPath, DEMO_SCRIPT: DEMO(), ELECTRON_RUN_AS_NODE: '1', SWITCHBOARD_DEMO_SCENARIO: 'echo' }, sha256: digest },
    });
    const registry = {
      version: '1.0.0',
      agents: [
        { id: 'demo-binary', name: 'Demo (binary from the registry)', version: '1.0.0', description: 'The demo agent, packed as a binary', authors: ['tests'], license: 'MIT', distribution: { binary: binary(sha256(archive)) } },
        { id: 'demo-binary-tampered', name: 'Demo (tampered archive)', version: '1.0.0', description: 'Its digest does not match the archive', authors: ['tests'], license: 'MIT', distribution: { binary: binary('0'.repeat(64)) } },
        { id: 'claude-code-acp', name: 'Claude Code (npm)', version: '0.16.2', description: 'claude-code-acp from npm', authors: ['tests'], license: 'Apache-2.0', distribution: { npx: { package: '@zed-industries/claude-code-acp@0.16.2' } } },
      ],
    };
    fs.writeFileSync(path.join(tmp, 'registry.json'), JSON.stringify(registry));
    await vscode.workspace.getConfiguration('agentSwitchboard').update('registry.url', path.join(tmp, 'registry.json'), vscode.ConfigurationTarget.Global);
    await setAgents([]);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('registry.url', undefined, vscode.ConfigurationTarget.Global);
    await setAgents([]);
    server?.close();
  });

  it('installs a binary agent whose SHA-256 matches, refuses a tampered one, and installs an npx agent with npm', async function () {
    this.timeout(300_000);
    const a = await api();
    const good = (await runCommand('agentSwitchboard.installAgent', 'demo-binary')) as { id: string; command: string };
    assert.strictEqual(good.id, 'demo-binary');
    assert.ok(fs.existsSync(good.command) && (fs.statSync(good.command).mode & 0o111) !== 0, `installed and executable: ${good.command}`);
    await until('the agent is offered', () => a.agents().find((x) => x.id === 'demo-binary' && x.available), 10_000);
    const key = await a.startSession({ agentId: 'demo-binary', cwd: workspaceDir() });
    assert.strictEqual((await a.prompt(key, 'hello from a registry agent')).stopReason, 'end_turn');
    assert.ok(a.session(key)!.entries.some((e) => e.kind === 'agent' && e.text === 'hello from a registry agent'));
    await a.closeSession(key);

    const bad = (await runCommand('agentSwitchboard.installAgent', 'demo-binary-tampered')) as { error?: string };
    assert.match(bad.error ?? '', /SHA-256|sha256|digest/i, bad.error);
    assert.match(bad.error ?? '', new RegExp(sha256(archive)), 'the message names the archive\'s actual digest');
    assert.ok(!a.agents().some((x) => x.id === 'demo-binary-tampered'), 'a refused agent is not added');
    const storage = path.dirname(path.dirname(path.dirname(good.command)));
    assert.ok(!fs.existsSync(path.join(path.dirname(storage), 'demo-binary-tampered')), 'nothing of it is left in storage');

    // npx: the real package from npm, installed with npm into the extension's storage.
    const npx = (await runCommand('agentSwitchboard.installAgent', 'claude-code-acp')) as { id: string; command: string; args: string[]; error?: string };
    assert.ok(!npx.error, npx.error);
    assert.ok(npx.args[0] && fs.existsSync(npx.args[0]) && npx.args[0].includes(`${path.sep}claude-code-acp${path.sep}0.16.2${path.sep}`), JSON.stringify(npx));
    // Pointed at the fake model server (as a person would set its environment), it answers a turn.
    const fake = await startFakeModelServer({ workspace: workspaceDir(), scenario: 'text' });
    try {
      const launch = claudeCodeAcpLaunch({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'as-claude-home-')), fakeUrl: fake.url });
      const agents = vscode.workspace.getConfiguration('agentSwitchboard').get<{ id: string; env?: Record<string, string | null> }[]>('agents') ?? [];
      await setAgents(agents.map((x) => (x.id === 'claude-code-acp' ? { ...x, name: 'Claude Code (npm)', command: npx.command, args: npx.args, env: { ...x.env, ...launch.env, IS_SANDBOX: null } } : (x as never))));
      await until('the npm agent is offered', () => a.agents().find((x) => x.id === 'claude-code-acp' && x.available), 10_000);
      const k = await a.startSession({ agentId: 'claude-code-acp', cwd: workspaceDir() });
      assert.strictEqual((await a.prompt(k, 'Say hello.')).stopReason, 'end_turn');
      assert.ok(a.session(k)!.entries.some((e) => e.kind === 'agent' && e.text.includes(FINAL_TEXT)));
      await a.closeSession(k);
    } finally {
      await fake.close();
    }
  });

  it('logs an agent in through a terminal (type "terminal", and the older _meta["terminal-auth"]), and through authenticate, before sessions start', async function () {
    this.timeout(120_000);
    const a = await api();
    const stateA = fs.mkdtempSync(path.join(os.tmpdir(), 'as-login-a-'));
    const stateB = fs.mkdtempSync(path.join(os.tmpdir(), 'as-login-b-'));
    await setAgents([
      { ...scenarioAgent('login-terminal', 'echo', { SWITCHBOARD_DEMO_REQUIRE_AUTH: '1', SWITCHBOARD_DEMO_STATE_DIR: stateA }), name: 'Needs a login (terminal)' },
      { ...scenarioAgent('login-agent', 'echo', { SWITCHBOARD_DEMO_REQUIRE_AUTH: '1', SWITCHBOARD_DEMO_STATE_DIR: stateB }), name: 'Needs a login (agent)' },
      { ...scenarioAgent('login-meta', 'echo', { SWITCHBOARD_DEMO_REQUIRE_AUTH: '1', SWITCHBOARD_DEMO_AUTH_SHAPE: 'meta', SWITCHBOARD_DEMO_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'as-login-c-')) }), name: 'Needs a login (terminal-auth _meta)' },
    ]);
    await until('agents offered', () => a.agents().find((x) => x.id === 'login-agent'), 10_000);
    await assert.rejects(a.startSession({ agentId: 'login-terminal', cwd: workspaceDir() }), /Authentication required/i);
    const failed = a.sessions().at(-1)!;
    assert.match(a.session(failed.key)!.error?.message ?? '', /Log In to Agent/);
    await a.closeSession(failed.key);

    /** Logs `agentId` in with its terminal method, then a session of it starts. */
    const terminalLogin = async (agentId: string, what: string) => {
      const via = (await runCommand('agentSwitchboard.logIn', agentId, 'demo-login')) as { ran: string; terminal: vscode.Terminal };
      assert.strictEqual(via.ran, 'terminal', `${what}: a login in a terminal, not authenticate`);
      await until(`${what}: the login terminal finished`, () => via.terminal.exitStatus, 30_000);
      assert.strictEqual(via.terminal.exitStatus?.code, 0);
      via.terminal.dispose();
      const k = await a.startSession({ agentId, cwd: workspaceDir() });
      await waitForState(a, k, (s) => s.status === 'ready', `${what}: a session of the logged-in agent ready`);
      await a.closeSession(k);
    };
    await terminalLogin('login-terminal', 'type "terminal"');
    // Copilot CLI's shape: no `type`, the whole command in `_meta["terminal-auth"]`.
    await terminalLogin('login-meta', 'the older _meta["terminal-auth"]');

    const viaAgent = (await runCommand('agentSwitchboard.logIn', 'login-agent', 'demo-token')) as { ran: string };
    assert.strictEqual(viaAgent.ran, 'agent');
    const k2 = await a.startSession({ agentId: 'login-agent', cwd: workspaceDir() });
    await a.closeSession(k2);
    await setAgents([]);
  });
});

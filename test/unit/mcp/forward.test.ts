import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { forwardNotice, forwardServers, type ForwardCandidate, type Launcher } from '../../../src/mcp/forward';
import { parseLaunchSpec } from '../../../src/mcp/launchSpec';
import { exportLog, inspectorJson } from '../../../src/acp/inspector';
import type { McpServerDefinition, McpTransportSpec } from '../../../src/mcp/config';

const def = (name: string, transport: McpTransportSpec): McpServerDefinition => ({ id: `vscode-mcp.json:${name}`, name, source: 'vscode-mcp.json', file: '/w/.vscode/mcp.json', transport, enabled: true });
const stdio = (name: string, more: Partial<Extract<McpTransportSpec, { type: 'stdio' }>> = {}): ForwardCandidate => {
  const transport: McpTransportSpec = { type: 'stdio', command: 'node', args: ['srv.js'], env: {}, ...more };
  return { definition: def(name, transport), transport };
};
const launcher: Launcher = { command: '/usr/bin/code-node', args: ['/ext/dist/mcp-launch.js'], env: { ELECTRON_RUN_AS_NODE: '1' } };
const envOf = (s: { env?: { name: string; value: string }[] }) => Object.fromEntries((s.env ?? []).map((e) => [e.name, e.value]));

describe('forwarding MCP servers to an agent as approved', () => {
  it('a stdio server with neither folder nor removals goes as it is', () => {
    const r = forwardServers([stdio('plain', { env: { A: '1' } })], {}, launcher);
    assert.deepEqual(r.servers, [{ name: 'plain', command: 'node', args: ['srv.js'], env: [{ name: 'A', value: '1' }] }]);
  });

  it('a stdio server with an approved folder or removed variables goes through the launcher, which is given exactly the approved command', () => {
    const r = forwardServers([stdio('dir', { cwd: '/w/sub', env: { TOKEN: 't', GONE: null } })], {}, launcher);
    assert.equal(r.servers.length, 1);
    const s = r.servers[0] as { name: string; command: string; args: string[]; env: { name: string; value: string }[] };
    assert.equal(s.command, launcher.command);
    assert.deepEqual(s.args.slice(0, -1), launcher.args);
    assert.deepEqual(parseLaunchSpec(s.args.at(-1)), { command: 'node', args: ['srv.js'], cwd: '/w/sub', unset: ['GONE', 'ELECTRON_RUN_AS_NODE'] });
    assert.deepEqual(envOf(s), { ELECTRON_RUN_AS_NODE: '1', TOKEN: 't' });
    assert.deepEqual(r.report, [{ name: 'dir', sent: true }]);
  });

  it("keeps the launcher's own variable when the definition sets it", () => {
    const r = forwardServers([stdio('electron', { cwd: '/w', env: { ELECTRON_RUN_AS_NODE: '1' } })], {}, launcher);
    const s = r.servers[0] as { args: string[]; env: { name: string; value: string }[] };
    assert.deepEqual(parseLaunchSpec(s.args.at(-1)).unset, []);
    assert.deepEqual(envOf(s), { ELECTRON_RUN_AS_NODE: '1' });
  });

  it('without a launcher, refuses a server it cannot forward as approved and says why in the thread notice', () => {
    const r = forwardServers([stdio('dir', { cwd: '/w/sub' }), stdio('unset', { env: { NODE_OPTIONS: null } }), stdio('plain')], {});
    assert.deepEqual(r.servers.map((s) => s.name), ['plain']);
    assert.match(r.report[0].reason ?? '', /ACP cannot tell the agent its folder \/w\/sub, so the agent would not run it as you approved it/);
    assert.match(r.report[1].reason ?? '', /the removal of NODE_OPTIONS/);
    assert.match(forwardNotice(r.report) ?? '', /given to the agent: plain\. Not given: dir \(ACP cannot tell the agent its folder/);
  });

  it('never forwards a held server (unapproved, changed, revoked, tools changed), and names the reason', () => {
    const held: ForwardCandidate = { definition: stdio('x').definition, held: 'changed since you approved it: approve again' };
    const r = forwardServers([held], { http: true }, launcher);
    assert.deepEqual(r.servers, []);
    assert.deepEqual(r.report, [{ name: 'x', sent: false, reason: 'changed since you approved it: approve again' }]);
  });
});

describe('the MCP server launcher', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-launch-')));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const launch = (spec: unknown, input = '') =>
    spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, '../../../src/mcp/launch.ts'), typeof spec === 'string' ? spec : JSON.stringify(spec)], {
      env: { ...process.env, GONE: 'secret', KEPT: 'k', ELECTRON_RUN_AS_NODE: '1' },
      input,
      encoding: 'utf8',
    });

  it('starts the approved command in the approved folder, without the removed variables, on its own stdio, and exits as it exits', () => {
    const script = "process.stdin.once('data', (d) => { console.log(JSON.stringify({ cwd: process.cwd(), gone: process.env.GONE ?? null, runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null, kept: process.env.KEPT, got: String(d).trim() })); process.exit(7); })";
    const r = launch({ command: process.execPath, args: ['-e', script], cwd: dir, unset: ['GONE', 'ELECTRON_RUN_AS_NODE'] }, 'ping\n');
    assert.equal(r.status, 7, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { cwd: dir, gone: null, runAsNode: null, kept: 'k', got: 'ping' });
  });

  it('refuses a malformed spec, and says when the command cannot start', () => {
    const bad = launch('{"command": 1}');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /launch spec is malformed/);
    const missing = launch({ command: path.join(dir, 'no-such-server'), args: [], cwd: dir, unset: [] });
    assert.equal(missing.status, 127);
    assert.match(missing.stderr, /could not start .*no-such-server/);
  });
});

describe('forwarded HTTP servers carry their headers, redacted wherever they are shown', () => {
  const http = (headers: Record<string, string>): ForwardCandidate => {
    const transport: McpTransportSpec = { type: 'http', url: 'https://mcp.example.com/mcp', headers };
    return { definition: def('remote', transport), transport };
  };
  const headers = { Authorization: 'Bearer s3cr3t-token-value-123', 'X-Team': 'blue', 'X-Api-Key': 'k-998877' };

  it('the agent receives every header of the definition (name and value), in order', () => {
    const r = forwardServers([http(headers)], { http: true });
    assert.deepEqual(r.servers, [{ type: 'http', name: 'remote', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer s3cr3t-token-value-123' }, { name: 'X-Team', value: 'blue' }, { name: 'X-Api-Key', value: 'k-998877' }] }]);
    assert.deepEqual(r.report, [{ name: 'remote', sent: true }]);
    assert.doesNotMatch(forwardNotice(r.report) ?? '', /s3cr3t|k-998877/);
  });

  it('the protocol inspector shows and exports session/new without the header values', () => {
    const r = forwardServers([http(headers)], { http: true });
    const message = { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: r.servers } };
    const shown = inspectorJson(message, 100_000);
    const exported = exportLog([{ seq: 1, at: 0, dir: 'out', message, size: 0 }]);
    for (const text of [shown, exported]) {
      assert.doesNotMatch(text, /s3cr3t|k-998877|blue/);
      assert.match(text, /"name": ?"Authorization"/);
      assert.match(text, /https:\/\/mcp\.example\.com\/mcp/);
    }
  });
  it('says nothing when the editor\'s own server alone was given; names it among others, and when it was not given', () => {
    assert.strictEqual(forwardNotice([{ name: 'editor', sent: true, builtin: true }]), undefined);
    assert.strictEqual(forwardNotice([{ name: 'editor', sent: true, builtin: true }, { name: 'db', sent: true }]), 'MCP servers given to the agent: editor, db.');
    assert.match(forwardNotice([{ name: 'editor', sent: false, builtin: true, reason: 'it could not start: x' }]) ?? '', /^No MCP server was given to the agent\. Not given: editor \(it could not start: x\)\.$/);
    // A server of the person's that happens to be called "editor" is news.
    assert.strictEqual(forwardNotice([{ name: 'editor', sent: true }]), 'MCP servers given to the agent: editor.');
  });
});

/**
 * OAuth for an HTTP MCP server inside a real VS Code: the project's fake protected server (with its
 * own authorization server) answers 401; nothing opens until the person chooses Sign In; then the
 * extension opens the authorization page through `vscode.env.openExternal` (a browser tab of the test's Chromium), receives the redirect on its
 * loopback port, redeems the code (PKCE) and connects. The tokens are kept in SecretStorage: a
 * restart needs no new sign-in, and Sign Out forgets them.
 */
import * as assert from 'assert';
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, runCommand, until } from './util';
import { screenshot } from './screenshot';

const NODE = { type: 'server', serverId: 'settings:secure' };

const ROOT = path.resolve(__dirname, '..', '..', '..');
const OAUTH = path.join(ROOT, 'test', 'fakes', 'mcp-oauth-server.mjs');

describe('MCP OAuth in the editor', () => {
  let server: ChildProcess | undefined;
  const log: string[] = [];
  after(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
    server?.kill();
  });

  it('signs in through the browser, keeps the token in the secret storage, and forgets it on Sign Out', async function () {
    this.timeout(120_000);
    const a = await api();
    server = spawn(process.execPath, [OAUTH], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    server.stderr?.on('data', (d: Buffer) => log.push(...d.toString().split('\n').filter(Boolean)));
    const url = await new Promise<string>((resolve, reject) => {
      server!.stdout?.on('data', (d: Buffer) => {
        const m = /listening (\S+)/.exec(d.toString());
        if (m) resolve(m[1]);
      });
      server!.on('exit', (code) => reject(new Error(`the fake OAuth server exited (${code}): ${log.join('\n')}`)));
    });
    await vscode.workspace.getConfiguration('agentSwitchboard').update('mcpServers', { secure: { type: 'http', url } }, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentSwitchboard.mcp.focus');
    await vscode.commands.executeCommand('agentSwitchboard.mcp.start');
    // Nothing opens before the person agrees: the server waits for a sign-in, the notification asks.
    await until('waiting for the sign-in', () => (a.mcpServers().find((s) => s.id === 'settings:secure')?.state as { signIn?: string } | undefined)?.signIn, 30_000);
    assert.strictEqual(log.filter((l) => /authorized; redirecting/.test(l)).length, 0, 'no authorization before Sign In');
    await screenshot('mcp-oauth-ask', 30000, { waitForSelector: '.monaco-list-row:has-text("waiting for you to sign in")', sidebarWidth: 520 });
    // The person clicks the server's Sign In action (the notification offers the same; this test
    // harness shows no notification toasts).
    await runCommand('agentSwitchboard.mcp.openSignIn', NODE);
    const running = () => a.mcpServers().find((s) => s.id === 'settings:secure' && s.state?.state === 'running');
    await until(`signed in and running (server log: ${log.join(' | ')})`, running, 60_000);
    const authorizations = () => log.filter((l) => /authorized; redirecting/.test(l)).length;
    assert.strictEqual(authorizations(), 1, log.join('\n'));
    assert.ok(log.some((l) => /registered a client for \["http:\/\/127\.0\.0\.1:\d+\/callback"\]/.test(l)) || log.some((l) => /registered a client/.test(l)), log.join('\n'));
    const result = (await runCommand('agentSwitchboard.mcp.runTool', { type: 'tool', serverId: 'settings:secure', name: 'whoami' }, {})) as { content: { text: string }[] };
    assert.strictEqual(result.content[0].text, 'signed in as test-user');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await screenshot('mcp-oauth-signed-in', 30000, { waitForSelector: '.monaco-list-row:has-text("signed in")', sidebarWidth: 520 });

    // A restart uses the stored token: no new authorization.
    await runCommand('agentSwitchboard.mcp.restart', NODE);
    await until('running again', running, 30_000);
    assert.strictEqual(authorizations(), 1, 'the token from the secret storage was used');

    // Sign Out forgets it: the next start signs in again.
    const signedOut = runCommand('agentSwitchboard.mcp.signOut', NODE);
    await until('waiting for the sign-in again', () => (a.mcpServers().find((s) => s.id === 'settings:secure')?.state as { signIn?: string } | undefined)?.signIn, 30_000);
    await runCommand('agentSwitchboard.mcp.openSignIn', NODE);
    await signedOut;
    await until('running after signing in again', () => running() && authorizations() === 2, 60_000);
  });
});

/**
 * MCP Apps inside a real VS Code: a tool with a `ui://` view (the project's fake app server, built
 * with @modelcontextprotocol/ext-apps/server) shows its view in a panel after it runs; the view
 * (ext-apps `App` in a sandboxed iframe) gets the call's input and result, calls an app-visible
 * tool of its server through the host, is refused a model-only tool, cannot reach the network, and
 * is refused a link whose host hides behind a user name (no prompt, nothing opened).
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, runCommand, until } from './util';
import { click, screenshot } from './screenshot';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const APP = path.join(ROOT, 'test', 'fakes', 'mcp-app-server.mjs');

describe('MCP Apps in the editor', () => {
  after(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
  });

  it('shows a tool\'s view in a sandboxed panel; the view calls its server through the host, which refuses what apps may not call', async function () {
    this.timeout(120_000);
    const a = await api();
    await vscode.workspace.getConfiguration('agentSwitchboard').update('mcpServers', { app: { command: process.execPath, args: [APP], env: { ELECTRON_RUN_AS_NODE: '1' } } }, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentSwitchboard.mcp.start');
    const s = await until('the app server running', () => a.mcpServers().find((x) => x.id === 'settings:app' && x.state?.state === 'running'), 30_000);
    assert.ok(s.tools.includes('show-sum') && s.tools.includes('add'), s.tools.join(', '));
    const result = (await runCommand('agentSwitchboard.mcp.runTool', { type: 'tool', serverId: 'settings:app', name: 'show-sum' }, { a: 2, b: 40 })) as { content: { text: string }[] };
    assert.strictEqual(result.content[0].text, '2+40=42');
    // The person uses the view: each button's outcome shows in the view itself.
    await click('#add', 30_000);
    await click('#secret');
    await click('#fetch');
    // Refused at once, by the one check of untrusted addresses: no prompt ever names accounts.example.
    await click('#link');
    await screenshot('mcp-app', 30000, {
      waitForSelector: 'body:has(#result:has-text("2+40=42")):has(#input:has-text("\\"a\\":2")):has(#add-result:has-text("add: 42")):has(#secret-result:has-text("refused")):has(#fetch-result:has-text("blocked")):has(#link-result:has-text("link: refused"))',
      sidebarWidth: 420,
    });
  });
});

import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, until } from './util';
import { screenshot } from './screenshot';

/** Whether the extension's own bundle (dist/app.js, everything behind the stand-ins) is loaded in this extension host. */
function appLoaded(): boolean {
  return Object.keys(require.cache).some((k) => k.endsWith(`${path.sep}dist${path.sep}app.js`));
}

describe('packaged extension', () => {
  it('activates with stand-ins only, and loads the rest on first use (issue 22, activation)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'extension installed');
    await until('the extension is active (onStartupFinished)', () => ext.isActive, 60_000);
    // Nothing has used a command, a view or the API yet: activation registered stand-ins only.
    assert.ok(Object.keys(require.cache).some((k) => k.endsWith(`${path.sep}dist${path.sep}extension.js`)), 'the activation bundle is loaded');
    assert.strictEqual(appLoaded(), false, 'dist/app.js is not loaded at activation');
    const all = await vscode.commands.getCommands(true);
    assert.ok(all.includes('agentSwitchboard.showAgentLog'), 'contributed commands are registered before the app loads');
    // A command's stand-in loads the app and runs the real handler in the same call.
    await vscode.commands.executeCommand('agentSwitchboard.showAgentLog');
    assert.strictEqual(appLoaded(), true, 'the first command loaded dist/app.js');
  });

  it('activates and returns the public API', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'extension installed');
    const a = await api();
    assert.strictEqual(a.apiVersion, 1);
    const demo = a.agents().find((x) => x.id === 'demo');
    assert.ok(demo?.available && demo.demo, 'the offline demo agent is offered');
    // Presets stay disabled until their command is found on PATH.
    const codex = a.agents().find((x) => x.id === 'codex-acp');
    assert.ok(codex && !codex.available && codex.reason === '"codex-acp" was not found on your PATH.');
  });

  it('registers its commands', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const c of ['agentSwitchboard.startSession', 'agentSwitchboard.sendPrompt', 'agentSwitchboard.cancel', 'agentSwitchboard.answerPermission', 'agentSwitchboard.closeSession']) {
      assert.ok(all.includes(c), c);
    }
  });

  it('opens the sidebar view', async () => {
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('sidebar-empty', 30000, { waitForSelector: '#app' });
  });
});

import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, EXTENSION_ID } from './util';
import { screenshot } from './screenshot';

describe('packaged extension', () => {
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

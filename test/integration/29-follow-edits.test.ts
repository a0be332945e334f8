/**
 * The editor follows the agent: a file the agent of the session on screen changes opens in a preview
 * tab (the focus stays where it was), with the inline review on it. A file already visible is not
 * opened twice; with `agentSwitchboard.review.inline` or `review.followEdits` off nothing opens.
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, freshWorkspaceDir, scenarioAgent, setAgents } from './util';

const cfg = () => vscode.workspace.getConfiguration('agentSwitchboard');
const visible = (file: string) => vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === file);

describe('the editor follows the agent\'s edits', () => {
  before(async () => {
    // The test runner turns following off for every other test (they arrange their own editors).
    await cfg().update('review.followEdits', true, vscode.ConfigurationTarget.Global);
    await cfg().update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' })]);
  });
  after(async () => {
    await cfg().update('review.inline', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('review.followEdits', false, vscode.ConfigurationTarget.Global);
    await cfg().update('policy', undefined, vscode.ConfigurationTarget.Global);
    await setAgents([]);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens the file the agent changed in the session on screen, in a preview tab, once; not with the inline review off', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshWorkspaceDir('follow-edits');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    try {
      const file = path.join(dir, 'notes.txt');
      await a.prompt(key, JSON.stringify({ edits: [{ path: 'notes.txt', content: 'one\ntwo\n' }] }));
      for (let i = 0; i < 50 && !visible(file); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(visible(file), `the changed file is in a visible editor: ${vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath).join(', ')}`);
      const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file);
      assert.ok(tab?.isPreview, 'in a preview tab (the next file replaces it)');
      assert.strictEqual(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file).length, 1, 'opened once');

      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await cfg().update('review.inline', false, vscode.ConfigurationTarget.Global);
      const other = path.join(dir, 'other.txt');
      await a.prompt(key, JSON.stringify({ edits: [{ path: 'other.txt', content: 'three\n' }] }));
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(!visible(other), 'with the inline review off, the editor does not follow');
    } finally {
      await a.closeSession(key);
    }
  });
});

/**
 * The full three-way merge of a refused write, in VS Code's merge editor (runs last: the merge
 * editor is left open for the screenshot and its tab is closed at the end).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, personEdit, scenarioAgent, setAgents, waitForState, workspaceDir } from './util';
import { screenshot } from './screenshot';

describe('three-way merge of a refused write', () => {
  it('opens base / yours / agent in the merge editor; completing it puts the result into the document, unsaved', async function () {
    this.timeout(90_000);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '1500' })]);
    const a = await api();
    const dir = path.join(workspaceDir(), 'merge-editor');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'conflict.txt');
    fs.writeFileSync(file, 'line one\nline two\n');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    const key = await a.startSession({ agentId: 'conflict', cwd: dir });
    const turn = a.prompt(key, 'edit conflict.txt');
    await waitForState(a, key, (s) => Object.values(s.toolCalls).some((t) => t.content.some((c) => c.type === 'diff')), 'the agent read conflict.txt');
    await personEdit(editor, (b) => b.replace(new vscode.Range(0, 0, 0, 8), 'line one (mine)'));
    await turn;
    const mine = 'line one (mine)\nline two\n';
    assert.strictEqual(doc.getText(), mine);

    const result = (await vscode.commands.executeCommand('agentSwitchboard.openMerge')) as vscode.Uri;
    assert.ok(result, 'the merge editor opened on a scratch result');
    await screenshot('conflict-merge-editor', 30000, { waitForSelector: '.merge-editor', sidebarWidth: 360 });
    assert.strictEqual(doc.getText(), mine, 'opening the merge touches nothing of the person\'s');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), 'line one\nline two\n', 'nor the disk');

    // The person resolves: their line plus the agent's appended line; completing saves the result.
    const scratch = await vscode.workspace.openTextDocument(result);
    const merged = mine + 'Appended by the offline demo agent.\n';
    const edit = new vscode.WorkspaceEdit();
    edit.replace(result, new vscode.Range(scratch.positionAt(0), scratch.positionAt(scratch.getText().length)), merged);
    assert.ok(await vscode.workspace.applyEdit(edit));
    await scratch.save();
    const deadline = Date.now() + 10_000;
    while (doc.getText() !== merged && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.strictEqual(doc.getText(), merged, 'the merge result is in the document');
    assert.ok(doc.isDirty, 'unsaved, for the person to save');
    await a.closeSession(key);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    // Not awaited: the merge editor may ask whether to keep its result, and nothing runs after this test.
    void vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

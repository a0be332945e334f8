/**
 * Issue 17, item 4: an Undo that deletes a file the agent created says so, and can be taken back.
 * The notification names the file and offers Restore; Restore (or the command
 * `agentSwitchboard.review.restoreDeleted`) writes the exact content back, and the change is to
 * review again.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, freshWorkspaceDir, runCommand, scenarioAgent, setAgents, until } from './util';
import { click, evaluateInFrames } from './screenshot';

/** The texts of the notifications in the notification center (this harness shows no toasts). */
const NOTIFICATIONS = `return [...document.querySelectorAll('.notifications-center .notification-list-item')].map((e) => e.textContent || '');`;

describe('Undo that deletes a file the agent created', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' })]);
  });

  // A failure here must not leave the notification list open over what later tests click.
  afterEach(async () => {
    await vscode.commands.executeCommand('notifications.hideList');
  });

  it('says so in a notification whose Restore brings the file back with its content; the command does the same', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshWorkspaceDir('undo-created');
    // A folder changed within 2 s of the agent's call makes its base uncertain (baselines.ts RECENT_MS).
    await new Promise((r) => setTimeout(r, 2200));
    const file = path.join(dir, 'made-by-agent.txt');
    const content = 'the agent wrote this\nand the person may want it back\n';
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'made-by-agent.txt', content }] }));
    const change = () => a.changes(key).flatMap((t) => t.files).find((f) => f.path === file)!;
    assert.strictEqual(change().base.text, null, 'created by the agent');
    assert.strictEqual(change().hunks.length, 1);

    const refused = await runCommand('agentSwitchboard.review.undo', { type: 'hunk', changeId: change().id, hunk: 0 });
    assert.ok(!fs.existsSync(file), `undoing the only hunk deletes the file (refused: ${JSON.stringify(refused)})`);
    const said = 'Undo deleted made-by-agent.txt, which the agent created.';
    await vscode.commands.executeCommand('notifications.showList');
    let shown: string[] = [];
    for (const end = Date.now() + 20_000; !shown.some((t) => t.includes(said)); ) {
      if (Date.now() > end) assert.fail(`no notification "${said}"; shown: ${JSON.stringify(shown)}`);
      await new Promise((r) => setTimeout(r, 200));
      shown = (await evaluateInFrames<string[]>(NOTIFICATIONS)).flat();
    }
    await click(`.notifications-center .notification-list-item:has-text("${said}") .monaco-button:has-text("Restore")`);
    // The file is written before its change is taken back into review (the write's promise resolves
    // first): both are waited for, or a slow run reads the review between the two.
    await until('the file back and its change to review again', () => (fs.existsSync(file) && change().fileDecision === 'pending') || undefined, 20_000);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), content, 'the exact content comes back');
    assert.deepStrictEqual([change().decisions, change().fileDecision], [['pending'], 'pending'], 'the change is to review again');

    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: change().id });
    assert.ok(!fs.existsSync(file));
    await vscode.commands.executeCommand('agentSwitchboard.review.restoreDeleted');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), content, 'the command takes the latest such Undo back too');
    await vscode.commands.executeCommand('notifications.hideList');
    await a.closeSession(key);
  });
});

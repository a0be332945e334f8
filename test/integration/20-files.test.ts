/**
 * Client-hosted writes in the real editor, driven by the scripted agent's `write-conflict`
 * scenario: read conflict.txt, wait, write it back with a line appended.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, scenarioAgent, setAgents, waitForState, workspaceDir } from './util';
import { screenshot } from './screenshot';

const APPENDED = /appended/i;

describe('fs/write_text_file in the editor', () => {
  before(async () => {
    // The dirty-document case needs the person's edit to stay unsaved while the agent writes.
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    // The write-conflict scenario writes without asking: these tests are about the version check,
    // so the permission gate lets writes through (its own tests are in 50-gate).
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '1500' })]);
  });

  /** A fresh folder per test: the scenario edits `<cwd>/conflict.txt`. */
  function freshDir(name: string): string {
    const dir = path.join(workspaceDir(), name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  it('refuses a write to a document that changed after the agent read it; the unsaved text survives', async () => {
    const a = await api();
    const dir = freshDir('dirty');
    const file = path.join(dir, 'conflict.txt');
    fs.writeFileSync(file, 'line one\n');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    const key = await a.startSession({ agentId: 'conflict', cwd: dir });
    const turn = a.prompt(key, 'edit conflict.txt');
    // The agent has read the file once its tool call carries the diff.
    await waitForState(a, key, (s) => Object.values(s.toolCalls).some((t) => t.content.some((c) => c.type === 'diff')), 'the agent read conflict.txt');
    await editor.edit((b) => b.insert(new vscode.Position(1, 0), 'my unsaved work\n'));
    assert.ok(doc.isDirty);
    const { stopReason } = await turn;
    assert.strictEqual(stopReason, 'end_turn');
    assert.strictEqual(doc.getText(), 'line one\nmy unsaved work\n', 'the person\'s text is intact');
    assert.ok(doc.isDirty, 'still unsaved');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), 'line one\n', 'disk untouched');
    const s = a.session(key)!;
    const tc = Object.values(s.toolCalls)[0];
    assert.strictEqual(tc.status, 'failed');
    assert.notStrictEqual(tc.verification, 'client', 'a refused write is not shown as performed');
    assert.ok(tc.content.some((c) => c.type === 'text' && /Write refused .*changed/.test(c.text)), JSON.stringify(tc.content));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await a.closeSession(key);
  });

  it('applies a write to a clean document as an undoable edit', async () => {
    const a = await api();
    const dir = freshDir('clean');
    const file = path.join(dir, 'conflict.txt');
    fs.writeFileSync(file, 'clean text\n');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const key = await a.startSession({ agentId: 'conflict', cwd: dir });
    const { stopReason } = await a.prompt(key, 'edit conflict.txt');
    assert.strictEqual(stopReason, 'end_turn');
    assert.ok(doc.getText().startsWith('clean text\n') && APPENDED.test(doc.getText()), doc.getText());
    assert.ok(!doc.isDirty, 'saved, since it was clean');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), doc.getText());
    // Undo acts on the focused editor; starting the session focused the sidebar.
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(doc.getText(), 'clean text\n', 'undo restores the text');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await a.closeSession(key);
  });

  it('after a refused write, the person can compare and take the agent\'s clean hunks onto their text', async () => {
    const a = await api();
    const dir = freshDir('merge');
    const file = path.join(dir, 'conflict.txt');
    const base = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    fs.writeFileSync(file, base);
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    const key = await a.startSession({ agentId: 'conflict', cwd: dir });
    const turn = a.prompt(key, 'append a line');
    await waitForState(a, key, (s) => Object.values(s.toolCalls).some((t) => t.content.some((c) => c.type === 'diff')), 'the agent read the file');
    await editor.edit((b) => b.replace(new vscode.Range(0, 0, 0, 6), 'line 1 (mine)'));
    await turn;
    const mine = doc.getText();
    assert.ok(mine.startsWith('line 1 (mine)\n') && !APPENDED.test(mine), 'refused: the person\'s text only');

    await vscode.commands.executeCommand('agentSwitchboard.compareConflict');
    await screenshot('conflict-compare', 30000, { waitForSelector: '.monaco-diff-editor' });
    await vscode.window.showTextDocument(doc);
    const took = await vscode.commands.executeCommand<{ applied: number; conflicting: number }>('agentSwitchboard.takeCleanHunks');
    assert.deepStrictEqual(took, { applied: 1, conflicting: 0 });
    assert.strictEqual(doc.getText(), mine + 'Appended by the offline demo agent.\n', 'both: the person\'s edit and the agent\'s line');
    assert.ok(doc.isDirty, 'still the person\'s unsaved document');
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(doc.getText(), mine, 'one undo takes the merge back');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await a.closeSession(key);
  });

  it('keeps a CRLF file CRLF and a UTF-16LE file UTF-16LE when the agent writes LF text', async () => {
    const a = await api();
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '0' })]);
    const crlfDir = freshDir('crlf');
    fs.writeFileSync(path.join(crlfDir, 'conflict.txt'), 'one\r\ntwo\r\n');
    let key = await a.startSession({ agentId: 'conflict', cwd: crlfDir });
    assert.strictEqual((await a.prompt(key, 'append')).stopReason, 'end_turn');
    assert.strictEqual(fs.readFileSync(path.join(crlfDir, 'conflict.txt'), 'utf8'), 'one\r\ntwo\r\nAppended by the offline demo agent.\r\n');
    await a.closeSession(key);

    const u16Dir = freshDir('utf16');
    const u16 = path.join(u16Dir, 'conflict.txt');
    fs.writeFileSync(u16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo wörld\n', 'utf16le')]));
    key = await a.startSession({ agentId: 'conflict', cwd: u16Dir });
    assert.strictEqual((await a.prompt(key, 'append')).stopReason, 'end_turn');
    const bytes = fs.readFileSync(u16);
    assert.deepStrictEqual([...bytes.subarray(0, 2)], [0xff, 0xfe], 'still UTF-16LE with its BOM');
    assert.strictEqual(bytes.subarray(2).toString('utf16le'), 'héllo wörld\nAppended by the offline demo agent.\n');
    await a.closeSession(key);
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '1500' })]);
  });

  it('refuses a file that is not text in any encoding it could have, and leaves it alone', async () => {
    const a = await api();
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '0' })]);
    const dir = freshDir('binary');
    const file = path.join(dir, 'conflict.txt');
    const junk = Buffer.from([0x61, 0xc3, 0x28, 0x00, 0xff, 0x62]);
    fs.writeFileSync(file, junk);
    const key = await a.startSession({ agentId: 'conflict', cwd: dir });
    await a.prompt(key, 'append');
    assert.deepStrictEqual(fs.readFileSync(file), junk);
    const tc = Object.values(a.session(key)!.toolCalls)[0];
    assert.strictEqual(tc.status, 'failed');
    await a.closeSession(key);
    await setAgents([scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '1500' })]);
  });

  it('refuses paths outside the workspace', async () => {
    const a = await api();
    await setAgents([scenarioAgent('outside', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '0' })]);
    // The scenario resolves conflict.txt against the session cwd; a cwd outside the folder moves it out.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'as-outside-'));
    fs.writeFileSync(path.join(outside, 'conflict.txt'), 'x\n');
    const key = await a.startSession({ agentId: 'outside', cwd: outside });
    await a.prompt(key, 'edit');
    const tc = Object.values(a.session(key)!.toolCalls)[0];
    assert.strictEqual(tc.status, 'failed');
    assert.strictEqual(fs.readFileSync(path.join(outside, 'conflict.txt'), 'utf8'), 'x\n');
    await a.closeSession(key);
    await setAgents([]);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
  });
});

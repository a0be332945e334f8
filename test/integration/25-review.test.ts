/**
 * Review of agents' changes in the real editor: per-hunk Keep / Undo of writes we performed, the
 * same review for an agent that writes to disk itself (the `disk-writer` script), checkpoint
 * restore, and a formatter changing the file between the agent's read and its write.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../src/api';
import { api, runCommand, until, personEdit, scenarioAgent, setAgents, waitForState, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot } from './screenshot';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';
const edits = (list: { path: string; content?: string; delete?: boolean; via?: 'client' | 'disk'; truncateFirst?: boolean; announceAfterMs?: number }[]) => JSON.stringify({ edits: list });

/**
 * Waits until files the test just wrote are older than the window in which a snapshot counts as
 * uncertain (src/edits/baselines.ts RECENT_MS, 2 s): a fixture written a moment before the agent's
 * call looks exactly like a file the agent had already begun to write.
 */
const olderThanSnapshots = () => new Promise((r) => setTimeout(r, 2200));

function freshDir(name: string): string {
  const dir = path.join(workspaceDir(), name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Polls an asynchronous probe (a look into the editor's DOM) until it gives a value; 20 s at most. */
async function poll<T>(what: string, get: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 20_000; ; ) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function change(a: SwitchboardApi, key: string, turn: number, file: string) {
  const t = a.changes(key).find((x) => x.turn === turn);
  const f = t?.files.find((x) => x.path === file);
  if (!f) throw new Error(`no change of ${file} in turn ${turn}: ${JSON.stringify(a.changes(key)).slice(0, 1500)}`);
  return f;
}

describe('review of agents\' changes', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([
      scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' }),
      scenarioAgent('conflict', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '1500' }),
    ]);
  });

  it('per-hunk undo of a write we performed; undoing the last hunk puts back the exact base bytes', async () => {
    const a = await api();
    const dir = freshDir('review-hunks');
    const file = path.join(dir, 'hunks.txt');
    // A UTF-8 BOM and CRLF line endings: the bytes Undo must restore exactly.
    const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines(40).replace(/\n/g, '\r\n'))]);
    fs.writeFileSync(file, original);
    const agentText = lines(40).replace('line 3\n', 'line 3 (agent)\n').replace('line 30\n', 'line 30 (agent)\n');
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, edits([{ path: 'hunks.txt', content: agentText, via: 'client' }]));
    const f = change(a, key, 1, file);
    assert.strictEqual(f.via, 'client');
    assert.strictEqual(f.hunks.length, 2);
    const written = fs.readFileSync(file, 'utf8');
    assert.ok(written.startsWith('\ufeff') && written.includes('line 3 (agent)\r\n'), 'written in the file\'s own BOM and CRLF');

    await runCommand('agentSwitchboard.review.undo', { type: 'hunk', changeId: f.id, hunk: 0 });
    const partly = fs.readFileSync(file, 'utf8');
    assert.ok(partly.includes('line 3\r\n') && !partly.includes('line 3 (agent)'), 'hunk 1 undone');
    assert.ok(partly.includes('line 30 (agent)\r\n'), 'hunk 2 kept');
    assert.deepStrictEqual(change(a, key, 1, file).decisions, ['undone', 'pending']);

    await runCommand('agentSwitchboard.review.keep', { type: 'hunk', changeId: f.id, hunk: 1 });
    assert.strictEqual(change(a, key, 1, file).fileDecision, 'kept');
    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: f.id });
    assert.deepStrictEqual(fs.readFileSync(file), original, 'exact base bytes');
    assert.strictEqual(change(a, key, 1, file).fileDecision, 'undone');
    await a.closeSession(key);
  });

  it('reviews an agent that writes to disk itself: edits, a created and a deleted file, each undoable', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshDir('review-disk');
    const edited = path.join(dir, 'a.txt');
    const created = path.join(dir, 'new.txt');
    const deleted = path.join(dir, 'gone.txt');
    fs.writeFileSync(edited, lines(30));
    fs.writeFileSync(deleted, 'bye\r\n');
    await olderThanSnapshots();
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(
      key,
      edits([
        { path: 'a.txt', content: lines(30).replace('line 2\n', 'line 2 (agent)\n').replace('line 25\n', 'line 25 (agent)\n') },
        { path: 'new.txt', content: 'hello\n' },
        { path: 'gone.txt', delete: true },
      ]),
    );
    const s = a.session(key)!;
    assert.ok(Object.values(s.toolCalls).every((t) => t.status === 'completed'));
    const [fa, fn, fg] = [change(a, key, 1, edited), change(a, key, 1, created), change(a, key, 1, deleted)];
    assert.deepStrictEqual([fa.via, fn.via, fg.via], ['agent', 'agent', 'agent']);
    assert.strictEqual(fa.hunks.length, 2);
    assert.strictEqual(fn.base.text, null);
    assert.strictEqual(fg.after, null);

    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    await screenshot('review-changes', 30000, { waitForSelector: '.monaco-list-row:has-text("new.txt")', sidebarWidth: 520 });
    // "Review change" on the first tool card (a.txt) selects it in the Changes view and opens its diff.
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await click('.tool-card .review-change');
    await until('the diff editor of a.txt', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && input.modified.fsPath === edited;
    });
    // The diff's left side is the file before the turn, as the editor resolves it (every provider of its scheme asked).
    const diffInput = vscode.window.tabGroups.activeTabGroup.activeTab?.input as vscode.TabInputTextDiff;
    assert.strictEqual((await vscode.workspace.openTextDocument(diffInput.original)).getText(), lines(30), 'the review diff shows the file before the turn on its left');
    await vscode.commands.executeCommand('agentSwitchboard.review.openDiff', { type: 'hunk', changeId: fa.id, hunk: 1 });
    await screenshot('review-diff', 30000, { waitForSelector: '.monaco-diff-editor', sidebarWidth: 520 });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    await runCommand('agentSwitchboard.review.undo', { type: 'hunk', changeId: fa.id, hunk: 1 });
    assert.strictEqual(fs.readFileSync(edited, 'utf8'), lines(30).replace('line 2\n', 'line 2 (agent)\n'));
    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: fn.id });
    assert.ok(!fs.existsSync(created), 'a created file the person rejects is deleted');
    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: fg.id });
    assert.strictEqual(fs.readFileSync(deleted, 'utf8'), 'bye\r\n', 'a deleted file comes back byte for byte');
    await a.closeSession(key);
  });

  it('restores a checkpoint: files of turn 2 and later go back to before turn 2; turn 1 and unsaved work stay', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshDir('review-checkpoint');
    const [c, d, e] = ['c.txt', 'd.txt', 'e.txt'].map((n) => path.join(dir, n));
    fs.writeFileSync(c, 'c0\n');
    fs.writeFileSync(e, 'e0\n');
    await olderThanSnapshots();
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, edits([{ path: 'c.txt', content: 'c1\n', via: 'client' }]));
    await a.prompt(key, edits([{ path: 'c.txt', content: 'c2\n' }, { path: 'd.txt', content: 'd2\n' }, { path: 'e.txt', content: 'e2\n' }]));
    assert.strictEqual(fs.readFileSync(c, 'utf8'), 'c2\n');
    // The person starts working on e.txt after the agent: unsaved text the restore must not touch.
    const doc = await vscode.workspace.openTextDocument(e);
    const editor = await vscode.window.showTextDocument(doc);
    await until('e.txt shows the agent\'s text', () => doc.getText() === 'e2\n');
    await personEdit(editor, (b) => b.insert(new vscode.Position(0, 0), 'mine '));
    await until('the person\'s edit is noted', () => change(a, key, 2, e).later.length > 0);

    const r = (await runCommand('agentSwitchboard.review.restoreCheckpoint', { type: 'turn', sessionKey: key, turn: 2, confirmed: true })) as { restored: string[]; skipped: string[] };
    assert.deepStrictEqual(r.restored.sort(), [c, d].sort());
    assert.deepStrictEqual(r.skipped, [e]);
    assert.strictEqual(fs.readFileSync(c, 'utf8'), 'c1\n', 'back to the state after turn 1');
    assert.ok(!fs.existsSync(d), 'created in turn 2, so gone');
    assert.strictEqual(doc.getText(), 'mine e2\n', 'unsaved work intact');
    assert.ok(doc.isDirty);
    assert.strictEqual(change(a, key, 1, c).fileDecision, 'pending', 'turn 1 untouched');
    assert.strictEqual(change(a, key, 2, c).fileDecision, 'undone');
    assert.strictEqual(change(a, key, 2, e).fileDecision, 'pending');
    assert.deepStrictEqual(change(a, key, 2, e).later.map((l) => l.by), ['person']);

    await runCommand('agentSwitchboard.review.restoreCheckpoint', { type: 'turn', sessionKey: key, turn: 1, confirmed: true });
    assert.strictEqual(fs.readFileSync(c, 'utf8'), 'c0\n', 'back to before turn 1');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await a.closeSession(key);
  });

  it('refuses the agent\'s write when a formatter changed the file between its read and its write', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = freshDir('review-formatter');
    const file = path.join(dir, 'conflict.txt');
    fs.writeFileSync(file, 'line one\n');
    const formatter = vscode.languages.registerDocumentFormattingEditProvider(
      { pattern: '**/review-formatter/*.txt' },
      { provideDocumentFormattingEdits: (d) => [vscode.TextEdit.replace(d.lineAt(0).range, d.lineAt(0).text.toUpperCase())] },
    );
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const key = await a.startSession({ agentId: 'conflict', cwd: dir });
      const turn = a.prompt(key, 'edit conflict.txt');
      await waitForState(a, key, (s) => Object.values(s.toolCalls).some((t) => t.content.some((c) => c.type === 'diff')), 'the agent read conflict.txt');
      await vscode.commands.executeCommand('editor.action.formatDocument');
      await until('the formatter ran', () => doc.getText() === 'LINE ONE\n');
      await doc.save();
      assert.strictEqual((await turn).stopReason, 'end_turn');
      assert.strictEqual(fs.readFileSync(file, 'utf8'), 'LINE ONE\n', 'the formatted text stays; the stale write was refused');
      const tc = Object.values(a.session(key)!.toolCalls)[0];
      assert.strictEqual(tc.status, 'failed');
      assert.ok(tc.content.some((c) => c.type === 'text' && /Write refused .*version/.test(c.text)), JSON.stringify(tc.content));
      assert.deepStrictEqual(a.changes(key), [], 'the formatter\'s saved change is not listed as the agent\'s');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await a.closeSession(key);
    } finally {
      formatter.dispose();
    }
  });

  it('a format-on-save after the agent\'s write is noted as the formatter\'s; undo keeps the formatter\'s line', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = freshDir('review-format-on-save');
    const file = path.join(dir, 'f.txt');
    fs.writeFileSync(file, lines(12));
    const formatter = vscode.languages.registerDocumentFormattingEditProvider(
      { pattern: '**/review-format-on-save/*.txt' },
      { provideDocumentFormattingEdits: (d) => [vscode.TextEdit.replace(d.lineAt(0).range, d.lineAt(0).text.toUpperCase())] },
    );
    await vscode.workspace.getConfiguration('editor').update('formatOnSave', true, vscode.ConfigurationTarget.Global);
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const key = await a.startSession({ agentId: 'disk', cwd: dir });
      const agentText = lines(12).replace('line 10\n', 'line 10 (agent)\n');
      await a.prompt(key, edits([{ path: 'f.txt', content: agentText, via: 'client' }]));
      assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText.replace('line 1\n', 'LINE 1\n'), 'saved through format on save');
      const f = change(a, key, 1, file);
      assert.strictEqual(f.after, agentText, 'the agent\'s text is what its write left, before the formatter');
      assert.deepStrictEqual(f.later.map((l) => l.by), ['formatter']);
      await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: f.id });
      assert.strictEqual(fs.readFileSync(file, 'utf8'), lines(12).replace('line 1\n', 'LINE 1\n'), 'the agent\'s hunk undone, the formatter\'s line kept');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await a.closeSession(key);
    } finally {
      await vscode.workspace.getConfiguration('editor').update('formatOnSave', undefined, vscode.ConfigurationTarget.Global);
      formatter.dispose();
    }
  });
  it('Undo refuses a base caught while the agent was already writing, and leaves the file as it is (issue 18)', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = freshDir('review-uncertain');
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, lines(20));
    await olderThanSnapshots();
    const agentText = lines(20).replace('line 7\n', 'line 7 (agent)\n');
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    // The agent empties the file before its announcement arrives: our snapshot reads "".
    await a.prompt(key, edits([{ path: 'notes.txt', content: agentText, truncateFirst: true }]));
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText);
    const f = change(a, key, 1, file);
    const refused = (await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: f.id })) as string[];
    assert.match(refused.join(' '), /not known for certain/);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText, 'Undo never writes an empty file over the agent\'s (and the person\'s) text');
    const r = (await runCommand('agentSwitchboard.review.restoreCheckpoint', { type: 'turn', sessionKey: key, turn: 1, confirmed: true })) as { restored: string[]; skipped: string[] };
    assert.deepStrictEqual(r, { restored: [], skipped: [file] });
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText);
    await a.closeSession(key);
  });

  it('the agent empties the file seconds before its call arrives: the Changes view says "base unknown", Undo says why and writes nothing (issue 18 holdout)', async function () {
    // Old code measured "recent" from the call's announcement: this empty snapshot was certain, and
    // Undo wrote an empty file over the person's text.
    this.timeout(90_000);
    const a = await api();
    const dir = freshDir('review-truncated');
    const file = path.join(dir, 'kept.txt');
    const original = lines(12, (i) => `the person's line ${i}`);
    fs.writeFileSync(file, original);
    await olderThanSnapshots();
    const agentText = original.replace('line 4\n', 'line 4 (agent)\n');
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, edits([{ path: 'kept.txt', content: agentText, truncateFirst: true, announceAfterMs: 2600 }]));
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText);
    const f = change(a, key, 1, file);
    assert.strictEqual(f.base.text, '', 'the snapshot caught the file empty');

    const refused = (await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: f.id })) as string[];
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText, 'the file on disk is unchanged: never emptied');
    assert.match(refused.join(' '), /kept\.txt: what the file held before the agent's change is not known for certain \(.+\); nothing was written/);
    const hunkRefused = (await runCommand('agentSwitchboard.review.undo', { type: 'hunk', changeId: f.id, hunk: 0 })) as string[];
    assert.match(hunkRefused.join(' '), /not known for certain/);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), agentText);
    assert.match(f.base.uncertain ?? '(certain)', /empty when it was read|after the agent's turn began|diff shows text the file did not hold/);

    // As a person would: the card's "Review change" reveals the row. The tree keeps its scroll
    // position (earlier tests selected rows further down), so a newest turn at the top is not drawn
    // until something scrolls it into view.
    await click('.tool-card .review-change');
    const rows = `return [...document.querySelectorAll('.monaco-list-row')].map((e) => e.textContent || '').filter((t) => t.includes('kept.txt'));`;
    const shown = await poll('the file row marked "base unknown"', async () => (await evaluateInFrames<string[]>(rows)).flat().find((t) => /base unknown/.test(t)));
    assert.match(shown, /kept\.txt.*base unknown/);
    await screenshot('review-base-unknown', 30000, { waitForSelector: '.monaco-list-row:has-text("base unknown")', sidebarWidth: 520 });

    await vscode.commands.executeCommand('notifications.showList');
    const notes = `return [...document.querySelectorAll('.notifications-center .notification-list-item')].map((e) => e.textContent || '');`;
    await poll('the refusal in a notification', async () => (await evaluateInFrames<string[]>(notes)).flat().find((t) => t.includes('Not undone') && t.includes('not known for certain')));
    await screenshot('review-base-unknown-undo', 30000, { waitForSelector: '.notifications-center .notification-list-item', sidebarWidth: 520 });
    await vscode.commands.executeCommand('notifications.hideList');
    assert.strictEqual(change(a, key, 1, file).fileDecision, 'pending', 'still to review');
    await a.closeSession(key);
  });

  it('Undo into a protected path asks for that very write; without the person\'s yes the file stays, and the refusal is audited', async function () {
    this.timeout(90_000);
    const a = await api();
    const dir = freshDir('review-protected');
    const file = path.join(dir, '.vscode', 'agent.json');
    await olderThanSnapshots();
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, edits([{ path: '.vscode/agent.json', content: '{"x": 1}\n' }]));
    const f = change(a, key, 1, file);
    assert.strictEqual(f.base.text, null, 'created by the agent');
    const before = (await vscode.commands.executeCommand<{ ok: boolean; records: number }>('agentSwitchboard.verifyAudit')).records;
    // The editor under test answers every modal dialog with "Cancel" (its smoke-test mode): the
    // confirmation is asked and not given. The confirmed path is covered by test/unit/edits/undoGuard.test.ts.
    const refused = (await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: f.id })) as string[];
    assert.match(refused.join(' '), /protected path .*only when you confirm/);
    assert.ok(fs.existsSync(file), 'not deleted without the person\'s yes');
    const r = (await runCommand('agentSwitchboard.review.restoreCheckpoint', { type: 'turn', sessionKey: key, turn: 1, confirmed: true })) as { restored: string[]; skipped: string[] };
    assert.deepStrictEqual(r, { restored: [], skipped: [file] });
    assert.ok(fs.existsSync(file));
    const after = await vscode.commands.executeCommand<{ ok: boolean; records: number }>('agentSwitchboard.verifyAudit');
    assert.ok(after.ok && after.records >= before + 2, `both refusals recorded: ${before} -> ${after.records}`);
    assert.strictEqual(change(a, key, 1, file).fileDecision, 'pending');
    await a.closeSession(key);
  });
});

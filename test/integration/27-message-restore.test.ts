/**
 * The way back from a message, from the thread as a person uses it (the offline demo agent, three
 * turns, each editing or creating the file its prompt names): *Restore* on the first message
 * confirms the count of files in the thread, then puts both of the first turns' files back as they
 * were on disk, and the Changes view agrees; a file the person edited after the agent is left as
 * they left it, and the thread says so and why. *Edit* on a message opens it in place, its restore
 * ticked; sent, the files go back to before it and the edited words go out as a new turn. At 300
 * and 260 px the buttons, the confirmation and the editor are whole (nothing cut, nothing outside
 * the view).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../src/api';
import { api, autoAnswer, personEdit, setAgents, until, waitForState, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';

const GREET = ['export function greet(name: string): string {', '  return `Hello, ${name}!`;', '}', ''].join('\n');
const FAREWELL = ['export function farewell(name: string): string {', '  return `Bye, ${name}.`;', '}', ''].join('\n');

/** Polls a look into the page until it gives a value; 20 s at most. */
async function poll<T>(what: string, get: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 20_000; ; ) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Text of the first element matching `selector` in the Session page, or undefined. */
async function textOf(selector: string): Promise<string | undefined> {
  const r = await evaluateInFrames<string | null>(`const e = document.querySelector(${JSON.stringify(selector)}); return e && !e.closest('[hidden]') ? e.textContent : null;`, { inFrame: '#app' });
  return r.find((t) => t) ?? undefined;
}

/** Buttons of the message and its panel that stick out of the view or whose label is cut (their own box, or a vscode-button's shadow). */
const CUT = `
  const W = innerWidth;
  const name = (e) => e.className + ' "' + (e.textContent || '').trim() + '"';
  const els = [...document.querySelectorAll('.msg-action:not([hidden]), .msg-panel vscode-button, .msg-editor vscode-button, .msg-editor label')].filter((e) => e.getClientRects().length);
  return {
    count: els.length,
    cut: els.filter((e) => {
      const r = e.getBoundingClientRect();
      const base = e.shadowRoot && e.shadowRoot.querySelector('.base');
      return r.right > W + 0.5 || r.left < -0.5 || e.scrollWidth > e.clientWidth + 1 || (base && base.scrollWidth > base.clientWidth + 1);
    }).map(name),
  };`;

async function measure(width: number): Promise<{ count: number; cut: string[] }> {
  const got = await setSidebarWidth(width);
  assert.ok(Math.abs(got - width) <= 2, `side bar width ${got}, wanted ${width}`);
  await new Promise((r) => setTimeout(r, 600));
  const [m] = await evaluateInFrames<{ count: number; cut: string[] }>(CUT, { inFrame: '#app' });
  assert.ok(m, 'the Session page is visible');
  return m;
}

function fileChange(a: SwitchboardApi, key: string, file: string) {
  const f = a.changes(key).flatMap((t) => t.files).find((x) => x.path === file);
  if (!f) throw new Error(`no change of ${file}: ${JSON.stringify(a.changes(key)).slice(0, 1500)}`);
  return f;
}

describe('the way back from a message', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([]);
  });

  it('Restore on the first message puts both turns\' files back after confirming the count; the person\'s later edit stays and is named; Edit opens a message in place and resends it over its files as they were', async function () {
    this.timeout(300_000);
    const a = await api();
    await setViewport(1600, 1000);
    const dir = path.join(workspaceDir(), 'message-restore');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    const [greet, todo, farewell] = [path.join(dir, 'src', 'greet.ts'), path.join(dir, 'notes', 'todo.md'), path.join(dir, 'src', 'farewell.ts')];
    fs.writeFileSync(greet, GREET);
    fs.writeFileSync(farewell, FAREWELL);
    // A file changed within 2 s of the agent's call has an uncertain base (baselines.ts RECENT_MS).
    await new Promise((r) => setTimeout(r, 2200));

    const key = await a.startSession({ agentId: 'demo', cwd: dir });
    const answered = autoAnswer(a, key, 'allow_once');
    const prompts = ['Add a farewell note to src/greet.ts', 'Start a list in notes/todo.md', 'Explain src/farewell.ts in a comment'];
    try {
      for (const p of prompts) assert.strictEqual((await a.prompt(key, p)).stopReason, 'end_turn');
    } finally {
      answered.dispose();
    }
    assert.notStrictEqual(fs.readFileSync(greet, 'utf8'), GREET, 'turn 1 edited greet.ts');
    assert.ok(fs.existsSync(todo), 'turn 2 created notes/todo.md');
    assert.deepStrictEqual(a.changes(key).map((t) => t.turn), [1, 2, 3]);

    // The person works on the file of turn 3 after the agent, and saves.
    const doc = await vscode.workspace.openTextDocument(farewell);
    const editor = await vscode.window.showTextDocument(doc);
    await personEdit(editor, (b) => b.insert(new vscode.Position(0, 0), '// mine\n'));
    await doc.save();
    const mine = fs.readFileSync(farewell, 'utf8');
    await until('the person\'s edit is noted', () => fileChange(a, key, farewell).later.length > 0);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const ids = a.session(key)!.entries.filter((e) => e.kind === 'user' && e.echo !== undefined).map((e) => e.id);
    assert.strictEqual(ids.length, 3);
    const first = `[data-entry-id="${ids[0]}"]`;
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await setSidebarWidth(300);
    await click(`${first} .restore-checkpoint`);
    const confirm = await poll('the confirmation under the first message', () => textOf(`${first} .msg-panel`));
    assert.match(confirm, /Restore 2 files to before this message\?/);
    assert.match(confirm, /src\/greet\.ts, notes\/todo\.md/);
    assert.match(confirm, /Undoes this turn and the one after it/);
    assert.match(confirm, /Left alone: src\/farewell\.ts \(you changed it since\)/);
    assert.notStrictEqual(fs.readFileSync(greet, 'utf8'), GREET, 'nothing is written before the confirmation');
    await screenshot('message-restore-confirm', 30000, { waitForSelector: `${first} .msg-confirm`, sidebarWidth: 300 });
    for (const w of [300, 260]) {
      const m = await measure(w);
      assert.ok(m.count >= 4, `Restore, Edit, the confirmation's two buttons: ${JSON.stringify(m)}`);
      assert.deepStrictEqual(m.cut, [], `at ${w} px nothing is cut or outside the view`);
    }
    await screenshot('message-restore-confirm-260', 30000, { waitForSelector: `${first} .msg-confirm`, sidebarWidth: 260 });

    await click(`${first} .msg-confirm`);
    const result = await poll('the result under the first message', async () => {
      const t = await textOf(`${first} .msg-panel`);
      return t && /Restored/.test(t) ? t : undefined;
    });
    assert.match(result, /Restored 2 files: src\/greet\.ts, notes\/todo\.md\./);
    assert.match(result, /Left alone: src\/farewell\.ts \(you changed it since\)/);
    assert.strictEqual(fs.readFileSync(greet, 'utf8'), GREET, 'turn 1\'s edit undone on disk');
    assert.ok(!fs.existsSync(todo), 'the file turn 2 created is gone');
    assert.ok(!fs.existsSync(path.dirname(todo)), 'and the folder its write made for it (notes/), left empty, with it');
    assert.strictEqual(fs.readFileSync(farewell, 'utf8'), mine, 'the person\'s file is as they saved it');
    assert.deepStrictEqual(
      a.changes(key).map((t) => [t.turn, t.files.map((f) => f.fileDecision)]),
      [[1, ['undone']], [2, ['undone']], [3, ['pending']]],
      'the Changes view agrees: turns 1 and 2 undone, the left-alone file still to review',
    );
    await screenshot('message-restored-260', 30000, { waitForSelector: `${first} .msg-panel:has-text("Restored")`, sidebarWidth: 260 });

    // Edit in place, with its restore: a fourth turn edits greet.ts again; its message, edited,
    // goes out as a new turn over greet.ts as it was before that message — one step.
    const answered2 = autoAnswer(a, key, 'allow_once');
    try {
      assert.strictEqual((await a.prompt(key, prompts[0])).stopReason, 'end_turn');
      const calls = () => JSON.stringify(Object.values(a.session(key)!.toolCalls).slice(-2).map((t) => ({ title: t.title, status: t.status, text: t.content.filter((x) => x.type === 'text') })));
      assert.notStrictEqual(fs.readFileSync(greet, 'utf8'), GREET, `turn 4 edited greet.ts again: ${calls()}`);
      const userIds = a.session(key)!.entries.filter((e) => e.kind === 'user' && e.echo !== undefined).map((e) => e.id);
      const fourth = `[data-entry-id="${userIds[3]}"]`;
      await click(`${fourth} .edit-message`);
      const shown = await poll('the message open for editing in place', async () => {
        const [v] = await evaluateInFrames<{ value: string; restore: boolean | null; text: string; wordsHidden: boolean } | null>(`
          const e = document.querySelector('${fourth} .msg-editor:not([hidden])');
          if (!e) return null;
          const r = e.querySelector('.msg-edit-restore');
          return { value: e.querySelector('.msg-edit-input').value, restore: r ? r.checked : null, text: e.textContent, wordsHidden: document.querySelector('${fourth} .user-text').hidden };`, { inFrame: '#app' });
        return v ?? undefined;
      });
      assert.strictEqual(shown.value, prompts[0], 'its words in the box where they were');
      assert.ok(shown.wordsHidden, 'the box stands in place of the words');
      assert.strictEqual(shown.restore, true, 'the restore is offered, ticked');
      assert.match(shown.text, /Restore 1 file to before this message first/);
      assert.match(shown.text, /Sends as a new turn; the agent still remembers what came after this message\./);
      const m = await measure(260);
      assert.deepStrictEqual(m.cut, [], 'the message editor at 260 px: nothing cut');
      await screenshot('message-edit-260', 30000, { waitForSelector: `${fourth} .msg-editor:not([hidden])`, sidebarWidth: 260 });
      const edited = 'Start a list in notes/todo.md';
      await evaluateInFrames(`const b = document.querySelector('${fourth} .msg-edit-input'); b.value = ${JSON.stringify(edited)}; return true;`, { inFrame: '#app' });
      await click(`${fourth} .msg-edit-send`);
      const s = await waitForState(a, key, (x) => x.entries.filter((e) => e.kind === 'user').length === 5 && x.status === 'ready' && x.entries.at(-1)?.kind !== 'user', 'the edited message\'s turn', 60_000);
      const last = s.entries.filter((e) => e.kind === 'user').at(-1)!;
      assert.ok('text' in last && last.text === edited, 'the edited words went out as a new turn');
      assert.strictEqual(fs.readFileSync(greet, 'utf8'), GREET, 'greet.ts restored to before the edited message, first');
      assert.ok(fs.existsSync(todo), 'the new turn did what the edited words ask');
    } finally {
      answered2.dispose();
    }
    await setSidebarWidth(300);
    await a.closeSession(key);
  });
});

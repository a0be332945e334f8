/**
 * Agents that do not ask, in the real editor (issue 19): a write or command sent without
 * `session/request_permission` is held and becomes a card of our own in the thread, marked "Asked
 * nothing before acting"; it happens only after the person's click, exactly as shown. The offline
 * demo agent in its "Auto Edit (does not ask)" mode, a flood of unasked writes answered with
 * Reject all, and a real agent: gemini-cli 0.61 in `autoEdit` against the fake Gemini server.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { FILE_CONTENT, FILE_NAME, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';
import { geminiCliLaunch } from '../fakes/agents';
import { api, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot } from './screenshot';
import type { SessionState } from '../../src/acp/session/types';

/** The session webview's page (the runner evaluates in the frames that hold it). */
const SESSION_PAGE = '#app .composer';
const heldWaiting = (s: SessionState) => Object.values(s.permissions).filter((p) => p.state === 'waiting' && p.unrequested);

function freshDir(name: string): string {
  const dir = path.join(workspaceDir(), name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('agents that do not ask: asked at the effect (issue 19)', () => {
  let fake: FakeModelServer | undefined;
  let geminiDir = '';

  before(async () => {
    // The default policy: write and command "ask", unrequestedEffects "ask".
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    geminiDir = freshDir('gemini-auto');
    fake = await startFakeModelServer({ workspace: geminiDir, scenario: 'write-shell' });
    const launch = geminiCliLaunch({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'as-gemini-auto-home-')), fakeUrl: fake.url });
    await setAgents([scenarioAgent('unasked-writes', 'unasked-writes'), { id: 'gemini-auto', name: 'Gemini CLI (test)', command: launch.command, args: launch.args, env: launch.env }]);
  });

  after(async () => {
    await setAgents([]);
    await fake?.close();
  });

  it('the demo agent in Auto Edit: its write lands only after the click on the held card; its command, rejected, never runs', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshDir('unasked-demo');
    const file = path.join(dir, 'notes', 'held.md');
    const key = await a.startSession({ agentId: 'demo', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await a.setMode(key, 'autoEdit');
    await waitForState(a, key, (s) => s.entries.some((e) => e.kind === 'notice' && /In "Auto Edit \(does not ask\)" .* does not ask before it writes files or runs commands\. Agent Switchboard holds each write and command/.test(e.text)), 'the note on the mode');
    const marks = (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.autonomy-mark')].map((e) => e.getAttribute('aria-label') || '');`, { inFrame: SESSION_PAGE })).flat();
    assert.ok(marks.some((m) => /holds each write and command/.test(m)), `the header says it: ${JSON.stringify(marks)}`);

    const turn = a.prompt(key, 'create notes/held.md with a list');
    const first = await waitForState(a, key, (s) => heldWaiting(s).length === 1, 'the held write');
    assert.ok(!fs.existsSync(file), 'nothing is written while the card waits');
    const write = heldWaiting(first)[0];
    assert.deepStrictEqual(write.display, [{ type: 'write', path: 'unasked-demo/notes/held.md', source: 'diff' }]);
    assert.strictEqual(first.toolCalls[write.toolCallId].title, 'Create unasked-demo/notes/held.md');
    // VS Code's default side bar width: the card's question, summary and buttons are what a person sees.
    await screenshot('held-write-card', 30000, { waitForSelector: '.tool-card.waiting .perm-unrequested', sidebarWidth: 300 });
    await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');

    const second = await waitForState(a, key, (s) => heldWaiting(s).length === 1 && heldWaiting(s)[0].permissionId !== write.permissionId, 'the held command');
    assert.ok(fs.readFileSync(file, 'utf8').length > 0, 'the write landed after the click');
    const cmd = heldWaiting(second)[0];
    const shown = cmd.display?.[0];
    assert.ok(shown?.type === 'command' && shown.line === 'echo DEMO_SHELL_OK && ls' && shown.cwd === dir, JSON.stringify(shown));
    await screenshot('held-command-card', 30000, { waitForSelector: '.tool-card.waiting .perm-unrequested', sidebarWidth: 300 });
    await click('.tool-card.waiting .perm-option[data-kind="reject_once"]');
    assert.strictEqual((await turn).stopReason, 'end_turn');

    const s = a.session(key)!;
    const held = Object.values(s.permissions).filter((p) => p.unrequested);
    assert.deepStrictEqual(held.map((p) => `${p.state}:${p.answeredBy}`), ['selected:person', 'selected:person'], 'both answered by clicks');
    const cards = held.map((p) => s.toolCalls[p.toolCallId]);
    assert.deepStrictEqual(cards.map((t) => `${t.kind}:${t.status}:${t.verification ?? ''}`), ['edit:completed:client', 'execute:rejected:']);
    assert.deepStrictEqual(Object.keys(s.terminals), [], 'the rejected command never started');
    assert.ok(s.entries.some((e) => e.kind === 'agent' && 'text' in e && /Shell.*(refused|failed|not run|rejected)/is.test(e.text)), 'the agent heard the refusal');
    // The trace and the audit record both as asked at the effect, decided by the person.
    const spans = a.traceSpans(key).filter((x) => x.attributes['agent_switchboard.span.kind'] === 'permission');
    assert.deepStrictEqual(spans.map((x) => x.attributes['agent_switchboard.permission.asked_at']), ['effect', 'effect']);
    assert.deepStrictEqual(spans.map((x) => x.attributes['agent_switchboard.decided_by']), ['person', 'person']);
    const audit = await vscode.commands.executeCommand<{ ok: boolean }>('agentSwitchboard.verifyAudit');
    assert.ok(audit.ok);
    await a.closeSession(key);
  });

  it('a flood of unasked writes: one card each, "N requests wait for you", and Reject all refuses every one', async function () {
    this.timeout(90_000);
    const a = await api();
    const dir = freshDir('unasked-flood');
    const names = ['one.txt', 'two.txt', 'three.txt', 'four.txt'];
    const key = await a.startSession({ agentId: 'unasked-writes', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, JSON.stringify({ files: names }));
    await waitForState(a, key, (s) => heldWaiting(s).length === names.length, 'four held writes');
    const bar = async () => (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.waiting-bar')].filter((e) => !e.hidden).map((e) => e.textContent || '');`, { inFrame: SESSION_PAGE })).flat();
    for (let i = 0; i < 50 && !(await bar()).some((t) => t.includes('4 requests wait for you')); i++) await new Promise((r) => setTimeout(r, 200));
    assert.ok((await bar()).some((t) => /4 requests wait for you.*Reject all/.test(t)), JSON.stringify(await bar()));
    await screenshot('held-reject-all', 30000, { waitForSelector: '.waiting-bar .reject-all', sidebarWidth: 300 });
    await click('.waiting-bar .reject-all');
    assert.strictEqual((await turn).stopReason, 'end_turn');
    const s = a.session(key)!;
    assert.ok(Object.values(s.permissions).every((p) => p.state === 'selected' && p.answeredBy === 'person'));
    const answer = s.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    assert.strictEqual((answer.match(/: refused .*the person rejected it/g) ?? []).length, names.length, answer);
    for (const n of names) assert.ok(!fs.existsSync(path.join(dir, n)), `${n} not written`);
    assert.ok((await bar()).length === 0, 'the bar is gone with the cards');
    await a.closeSession(key);
  });

  it('the keyboard\'s approve answers the waiting card that has the focus, not the oldest one', async function () {
    this.timeout(90_000);
    const a = await api();
    const dir = freshDir('unasked-keys');
    const key = await a.startSession({ agentId: 'unasked-writes', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, JSON.stringify({ files: ['first.txt', 'second.txt'] }));
    await waitForState(a, key, (s) => heldWaiting(s).length === 2, 'two held writes');
    const oldest = heldWaiting(a.session(key)!).sort((x, y) => x.requestedAt - y.requestedAt)[0];
    const target = heldWaiting(a.session(key)!).find((p) => p.permissionId !== oldest.permissionId)!;
    // The person clicks the newer card (its title, plain text): the card takes the focus.
    await click(`[data-tool-call-id="${target.toolCallId}"] .tool-card.waiting .tool-title`);
    const focused = await evaluateInFrames<string | null>(`return document.activeElement?.closest('[data-tool-call-id]')?.getAttribute('data-tool-call-id') ?? null;`, { inFrame: SESSION_PAGE });
    assert.deepStrictEqual(focused, [target.toolCallId], 'the clicked card has the focus');
    // The page tells the extension which card has the focus; the key answers that one.
    await new Promise((r) => setTimeout(r, 500));
    assert.strictEqual(await vscode.commands.executeCommand('agentSwitchboard.approveWaiting'), true);
    const s = a.session(key)!;
    assert.deepStrictEqual([s.permissions[target.permissionId].state, s.permissions[target.permissionId].optionId, s.permissions[target.permissionId].answeredBy], ['selected', 'allow', 'person']);
    assert.strictEqual(s.permissions[oldest.permissionId].state, 'waiting', 'the oldest card still waits');
    await vscode.commands.executeCommand('agentSwitchboard.rejectAllWaiting');
    await turn;
    const written = s.toolCalls[target.toolCallId].title.endsWith('second.txt') ? 'second.txt' : 'first.txt';
    assert.deepStrictEqual(['first.txt', 'second.txt'].filter((f) => fs.existsSync(path.join(dir, f))), [written]);
    await a.closeSession(key);
  });

  it('a held write the card shows only in part offers the whole diff first: it opens in the diff editor, from the session\'s own copy', async function () {
    this.timeout(60_000);
    const a = await api();
    const dir = freshDir('unasked-long');
    const key = await a.startSession({ agentId: 'unasked-writes', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, JSON.stringify({ files: ['long.txt'], lines: 40 }));
    await waitForState(a, key, (s) => heldWaiting(s).length === 1, 'the held write of 40 lines');
    await screenshot('held-write-cut', 30000, { waitForSelector: '.tool-card.waiting .perm-cut .open-full-diff', sidebarWidth: 300 });
    await click('.tool-card.waiting .perm-cut .open-full-diff');
    const tab = await until('the diff editor', () => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputTextDiff ? t : undefined;
    });
    const input = tab.input as vscode.TabInputTextDiff;
    assert.match(tab.label, /long\.txt: new file ↔ the agent's change/);
    const right = await vscode.workspace.openTextDocument(input.modified);
    assert.strictEqual(right.lineCount - 1, 40, 'the whole content, every line');
    assert.match(right.getText(), /line 40\n$/);
    assert.strictEqual((await vscode.workspace.openTextDocument(input.original)).getText(), '', 'a new file: nothing on the left');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await click('.tool-card.waiting .perm-option[data-kind="reject_once"]');
    await turn;
    assert.ok(!fs.existsSync(path.join(dir, 'long.txt')));
    await a.closeSession(key);
  });

  it('a real agent in a mode that does not ask: gemini-cli in autoEdit writes only after the click on the held card', async function () {
    this.timeout(150_000);
    const a = await api();
    const file = path.join(geminiDir, FILE_NAME);
    const key = await a.startSession({ agentId: 'gemini-auto', cwd: geminiDir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await a.setMode(key, 'autoEdit');
    await waitForState(a, key, (s) => s.currentModeId === 'autoEdit' && s.entries.some((e) => e.kind === 'notice' && /In "Auto Edit" .* does not ask/.test(e.text)), 'gemini in Auto Edit, noted');
    // What gemini still asks about itself (its own shell) is allowed as the agent asks; the write
    // it does not ask about is answered only by the click below.
    const asked: string[] = [];
    const sub = a.onDidChangeSession((e) => {
      if (e.key !== key) return;
      for (const p of e.patches) {
        if (p.op !== 'permission' || p.permission.state !== 'waiting' || p.permission.unrequested) continue;
        asked.push(p.permission.toolCallId);
        const allow = p.permission.options.find((o) => o.kind === 'allow_once')!;
        setTimeout(() => a.answerPermission(key, p.permission.permissionId, allow.optionId), 10);
      }
    });
    try {
      const turn = a.prompt(key, 'Create a file named hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.');
      const waiting = await waitForState(a, key, (s) => heldWaiting(s).length === 1, 'the held write of gemini', 90_000);
      const held = heldWaiting(waiting)[0];
      assert.ok(!fs.existsSync(file), 'gemini\'s write waits for the person');
      assert.strictEqual(waiting.toolCalls[held.toolCallId].title, `Create gemini-auto/${FILE_NAME}`, 'a new file, named as the gate names it');
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(!fs.existsSync(file), 'still nothing written 1.5 s later');
      await screenshot('held-gemini-write', 30000, { waitForSelector: '.tool-card.waiting .perm-unrequested', sidebarWidth: 300 });
      await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');
      assert.strictEqual((await turn).stopReason, 'end_turn');
    } finally {
      sub.dispose();
    }
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FILE_CONTENT, 'the write landed exactly as shown');
    const s = a.session(key)!;
    const held = Object.values(s.permissions).filter((p) => p.unrequested);
    assert.strictEqual(held.length, 1);
    assert.strictEqual(held[0].answeredBy, 'person');
    assert.strictEqual(s.toolCalls[held[0].toolCallId].verification, 'client');
    console.log(`      (gemini asked about ${asked.length} call(s) itself in autoEdit; the write was held)`);
    await a.closeSession(key);
  });
});

/**
 * After parallel work, in the real editor: the Changes view names each session by its agent and
 * title and each turn by its prompt in words (a JSON script too), counts only what is still to
 * review, and has nothing left of a worktree Keep This One discarded. And a session that waits for
 * the person off screen is visible wherever they are (the status bar, the session picker), one click
 * shows it, and feedback sent from a diff comment shows the session it went to in the side bar.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import { api, autoAnswer, runCommand, scenarioAgent, setAgents, waitForState, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot, setViewport } from './screenshot';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The rows a pane shows (label and description), by the pane's title (side bar or panel). */
async function paneRows(title: string): Promise<string[]> {
  const [rows] = await evaluateInFrames<string[] | null>(`
    const pane = [...document.querySelectorAll('.pane')].find((p) => (p.querySelector('.pane-header .title')?.textContent || '').trim() === ${JSON.stringify(title)});
    return pane ? [...pane.querySelectorAll('.monaco-list-row')].map((r) => (r.textContent || '').replace(/\\s+/g, ' ').trim()) : null;`);
  return rows ?? [];
}

/** The number on the panel's Agent Switchboard tab (the Changes view's badge), 0 without one. */
async function changesBadge(): Promise<number> {
  const [n] = await evaluateInFrames<number>(`
    const item = [...document.querySelectorAll('.part.panel .action-item')].find((e) => (e.querySelector('.action-label')?.textContent || '').trim().startsWith('Agent Switchboard'));
    const badge = item && item.querySelector('.badge-content');
    return badge && badge.offsetParent !== null ? Number(badge.textContent) || 0 : 0;`);
  return n ?? 0;
}

/** Collapses (true) or expands (false) the side bar's panes with these titles. */
async function setPanes(titles: string[], collapsed: boolean): Promise<void> {
  await evaluateInFrames(`
    for (const h of document.querySelectorAll('.part.sidebar .pane-header')) {
      const t = (h.querySelector('.title')?.textContent || '').trim();
      if (${JSON.stringify(titles)}.includes(t) && h.getAttribute('aria-expanded') === ${JSON.stringify(String(collapsed))}) h.click();
    }
    return true;`);
}

describe('the Changes view after parallel work', () => {
  let repo = '';

  before(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    repo = path.join(workspaceDir(), 'pile-repo');
    fs.rmSync(repo, { recursive: true, force: true });
    fs.mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'pile-shared.txt'), lines(10));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    await setAgents([scenarioAgent('disk', 'disk-writer')]);
  });

  after(async () => {
    await setAgents([]);
  });

  it('after a compare run and Keep This One: nothing of the discarded worktree, sessions and turns named in words, counts of what is to review only', async function () {
    this.timeout(180_000);
    const a = await api();
    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    const badgeBefore = await changesBadge();
    const script = JSON.stringify({ edits: [{ path: 'pile-shared.txt', content: lines(10) + 'added by the script\n' }] });
    const id = (await runCommand('agentSwitchboard.sendToSeveral', { agentIds: ['disk', 'disk'], cwd: repo, prompt: script })) as string;
    const done = (await a.comparison(id, { settled: true }))!;
    for (const e of done.entries) assert.deepStrictEqual(e.files.map((f) => f.rel), ['pile-shared.txt'], JSON.stringify(e).slice(0, 400));
    const [keep, drop] = done.entries;
    const dropDir = (await a.worktrees()).find((w) => w.id === drop.worktreeId)!.dir;
    assert.strictEqual(a.changes(drop.sessionKey).flatMap((t) => t.files).length, 1, 'the discarded one had a change to review');

    // A session in the main folder changes two files; the person undoes one.
    const m = await a.startSession({ agentId: 'disk', cwd: repo });
    await a.prompt(m, JSON.stringify({ edits: [{ path: 'pile-notes.txt', content: 'notes\n' }, { path: 'pile-todo.txt', content: 'todo\n' }] }));
    const notes = a.changes(m).flatMap((t) => t.files).find((f) => f.path.endsWith('pile-notes.txt'))!;
    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: notes.id });

    await runCommand('agentSwitchboard.compare.keep', { compareId: id, worktreeId: keep.worktreeId, discardOthers: true });
    assert.ok(!fs.existsSync(dropDir));
    assert.deepStrictEqual(a.changes(drop.sessionKey), [], 'Discard took the discarded worktree\'s changes out of the review');

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    // The list keeps its scroll position (an earlier reveal may have scrolled it) and draws only the
    // rows in view: start from its top, where the session changed last is.
    await vscode.commands.executeCommand('list.focusFirst');
    // Every row on screen at once: the panel maximized while they are read.
    await vscode.commands.executeCommand('workbench.action.toggleMaximizedPanel');
    let rows: string[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        rows = await paneRows('Changes');
        // The view draws what changed while it was hidden once it shows: read until it has.
        if (rows.some((r) => r.includes('pile-todo.txt')) && !rows.some((r) => r.includes(drop.branch) || r.includes(path.dirname(dropDir)))) break;
        await sleep(200);
      }
    } finally {
      await vscode.commands.executeCommand('workbench.action.toggleMaximizedPanel');
    }
    const info = rows.join('\n');
    // Nothing listed under the extension's storage (the discarded worktree lived there).
    assert.ok(!rows.some((r) => r.includes(path.dirname(dropDir))), info);
    // Each session by its agent and title; each turn by its prompt in words; no raw JSON anywhere.
    assert.ok(rows.every((r) => !r.includes('{')), info);
    assert.ok(rows.some((r) => r.startsWith('Scenario disk-writer · edits pile-notes.txt, pile-todo.txt') && r.endsWith('1 to review')), info);
    assert.ok(rows.some((r) => r.startsWith('Scenario disk-writer · edits pile-shared.txt') && /reviewed · ⎇ switchboard\//.test(r)), info);
    assert.ok(rows.some((r) => r.startsWith('Turn 1 · edits pile-notes.txt, pile-todo.txt')), info);
    await setViewport(1600, 1000);
    try {
      await screenshot('changes-after-parallel-work-300', 30000, { waitForSelector: '.monaco-list-row:has-text("edits pile-notes.txt")', sidebarWidth: 300 });
      await screenshot('changes-after-parallel-work-260', 30000, { waitForSelector: '.monaco-list-row:has-text("edits pile-notes.txt")', sidebarWidth: 260 });
    } finally {
      await setViewport(1400, 900);
    }
    // The counts are what is still to review: todo.txt only (notes undone; the kept worktree's work applied).
    let badge = 0;
    for (let i = 0; i < 25 && (badge = await changesBadge()) !== badgeBefore + 1; i++) await sleep(200);
    assert.strictEqual(badge, badgeBefore + 1, `the view's badge counts what is to review (${badgeBefore} before)`);
    await setPanes(['Sessions'], false);
    // The list draws only the rows in view and earlier tests leave agents with long histories: fold
    // every agent's group, then open only this agent's.
    await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
    await vscode.commands.executeCommand('list.collapseAll');
    await evaluateInFrames(`
      const pane = [...document.querySelectorAll('.pane')].find((p) => (p.querySelector('.pane-header .title')?.textContent || '').trim() === 'Sessions');
      const row = pane && [...pane.querySelectorAll('.monaco-list-row')].find((r) => (r.querySelector('.label-name')?.textContent || '').trim() === 'Scenario disk-writer');
      if (row && row.getAttribute('aria-expanded') === 'false') row.click();
      return true;`);
    let board: string[] = [];
    for (let i = 0; i < 50; i++) {
      board = await paneRows('Sessions');
      if (board.some((r) => / · pile-repo · 1 file to review \+1 −0/.test(r))) break;
      await sleep(200);
    }
    assert.ok(board.some((r) => / · pile-repo · 1 file to review \+1 −0/.test(r)), board.join('\n'));
    await setPanes(['Sessions'], true);
    for (const k of [m, keep.sessionKey]) await a.closeSession(k);
    await runCommand('agentSwitchboard.worktree.discard', { worktreeId: keep.worktreeId, confirmed: true });
    // The kept worktree's changes left with it.
    assert.deepStrictEqual(a.changes(keep.sessionKey), []);
    git(repo, 'checkout', '--', '.');
  });
});

describe('waiting for you, wherever the person is', () => {
  before(() => setAgents([]));

  it('a session that waits off screen shows in the status bar and the picker; one click shows it; diff feedback shows the session it went to', async function () {
    this.timeout(180_000);
    const a = await api();
    const file = path.join(workspaceDir(), 'pile-feedback.txt');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const sessionText = async () => (await evaluateInFrames<string>(`return document.querySelector('#app')?.innerText || '';`, { inFrame: '#app .composer' })).join('\n');
    const statusItems = async () => (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.part.statusbar .statusbar-item')].filter((e) => e.offsetParent !== null).map((e) => (e.textContent || '').trim());`)).flat();
    const A = await a.startSession({ agentId: 'demo' });
    const B = await a.startSession({ agentId: 'demo' });
    try {
      await vscode.commands.executeCommand('agentSwitchboard.showSession', B);
      const turn = a.prompt(A, 'edit pile-feedback.txt');
      await waitForState(a, A, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'A asks permission');
      // Wherever the person is: the status bar names the agent that waits.
      let seen: string[] = [];
      for (let i = 0; i < 50; i++) {
        seen = await statusItems();
        if (seen.some((t) => t.includes('Offline demo agent waits for you'))) break;
        await sleep(200);
      }
      assert.ok(seen.some((t) => t.includes('Offline demo agent waits for you')), JSON.stringify(seen));
      // The side bar shows B; its session picker marks A as waiting.
      assert.ok(!(await sessionText()).includes('edit pile-feedback.txt'), 'the side bar shows B');
      const [picker] = await evaluateInFrames<string>(`return [...document.querySelectorAll('.header vscode-option, .header vscode-badge')].map((e) => e.textContent || '').join(' | ');`, { inFrame: '#app .composer' });
      assert.match(picker ?? '', /● |\b1\b/, `the session picker marks the waiting session: ${picker}`);
      await setViewport(1600, 1000);
      try {
        await screenshot('waiting-status-bar-300', 30000, { waitForSelector: '.statusbar-item:has-text("waits for you")', sidebarWidth: 300 });
        await screenshot('waiting-status-bar-260', 30000, { waitForSelector: '.statusbar-item:has-text("waits for you")', sidebarWidth: 260 });
      } finally {
        await setViewport(1400, 900);
      }

      // One click shows A, and the item goes once nothing waits off screen.
      await click('.part.statusbar .statusbar-item:has-text("waits for you")');
      let text = '';
      for (let i = 0; i < 50 && !(text = await sessionText()).includes('edit pile-feedback.txt'); i++) await sleep(200);
      assert.ok(text.includes('edit pile-feedback.txt'), 'one click on the status bar shows A in the side bar');
      for (let i = 0; i < 25 && (seen = await statusItems()).some((t) => t.includes('waits for you')); i++) await sleep(200);
      assert.ok(!seen.some((t) => t.includes('waits for you')), JSON.stringify(seen));
      const sub = autoAnswer(a, A, 'allow_once');
      try {
        const p = Object.values(a.session(A)!.permissions).find((x) => x.state === 'waiting');
        if (p) a.answerPermission(A, p.permissionId, p.options.find((o) => o.kind === 'allow_once')!.optionId);
        assert.strictEqual((await turn).stopReason, 'end_turn');

        // Feedback on a line A changed, sent while the side bar shows B: the side bar goes to A.
        await vscode.commands.executeCommand('agentSwitchboard.showSession', B);
        for (let i = 0; i < 50 && (await sessionText()).includes('edit pile-feedback.txt'); i++) await sleep(200);
        assert.ok(!(await sessionText()).includes('edit pile-feedback.txt'), 'the side bar shows B again');
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
        await runCommand('agentSwitchboard.feedback.send', { uri: vscode.Uri.file(file).toString(), startLine: 1, endLine: 2, text: 'Say it in one line instead.' });
        for (let i = 0; i < 50 && !(text = await sessionText()).includes('Say it in one line instead.'); i++) await sleep(200);
        assert.ok(text.includes('Say it in one line instead.') && text.includes('edit pile-feedback.txt'), 'the side bar shows A, where the answer comes');
        await waitForState(a, A, (s) => s.status === 'ready' && s.entries.filter((e) => e.kind === 'user').length === 2 && s.entries.at(-1)?.kind !== 'user', 'the feedback turn');
      } finally {
        sub.dispose();
      }
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('workbench.action.closePanel');
      for (const k of [A, B]) await a.closeSession(k).catch(() => undefined);
      fs.rmSync(file, { force: true });
    }
  });
});

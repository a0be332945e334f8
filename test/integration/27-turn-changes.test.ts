/**
 * The end-of-turn row in the session thread ("3 files changed · Review · Keep all · Undo all"),
 * in the real editor: it appears at the end of a turn that changed files with the review's counts,
 * its Keep all and Undo all (clicked in the webview) act as the Changes view's do, on disk and in
 * that view, and the row says what they did; a file a later turn changed again is undone only
 * where its lines are still the first turn's; in a worktree session Keep leaves the main folder
 * alone and the row then offers Apply to main folder.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../../src/api';
import { api, autoAnswer, runCommand, scenarioAgent, setAgents, until, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';
const edits = (list: { path: string; content?: string; via?: 'client' | 'disk' }[]) => JSON.stringify({ edits: list });
/** Files written just before a turn look like the agent's own writing to the snapshots (edits/baselines.ts RECENT_MS). */
const olderThanSnapshots = () => new Promise((r) => setTimeout(r, 2200));

interface Row {
  turn: number;
  words: string;
  actions: string[];
  files: { name: string; add: string; del: string; state: string; later: string | null }[];
  /** What the row sits between in the thread. */
  prev: string | null;
  next: string | null;
  /** Labels or names cut inside their box, and controls outside the frame (the 260 px check). */
  cut: string[];
}

/** Runs in the Session webview: every end-of-turn row, as the person sees it. */
const ROWS = `
  const W = innerWidth;
  const cutInside = (e) => e.scrollWidth > e.clientWidth + 1;
  return [...document.querySelectorAll('.turn-changes')].map((r) => ({
    turn: Number(r.getAttribute('data-turn')),
    words: r.querySelector('.tc-count').textContent,
    actions: [...r.querySelectorAll('[data-action]')].map((b) => b.textContent.trim()),
    files: [...r.querySelectorAll('.tc-file')].map((f) => ({ name: f.querySelector('.tc-name').textContent, add: f.querySelector('.stat-add').textContent, del: f.querySelector('.stat-del').textContent, state: f.className.replace('tc-file ', ''), later: f.querySelector('.tc-later')?.textContent ?? null })),
    prev: r.previousElementSibling?.getAttribute('data-entry-id') ?? null,
    next: r.nextElementSibling?.getAttribute('data-entry-id') ?? null,
    cut: [
      ...[...r.querySelectorAll('vscode-button')].filter((b) => b.shadowRoot && b.shadowRoot.querySelector('.base') && cutInside(b.shadowRoot.querySelector('.base'))).map((b) => 'label ' + b.textContent),
      ...[...r.querySelectorAll('.tc-name, .tc-count, .tc-review')].filter(cutInside).map((e) => 'text ' + e.textContent),
      ...[...r.querySelectorAll('button, vscode-button')].filter((b) => { const x = b.getBoundingClientRect(); return x.width > 0 && (x.right > W + 0.5 || x.left < -0.5); }).map((b) => 'outside ' + b.textContent),
    ],
  }));`;

/** The rows of the Session view once `ok` holds for them (the page follows the review on its own). */
async function rowsWhen(what: string, ok: (rows: Row[]) => boolean, ms = 30_000): Promise<Row[]> {
  let last: Row[] = [];
  for (const end = Date.now() + ms; Date.now() < end; ) {
    last = (await evaluateInFrames<Row[]>(ROWS, { inFrame: '.session-app' })).flat();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}; rows: ${JSON.stringify(last)}`);
}

/**
 * The Changes view's row of file `name` in folder `dir` (label and description) once it says `want`.
 * The view draws only the rows in sight, and earlier tests' turns fill it: the row is found as a
 * person finds it, with "Review change" on the file's first tool card, which selects it there (and
 * opens its diff, closed again here).
 */
async function changesRow(name: string, dir: string, want: RegExp): Promise<string> {
  await vscode.commands.executeCommand('agentSwitchboard.session.focus');
  await click(`.tool-card:has-text("${name}") .review-change`);
  const script = `return [...document.querySelectorAll('.monaco-list-row')].map((e) => e.textContent || '');`;
  let seen: string[] = [];
  try {
    for (const end = Date.now() + 20_000; Date.now() < end; ) {
      seen = (await evaluateInFrames<string[]>(script)).flat().filter((t) => t.includes(name) && t.includes(dir));
      const row = seen.find((t) => want.test(t));
      if (row) return row;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await until('the diff Review change opened', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff || undefined, 10_000).catch(() => undefined);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  throw new Error(`the Changes view does not show ${name} (${dir}) as ${want}: ${JSON.stringify(seen)}`);
}

/** A row's files by name: the row lists them in the order the review recorded them, which a disk write makes late. */
const byName = (files: Row['files']) => [...files].sort((x, y) => x.name.localeCompare(y.name));

/** axe-core's serious and critical findings (WCAG 2.x A/AA) in the rows only (the rest of the page is 17-a11y's). */
async function rowViolations(): Promise<string[]> {
  const script = `
    const r = await window.axe.run(document.querySelectorAll('.turn-changes'), { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => v.id + ': ' + String(n.html).slice(0, 160) + ' — ' + String(n.any[0]?.message ?? '').slice(0, 200)));`;
  return (await evaluateInFrames<string[]>(script, { inFrame: '.session-app .turn-changes', axe: true, timeoutMs: 60_000 })).flat();
}

function decisions(a: SwitchboardApi, key: string, turn: number): Record<string, string> {
  const t = a.changes(key).find((x) => x.turn === turn);
  return Object.fromEntries((t?.files ?? []).map((f) => [path.basename(f.path), f.fileDecision]));
}

function freshDir(name: string): string {
  const dir = path.join(workspaceDir(), name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('the end-of-turn row in the thread', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' })]);
    await setViewport(1600, 1000);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    await setAgents([]);
  });

  it('"3 files changed · Review · Keep all · Undo all" at the end of the turn, with the review\'s +/−; Keep all keeps them on disk and in the Changes view, and the row says so', async function () {
    this.timeout(180_000);
    const a = await api();
    const dir = freshDir('turn-row-keep');
    fs.mkdirSync(path.join(dir, 'src'));
    const greet = path.join(dir, 'src', 'greet.ts');
    const readme = path.join(dir, 'README.md');
    fs.writeFileSync(greet, lines(5));
    fs.writeFileSync(readme, lines(8, (i) => `readme ${i}`));
    await olderThanSnapshots();
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const greetAfter = lines(5) + 'added 1\nadded 2\nadded 3\n';
    const readmeAfter = lines(8, (i) => `readme ${i}`).replace('readme 4\n', 'readme four\n');
    await a.prompt(
      key,
      edits([
        { path: 'src/greet.ts', content: greetAfter, via: 'client' },
        { path: 'notes.md', content: '# Notes\n- one\n', via: 'client' },
        { path: 'README.md', content: readmeAfter },
      ]),
    );
    const prompt = a.session(key)!.entries.find((e) => e.kind === 'user')!.id;
    const [row] = await rowsWhen('the row of turn 1', (r) => r.some((x) => x.turn === 1));
    assert.strictEqual(row.words, '3 files changed');
    assert.deepStrictEqual(row.actions, ['Review', 'Keep all', 'Undo all']);
    assert.deepStrictEqual(
      byName(row.files).map((f) => [f.name, f.add, f.del]),
      [['greet.ts', '+3', '−0'], ['notes.md', '+2', '−0'], ['README.md', '+1', '−1']],
    );
    assert.ok(row.prev !== prompt && row.prev !== null && row.next === null, `the row ends the turn, after its entries: ${JSON.stringify(row)}`);
    assert.deepStrictEqual(await rowViolations(), [], 'no serious accessibility violation in the row');

    for (const width of [300, 260]) {
      assert.ok(Math.abs((await setSidebarWidth(width)) - width) <= 2);
      await new Promise((r) => setTimeout(r, 500));
      const [atWidth] = await rowsWhen(`the row at ${width} px`, (r) => r.length > 0);
      assert.deepStrictEqual(atWidth.cut, [], `nothing cut or outside at ${width} px`);
      await screenshot(`turn-changes-${width}`, 30000, { waitForSelector: '.turn-changes .tc-keep', sidebarWidth: width });
    }

    // A file of the row opens its review diff: the file before the turn ↔ now.
    await click('.turn-changes[data-turn="1"] .tc-open:has-text("README.md")');
    const diff = await until('the review diff of README.md', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && input.modified.fsPath === readme ? input : undefined;
    });
    assert.strictEqual((await vscode.workspace.openTextDocument(diff.original)).getText(), lines(8, (i) => `readme ${i}`));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    await click('.turn-changes[data-turn="1"] .tc-keep');
    const [kept] = await rowsWhen('the row says the files are kept', (r) => r[0]?.words === '3 files kept');
    assert.deepStrictEqual(kept.actions, ['Review', 'Undo all']);
    assert.deepStrictEqual(kept.files.map((f) => f.state), ['state-kept', 'state-kept', 'state-kept']);
    assert.deepStrictEqual(decisions(a, key, 1), { 'greet.ts': 'kept', 'notes.md': 'kept', 'README.md': 'kept' });
    assert.strictEqual(fs.readFileSync(greet, 'utf8'), greetAfter, 'Keep writes nothing');
    assert.strictEqual(fs.readFileSync(readme, 'utf8'), readmeAfter);
    await screenshot('turn-changes-kept', 30000, { waitForSelector: '.turn-changes:has-text("3 files kept")', sidebarWidth: 300 });
    // The Changes view shows each file kept.
    for (const name of ['greet.ts', 'notes.md', 'README.md']) await changesRow(name, 'turn-row-keep', /· kept/);

    // A per-file Undo in the Changes view: the row follows.
    const notes = a.changes(key)[0].files.find((f) => f.path.endsWith('notes.md'))!;
    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: notes.id });
    assert.ok(!fs.existsSync(path.join(dir, 'notes.md')));
    const [mixed] = await rowsWhen('the row after one file was undone in the Changes view', (r) => r[0]?.words === '2 kept, 1 undone');
    assert.deepStrictEqual(byName(mixed.files).map((f) => [f.name, f.state]), [['greet.ts', 'state-kept'], ['notes.md', 'state-undone'], ['README.md', 'state-kept']]);
    await a.closeSession(key);
  });

  it('Undo all of turn 1 after turn 2 changed its files again: lines turn 2 rewrote stay, the rest is undone, and each row says where it stands', async function () {
    this.timeout(180_000);
    const a = await api();
    const dir = freshDir('turn-row-undo');
    const [fa, fb, fc] = ['a.txt', 'b.txt', 'c.txt'].map((n) => path.join(dir, n));
    fs.writeFileSync(fa, lines(30));
    fs.writeFileSync(fb, lines(30));
    await olderThanSnapshots();
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const a1 = lines(30).replace('line 2\n', 'line 2 (turn 1)\n');
    const b1 = lines(30).replace('line 2\n', 'line 2 (turn 1)\n');
    await a.prompt(key, edits([{ path: 'a.txt', content: a1, via: 'client' }, { path: 'b.txt', content: b1 }, { path: 'c.txt', content: 'new\n', via: 'client' }]));
    // Turn 2 rewrites the very line turn 1 wrote in a.txt, and another line of b.txt.
    const a2 = a1.replace('line 2 (turn 1)\n', 'line 2 (turn 2)\n');
    const b2 = b1.replace('line 28\n', 'line 28 (turn 2)\n');
    await a.prompt(key, edits([{ path: 'a.txt', content: a2, via: 'client' }, { path: 'b.txt', content: b2 }]));
    const prompts = a.session(key)!.entries.filter((e) => e.kind === 'user').map((e) => e.id);
    const rows = await rowsWhen('the rows of both turns', (r) => r.length === 2);
    assert.deepStrictEqual(rows.map((r) => [r.turn, r.words, r.next]), [[1, '3 files changed', prompts[1]], [2, '2 files changed', null]]);
    assert.deepStrictEqual(byName(rows[0].files).map((f) => [f.name, f.later]), [['a.txt', 'changed again in turn 2'], ['b.txt', 'changed again in turn 2'], ['c.txt', null]]);

    await click('.turn-changes[data-turn="1"] .tc-undo');
    const after = await rowsWhen('turn 1 undone where it can be', (r) => r[0]?.words === '3 files changed · 2 undone');
    assert.deepStrictEqual(byName(after[0].files).map((f) => f.state), ['state-pending', 'state-undone', 'state-undone']);
    assert.deepStrictEqual(after[0].actions, ['Review', 'Keep all', 'Undo all']);
    assert.strictEqual(after[1].words, '2 files changed', 'turn 2 is still to review');
    assert.strictEqual(fs.readFileSync(fa, 'utf8'), a2, 'the line turn 2 rewrote is never overwritten');
    assert.strictEqual(fs.readFileSync(fb, 'utf8'), lines(30).replace('line 28\n', 'line 28 (turn 2)\n'), 'turn 1\'s line undone, turn 2\'s kept');
    assert.ok(!fs.existsSync(fc), 'the file turn 1 created is gone');
    assert.deepStrictEqual(decisions(a, key, 1), { 'a.txt': 'pending', 'b.txt': 'undone', 'c.txt': 'undone' });
    await screenshot('turn-changes-undone', 30000, { waitForSelector: '.turn-changes:has-text("2 undone")', sidebarWidth: 300 });
    // The Changes view says so too.
    await changesRow('c.txt', 'turn-row-undo', /· undone/);
    await changesRow('b.txt', 'turn-row-undo', /· undone/);
    // Review: the turn in the Changes view, and its first file still to review open in the editor
    // itself, where the agent's hunks carry Keep / Undo inline.
    await click('.turn-changes[data-turn="2"] .tc-review');
    const opened = await until('a file of turn 2 still to review, open in the editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputText && [fa, fb].includes(input.uri.fsPath) ? input.uri : undefined;
    }, 20_000).catch((e: Error) => {
      throw new Error(`${e.message}; the active tab: ${JSON.stringify(vscode.window.tabGroups.activeTabGroup.activeTab?.input)}`);
    });
    const lensTitles = async () => ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', opened, 100)) ?? []).map((l) => l.command?.title ?? '');
    let titles: string[] = [];
    for (const end = Date.now() + 20_000; Date.now() < end && !(titles.includes('Keep') && titles.includes('Undo')); ) {
      titles = await lensTitles();
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(titles.includes('Keep') && titles.includes('Undo'), `the inline Keep / Undo of ${opened.fsPath}: ${JSON.stringify(titles)}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await a.closeSession(key);
  });

  it('in a worktree session (the demo agent): Keep all leaves the main folder alone, then Apply to main folder brings the change', async function () {
    this.timeout(180_000);
    const a = await api();
    const repo = freshDir('turn-row-repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'shared.txt'), lines(10));
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const key = await a.startSession({ agentId: 'demo', cwd: repo, worktree: 'head' });
    const wt = a.session(key)!.worktree!;
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const sub = autoAnswer(a, key, 'allow_once');
    try {
      await a.prompt(key, 'edit shared.txt');
    } finally {
      sub.dispose();
    }
    const inWorktree = fs.readFileSync(path.join(wt.dir, 'shared.txt'), 'utf8');
    assert.notStrictEqual(inWorktree, lines(10));
    const [row] = await rowsWhen('the worktree row', (r) => r.length === 1);
    assert.strictEqual(row.words, '1 file changed in the worktree');
    assert.deepStrictEqual(row.actions, ['Review', 'Keep all', 'Undo all']);

    await click('.turn-changes[data-turn="1"] .tc-keep');
    const [kept] = await rowsWhen('kept in the worktree, Apply offered', (r) => r[0]?.words === '1 file kept in the worktree');
    assert.deepStrictEqual(kept.actions, ['Review', 'Apply to main folder', 'Undo all']);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8'), lines(10), 'Keep in a worktree writes nothing into the main folder');
    await screenshot('turn-changes-worktree', 30000, { waitForSelector: '.turn-changes .tc-apply', sidebarWidth: 300 });

    await click('.turn-changes[data-turn="1"] .tc-apply');
    await rowsWhen('applied', (r) => r[0]?.words === '1 file kept · applied to the main folder');
    await until('the main folder has the change', () => fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8') === inWorktree || undefined);
    await a.closeSession(key);
    await runCommand('agentSwitchboard.worktree.discard', { worktreeId: wt.id, confirmed: true });
    const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === path.join(repo, 'shared.txt'));
    if (open) {
      await vscode.window.showTextDocument(open);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });
});

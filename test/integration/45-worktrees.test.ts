/**
 * Parallel sessions in git worktrees of their own, in the real editor (issue 20): two demo-agent
 * sessions edit the same file at the same time, each in its worktree, without a conflict or a
 * refusal; the Sessions board shows both live; one is applied to the main folder (the person's
 * unsaved edit elsewhere in the file survives; an overlapping edit goes to the merge editor), the
 * other is discarded with its branch; and a real agent (claude-code-acp against the fake model
 * server) writes and runs in its worktree, never in the main folder.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import { FILE_CONTENT, FILE_NAME, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';
import { claudeCodeAcpLaunch } from '../fakes/agents';
import { api, autoAnswer, personEdit, runCommand, setAgents, until, waitForState, workspaceDir } from './util';
import { evaluateInFrames, screenshot } from './screenshot';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('sessions in worktrees of their own (issue 20)', () => {
  let repo = '';
  let fake: FakeModelServer | undefined;

  before(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    repo = path.join(workspaceDir(), 'wt-repo');
    fs.rmSync(repo, { recursive: true, force: true });
    fs.mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'shared.txt'), lines(30));
    fs.writeFileSync(path.join(repo, 'other.txt'), lines(10));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    fake = await startFakeModelServer({ workspace: repo });
    const launch = claudeCodeAcpLaunch({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'as-claude-wt-home-')), fakeUrl: fake.url });
    await setAgents([{ id: 'claude-wt', name: 'Claude Code (worktree test)', command: launch.command, args: launch.args, env: { ...launch.env, IS_SANDBOX: null } }]);
  });

  after(async () => {
    await setAgents([]);
    await fake?.close();
  });

  it('two sessions edit the same file at once in two worktrees; the board shows both; one is applied around the person\'s edit, the other discarded with its branch', async function () {
    this.timeout(180_000);
    const a = await api();
    const [k1, k2] = await Promise.all([a.startSession({ agentId: 'demo', cwd: repo, worktree: 'head' }), a.startSession({ agentId: 'demo', cwd: repo, worktree: 'head' })]);
    const w1 = a.session(k1)!.worktree!;
    const w2 = a.session(k2)!.worktree!;
    assert.ok(w1 && w2 && w1.dir !== w2.dir && w1.branch !== w2.branch);
    for (const w of [w1, w2]) {
      assert.ok(!w.dir.startsWith(workspaceDir()), `the worktree is outside the workspace: ${w.dir}`);
      assert.match(git(repo, 'worktree', 'list'), new RegExp(w.branch.replace(/[/.]/g, '\\$&')));
    }
    // Both edit shared.txt at the same time, each in its own worktree.
    const subs = [autoAnswer(a, k1, 'allow_once'), autoAnswer(a, k2, 'allow_once')];
    let results: { stopReason: string }[];
    try {
      results = await Promise.all([a.prompt(k1, 'edit shared.txt'), a.prompt(k2, 'edit shared.txt')]);
    } finally {
      subs.forEach((s) => s.dispose());
    }
    assert.deepStrictEqual(results.map((r) => r.stopReason), ['end_turn', 'end_turn']);
    for (const k of [k1, k2]) {
      const s = a.session(k)!;
      assert.ok(!s.entries.some((e) => e.kind === 'notice' && /Refused|conflict/i.test(e.text)), `no refusal in ${k}: ${JSON.stringify(s.entries.filter((e) => e.kind === 'notice'))}`);
      assert.deepStrictEqual(Object.values(s.toolCalls).filter((t) => t.kind === 'edit').map((t) => t.status), ['completed']);
    }
    for (const w of [w1, w2]) assert.match(fs.readFileSync(path.join(w.dir, 'shared.txt'), 'utf8'), /^line 1\n[\s\S]*line 30\n\nWritten by the offline demo agent/);
    assert.strictEqual(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8'), lines(30), 'the main folder is untouched');

    // The Session header says the session works in a worktree (the branch on hover).
    await vscode.commands.executeCommand('agentSwitchboard.showSession', k1);
    const tags = await evaluateInFrames<{ text: string; title: string } | null>(`
      for (let i = 0; i < 50; i++) {
        const t = document.querySelector('.header .worktree-tag');
        if (t && t.getClientRects().length) return { text: t.textContent.trim(), title: t.getAttribute('title') };
        await new Promise((r) => setTimeout(r, 100));
      }
      return null;`, { inFrame: '#app .header' });
    assert.ok(tags.some((t) => t?.text === 'worktree' && t.title.includes(w1.branch)), `the header marks the worktree session: ${JSON.stringify(tags)}`);

    // The board: both sessions, with their worktree's branch and what they changed.
    await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
    const rows = async () => (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.monaco-list-row')].map((e) => e.textContent || '');`)).flat();
    let seen: string[] = [];
    for (let i = 0; i < 50; i++) {
      seen = (await rows()).filter((t) => t.includes('⎇ switchboard/'));
      if (seen.filter((t) => /done · ⎇ switchboard\/demo-[0-9a-f]{8} · 1 file to review \+\d+ −0/.test(t)).length >= 2) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(seen.filter((t) => /done · ⎇ switchboard\/demo-[0-9a-f]{8} · 1 file to review \+\d+ −0/.test(t)).length >= 2, JSON.stringify(seen));
    await screenshot('worktree-board', 30000, { waitForSelector: '.monaco-list-row:has-text("⎇ switchboard/")', sidebarWidth: 520 });

    // The person edits the main folder's shared.txt near its top, unsaved; applying the first
    // worktree carries the agent's addition at the end around it.
    const doc = await vscode.workspace.openTextDocument(path.join(repo, 'shared.txt'));
    const editor = await vscode.window.showTextDocument(doc);
    await personEdit(editor, (b) => b.replace(new vscode.Range(1, 0, 1, 6), 'line 2 (mine, unsaved)'));
    const applied = (await runCommand('agentSwitchboard.worktree.apply', { worktreeId: w1.id })) as { summary: string; merging: string[] };
    assert.match(applied.summary, /1 file merged with your changes/);
    assert.match(doc.getText(), /^line 1\nline 2 \(mine, unsaved\)\nline 3\n/);
    assert.match(doc.getText(), /line 30\n\nWritten by the offline demo agent/);
    assert.ok(doc.isDirty, 'the person\'s unsaved text stays unsaved');
    await vscode.commands.executeCommand('undo');
    await until('Undo reverts the applied change', () => !/Written by the offline demo agent/.test(doc.getText()) || undefined);
    assert.match(doc.getText(), /line 2 \(mine, unsaved\)/, 'and keeps the person\'s edit');
    await vscode.commands.executeCommand('redo');
    await until('Redo brings it back', () => /Written by the offline demo agent/.test(doc.getText()) || undefined);

    // Overlapping edits: the second worktree changed other.txt's end, and so did the person; and its
    // addition to shared.txt sits where the first one's, now applied, already is.
    const subs2 = autoAnswer(a, k2, 'allow_once');
    try {
      await a.prompt(k2, 'edit other.txt');
    } finally {
      subs2.dispose();
    }
    const other = await vscode.workspace.openTextDocument(path.join(repo, 'other.txt'));
    const otherEditor = await vscode.window.showTextDocument(other);
    await personEdit(otherEditor, (b) => b.insert(new vscode.Position(10, 0), 'my own last line\n'));
    const second = (await runCommand('agentSwitchboard.worktree.apply', { worktreeId: w2.id })) as { summary: string; merging: string[] };
    assert.deepStrictEqual([...second.merging].sort(), ['other.txt', 'shared.txt'], second.summary);
    assert.match(other.getText(), /my own last line\n$/, 'nothing overwritten: the person\'s text is as they left it');
    await screenshot('worktree-apply-merge', 30000, { waitForSelector: '.merge-editor', sidebarWidth: 520 });
    // The scratch results are dropped: the person's documents stay as they are.
    for (let i = 0; i < 2; i++) await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

    // Discard the second: its folder and branch are gone, and its session ended.
    assert.strictEqual(await runCommand('agentSwitchboard.worktree.discard', { worktreeId: w2.id, confirmed: true }), true);
    assert.ok(!fs.existsSync(w2.dir));
    assert.strictEqual(git(repo, 'branch', '--list', w2.branch).trim(), '');
    await until('the discarded session closed', () => (a.session(k2)?.status ?? 'closed') === 'closed' || undefined);
    assert.deepStrictEqual((await a.worktrees()).map((w) => w.id), [w1.id]);
    assert.strictEqual((await a.worktrees())[0].state, 'applied');

    // Commit the first on its branch.
    await runCommand('agentSwitchboard.worktree.commit', { worktreeId: w1.id, message: 'Demo edit of shared.txt' });
    assert.strictEqual(git(repo, 'log', '-1', '--format=%s', w1.branch).trim(), 'Demo edit of shared.txt');
    for (const d of [doc, other]) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await a.closeSession(k1);
    await runCommand('agentSwitchboard.worktree.discard', { worktreeId: w1.id, confirmed: true });
  });

  it('a real agent in a worktree: claude-code-acp writes and runs there, and the main folder gets the file only when applied', async function () {
    this.timeout(180_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'claude-wt', cwd: repo, worktree: 'head' });
    const w = a.session(key)!.worktree!;
    fake!.setWorkspace(w.dir);
    const sub = autoAnswer(a, key, 'allow_once');
    try {
      assert.strictEqual((await a.prompt(key, 'Create a file named hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.')).stopReason, 'end_turn');
    } finally {
      sub.dispose();
    }
    const s = a.session(key)!;
    assert.strictEqual(fs.readFileSync(path.join(w.dir, FILE_NAME), 'utf8'), FILE_CONTENT);
    assert.ok(fs.existsSync(path.join(w.dir, 'shell-marker.txt')), 'its command ran in the worktree');
    assert.ok(!fs.existsSync(path.join(repo, FILE_NAME)), 'nothing in the main folder yet');
    assert.ok(Object.values(s.toolCalls).filter((t) => t.kind === 'edit' || t.kind === 'execute').every((t) => t.verification === 'client'));
    const applied = (await runCommand('agentSwitchboard.worktree.apply', { worktreeId: w.id })) as { summary: string };
    assert.match(applied.summary, /2 files taken as the agent left them/);
    assert.strictEqual(fs.readFileSync(path.join(repo, FILE_NAME), 'utf8'), FILE_CONTENT);
    await a.closeSession(key);
    await runCommand('agentSwitchboard.worktree.discard', { worktreeId: w.id, confirmed: true });
    fake!.setWorkspace(repo);
  });

  it('Send to Several Agents: a compare view shows both agents\' diffs and their test exit codes; Keep This One applies one and discards the other', async function () {
    this.timeout(180_000);
    const a = await api();
    // Every card of the comparison's sessions is allowed (they are new sessions: keys unknown yet),
    // but the first: it waits, and its column offers to answer it where its card shows all of it.
    let held: { key: string; permissionId: string; optionId: string } | undefined;
    const sub = a.onDidChangeSession((e) => {
      for (const p of e.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          const allow = p.permission.options.find((o) => o.kind === 'allow_once');
          if (allow && !held) held = { key: e.key, permissionId: p.permission.permissionId, optionId: allow.optionId };
          else if (allow) setTimeout(() => a.answerPermission(e.key, p.permission.permissionId, allow.optionId), 10);
        }
      }
    });
    let id: string;
    try {
      id = (await runCommand('agentSwitchboard.sendToSeveral', { agentIds: ['demo', 'demo'], cwd: repo, prompt: 'edit shared.txt', testCommand: 'grep -c "Written by the offline demo agent" shared.txt' })) as string;
      for (let i = 0; i < 200 && !held; i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(held, 'a request of the comparison waits');
      const answer = async () => (await evaluateInFrames<string | null>(`const b = document.querySelector('.column.waiting .answer'); return b ? b.textContent : null;`, { inFrame: '.columns' })).find((t) => t);
      let label: string | null | undefined;
      for (let i = 0; i < 100 && !label; i++) {
        label = await answer();
        if (!label) await new Promise((r) => setTimeout(r, 100));
      }
      assert.strictEqual(label, 'Answer its request', 'the waiting agent\'s column offers to answer it');
      // (Clicked in its page: an editor of an earlier test may stand over the compare tab.)
      await evaluateInFrames(`document.querySelector('.column.waiting .answer').click(); return true;`, { inFrame: '.column.waiting .answer' });
      // The side bar shows that session, its waiting card in view, to be answered there.
      let card = false;
      for (let i = 0; i < 100 && !card; i++) {
        card = (await evaluateInFrames<boolean>(`const c = document.querySelector('.tool-card.waiting'); if (!c) return false; const r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;`, { inFrame: '#app .header' })).some(Boolean);
        if (!card) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(card, 'the side bar shows the waiting card of the session the column names');
      a.answerPermission(held.key, held.permissionId, held.optionId);
      held = { ...held, permissionId: '' };
      const done = (await a.comparison(id, { settled: true }))!;
      assert.strictEqual(done.entries.length, 2);
      for (const e of done.entries) {
        assert.strictEqual(e.status, 'done', JSON.stringify(e).slice(0, 500));
        assert.deepStrictEqual(e.files.map((f) => `${f.rel}:${f.kind}:+${f.added}`), [`shared.txt:modified:+${e.files[0]?.added}`]);
        assert.ok(e.files[0].added > 0 && e.files[0].lines.some((l) => l.startsWith('+Written by the offline demo agent')), JSON.stringify(e.files[0].lines));
        assert.strictEqual(e.test?.state, 'done');
        assert.strictEqual(e.test?.exitCode, 0, e.test?.output);
        assert.match(e.test?.output ?? '', /^1\s*$/);
        assert.match(e.test?.sandbox?.text ?? '', /^Not sandboxed: agentSwitchboard\.sandbox is "off"/);
      }
    } finally {
      sub.dispose();
      // A failure above must not leave the held request waiting for the tests after this one.
      if (held?.permissionId) a.answerPermission(held.key, held.permissionId, held.optionId);
    }
    await screenshot('compare-view', 30000, { waitForSelector: '.column .test.passed', sidebarWidth: 300 });
    // A hunk is named by its lines, as the Changes view names it, not by patch(1)'s header.
    const hunks = (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.columns .dl.hunk')].map((e) => e.textContent || '');`, { inFrame: '.columns' })).flat();
    assert.ok(hunks.length >= 2 && hunks.every((t) => /^Lines? \d+(–\d+)?$/.test(t)), JSON.stringify(hunks));
    const before = (await a.comparison(id))!;
    const [keep, drop] = before.entries;
    const report = (await runCommand('agentSwitchboard.compare.keep', { compareId: id, worktreeId: keep.worktreeId, discardOthers: true })) as { summary: string };
    assert.match(report.summary, /1 file taken as the agent left them/);
    assert.match(fs.readFileSync(path.join(repo, 'shared.txt'), 'utf8'), /Written by the offline demo agent/);
    const after = (await a.comparison(id))!;
    assert.deepStrictEqual(after.entries.map((e) => e.outcome), ['kept', 'discarded']);
    assert.ok(!(await a.worktrees()).some((w) => w.id === drop.worktreeId), 'the other worktree is gone');
    assert.strictEqual(git(repo, 'branch', '--list', drop.branch).trim(), '');

    // Feedback on a line of the kept session's change: a comment becomes its agent's next prompt.
    const w = (await a.worktrees()).find((x) => x.id === keep.worktreeId)!;
    const file = path.join(w.dir, 'shared.txt');
    const fileEditor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    fileEditor.revealRange(new vscode.Range(30, 0, 40, 0), vscode.TextEditorRevealType.InCenter);
    const sub2 = autoAnswer(a, keep.sessionKey, 'allow_once');
    try {
      const sent = (await runCommand('agentSwitchboard.feedback.send', { uri: vscode.Uri.file(file).toString(), startLine: 33, endLine: 35, text: 'Number the list instead.' })) as { prompt: string };
      assert.match(sent.prompt, /^Number the list instead\.\n\n\(About shared\.txt, lines 33–35\.\)$/);
      const s = await waitForState(a, keep.sessionKey, (st) => st.status === 'ready' && st.entries.filter((e) => e.kind === 'user').length === 2 && st.entries.at(-1)?.kind !== 'user', 'the feedback turn', 60_000);
      const user = s.entries.filter((e) => e.kind === 'user').at(-1)!;
      assert.ok('text' in user && /Number the list instead/.test(user.text));
      assert.ok('context' in user && JSON.stringify(user).includes('shared.txt'), JSON.stringify(user).slice(0, 400));
    } finally {
      sub2.dispose();
    }
    const bodies = async () => (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.review-widget .comment-body, .comment-thread-widget .comment-body, .review-comment .comment-body')].map((e) => e.textContent || '');`)).flat();
    let seen: string[] = [];
    for (let i = 0; i < 50 && seen.length < 2; i++) {
      seen = await bodies();
      await new Promise((r) => setTimeout(r, 200));
    }
    // (A comment body is plain text: VS Code's appendText keeps its spaces as no-break spaces.)
    assert.ok(seen.some((t) => /Number\sthe\slist\sinstead/.test(t)) && seen.some((t) => /offline\sdemo\sagent/.test(t)), JSON.stringify(seen));
    await vscode.commands.executeCommand('workbench.action.closePanel');
    fileEditor.revealRange(new vscode.Range(30, 0, 40, 0), vscode.TextEditorRevealType.InCenter);
    await screenshot('worktree-comment', 30000, { waitForSelector: '.review-widget .comment-body', sidebarWidth: 300 });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await a.closeSession(keep.sessionKey);
    await runCommand('agentSwitchboard.worktree.discard', { worktreeId: keep.worktreeId, confirmed: true });
    git(repo, 'checkout', '--', '.');
  });

  it('Send to Several Agents with the sandbox on: each test command runs in its session\'s profile (ask), or not at all without the sandbox (always); each card says which', async function () {
    this.timeout(240_000);
    const a = await api();
    const cfg = () => vscode.workspace.getConfiguration('agentSwitchboard');
    const outside = path.join(os.homedir(), `.switchboard-compare-outside-${process.pid}`);
    fs.rmSync(outside, { force: true });
    const sub = a.onDidChangeSession((e) => {
      for (const p of e.patches) {
        if (p.op === 'permission' && p.permission.state === 'waiting') {
          const allow = p.permission.options.find((o) => o.kind === 'allow_once');
          if (allow) setTimeout(() => a.answerPermission(e.key, p.permission.permissionId, allow.optionId), 10);
        }
      }
    });
    const entries: { sessionKey: string; worktreeId: string }[] = [];
    const testCommand = `touch ran-here; echo out > ${outside}; echo done`;
    try {
      await cfg().update('sandbox', 'ask', vscode.ConfigurationTarget.Global);
      const id = (await runCommand('agentSwitchboard.sendToSeveral', { agentIds: ['demo', 'demo'], cwd: repo, prompt: 'edit shared.txt', testCommand })) as string;
      const done = (await a.comparison(id, { settled: true }))!;
      entries.push(...done.entries);
      for (const e of done.entries) {
        const w = (await a.worktrees()).find((x) => x.id === e.worktreeId)!;
        assert.strictEqual(e.test?.state, 'done', JSON.stringify(e.test));
        assert.ok(fs.existsSync(path.join(w.dir, 'ran-here')), `it ran in its worktree: ${e.test?.output}`);
        assert.match(e.test?.output ?? '', /done\n/);
        assert.strictEqual(e.test?.sandbox?.sandboxed, true, JSON.stringify(e.test));
        assert.match(e.test!.sandbox!.text, /^Sandboxed when the editor runs it: can write only in /);
        assert.ok(e.test!.sandbox!.text.includes(fs.realpathSync(w.dir)), e.test!.sandbox!.text);
      }
      assert.ok(!fs.existsSync(outside), 'the agent\'s code wrote nothing outside its worktree');
      // What each column lists is what Keep This One would apply: the agent's file and the test's, nothing of the sandbox's own.
      for (const e of done.entries) assert.deepStrictEqual(e.files.map((f) => f.rel), ['ran-here', 'shared.txt']);
      await screenshot('compare-sandboxed', 30000, { waitForSelector: '.column .test-sandbox.sandboxed', sidebarWidth: 300 });

      await cfg().update('sandboxBubblewrapPath', '/nonexistent/bwrap', vscode.ConfigurationTarget.Global);
      await cfg().update('sandbox', 'always', vscode.ConfigurationTarget.Global);
      const id2 = (await runCommand('agentSwitchboard.sendToSeveral', { agentIds: ['demo', 'demo'], cwd: repo, prompt: 'edit shared.txt', testCommand })) as string;
      const refused = (await a.comparison(id2, { settled: true }))!;
      entries.push(...refused.entries);
      for (const e of refused.entries) {
        const w = (await a.worktrees()).find((x) => x.id === e.worktreeId)!;
        assert.ok(!fs.existsSync(path.join(w.dir, 'ran-here')), 'nothing ran');
        assert.strictEqual(e.test?.state, 'done');
        assert.strictEqual(e.test?.exitCode, null);
        assert.match(e.test?.refused ?? '', /^Will not run: the sandbox is not available \(bubblewrap was not found at \/nonexistent\/bwrap/);
        assert.strictEqual(e.test?.sandbox?.sandboxed, false);
      }
      assert.ok(!fs.existsSync(outside));
    } finally {
      sub.dispose();
      fs.rmSync(outside, { force: true });
      for (const k of ['sandbox', 'sandboxBubblewrapPath']) await cfg().update(k, undefined, vscode.ConfigurationTarget.Global);
      for (const e of entries) {
        await a.closeSession(e.sessionKey).catch(() => undefined);
        await runCommand('agentSwitchboard.worktree.discard', { worktreeId: e.worktreeId, confirmed: true }).catch(() => undefined);
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('a folder that is not a git repository gets no worktree, and says why', async () => {
    const a = await api();
    const plain = path.join(workspaceDir(), 'not-a-repo');
    fs.mkdirSync(plain, { recursive: true });
    await assert.rejects(a.startSession({ agentId: 'demo', cwd: plain, worktree: 'head' }), /No worktree: .*not in a git repository/);
  });
});

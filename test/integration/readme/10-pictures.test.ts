/**
 * The README's pictures, taken in a window of their own (scripts/test-all.sh, "README pictures"):
 * fresh user data, a fresh browser profile and a small project of its own, a 1600x1000 window and
 * VS Code's default side bar width, so no picture shows an earlier test's turns or a layout a
 * test arranged. One real turn of @zed-industries/claude-code-acp, pointed at the project's fake
 * model server (test/fakes/fake-model-server.mjs: it writes hello.txt, then runs a shell command),
 * is photographed while its first permission waits and after it ends; then its change, its trace
 * and its protocol log. Each `it` takes only what its picture needs, in the README's order, and
 * checks what the picture's caption claims before the shot.
 *
 * Views are reached by their `agentSwitchboard.<id>.focus` commands, whichever container holds
 * them, and waits are on the webview's `#app`, its cards and the tree rows' text.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../../fakes/fake-model-server.mjs';
import { claudeCodeAcpLaunch } from '../../fakes/agents';
import { api, setAgents, waitForState, workspaceDir } from '../util';
import { click, evaluateInFrames, press, screenshot, setSidebarWidth, setViewport, typeText } from '../screenshot';

/** The window size the README's pictures are taken at (a common laptop browser window). */
const WINDOW = { width: 1600, height: 1000 };
/** The side bar width of the narrow picture (VS Code's default at this window size). */
const NARROW = 300;
const PROMPT = 'Add hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, and tell me what you did.';
/** The prompt box of the Session webview (its textarea, inside the element's shadow root). */
const PROMPT_BOX = '#app vscode-textarea.prompt-input textarea';
/** A waiting permission card in the Session webview (today's class, and the group it renders). */
const WAITING_CARD = '#app .tool-card.waiting, #app [role="group"][aria-label="Permission request"]';

/** The primary side bar's width in CSS pixels, measured in the workbench's DOM. */
async function sidebarWidth(): Promise<number> {
  const [w] = await evaluateInFrames<number>(`return Math.round(document.querySelector('.part.sidebar')?.getBoundingClientRect().width ?? 0);`);
  return w;
}

/** Where the waiting card's intent and buttons are, measured inside the Session webview. */
interface CardMeasure { viewport: number; card: boolean; intent: boolean; buttons: number; buttonsInView: number; intentInView: boolean }

async function measureWaitingCard(): Promise<CardMeasure | undefined> {
  const script = `
    const card = document.querySelector('.tool-card.waiting') ?? document.querySelector('[role="group"][aria-label="Permission request"]')?.closest('.tool-card');
    if (!card) return null;
    // No scrolling here: the thread itself stops at a tall waiting card's top (webview/session/thread.ts).
    const inView = (el) => { const r = el.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight + 1; };
    const intent = card.querySelector('.perm-summary') ?? card.querySelector('.perm-covers, [aria-label="What an approval lets through"]');
    const buttons = [...card.querySelectorAll('vscode-button.perm-option')].filter((b) => b.getBoundingClientRect().height > 0);
    return { viewport: window.innerHeight, card: true, intent: !!intent, buttons: buttons.length,
      buttonsInView: buttons.filter(inView).length, intentInView: !!intent && inView(intent) };`;
  const results = await evaluateInFrames<CardMeasure | null>(script, { inFrame: WAITING_CARD, timeoutMs: 30_000 });
  return results.find((r): r is CardMeasure => !!r);
}

describe('README pictures (a fresh window, the default layout)', () => {
  let fake: FakeModelServer;
  let home: string;
  let key = '';
  let started = false;

  before(async function () {
    this.timeout(60_000);
    await setViewport(WINDOW.width, WINDOW.height);
    fake = await startFakeModelServer({ workspace: workspaceDir() });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'as-readme-home-'));
    const launch = claudeCodeAcpLaunch({ home, fakeUrl: fake.url });
    // As in 30-claude-code: the person's environment passes through, minus IS_SANDBOX (the bundled
    // Claude CLI refuses to run as root with it).
    await setAgents([{ id: 'claude-code', name: 'Claude Code', command: launch.command, args: launch.args, env: { ...launch.env, IS_SANDBOX: null } }]);
  });

  after(async () => {
    if (key) await (await api()).cancel(key).catch(() => undefined);
    await fake?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('a waiting permission card at 300 px: the edit it would let through and its buttons', async function () {
    this.timeout(120_000);
    const a = await api();
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    // As a person starts: the prompt typed into the box before any session, and Enter, which
    // starts a session with the agent picked above and sends it as the first turn.
    const before = new Set(a.sessions().map((x) => x.key));
    let placeholder: string | undefined;
    for (let i = 0; i < 100 && !placeholder; i++) {
      placeholder = (await evaluateInFrames<string | null>(`const b = document.querySelector('#app .composer:not([hidden]) vscode-textarea.prompt-input'); return b ? b.getAttribute('placeholder') : null;`, { inFrame: '#app .header' })).find((x) => x) ?? undefined;
      if (!placeholder) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(placeholder ?? '', /^Ask Claude Code… \(Enter starts a session\)$/, 'the box shows before any session and names the agent it starts');
    await typeText(PROMPT, PROMPT_BOX, 60_000);
    await press('Enter', PROMPT_BOX);
    for (let i = 0; i < 300 && !key; i++) {
      key = a.sessions().find((x) => !before.has(x.key))?.key ?? '';
      if (!key) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(key, 'Enter in the box started a session');
    started = true;
    await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the edit\'s permission request', 90_000);
    const width = await sidebarWidth();
    console.log(`    (default side bar width at ${WINDOW.width}x${WINDOW.height}: ${width} px)`);
    if (Math.abs(width - NARROW) > 2) assert.ok(Math.abs((await setSidebarWidth(NARROW)) - NARROW) <= 2, `side bar not at ${NARROW} px`);
    const m = await measureWaitingCard();
    assert.ok(m?.card && m.intent && m.buttons >= 2, `a waiting card with its intent and buttons: ${JSON.stringify(m)}`);
    assert.ok(m.intentInView && m.buttonsInView === m.buttons, `the caption says the card's intent and all its buttons are in view at ${NARROW} px: ${JSON.stringify(m)}`);
    await screenshot('readme-permission-card', 30_000, { waitForSelector: WAITING_CARD });
  });

  it('the finished turn: the approved edit and command, the terminal output and the answer', async function () {
    this.timeout(120_000);
    const a = await api();
    assert.ok(started, 'the turn was started');
    // Approve each request as a person would: once, the agent's own "allow once" option.
    const answered = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const s = await waitForState(a, key, (st) => Object.values(st.permissions).some((p) => p.state === 'waiting' && !answered.has(p.permissionId)), `permission request ${i + 1}`, 90_000);
      const p = Object.values(s.permissions).find((x) => x.state === 'waiting' && !answered.has(x.permissionId))!;
      const option = p.options.find((o) => o.kind === 'allow_once') ?? p.options[0];
      answered.add(p.permissionId);
      assert.ok(a.answerPermission(key, p.permissionId, option.optionId), `answer ${p.permissionId}`);
    }
    const s = await waitForState(a, key, (st) => st.entries.some((e) => e.kind === 'turn_end'), 'the end of the turn', 90_000);
    assert.strictEqual(s.lastStopReason, 'end_turn');
    const user = s.entries.find((e) => e.kind === 'user');
    assert.ok(user && 'text' in user && user.text === PROMPT, 'what was typed is the first turn');
    assert.ok(Object.values(s.permissions).every((p) => p.state === 'selected'), 'both requests approved');
    const kinds = Object.values(s.toolCalls).map((t) => t.kind);
    assert.ok(kinds.includes('edit') && kinds.includes('execute'), `an edit and a command: ${kinds.join(', ')}`);
    const text = s.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    assert.ok(text.includes(FINAL_TEXT), text);
    const file = path.join(workspaceDir(), FILE_NAME);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FILE_CONTENT);
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false, viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('readme-claude-turn', 30_000, { waitForSelector: '#app .turn-end' });
  });

  it('the Changes view: that one turn\'s change, and its diff', async function () {
    const a = await api();
    const turns = a.changes(key);
    assert.strictEqual(turns.length, 1, 'one turn with changes');
    const change = turns[0].files.find((f) => f.path.endsWith(FILE_NAME));
    assert.ok(change, `hello.txt among the turn's changes: ${JSON.stringify(turns).slice(0, 500)}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    await vscode.commands.executeCommand('agentSwitchboard.review.openDiff', { type: 'hunk', changeId: change.id, hunk: 0 });
    await screenshot('readme-changes', 30_000, { waitForSelector: `.monaco-list-row:has-text("${FILE_NAME}")` });
  });

  it('the trace of that turn: its spans, a permission\'s attributes, and who acted for whom', async function () {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.ok(await vscode.commands.executeCommand('agentSwitchboard.showTrace', key));
    await click('.row[data-role="permission"]', 30_000);
    await screenshot('readme-trace', 30_000, { waitForSelector: 'body:has(.row:has-text("execute_tool")):has(.details td:has-text("agent_switchboard.decision"))' });
    await click('button.tab[data-tab="delegation"]', 30_000);
    await screenshot('readme-delegation', 30_000, { waitForSelector: '.hop-agent:has-text("Claude")' });
  });

  it('the protocol inspector of that connection: the messages, and the capability matrix', async function () {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.ok(await vscode.commands.executeCommand('agentSwitchboard.showInspector', key));
    await click('.row:has-text("session/request_permission")', 30_000);
    await screenshot('readme-inspector', 30_000, { waitForSelector: 'body:has(.row:has-text("initialize")):has(.details pre:has-text("toolCall"))' });
    await click('button.tab[data-tab="capabilities"]');
    await screenshot('readme-capabilities', 30_000, { waitForSelector: '.matrix td:has-text("session/request_permission")' });
  });

  it('the Sessions view: the one live session', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
    await screenshot('readme-sessions', 30_000, { waitForSelector: '.monaco-list-row:has-text("Claude Code")' });
  });
});

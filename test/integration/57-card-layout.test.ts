/**
 * A waiting permission card is as light as the change it asks about, measured in the Session
 * webview's DOM at VS Code's default side bar width (300 px) and at 260 px, for the demo agent's
 * edit (a new 9-line Markdown file) and command (run sandboxed): by default the card shows what will
 * happen first — the diff, or the command with its sandbox line — then at most three buttons (Allow,
 * Reject, Allow more…), all of it inside the visible part of the thread; the paragraph on what the
 * agent's "Always allow" would grant and the intent hash are not on show (the hash is on hover and
 * in the page). "Allow more…", by key or click, opens every broader choice of before (our three
 * grants and the agent's "always", with that paragraph beside it), Escape closes it, and a grant
 * chosen there is made.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { targetContent } from '../../src/demo/promptTarget';
import { api, setAgents, waitForState } from './util';
import { click, evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';
import { collapseOthers } from './panes';

interface CardMeasure {
  /** Labels of the card's buttons on show (vscode-buttons and buttons that are not links). */
  buttons: string[];
  /** The first thing the card shows of what will happen (the diff, or the command line). */
  what: { top: number; bottom: number } | null;
  /** Top and bottom of the buttons on show. */
  buttonsTop: number;
  buttonsBottom: number;
  /** The thread's visible part (under the plan pinned at its top), in the frame's coordinates. */
  view: { top: number; bottom: number };
  /** Text on show (innerText) and in the page (textContent) of the card. */
  shownText: string;
  pageText: string;
  /** The `title`s in the card. */
  titles: string[];
  /** Buttons on show that stick out of the card. */
  outside: string[];
  moreOpen: boolean;
  toggleFocused: boolean;
  /** Added lines of the card's diff on show. */
  addLines: number;
  /** Rows the buttons on show take (by their tops). */
  rows: number;
  /** The card's diff scrolls sideways (a line wider than the card). */
  sideways: boolean;
}

/** Runs in the webview frame: the waiting card, as it is on screen now (no scrolling: the thread shows a tall waiting card from its top). */
const MEASURE = (what: string) => `
  const card = document.querySelector('.tool-card.waiting');
  if (!card) return null;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const buttons = Array.from(card.querySelectorAll('vscode-button, button:not(.link)')).filter(shown);
  const thread = document.querySelector('.thread').getBoundingClientRect();
  const plan = document.querySelector('.plan:not([hidden])');
  const view = { top: thread.top + (plan ? plan.getBoundingClientRect().height : 0), bottom: Math.min(thread.bottom, innerHeight) };
  const w = card.querySelector(${JSON.stringify(what)});
  const r = w && shown(w) ? w.getBoundingClientRect() : null;
  const rects = buttons.map((b) => b.getBoundingClientRect());
  const c = card.getBoundingClientRect();
  const toggle = card.querySelector('.perm-more-toggle');
  const more = card.querySelector('.perm-more');
  return {
    buttons: buttons.map((b) => b.textContent.trim().replace(/\\s+/g, ' ')),
    what: r ? { top: r.top, bottom: r.bottom } : null,
    buttonsTop: Math.min(...rects.map((x) => x.top)), buttonsBottom: Math.max(...rects.map((x) => x.bottom)),
    view, shownText: card.innerText, pageText: card.textContent,
    titles: Array.from(card.querySelectorAll('[title]')).map((e) => e.getAttribute('title')),
    outside: buttons.filter((b, i) => rects[i].right > c.right + 0.5 || rects[i].left < c.left - 0.5).map((b) => b.textContent.trim()),
    moreOpen: !!more && !more.hidden, toggleFocused: !!toggle && document.activeElement === toggle,
    addLines: Array.from(card.querySelectorAll('.content-diff .dl.add')).filter(shown).length,
    rows: rects.map((x) => x.top).sort((p, q) => p - q).filter((t, i, all) => i === 0 || t - all[i - 1] > 8).length,
    sideways: Array.from(card.querySelectorAll('.diff-lines')).some((d) => shown(d) && d.scrollWidth > d.clientWidth + 1),
  };`;

async function measure(what: string): Promise<CardMeasure> {
  const found = (await evaluateInFrames<CardMeasure | null>(MEASURE(what), { inFrame: '#app .tool-card.waiting' })).find((m): m is CardMeasure => !!m);
  assert.ok(found, 'a waiting card in the Session webview');
  return found;
}

/** Presses a key on an element of the waiting card, as the keyboard would deliver it to the focused element. */
async function press(selector: string, key: string): Promise<void> {
  await evaluateInFrames(`
    const el = document.querySelector('.tool-card.waiting ${selector}');
    el.focus();
    el.dispatchEvent(new KeyboardEvent('keydown', { key: ${JSON.stringify(key)}, bubbles: true, cancelable: true }));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return true;`, { inFrame: '#app .tool-card.waiting' });
}

/**
 * The default card: what will happen first and in view, then Allow, Reject, Allow more…; no
 * paragraph, no hash on show. Every problem is reported, not only the first.
 */
function checkDefault(m: CardMeasure, hash: string, label: string): void {
  const problems: string[] = [];
  const want = (ok: boolean, what: string) => ok || problems.push(what);
  want(JSON.stringify(m.buttons) === JSON.stringify(['Allow', 'Reject', 'Allow more…']), `three buttons on show (Allow, Reject, Allow more…), not ${m.buttons.length}: ${JSON.stringify(m.buttons)}`);
  want(!!m.what, 'what will happen is on show');
  if (m.what) {
    want(m.what.top < m.buttonsTop, `what will happen comes before the buttons (its top ${m.what.top}, the buttons' ${m.buttonsTop})`);
    want(m.what.top >= m.view.top - 0.5 && m.what.top < m.view.bottom, `what will happen starts in the visible part of the thread (its top ${m.what.top}, the view ${m.view.top}–${m.view.bottom})`);
  }
  want(m.buttonsBottom <= m.view.bottom + 0.5, `the buttons are in view (their bottom ${m.buttonsBottom}, the view's ${m.view.bottom})`);
  want(!m.outside.length, `no button sticks out of the card: ${JSON.stringify(m.outside)}`);
  want(!m.sideways, 'the diff wraps its long lines (no sideways scrolling inside the card)');
  want(!/lets the agent write any workspace file|Allowing lets through exactly|asks for permission to run this tool/.test(m.shownText), 'no explanatory paragraph on show');
  want(!m.shownText.includes(hash.slice(0, 12)), 'the hash is not on show');
  want(m.titles.some((t) => t.includes(hash)), 'the hash is on hover');
  want(m.pageText.includes(hash), 'the hash is in the page');
  want(!m.moreOpen, '"Allow more…" is closed');
  assert.deepStrictEqual(problems, [], `${label}: ${JSON.stringify({ ...m, pageText: undefined, shownText: m.shownText.slice(0, 400) })}`);
}

/** "Allow more…" open: every broader choice on show, inside the card. */
function checkMore(m: CardMeasure, kind: 'edit' | 'command', hash: string, label: string): void {
  const info = `${label}: ${JSON.stringify({ ...m, pageText: undefined, shownText: m.shownText.slice(0, 600) })}`;
  assert.ok(m.moreOpen, `"Allow more…" is open — ${info}`);
  for (const b of ['Allow', 'Reject', 'Allow more…', 'Allow for this session', 'Allow in this workspace', 'Always allow everywhere', 'Allow as the agent offers “Always allow”']) {
    assert.ok(m.buttons.includes(b), `"${b}" on show — ${info}`);
  }
  assert.deepStrictEqual(m.outside, [], `no button sticks out of the card — ${info}`);
  assert.ok(m.shownText.includes(`Keep allowing exactly this ${kind === 'edit' ? 'file' : 'command'}`), info);
  if (kind === 'edit') assert.ok(/"Always allow" lets the agent write any workspace file/.test(m.shownText), `what the agent's "always" would grant, beside it — ${info}`);
  assert.ok(m.shownText.includes(hash), `the hash written out — ${info}`);
}

describe('permission card layout', () => {
  before(() => setAgents([]));

  it('at 300 and 260 px, an edit and a command card show what will happen first, then Allow, Reject and Allow more… (which opens every broader choice)', async function () {
    this.timeout(300_000);
    const a = await api();
    const cfg = () => vscode.workspace.getConfiguration('agentSwitchboard');
    await cfg().update('sandbox', 'ask', vscode.ConfigurationTarget.Global);
    await setViewport(1600, 1000);
    // The demo creates the file the prompt names: a new 9-line Markdown file, a name of this run's own.
    const file = `card-layout/todo-${Date.now()}.md`;
    const prompt = `Create ${file} with a short list.`;
    // Other sessions open, as on a working day: the header then names this one in a session picker
    // (its title, the prompt, wraps), which takes rows from the thread.
    const others = [await a.startSession({ agentId: 'demo' }), await a.startSession({ agentId: 'demo' })];
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const collapsed = await collapseOthers(true);
    try {
      // The card arrives while the side bar is wide; the person then narrows it (below): text above
      // the card wraps again, and the card must still show its change and buttons where it stopped.
      await setSidebarWidth(520);
      const turn = a.prompt(key, prompt);
      const first = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the edit permission');
      const edit = Object.values(first.permissions).find((p) => p.state === 'waiting')!;
      assert.ok(first.toolCalls[edit.toolCallId].content.some((c) => c.type === 'diff'), 'the edit request carries a diff');
      for (const w of [300, 260]) {
        // Something other than the person moves the thread (a page rebuilt, text above the card
        // wrapping again): the waiting card comes back into view with the next change of size.
        await evaluateInFrames(`document.querySelector('.thread').scrollTop = 0; return true;`, { inFrame: '#app .tool-card.waiting' });
        assert.ok(Math.abs((await setSidebarWidth(w)) - w) <= 2, `side bar at ${w} px`);
        await new Promise((r) => setTimeout(r, 600));
        const m = await measure('.content-diff');
        checkDefault(m, edit.intentHash!, `edit card at ${w} px (collapsed ${collapsed.join(', ')})`);
        if (w === 300) assert.strictEqual(m.rows, 1, `at the default width Allow, Reject and Allow more… share one row: ${JSON.stringify(m.buttons)}`);
        // The whole diff is in view: it starts in view, and the buttons under it end in view.
        assert.strictEqual(m.addLines, targetContent(file, prompt, null).split('\n').length - 1, `every line of the new file on show: ${m.shownText}`);
        await screenshot(`card-edit-${w}`, 30000, { waitForSelector: '.tool-card.waiting .perm-more-toggle', sidebarWidth: w });
        // By key: Enter on "Allow more…" opens the choices, Escape in them closes them and gives the focus back.
        await press('.perm-more-toggle', 'Enter');
        checkMore(await measure('.content-diff'), 'edit', edit.intentHash!, `edit card at ${w} px, Allow more… open`);
        await screenshot(`card-edit-${w}-more`, 30000, { waitForSelector: '.tool-card.waiting .perm-grant', sidebarWidth: w });
        await press('.perm-grant[data-grant="session"]', 'Escape');
        const closed = await measure('.content-diff');
        assert.ok(!closed.moreOpen && closed.toggleFocused, `Escape closes the choices and the focus is on Allow more… again: ${JSON.stringify(closed.buttons)}`);
      }
      assert.ok(edit.grantNotes?.length, 'the agent offers "Always allow" on an edit, which would grant writing any file');
      await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');

      const second = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting' && p.permissionId !== edit.permissionId), 'the command permission');
      const cmd = Object.values(second.permissions).find((p) => p.state === 'waiting')!;
      const sandbox = cmd.display?.find((d) => d.type === 'command')?.sandbox;
      assert.ok(sandbox, `the command's card carries its sandbox line: ${JSON.stringify(cmd.display)}`);
      for (const w of [300, 260]) {
        assert.ok(Math.abs((await setSidebarWidth(w)) - w) <= 2, `side bar at ${w} px`);
        await new Promise((r) => setTimeout(r, 600));
        const m = await measure('pre.command');
        checkDefault(m, cmd.intentHash!, `command card at ${w} px`);
        assert.ok(/Sandboxed when the editor runs it|Not sandboxed|Will not run/.test(m.shownText), `the sandbox line on show: ${m.shownText}`);
        await screenshot(`card-command-${w}`, 30000, { waitForSelector: '.tool-card.waiting .perm-more-toggle', sidebarWidth: w });
        // By click, as a person with a mouse.
        await click('.tool-card.waiting .perm-more-toggle');
        checkMore(await measure('pre.command'), 'command', cmd.intentHash!, `command card at ${w} px, Allow more… open`);
        await screenshot(`card-command-${w}-more`, 30000, { waitForSelector: '.tool-card.waiting .perm-grant', sidebarWidth: w });
        if (w === 300) await click('.tool-card.waiting .perm-more-toggle');
      }
      // A grant chosen under "Allow more…" answers the card and is made.
      await click('.tool-card.waiting .perm-grant[data-grant="session"]');
      assert.strictEqual((await turn).stopReason, 'end_turn');
      const answered = a.session(key)!.permissions[cmd.permissionId];
      assert.deepStrictEqual([answered.state, answered.answeredBy, answered.grant?.scope], ['selected', 'person', 'session']);
      assert.ok(a.grants().some((g) => g.scope === 'session' && g.pattern.kind === 'command'), JSON.stringify(a.grants()));
    } finally {
      await collapseOthers(false);
      for (const k of [key, ...others]) await a.closeSession(k);
      await cfg().update('sandbox', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

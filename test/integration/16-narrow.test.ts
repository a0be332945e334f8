/**
 * The Session webview at narrow side bar widths (issue 17, item 2), measured in its DOM: the header
 * takes at most three rows at 300 px and four at 260 px (it wraps rather than cut a label: the
 * session, agent, mode and model are named whole), no control sticks out of the frame, the thread is the only scroller (the
 * plan is part of it), and a waiting permission card shows what it lets through and its buttons inside
 * the card's visible part without scrolling inside the card. Driven by the demo agent, whose session
 * has a mode picker, config options, a plan, an edit request with a diff and a command request.
 *
 * The Session pane is made tall by collapsing the other expanded panes of its container (clicking
 * their headers in the workbench; they are expanded again afterwards), so the measure does not
 * depend on how the container is laid out.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, setAgents, waitForState } from './util';
import { evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';
import { collapseOthers } from './panes';

interface Measure {
  width: number;
  height: number;
  threadHeight: number;
  headerRows: number;
  scrollers: string[];
  outside: string[];
  /** Buttons of the card and the composer whose label is cut off inside the button (its shadow DOM clips). */
  clipped: string[];
  card: { found: boolean; intent: boolean; hidden: string[] };
  /** Rows the prompt box's bar takes while the turn runs (add, working, Stop, Queue). */
  composerRows: number;
}

/** Runs in the webview frame: the measures above, after scrolling the thread so the waiting card starts at its top. */
const MEASURE = `
  const W = innerWidth, H = innerHeight;
  const name = (e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '') + (e.textContent ? ' "' + e.textContent.trim().slice(0, 30) + '"' : '');
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const header = document.querySelector('.header');
  const ctrls = Array.from(header.querySelectorAll('button, vscode-button, vscode-single-select, input, select, vscode-badge, .session-status, .session-title, .agent-hint, .mode-tag')).filter(shown);
  const centers = ctrls.map((e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; }).sort((a, b) => a - b);
  let rows = 0, last = -1e9;
  for (const c of centers) { if (c - last > 8) rows++; last = c; }
  const scrollers = Array.from(document.querySelectorAll('*')).filter((e) => {
    const s = getComputedStyle(e);
    return shown(e) && /(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1;
  }).map(name);
  const outside = Array.from(document.querySelectorAll('button, vscode-button, input, select, textarea, vscode-single-select, vscode-textarea')).filter(shown).filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > W + 0.5 || r.left < -0.5);
  }).map(name);
  const clipped = Array.from(document.querySelectorAll('.tool-card.waiting vscode-button, .composer vscode-button, .send-button, .stop-button')).filter(shown).filter((e) => {
    const base = e.shadowRoot && e.shadowRoot.querySelector('.base');
    return base && base.scrollWidth > base.clientWidth + 1;
  }).map(name);
  const thread = document.querySelector('.thread');
  const card = document.querySelector('.tool-card.waiting');
  const barTops = Array.from(document.querySelectorAll('.composer-bar > *')).filter(shown).filter((e) => e.getBoundingClientRect().width > 0).map((e) => e.getBoundingClientRect().top).sort((a, b) => a - b);
  const composerRows = barTops.filter((t, i) => i === 0 || t - barTops[i - 1] > 8).length;
  const result = { width: W, height: H, threadHeight: thread.clientHeight, headerRows: rows, scrollers, outside, clipped: [...new Set(clipped)], card: { found: !!card, intent: false, hidden: [] }, composerRows };
  if (card) {
    const plan = document.querySelector('.plan:not([hidden])');
    const pinned = plan ? plan.getBoundingClientRect().height : 0;
    thread.scrollTop += card.getBoundingClientRect().top - thread.getBoundingClientRect().top - pinned - 4;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const t = thread.getBoundingClientRect(), c = card.getBoundingClientRect();
    const top = Math.max(t.top + pinned, c.top), bottom = Math.min(t.bottom, c.bottom, H);
    const intent = card.querySelector('.perm-covers');
    result.card.intent = !!intent;
    // What allowing lets through, and every answer button on show (the broader ones wait under "Allow more…").
    const must = [intent, ...Array.from(card.querySelectorAll('.perm-option, .perm-more-toggle')).filter(shown)].filter(Boolean);
    result.card.hidden = must.filter((e) => { const r = e.getBoundingClientRect(); return r.top < top - 0.5 || r.bottom > bottom + 0.5 || r.right > Math.min(c.right, W) + 0.5; }).map(name);
  }
  return result;`;

async function measureAt(width: number, label: string): Promise<Measure> {
  const got = await setSidebarWidth(width);
  assert.ok(Math.abs(got - width) <= 2, `side bar width ${got}, wanted ${width}`);
  await new Promise((r) => setTimeout(r, 600));
  const frames = await evaluateInFrames<Measure>(MEASURE, { inFrame: '#app' });
  const m = frames.find((f) => f.card.found) ?? frames[0];
  assert.ok(m, 'the Session webview is visible');
  await screenshot(`narrow-${label}-${width}`, 30000, { waitForSelector: '.tool-card.waiting', sidebarWidth: width });
  return m;
}

function check(m: Measure, what: string, maxRows: number): void {
  const info = `${what}: ${JSON.stringify(m)}`;
  assert.ok(m.headerRows <= maxRows, `header rows ${m.headerRows} > ${maxRows} — ${info}`);
  assert.ok(m.scrollers.length <= 1 && m.scrollers.every((s) => s.startsWith('div.thread')), `one scroller, the thread — ${info}`);
  assert.deepStrictEqual(m.outside, [], `controls outside the frame — ${info}`);
  assert.strictEqual(m.composerRows, 1, `the prompt box's bar keeps one row while the turn runs — ${info}`);
  assert.deepStrictEqual(m.clipped, [], `button labels cut off inside their button — ${info}`);
  assert.ok(m.card.found && m.card.intent, `a waiting card with what it lets through — ${info}`);
  assert.deepStrictEqual(m.card.hidden, [], `intent and buttons visible in the card without scrolling inside it — ${info}`);
}

describe('session webview at narrow widths', () => {
  before(() => setAgents([]));

  it('at 260 and 300 px: header in four and three rows, nothing clipped, one scroller, the waiting card shows its intent and buttons', async function () {
    this.timeout(240_000);
    const a = await api();
    await setViewport(1600, 1000);
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const collapsed = await collapseOthers(true);
    try {
      const turn = a.prompt(key, 'Show me what you can do.');
      const first = await waitForState(a, key, (s) => s.plan.length > 0 && Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the edit permission with a plan');
      const edit = Object.values(first.permissions).find((p) => p.state === 'waiting')!;
      assert.ok(first.toolCalls[edit.toolCallId].content.some((c) => c.type === 'diff'), 'the edit request carries a diff');
      assert.ok((first.availableModes?.length ?? 0) > 1 && (first.configOptions?.length ?? 0) > 0, 'the header has a mode picker and config options');
      for (const w of [260, 300]) check(await measureAt(w, 'edit'), `edit card at ${w} px (collapsed ${collapsed.join(', ')})`, w < 300 ? 4 : 3);
      a.answerPermission(key, edit.permissionId, edit.options.find((o) => o.kind === 'allow_once')!.optionId);

      const second = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting' && p.permissionId !== edit.permissionId), 'the command permission');
      const cmd = Object.values(second.permissions).find((p) => p.state === 'waiting')!;
      for (const w of [260, 300]) check(await measureAt(w, 'command'), `command card at ${w} px`, w < 300 ? 4 : 3);
      a.answerPermission(key, cmd.permissionId, cmd.options.find((o) => o.kind === 'allow_once')!.optionId);
      assert.strictEqual((await turn).stopReason, 'end_turn');
    } finally {
      await collapseOthers(false);
      await a.closeSession(key);
    }
  });
});

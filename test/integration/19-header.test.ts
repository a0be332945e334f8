/**
 * The Session header at side bar widths from 600 down to 260 px, measured in its DOM: every label
 * shows whole (no text cut inside its box: scrollWidth and scrollHeight within clientWidth and
 * clientHeight; a picker's face shows its chosen entry, whole), and every control of the header is
 * either in its row inside the frame or in the "More" menu, which is opened and measured the same
 * way. Which session, which agent, which mode and which model stay in the rows at every width.
 * Done with the demo agent (mode and model pickers, "Explain steps") and with an agent of a long
 * name whose session has a long title and a context meter, alone and with a session picker.
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, setAgents, waitForState } from './util';
import { evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const LONG_AGENT = 'Lifecycle agent with a rather long name for its header';
const LONG_TITLE = 'Make the login form remember the last account and say why a sign-in failed';

interface Control { name: string; where: 'row' | 'menu' | 'hidden' }
interface Faces { name: string; text: string; chosen: string }
interface Measure {
  width: number;
  rows: number;
  cut: string[];
  faces: Faces[];
  title: string | null;
  controls: Control[];
  /** The session's status is on a row of its own (a row spent on one icon). */
  statusAlone: boolean;
}
interface MenuMeasure { open: boolean; outside: boolean; cut: string[]; names: string[]; hidden: string[] }

/** Shared by both scripts (they run in the Session webview frame). */
const COMMON = `
  const W = innerWidth, H = innerHeight;
  const shown = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const inside = (e) => { const r = e.getBoundingClientRect(); return r.left >= -0.5 && r.right <= W + 0.5; };
  const CONTROLS = 'button, vscode-button, vscode-single-select, label.config-toggle, [role="button"]';
  const nameOf = (c) => (c.getAttribute('aria-label') || c.textContent || c.tagName).trim();
  // The nearest ancestor-or-self that has a box of its own (an inline span has no client size).
  const boxOf = (e) => { let b = e; while (b && getComputedStyle(b).display === 'inline') b = b.parentElement; return b; };
  function labelsIn(root, skip) {
    const cut = [], faces = [];
    for (const e of root.querySelectorAll('*')) {
      if (skip(e) || !shown(e)) continue;
      const own = Array.from(e.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
      if (!own) continue;
      const b = boxOf(e);
      if (b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1) cut.push('"' + own + '" cut: ' + b.scrollWidth + 'x' + b.scrollHeight + ' in ' + b.clientWidth + 'x' + b.clientHeight);
      if (!inside(b)) cut.push('"' + own + '" outside the frame');
    }
    for (const btn of root.querySelectorAll('vscode-button')) {
      if (skip(btn) || !shown(btn)) continue;
      const base = btn.shadowRoot && btn.shadowRoot.querySelector('.base');
      if (base && base.scrollWidth > base.clientWidth + 1) cut.push('button "' + nameOf(btn) + '" cut: ' + base.scrollWidth + ' in ' + base.clientWidth);
    }
    for (const sel of root.querySelectorAll('vscode-single-select')) {
      if (skip(sel) || !shown(sel)) continue;
      const name = sel.getAttribute('aria-label');
      const face = sel.shadowRoot && sel.shadowRoot.querySelector('.select-face .text');
      const opts = Array.from(sel.querySelectorAll('vscode-option'));
      const chosen = ((opts.find((o) => o.value === sel.value) || opts.find((o) => o.hasAttribute('selected')) || { textContent: '' }).textContent || '').trim();
      const text = face ? (face.textContent || '').trim() : '';
      faces.push({ name, text, chosen });
      if (text !== chosen) cut.push(name + ' shows "' + text + '", its entry is "' + chosen + '"');
      else if (face.scrollWidth > face.clientWidth + 1 || face.scrollHeight > face.clientHeight + 1) cut.push(name + ' "' + text + '" cut: ' + face.scrollWidth + 'x' + face.scrollHeight + ' in ' + face.clientWidth + 'x' + face.clientHeight);
      if (!inside(sel)) cut.push(name + ' outside the frame');
    }
    return { cut, faces };
  }`;

/** Labels and controls of the header, the menu closed. */
const MEASURE = `${COMMON}
  const header = document.querySelector('.header');
  const menu = header.querySelector('.header-menu');
  const inMenu = (e) => !!menu && menu.contains(e);
  const { cut, faces } = labelsIn(header, inMenu);
  const controls = Array.from(header.querySelectorAll(CONTROLS)).filter((c) => !c.classList.contains('header-more'))
    .map((c) => ({ name: nameOf(c), where: inMenu(c) ? 'menu' : shown(c) && inside(c) ? 'row' : 'hidden' }));
  const tops = Array.from(header.querySelectorAll(CONTROLS + ', .session-title, .session-status')).filter((e) => shown(e) && !inMenu(e)).map((e) => e.getBoundingClientRect()).sort((a, b) => a.top - b.top);
  let rows = 0, bottom = -1e9;
  for (const r of tops) { if (r.top >= bottom - 1) { rows++; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom); }
  const titleEl = header.querySelector('.session-title');
  const picker = faces.find((f) => f.name === 'Session');
  const title = shown(titleEl) && !inMenu(titleEl) ? titleEl.textContent : picker ? picker.text : null;
  const st = header.querySelector('.session-status');
  const sr = st && shown(st) && !inMenu(st) ? st.getBoundingClientRect() : null;
  const statusAlone = !!sr && !Array.from(header.querySelectorAll(CONTROLS + ', .session-title')).some((e) => {
    if (e === st || !shown(e) || inMenu(e)) return false;
    const r = e.getBoundingClientRect();
    return r.top < sr.bottom && r.bottom > sr.top;
  });
  return { width: W, rows, cut, faces, title, controls, statusAlone };`;

/** Opens the "More" menu and measures it (left open for a picture; CLOSE_MENU closes it). */
const OPEN_MENU = `${COMMON}
  const more = document.querySelector('.header .header-more');
  if (!shown(more)) return { open: false, outside: false, cut: [], names: [], hidden: [] };
  more.click();
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const menu = document.querySelector('.header-menu');
  const r = menu.getBoundingClientRect();
  const { cut } = labelsIn(menu, () => false);
  const controls = Array.from(menu.querySelectorAll(CONTROLS));
  return { open: shown(menu), outside: r.left < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5, cut, names: controls.map(nameOf), hidden: controls.filter((c) => !shown(c) || !inside(c)).map(nameOf) };`;

/**
 * Words of the thread that a line break cuts in two ("Turn complet" / "e"): each short word's
 * boxes, measured with a Range, must lie on one line. Long tokens (paths, hashes) may break.
 */
const BROKEN_WORDS = `
  const broken = [];
  const walk = document.createTreeWalker(document.querySelector('.thread-list'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.parentElement || n.parentElement.getClientRects().length === 0) continue;
    for (const m of n.textContent.matchAll(/\\S+/g)) {
      if (m[0].length > 14) continue;
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set(Array.from(r.getClientRects()).filter((b) => b.width > 0).map((b) => Math.round(b.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;`;

const CLOSE_MENU = `const m = document.querySelector('.header-menu'); if (m && !m.hidden) document.querySelector('.header .header-more').click(); return true;`;

async function atWidth(width: number): Promise<void> {
  const got = await setSidebarWidth(width);
  assert.ok(Math.abs(got - width) <= 2, `side bar width ${got}, wanted ${width}`);
  await new Promise((r) => setTimeout(r, 700));
}

/** The Session frame of the side bar: of the frames with a header, the one nearest its width. */
async function measure(width: number): Promise<Measure> {
  const frames = await evaluateInFrames<Measure>(MEASURE, { inFrame: '#app .header' });
  const m = frames.sort((a, b) => Math.abs(a.width - width) - Math.abs(b.width - width))[0];
  assert.ok(m, 'the Session webview shows its header');
  return m;
}

/**
 * Nothing cut; every control in view or in the menu; `expected` among them; the session, agent,
 * mode and model (`inRow`) in the rows; the title whole. Then the menu, opened: inside the frame,
 * nothing cut in it, and it holds exactly the controls the rows do not.
 */
async function checkAt(width: number, what: string, expected: string[], inRow: string[], title: string, shot?: string): Promise<void> {
  await atWidth(width);
  const m = await measure(width);
  const info = `${what} at ${width} px: ${JSON.stringify(m)}`;
  console.log(`      header ${what} at ${width} px: ${m.rows} rows; in the menu: ${m.controls.filter((c) => c.where === 'menu').map((c) => c.name).join(', ') || '(nothing)'}`);
  assert.deepStrictEqual(m.cut, [], `labels cut — ${info}`);
  assert.ok(!m.statusAlone, `the session's status shares its row — ${info}`);
  assert.deepStrictEqual(m.controls.filter((c) => c.where === 'hidden').map((c) => c.name), [], `controls neither in view nor in the menu — ${info}`);
  const names = m.controls.map((c) => c.name);
  for (const n of expected) assert.ok(names.includes(n), `the header has "${n}" — ${info}`);
  for (const n of inRow) assert.ok(m.controls.some((c) => c.name === n && c.where === 'row'), `"${n}" in its row — ${info}`);
  assert.strictEqual(m.title?.trim(), title, `the session's title whole — ${info}`);
  if (shot) await screenshot(`header-${shot}-${width}`, 30000, { waitForSelector: '#app .header', sidebarWidth: width });

  const folded = m.controls.filter((c) => c.where === 'menu').map((c) => c.name);
  const [menu] = (await evaluateInFrames<MenuMeasure>(OPEN_MENU, { inFrame: '#app .header' })).filter((x) => x.open || folded.length === 0);
  try {
    if (!folded.length) return;
    assert.ok(menu?.open, `the More menu opens — ${info}`);
    const minfo = `${what} at ${width} px, menu open: ${JSON.stringify(menu)}`;
    assert.ok(!menu.outside, `the menu lies inside the frame — ${minfo}`);
    assert.deepStrictEqual(menu.cut, [], `labels cut in the menu — ${minfo}`);
    assert.deepStrictEqual(menu.hidden, [], `controls of the menu out of view — ${minfo}`);
    assert.deepStrictEqual([...menu.names].sort(), [...folded].sort(), `the menu holds what the rows do not — ${minfo}`);
    if (shot) await screenshot(`header-${shot}-${width}-menu`, 30000, { waitForSelector: '#app .header-menu' });
  } finally {
    await evaluateInFrames(CLOSE_MENU, { inFrame: '#app .header' });
  }
}

describe('session header: every label whole, every control in its row or the More menu', () => {
  let widthBefore = 0;
  before(async () => {
    widthBefore = await setSidebarWidth(300);
    await setViewport(1600, 1000);
  });
  after(async () => {
    await setAgents([]);
    await setSidebarWidth(widthBefore || 300).catch(() => 0);
  });

  it('demo agent from 600 to 260 px: session, agent, mode and model whole in the rows; close and Explain steps in view or in the menu', async function () {
    this.timeout(240_000);
    await setAgents([]);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    try {
      const s = await waitForState(a, key, (x) => (x.availableModes?.length ?? 0) > 1 && (x.configOptions?.length ?? 0) > 1, 'the modes and the config options');
      const title = s.title || s.agentName;
      const expected = ['Agent', 'New session', 'Configure agents', 'Agent mode', 'Model', 'Explain steps', 'Open in an editor tab', 'Close session'];
      const inRow = ['Agent', 'New session', 'Agent mode', 'Model'];
      for (const w of [600, 480, 360]) await checkAt(w, 'demo', expected, inRow, title);
      for (const w of [300, 260]) await checkAt(w, 'demo', expected, inRow, title, 'demo');
    } finally {
      await a.closeSession(key);
    }
  });

  it('a long agent name and a long title at 300 and 260 px wrap whole, with a session picker and alone', async function () {
    this.timeout(240_000);
    await setAgents([{ id: 'longname', name: LONG_AGENT, command: process.execPath, args: [path.join(ROOT, 'test', 'fakes', 'lifecycle-agent.mjs')], env: { ELECTRON_RUN_AS_NODE: '1', LIFECYCLE_TITLE: LONG_TITLE } }]);
    const a = await api();
    const demo = await a.startSession({ agentId: 'demo' });
    let demoOpen = true;
    const key = await a.startSession({ agentId: 'longname' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    try {
      await a.prompt(key, 'Please fix it.');
      await waitForState(a, key, (x) => x.title === LONG_TITLE && !!x.usage, 'the long title and the usage');
      const expected = ['Session', 'Agent', 'New session', 'Open in an editor tab', 'Close session'];
      for (const w of [300, 260]) {
        await checkAt(w, 'long names, two sessions', expected, ['Session', 'Agent', 'New session'], LONG_TITLE, 'picker');
        const [broken] = await evaluateInFrames<string[]>(BROKEN_WORDS, { inFrame: '#app .header' });
        assert.deepStrictEqual(broken, [], `no word of the thread (the turn's end line and its tokens) is broken across lines at ${w} px`);
      }
      await a.closeSession(demo);
      demoOpen = false;
      await new Promise((r) => setTimeout(r, 500));
      for (const w of [300, 260]) await checkAt(w, 'long names', expected.slice(1), ['Agent', 'New session'], LONG_TITLE, 'long');
    } finally {
      if (demoOpen) await a.closeSession(demo);
      await a.closeSession(key);
    }
  });
});

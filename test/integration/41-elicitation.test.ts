/**
 * An agent's question in the Session webview (ACP `elicitation/create`, form mode): the demo agent's
 * `elicit` scenario asks with a form; the card shows the agent's message and a field per property;
 * the test fills the form in the webview's DOM (as typing would) and clicks Accept as a person does
 * (through the runner, in the webview frame). A value the form refuses leaves the card waiting with
 * its reason; a valid one reaches the agent, which says which fields it got. Measured at 300 px
 * side bar width: no field or button outside the frame, no button label cut off inside its button.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ElicitationView } from '../../src/acp/session/types';
import { ELICIT_URL } from '../../src/demo/elicit';
import { api, scenarioAgent, setAgents, waitForState } from './util';
import { click, evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';

/** Runs in the webview frame: what of the card sticks out or is cut off. */
const MEASURE = `
  const W = innerWidth;
  const card = document.querySelector('.elicitation-card');
  if (!card) return { found: false };
  card.scrollIntoView({ block: 'start' });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const c = card.getBoundingClientRect();
  const name = (e) => e.tagName.toLowerCase() + (e.getAttribute('data-name') ? '[' + e.getAttribute('data-name') + ']' : '') + (e.getAttribute('data-action') ? '[' + e.getAttribute('data-action') + ']' : '');
  const parts = Array.from(card.querySelectorAll('.elic-message, .field label, .input, .elic-button, .help'));
  const outside = parts.filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > Math.min(W, c.right) + 0.5 || r.left < c.left - 0.5); }).map(name);
  const clipped = Array.from(card.querySelectorAll('vscode-button')).filter((e) => { const b = e.shadowRoot && e.shadowRoot.querySelector('.base'); return b && b.scrollWidth > b.clientWidth + 1; }).map(name);
  return { found: true, width: W, cardWidth: c.width, outside, clipped, message: card.querySelector('.elic-message').textContent, fields: Array.from(card.querySelectorAll('.input')).map((e) => e.getAttribute('data-name')), problems: (card.querySelector('.elic-problems:not([hidden])') || {}).textContent || '' };`;

/** Sets a field's value in the webview as typing or picking would. */
const fill = (values: Record<string, string>) => `
  const card = document.querySelector('.elicitation-card.waiting');
  if (!card) return false;
  for (const [name, value] of Object.entries(${JSON.stringify(values)})) {
    const input = card.querySelector('[data-name="' + name + '"]');
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return true;`;

type Measure = { found: boolean; width: number; cardWidth: number; outside: string[]; clipped: string[]; message: string; fields: string[]; problems: string };

const question = (s: { entries: { kind: string }[] }): ElicitationView | undefined => (s.entries.find((e) => e.kind === 'elicitation') as { elicitation: ElicitationView } | undefined)?.elicitation;

describe('agent questions (ACP elicitation)', () => {
  before(() => setAgents([scenarioAgent('elicit-agent', 'elicit')]));
  after(() => setAgents([]));

  it('shows the question card, takes the form filled in the webview, refuses an invalid value, accepts, and fits at 300 px', async function () {
    this.timeout(240_000);
    const a = await api();
    await setViewport(1600, 1000);
    const key = await a.startSession({ agentId: 'elicit-agent' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    try {
      const turn = a.prompt(key, 'Deploy the service.');
      const asked = await waitForState(a, key, (s) => question(s)?.state === 'waiting', 'the question card');
      assert.strictEqual(question(asked)!.mode, 'form');
      const got = await setSidebarWidth(300);
      assert.ok(Math.abs(got - 300) <= 2, `side bar width ${got}`);
      await new Promise((r) => setTimeout(r, 600));
      const [m] = (await evaluateInFrames<Measure>(MEASURE, { inFrame: '.elicitation-card' })).filter((x) => x.found);
      assert.ok(m, 'the card is in the Session webview');
      assert.strictEqual(m.message, 'Where should I deploy? I need a few details before I go on.');
      assert.deepStrictEqual(m.fields, ['environment', 'replicas', 'region', 'dryRun']);
      assert.deepStrictEqual(m.outside, [], `nothing outside the card at 300 px: ${JSON.stringify(m)}`);
      assert.deepStrictEqual(m.clipped, [], `no button label cut off at 300 px: ${JSON.stringify(m)}`);
      await screenshot('elicitation-card-300', 30000, { waitForSelector: '.elicitation-card.waiting', sidebarWidth: 300 });

      // Too short a name: the card says why and keeps waiting; nothing reached the agent.
      assert.deepStrictEqual(await evaluateInFrames(fill({ environment: 'x', region: '0' }), { inFrame: '.elicitation-card.waiting' }), [true]);
      await click('.elicitation-card.waiting [data-action="accept"]');
      await new Promise((r) => setTimeout(r, 500));
      const [refused] = (await evaluateInFrames<Measure>(MEASURE, { inFrame: '.elicitation-card' })).filter((x) => x.found);
      assert.match(refused.problems, /Environment needs at least 2 characters/);
      assert.strictEqual(question(a.session(key)!)!.state, 'waiting');
      await screenshot('elicitation-card-refused-300', 30000, { waitForSelector: '.elic-problems:not([hidden])', sidebarWidth: 300 });

      assert.deepStrictEqual(await evaluateInFrames(fill({ environment: 'prod-eu-7' }), { inFrame: '.elicitation-card.waiting' }), [true]);
      await click('.elicitation-card.waiting [data-action="accept"]');
      const answered = await waitForState(a, key, (s) => question(s)?.state === 'accept', 'the accepted answer');
      assert.deepStrictEqual(question(answered)!.fields?.sort(), ['dryRun', 'environment', 'region', 'replicas']);
      assert.strictEqual((await turn).stopReason, 'end_turn');
      const said = a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => (e as { text: string }).text).join('');
      assert.match(said, /elicit: accept \(/);
      assert.ok(!JSON.stringify(a.session(key)).includes('prod-eu-7'), 'the value is not kept in the session');
      await screenshot('elicitation-answered-300', 30000, { waitForSelector: '.elicitation-card.answered', sidebarWidth: 300 });
    } finally {
      await a.closeSession(key);
    }
  });

  it('URL mode: the whole address as text (no link) and its host at 300 px; Decline reaches the agent', async function () {
    this.timeout(240_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'elicit-agent' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    try {
      const turn = a.prompt(key, 'Sign in with the url, please.');
      const asked = await waitForState(a, key, (s) => question(s)?.state === 'waiting', 'the URL question card');
      assert.strictEqual(question(asked)!.mode, 'url');
      await setSidebarWidth(300);
      await new Promise((r) => setTimeout(r, 600));
      const [m] = (await evaluateInFrames<{ found: boolean; url: string; links: number; host: string; outside: string[]; clipped: string[] }>(`
        const card = document.querySelector('.elicitation-card.waiting');
        if (!card) return { found: false };
        card.scrollIntoView({ block: 'start' });
        const W = innerWidth, c = card.getBoundingClientRect();
        const outside = Array.from(card.querySelectorAll('.elic-url, .elic-host, .elic-button')).filter((e) => { const r = e.getBoundingClientRect(); return r.right > Math.min(W, c.right) + 0.5 || r.left < c.left - 0.5; }).map((e) => e.className);
        const clipped = Array.from(card.querySelectorAll('vscode-button')).filter((e) => { const b = e.shadowRoot && e.shadowRoot.querySelector('.base'); return b && b.scrollWidth > b.clientWidth + 1; }).map((e) => e.textContent);
        return { found: true, url: card.querySelector('.elic-url').textContent, links: card.querySelectorAll('a').length, host: card.querySelector('.elic-host').textContent, outside, clipped };`, { inFrame: '.elicitation-card' })).filter((x) => x.found);
      assert.ok(m, 'the URL card is in the Session webview');
      assert.strictEqual(m.url, ELICIT_URL, 'the whole address, as text');
      assert.strictEqual(m.links, 0, 'no link');
      assert.match(m.host, /login\.example\.com/);
      assert.deepStrictEqual(m.outside, [], JSON.stringify(m));
      assert.deepStrictEqual(m.clipped, [], JSON.stringify(m));
      await screenshot('elicitation-url-300', 30000, { waitForSelector: '.elicitation-card.waiting .elic-url', sidebarWidth: 300 });
      await click('.elicitation-card.waiting [data-action="decline"]');
      await waitForState(a, key, (s) => question(s)?.state === 'decline', 'the declined answer');
      assert.strictEqual((await turn).stopReason, 'end_turn');
      assert.match(a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => (e as { text: string }).text).join(''), /elicit: decline/);
    } finally {
      await a.closeSession(key);
    }
  });
});

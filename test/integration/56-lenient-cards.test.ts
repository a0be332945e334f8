/**
 * Cards other clients got wrong, in the real editor (issue 18, items 5 and 6): a tool call that
 * embeds a terminal this window never had shows a placeholder (not a spinner that waits for
 * ever), a `fetch` call's card shows the URL it reads and a `switch_mode` call's card the plan it
 * puts forward, as text; neither is answered for the person.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { LENIENT_FETCH_URL } from '../../src/demo/scenarios';
import { api, scenarioAgent, setAgents, waitForState } from './util';
import { click, evaluateInFrames, screenshot } from './screenshot';

describe('lenient cards in the editor', () => {
  before(() => setAgents([scenarioAgent('lenient', 'lenient-cards', { SWITCHBOARD_DEMO_DELAY_MS: '0' })]));
  after(() => setAgents([]));

  it('shows a placeholder for a terminal it never had, and the URL and plan of calls the agent performs itself', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'lenient' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, 'Show the lenient cards.');
    const first = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the fetch permission');
    const old = Object.values(first.toolCalls).find((t) => t.title.startsWith('npm test'))!;
    assert.deepStrictEqual(old.content[0], { type: 'terminal', terminalId: 'term-from-an-earlier-process', unavailable: true });
    const fetch = Object.values(first.permissions).find((p) => p.state === 'waiting')!;
    assert.strictEqual(fetch.answeredBy, undefined, 'nobody answered it for the person');

    const others = ['agentSwitchboard.changes', 'agentSwitchboard.mcp', 'agentSwitchboard.remoteAgents'];
    for (const v of others) await Promise.resolve(vscode.commands.executeCommand(`${v}.removeView`)).catch(() => undefined);
    try {
      await screenshot('lenient-fetch-card', 30000, { waitForSelector: '.tool-card.waiting .cover-url', sidebarWidth: 520 });
      const seen = (await evaluateInFrames<{ placeholder: string; url: string; urlIsLink: boolean; urlRight: number; cardRight: number } | null>(`
        const ph = document.querySelector('.content-terminal.unavailable');
        const url = document.querySelector('.tool-card.waiting .cover-url');
        if (!ph || !url) return null;
        const card = url.closest('.tool-card');
        return { placeholder: ph.textContent.trim(), url: url.textContent.trim(), urlIsLink: !!url.querySelector('a'), urlRight: url.getBoundingClientRect().right, cardRight: card.getBoundingClientRect().right };`, { inFrame: '.tool-card' })).find((r) => r);
      assert.ok(seen, 'the placeholder and the URL are in the sidebar');
      assert.match(seen.placeholder, /this editor did not run this terminal, and the agent sent none of its output/);
      assert.strictEqual(seen.url, LENIENT_FETCH_URL);
      assert.strictEqual(seen.urlIsLink, false, 'the URL is text, not a link');
      assert.ok(seen.urlRight <= seen.cardRight + 1, `the URL stays inside its card (${seen.urlRight} > ${seen.cardRight})`);
      await click('.tool-card.waiting .perm-option[data-kind="reject_once"]');

      await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting' && p.permissionId !== fetch.permissionId), 'the plan permission');
      await screenshot('lenient-plan-card', 30000, { waitForSelector: '.tool-card.waiting .cover-plan', sidebarWidth: 520 });
      const plan = (await evaluateInFrames<string | null>(`const p = document.querySelector('.tool-card.waiting .cover-plan'); return p ? p.textContent : null;`, { inFrame: '.tool-card' })).find((r) => r);
      assert.strictEqual(plan, '1. Read the tests\n2. Fix the reducer\n3. Run the suite');
      await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');
    } finally {
      for (const v of others) await Promise.resolve(vscode.commands.executeCommand(`${v}.toggleVisibility`)).catch(() => undefined);
    }
    assert.strictEqual((await turn).stopReason, 'end_turn');
    await a.closeSession(key);
  });
});

/**
 * A long session in the real sidebar: the extension sends the page only the newest entries of a
 * 1,200-entry thread (acp/session/window.ts); "Show earlier entries" builds what the page holds, then
 * asks the extension for the page before it, which comes with the tool calls it shows.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, scenarioAgent, setAgents, until, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot, timeUntilVisible } from './screenshot';

describe('a long session in the sidebar', () => {
  it('shows the newest entries and fetches earlier pages from the extension on request', async function () {
    this.timeout(180_000);
    const a = await api();
    await setAgents([scenarioAgent('many', 'many-entries', { SWITCHBOARD_DEMO_CHUNKS: '600' })]);
    try {
      await until('the agent is offered', () => a.agents().find((x) => x.id === 'many'), 10_000);
      // The sidebar shows the session during the turn: the page gets every entry as it streams in.
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      const key = await a.startSession({ agentId: 'many', cwd: workspaceDir() });
      await vscode.commands.executeCommand('agentSwitchboard.sessions.open', key);
      await timeUntilVisible('#app .composer', () => undefined, 30_000);
      assert.strictEqual((await a.prompt(key, 'Read all the notes')).stopReason, 'end_turn');
      const entries = a.session(key)!.entries;
      assert.ok(entries.length >= 1_200, `${entries.length} entries`);
      // Shown again, the page that grew past a window is trimmed to the newest 300.
      await vscode.commands.executeCommand('agentSwitchboard.sessions.open', key);
      const omitted = entries.length - 300;
      await timeUntilVisible(`.show-earlier:has-text("Show earlier entries (${omitted.toLocaleString('en')} more)")`, () => undefined, 30_000);
      const panes = ['Sessions', 'Changes', 'MCP Servers', 'Remote Agents'];
      for (const p of panes) await click(`.pane-header[aria-expanded="true"]:has-text("${p}")`, 3000).catch(() => undefined);
      await screenshot('long-session-window', 30000, { waitForSelector: '.show-earlier', sidebarWidth: 520 });
      // Shown again with nothing new: the page keeps what it built (no second window of 300).
      const newest = entries[entries.length - 1].id;
      const mark = (js: string) => evaluateInFrames<string | null>(`const e = document.querySelector('[data-entry-id="${newest}"]'); ${js}`, { inFrame: '.thread' });
      assert.deepStrictEqual(await mark(`e.dataset.mark = 'built once'; return e.dataset.mark;`), ['built once']);
      await vscode.commands.executeCommand('agentSwitchboard.sessions.open', key);
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepStrictEqual(await mark('return e?.dataset.mark ?? null;'), ['built once'], 'the entry was built again');
      // The page it holds is all built; the next click asks the extension.
      const before = entries[omitted - 1];
      await click('.show-earlier');
      await timeUntilVisible(`[data-entry-id="${before.id}"]`, () => undefined, 30_000);
      await timeUntilVisible(`.show-earlier:has-text("Show earlier entries (${(omitted - 300).toLocaleString('en')} more)")`, () => undefined, 30_000);
      const card = entries.slice(0, omitted).reverse().find((e) => e.kind === 'tool_call')!;
      const title = a.session(key)!.toolCalls[(card as { toolCallId: string }).toolCallId].title;
      await timeUntilVisible(`[data-entry-id="${card.id}"]:has-text("${title}")`, () => undefined, 30_000);
      await screenshot('long-session-earlier', 30000, { waitForSelector: `[data-entry-id="${before.id}"]`, sidebarWidth: 520 });
      // Shown again after the extension sent earlier pages: back to the newest window.
      await vscode.commands.executeCommand('agentSwitchboard.sessions.open', key);
      await timeUntilVisible(`.show-earlier:has-text("Show earlier entries (${omitted.toLocaleString('en')} more)")`, () => undefined, 30_000);
      for (const p of panes) await click(`.pane-header[aria-expanded="false"]:has-text("${p}")`, 3000).catch(() => undefined);
      await a.closeSession(key);
    } finally {
      await setAgents([]);
    }
  });
});

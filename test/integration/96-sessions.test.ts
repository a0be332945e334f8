/**
 * Session history inside a real VS Code: a demo agent session is journaled, listed in the Sessions
 * view and by the agent (`session/list`), shown in editor tabs of its own (two sessions at once),
 * and left open: the reload run (97-reload) finds its transcript again in a new window.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { RELOAD_MARKER, api, autoAnswer, until, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot } from './screenshot';

const sessionTabs = () =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentSwitchboard.sessionTab'));

/**
 * Logs how long each step took since the last, so that a slow or timed-out run says where its time
 * went (fresh-clone runs took this test 9 s, 59 s and, once, past its timeout).
 */
function stepTimer(): (step: string) => void {
  let last = Date.now();
  return (step) => {
    const now = Date.now();
    console.log(`    (sessions test) ${step}: ${now - last} ms`);
    last = now;
  };
}

describe('sessions view and history', () => {
  it('journals a session, lists it (ours and the agent\'s), and shows two sessions in tabs of their own', async function () {
    // Two demo turns (each with an edit and a terminal) and four waits of up to 30 s on a machine
    // shared with the workbench and the agents: the timeout leaves room for a slow run.
    this.timeout(240_000);
    const step = stepTimer();
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    const answering = autoAnswer(a, key, 'allow_once');
    let second: string | undefined;
    try {
      assert.strictEqual((await a.prompt(key, RELOAD_MARKER)).stopReason, 'end_turn');
      step('first session started and its turn done');
      const entry = await until('the session is in the journal', () => a.sessionHistory().find((e) => e.title === RELOAD_MARKER), 10_000);
      assert.strictEqual(entry.open, true);
      assert.strictEqual(entry.turns, 1);
      assert.strictEqual(entry.sessionId, a.session(key)!.sessionId);
      step('journaled');
      // The agent lists it too (session/list), through the running session's connection.
      const listed = await a.agentSessions('demo');
      assert.strictEqual(listed.supported, true);
      assert.ok(listed.sessions.some((s) => s.sessionId === entry.sessionId && s.title === RELOAD_MARKER), JSON.stringify(listed.sessions.slice(0, 5)));
      step('listed by the agent');

      // A second session, and each in an editor tab of its own.
      second = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
      const answering2 = autoAnswer(a, second, 'allow_once');
      try {
        assert.strictEqual((await a.prompt(second, 'A second session, side by side')).stopReason, 'end_turn');
      } finally {
        answering2.dispose();
      }
      step('second session started and its turn done');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentSwitchboard.sessions.openInTab', key);
      await vscode.commands.executeCommand('agentSwitchboard.sessions.openInTab', second);
      await until('two session tabs', () => sessionTabs().length >= 2 || undefined, 20_000);
      step('two tabs open');
      await screenshot('session-tabs', 30000, { waitForSelector: `.entry.user:has-text("RELOAD-MARKER-1")` });
      step('the tabs shown');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');

      // The person closes the second one: it stays in the history, but is not reopened after a reload.
      await a.closeSession(second);
      const closed = await until('the closed session is marked', () => a.sessionHistory().find((e) => e.title === 'A second session, side by side' && !e.open), 10_000);
      assert.ok(closed);
      step('second session closed');

      // The agent's capabilities over all its sessions, per version.
      const caps = a.agentCapabilities('demo');
      assert.strictEqual(caps[0].name, 'agent-switchboard-demo');
      assert.ok(caps[0].connections >= 2 && caps[0].rows.find((r) => r.capability === 'session/prompt')!.exercised >= 2, JSON.stringify(caps[0]).slice(0, 400));
      const md = (await vscode.commands.executeCommand('agentSwitchboard.showAgentCapabilities', 'demo')) as string;
      assert.match(md, /^# Capabilities of Offline demo agent/);
      assert.match(md, /\| session\/list \| we call the agent \| yes \| [1-9]/);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

      // The Sessions view: the agent, its live session and its history.
      await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
      // Room for the view: the panes below it are folded for the picture, and opened again after.
      const folded: string[] = [];
      for (const p of ['Changes', 'MCP Servers', 'Remote Agents', 'Waiting Approvals', 'Grants']) {
        if (await click(`.pane-header[aria-expanded="true"]:has-text("${p}")`, 3000).then(() => true, () => false)) folded.push(p);
      }
      // An earlier test may have folded the agents' groups: open the demo agent's again.
      await evaluateInFrames(`
        const pane = [...document.querySelectorAll('.pane')].find((p) => (p.querySelector('.pane-header .title')?.textContent || '').trim() === 'Sessions');
        const row = pane && [...pane.querySelectorAll('.monaco-list-row')].find((r) => (r.querySelector('.label-name')?.textContent || '').trim() === 'Offline demo agent');
        if (row && row.getAttribute('aria-expanded') === 'false') row.click();
        return true;`);
      await screenshot('sessions-view', 30000, { waitForSelector: '.monaco-list-row:has-text("RELOAD-MARKER-1")', sidebarWidth: 520 });
      for (const p of folded) await click(`.pane-header[aria-expanded="false"]:has-text("${p}")`, 3000).catch(() => undefined);
    } finally {
      answering.dispose();
    }
    // The first session stays open for the reload run.
  });
});

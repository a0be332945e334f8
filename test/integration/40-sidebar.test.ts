/**
 * The sidebar with the offline demo agent: a waiting permission is reachable while the sidebar is
 * hidden (badge, notification), and hiding and re-showing the view loses nothing (it is rebuilt
 * from a snapshot).
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, autoAnswer, setAgents, waitForState } from './util';
import { screenshot } from './screenshot';

describe('session sidebar with the offline demo agent', () => {
  before(() => setAgents([]));

  it('shows a waiting permission while the sidebar is hidden, then the finished turn after re-showing', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const turn = a.prompt(key, 'Show me what you can do.');
    const waiting = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'a permission request');
    const permission = Object.values(waiting.permissions).find((p) => p.state === 'waiting')!;
    assert.strictEqual(waiting.toolCalls[permission.toolCallId].status, 'awaiting_approval');
    await screenshot('permission-while-hidden', 20000);

    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('permission-card', 30000, { waitForSelector: '.tool-card.waiting', sidebarWidth: 520 });

    const sub = autoAnswer(a, key, 'allow_once');
    const allow = permission.options.find((o) => o.kind === 'allow_once')!;
    assert.ok(a.answerPermission(key, permission.permissionId, allow.optionId));
    const { stopReason } = await turn;
    sub.dispose();
    assert.strictEqual(stopReason, 'end_turn');

    // Hide and re-show: the webview is rebuilt from a snapshot with the whole turn.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await new Promise((r) => setTimeout(r, 500));
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('demo-turn-after-reshow', 30000, { waitForSelector: '.turn-end', sidebarWidth: 520 });
    const s = a.session(key)!;
    assert.ok(s.entries.some((e) => e.kind === 'turn_end'));
    assert.ok(Object.values(s.terminals).some((t) => /DEMO_SHELL_OK/.test(t.output)));
    await a.closeSession(key);
  });
});

/**
 * The Waiting Approvals view lists every waiting permission request across sessions, with its
 * agent, kind and short intent hash; it empties when the requests are answered. Runs last among
 * the sidebar tests: expanding this view leaves less room for the session view.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, waitForState } from './util';
import { screenshot } from './screenshot';

describe('waiting approvals view', () => {
  it('lists waiting requests of several sessions and empties when they are answered', async function () {
    this.timeout(120_000);
    const a = await api();
    const keys = [await a.startSession({ agentId: 'demo' }), await a.startSession({ agentId: 'demo' })];
    const turns = keys.map((k) => a.prompt(k, 'Ask me.'));
    const waiting = await Promise.all(keys.map((k) => waitForState(a, k, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), `a permission in ${k}`)));
    const hashes = waiting.map((s) => Object.values(s.permissions).find((p) => p.state === 'waiting')!.intentHash!.slice(0, 12));
    await vscode.commands.executeCommand('agentSwitchboard.approvals.focus');
    // A row of the tree view (not the card in the webview, which shows the hash too).
    await screenshot('waiting-approvals', 30000, { waitForSelector: `.monaco-list-row:has-text("${hashes[1]}")`, sidebarWidth: 520 });
    for (const k of keys) {
      const sub = a.onDidChangeSession((e) => {
        for (const p of e.patches) {
          if (e.key === k && p.op === 'permission' && p.permission.state === 'waiting') {
            setTimeout(() => a.answerPermission(k, p.permission.permissionId, p.permission.options.find((o) => o.kind === 'reject_once')!.optionId), 5);
          }
        }
      });
      const first = Object.values(a.session(k)!.permissions).find((p) => p.state === 'waiting')!;
      assert.ok(a.answerPermission(k, first.permissionId, first.options.find((o) => o.kind === 'reject_once')!.optionId));
      await turns[keys.indexOf(k)];
      sub.dispose();
    }
    assert.ok(hashes[0] !== hashes[1] || keys[0] !== keys[1]);
    assert.deepStrictEqual(a.sessions().filter((s) => keys.includes(s.key)).map((s) => s.waiting), [0, 0]);
    for (const k of keys) await a.closeSession(k);
  });
});

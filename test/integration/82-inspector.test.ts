/**
 * The protocol inspector inside a real VS Code: after a demo agent turn, every JSON-RPC message of
 * the connection is listed both ways (initialize first), the inspector panel shows them, and its
 * Export writes them as JSON Lines without a secret planted in the prompt.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, autoAnswer, until, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot } from './screenshot';

const SECRET = 'sk-planted-0123456789abcdefghij';

describe('protocol inspector', () => {
  it('lists a session\'s messages both ways and exports them and the session redacted', async function () {
    this.timeout(90_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    const answering = autoAnswer(a, key, 'allow_once');
    try {
      assert.strictEqual((await a.prompt(key, `Use my token Bearer ${SECRET} if you must.`)).stopReason, 'end_turn');
      const log = a.protocolLog(key);
      assert.deepStrictEqual(log.slice(0, 2).map((e) => [e.dir, e.kind, e.method]), [['out', 'request', 'initialize'], ['in', 'response', 'initialize']]);
      for (const method of ['session/new', 'session/prompt', 'session/request_permission', 'fs/write_text_file', 'terminal/create']) {
        assert.ok(log.some((e) => e.method === method), `${method} is listed: ${[...new Set(log.map((e) => e.method))].join(', ')}`);
      }
      assert.ok(log.some((e) => e.dir === 'in' && e.method === 'session/request_permission' && e.kind === 'request'), 'requests from the agent are "in"');
      await vscode.commands.executeCommand('workbench.action.closeAllGroups');
      assert.ok(await vscode.commands.executeCommand('agentSwitchboard.showInspector', key));
      await click('.row:has-text("session/request_permission")', 30_000);
      await screenshot('protocol-inspector', 30000, { waitForSelector: 'body:has(.row .method:has-text("initialize")):has(.details pre:has-text("toolCall"))' });
      // The capability matrix: the demo agent's permission requests and writes were exercised; its
      // read of a file that did not exist yet failed, and says why.
      const matrix = a.capabilities(key);
      const row = (c: string) => matrix.find((r) => r.capability === c)!;
      assert.ok(row('session/request_permission').exercised >= 2 && row('fs/write_text_file').exercised >= 1, JSON.stringify(matrix));
      assert.ok(row('session/update: plan').exercised >= 1);
      await click('button.tab[data-tab="capabilities"]');
      await screenshot('capability-matrix', 30000, { waitForSelector: '.matrix td.cap:has-text("session/request_permission")' });
      await click('button.tab[data-tab="messages"]');
      await click('vscode-button:has-text("Export")');
      const doc = await until('the export opened', () => {
        const d = vscode.window.activeTextEditor?.document;
        return d && d.isUntitled && d.getText().includes('"session/prompt"') ? d : undefined;
      }, 20_000);
      const lines = doc.getText().trim().split('\n').map((l) => JSON.parse(l) as { dir: string; message: { method?: string } });
      assert.ok(lines.length >= log.length, `${lines.length} lines for ${log.length} messages`);
      assert.ok(!doc.getText().includes(SECRET), 'the planted secret is not in the export');
      assert.ok(doc.getText().includes('Use my token Bearer [redacted] if you must.'));
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      // The session itself, as Markdown and as JSON: the same secret is not in either.
      const md = (await vscode.commands.executeCommand('agentSwitchboard.exportSession', key, 'markdown')) as string;
      assert.match(md, /^# Session with Offline demo agent/);
      assert.match(md, /### Tool call: Write demo\/hello\.md — completed/);
      assert.ok(md.includes('> Use my token Bearer [redacted] if you must.') && !md.includes(SECRET));
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      const json = JSON.parse((await vscode.commands.executeCommand('agentSwitchboard.exportSession', key, 'json')) as string) as { session: { key: string } };
      assert.strictEqual(json.session.key, key);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    } finally {
      answering.dispose();
      await a.closeSession(key);
    }
  });

  it('a prompt sent while a turn runs is queued, shown above the box, and sent when the turn ends', async function () {
    this.timeout(90_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    let answering: vscode.Disposable | undefined;
    try {
      assert.strictEqual(a.send(key, 'First: show me around.'), 'sent');
      // The turn waits for its first permission (nobody answers yet): the second prompt is queued.
      await until('the first turn waiting', () => Object.values(a.session(key)!.permissions).some((p) => p.state === 'waiting'), 30_000);
      assert.strictEqual(a.send(key, 'Second: and then summarise.'), 'queued');
      assert.deepStrictEqual(a.session(key)!.queued, ['Second: and then summarise.']);
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      // Room for the session, as a person would make it: the other panes are folded for the picture.
      // Only those open now (which are depends on what ran before in the window), opened again after.
      const open = (await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.pane-header[aria-expanded="true"]')].map((e) => e.textContent || '');`)).flat();
      const panes = ['Changes', 'MCP Servers', 'Remote Agents'].filter((p) => open.some((t) => t.includes(p)));
      for (const p of panes) await click(`.pane-header[aria-expanded="true"]:has-text("${p}")`);
      await screenshot('prompt-queued', 30000, { waitForSelector: '.queued:has-text("1 queued")', sidebarWidth: 420 });
      for (const p of panes) await click(`.pane-header[aria-expanded="false"]:has-text("${p}")`);
      answering = autoAnswer(a, key, 'allow_once');
      // The waiting request is answered too (autoAnswer hears only new ones).
      const waiting = Object.values(a.session(key)!.permissions).find((p) => p.state === 'waiting')!;
      a.answerPermission(key, waiting.permissionId, waiting.options.find((o) => o.kind === 'allow_once')!.optionId);
      await until('both prompts done', () => {
        const s = a.session(key)!;
        return s.status === 'ready' && s.entries.filter((e) => e.kind === 'turn_end').length === 2 && !s.queued?.length;
      }, 60_000);
      assert.deepStrictEqual(a.session(key)!.entries.filter((e) => e.kind === 'user').map((e) => (e.kind === 'user' ? e.text : '')), ['First: show me around.', 'Second: and then summarise.']);
    } finally {
      answering?.dispose();
      await a.closeSession(key);
    }
  });

  it('the agent\'s modes are a picker in the session header; choosing one sends session/set_mode', async function () {
    this.timeout(60_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    try {
      assert.deepStrictEqual(a.session(key)!.availableModes?.map((m) => m.name), ['Ask before editing', 'Plan only', 'Auto Edit (does not ask)']);
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      await a.setMode(key, 'plan');
      assert.strictEqual(a.session(key)!.currentModeId, 'plan');
      await screenshot('mode-picker', 30000, { waitForSelector: 'vscode-single-select.mode-select', sidebarWidth: 420 });
      assert.ok(a.protocolLog(key).some((e) => e.method === 'session/set_mode' && e.kind === 'response'));
      await assert.rejects(a.setMode(key, 'nope'), /offers no mode "nope"/);
    } finally {
      await a.closeSession(key);
    }
  });
});

/**
 * The keyboard commands of issue 17, item 6, in a real VS Code: send what the prompt box holds, and
 * move the focus between the thread's cards. (Approve / reject by key is in 17-a11y; the default
 * keys' clash check is there too.)
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, autoAnswer, waitForState, workspaceDir } from './util';
import { evaluateInFrames, press } from './screenshot';

const PAGE = '#app .composer';

describe('keyboard commands of the Session', () => {
  it('the approve and reject keys, pressed with the focus in the side bar\'s prompt box, answer the waiting card', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    try {
      await vscode.commands.executeCommand('agentSwitchboard.showSession', key);
      const turn = a.prompt(key, `Write keys-${Date.now()}.md, please.`);
      const waitingCard = async (what: string, not?: string) => {
        const s = await waitForState(a, key, (st) => Object.values(st.permissions).some((p) => p.state === 'waiting' && p.permissionId !== not), what);
        return Object.values(s.permissions).find((p) => p.state === 'waiting' && p.permissionId !== not)!;
      };
      // A webview keeps some keys for the browser (Ctrl+X and its kin, cut): a key the webview keeps
      // never reaches VS Code's keybindings, so each is pressed for real, not run as a command.
      const edit = await waitingCard('the edit request');
      await press('Control+Shift+Alt+D', '#app .prompt-input');
      const rejected = (await waitForState(a, key, (st) => st.permissions[edit.permissionId]?.state !== 'waiting', 'the edit request answered by the reject key')).permissions[edit.permissionId];
      assert.deepStrictEqual([rejected.state, rejected.answeredBy, edit.options.find((o) => o.optionId === rejected.optionId)?.kind], ['selected', 'person', 'reject_once']);
      const cmd = await waitingCard('the command request', edit.permissionId);
      await press('Control+Shift+Alt+Y', '#app .prompt-input');
      const allowed = (await waitForState(a, key, (st) => st.permissions[cmd.permissionId]?.state !== 'waiting', 'the command request answered by the approve key')).permissions[cmd.permissionId];
      assert.deepStrictEqual([allowed.state, allowed.answeredBy, cmd.options.find((o) => o.optionId === allowed.optionId)?.kind], ['selected', 'person', 'allow_once']);
      await turn;
    } finally {
      await a.closeSession(key);
    }
  });

  it('send the prompt box, then move the focus to the previous and next card', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    const answering = autoAnswer(a, key, 'allow_once');
    try {
      await vscode.commands.executeCommand('agentSwitchboard.showSession', key);
      const said = `Keyboard prompt ${Date.now()}`;
      // Type into the box as a person would (the textarea inside the vscode-textarea), then send by command.
      await evaluateInFrames(`
        const box = document.querySelector('.prompt-input');
        box.value = ${JSON.stringify(said)};
        box.dispatchEvent(new Event('input', { bubbles: true }));
        return box.value;`, { inFrame: PAGE });
      await vscode.commands.executeCommand('agentSwitchboard.sendFromBox');
      const s = await waitForState(a, key, (st) => st.status === 'ready' && st.entries.some((e) => e.kind === 'user' && JSON.stringify(e).includes(said)), 'the prompt sent from the box by command', 60_000);
      assert.ok(s.entries.some((e) => e.kind === 'tool_call'), 'the demo turn has tool cards');
      const box = await evaluateInFrames<string>(`return document.querySelector('.prompt-input').value;`, { inFrame: PAGE });
      assert.deepStrictEqual(box, [''], 'the box is empty once sent');

      const focused = async () => (await evaluateInFrames<{ index: number; count: number }>(`
        const cards = [...document.querySelectorAll('.tool-card')];
        const a = document.activeElement;
        return { index: cards.findIndex((c) => c === a || c.contains(a)), count: cards.length };`, { inFrame: PAGE }))[0];
      await vscode.commands.executeCommand('agentSwitchboard.previousCard');
      const last = await focused();
      assert.ok(last.count >= 2, `at least two cards: ${JSON.stringify(last)}`);
      assert.strictEqual(last.index, last.count - 1, 'with no card focused, the newest card takes the focus');
      await vscode.commands.executeCommand('agentSwitchboard.previousCard');
      assert.strictEqual((await focused()).index, last.count - 2, 'previous card');
      await vscode.commands.executeCommand('agentSwitchboard.nextCard');
      assert.strictEqual((await focused()).index, last.count - 1, 'next card');
    } finally {
      answering.dispose();
      await a.closeSession(key).catch(() => undefined);
    }
  });
});

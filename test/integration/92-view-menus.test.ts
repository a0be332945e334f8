/**
 * The commands a view's "…" (More Actions) menu offers run from there: VS Code hands a view's title
 * menu a context of its own (the view, its focused and selected items), which must not be taken
 * for the JSON a `command:` link carries. Clicked in the workbench as a person would, for the
 * Session view and the Sessions view (with an item of it focused, which the menu hands on).
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api } from './util';
import { click, evaluateInFrames } from './screenshot';

/** Texts of the notifications, read in the notification center (this harness shows no toasts). */
async function toasts(): Promise<string[]> {
  await vscode.commands.executeCommand('notifications.showList');
  await new Promise((r) => setTimeout(r, 300));
  const all = await evaluateInFrames<string[]>(`return [...document.querySelectorAll('.notifications-center .notification-list-item')].map((e) => e.textContent || '');`);
  await vscode.commands.executeCommand('notifications.hideList');
  return all.flat();
}

describe('the views\' "…" menus', () => {
  const cfg = () => vscode.workspace.getConfiguration('workbench.view');
  let key = '';
  /** Whether the Sessions pane was expanded before: it is left as it was found. */
  let sessionsOpen: boolean | undefined;
  const sessionsPane = async (): Promise<boolean | undefined> =>
    (await evaluateInFrames<boolean | null>(`const h = [...document.querySelectorAll('.pane-header')].find((e) => (e.querySelector('h3.title')?.textContent || '').trim() === 'Sessions'); return h ? h.getAttribute('aria-expanded') === 'true' : null;`)).find((x) => x !== null) ?? undefined;
  before(async () => {
    sessionsOpen = await sessionsPane();
    // A session, so the Sessions view has an item to focus: its title menu then hands that item on.
    key = await (await api()).startSession({ agentId: 'demo' });
    // The menu's button shows without hovering the pane's header.
    await cfg().update('alwaysShowHeaderActions', true, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
  });
  after(async () => {
    if (key) await (await api()).closeSession(key);
    if (sessionsOpen === false && (await sessionsPane())) await click('.pane-header[aria-expanded="true"]:has(h3.title:text-is("Sessions"))').catch(() => undefined);
    await cfg().update('alwaysShowHeaderActions', undefined, vscode.ConfigurationTarget.Global);
  });

  it('a refusal shows as a notification this test reads', async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('agentSwitchboard.sendToSeveral', { from: 'a command: link' });
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok((await toasts()).some((t) => /did not run/.test(t)), 'the refusal is on show');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  for (const [view, item] of [
    ['Session', 'Send to Several Agents…'],
    ['Session', 'Log In to Agent…'],
    ['Sessions', 'Install Agent from Registry…'],
    ['Sessions', 'Log Out of Agent…'],
  ] as const) {
    it(`${view}: "${item}" runs from the menu`, async function () {
      this.timeout(60_000);
      await vscode.commands.executeCommand('notifications.clearAll');
      if (view === 'Sessions') {
        await vscode.commands.executeCommand('agentSwitchboard.sessions.focus');
        await vscode.commands.executeCommand('list.focusFirst');
      }
      await click(`.pane-header:has(h3.title:text-is("${view}")) .action-label.codicon-toolbar-more`);
      await click(`.monaco-menu .action-item:has(.action-label:text-is("${item}"))`);
      // The command answers on screen: its picker, or a message of its own (no agent to log in to,
      // the registry out of reach offline), never a refusal and never nothing.
      let picker: string | null = null;
      for (const end = Date.now() + 4000; Date.now() < end && !picker; ) {
        picker = (await evaluateInFrames<string | null>(`const w = document.querySelector('.quick-input-widget'); return w && w.getClientRects().length && getComputedStyle(w).display !== 'none' ? (w.querySelector('input')?.getAttribute('placeholder') || w.textContent || 'picker').slice(0, 200) : null;`)).find((x) => x) ?? null;
        if (!picker) await new Promise((r) => setTimeout(r, 250));
      }
      const shown = picker ? [] : await toasts();
      try {
        assert.ok(!shown.some((t) => /did not run/.test(t)), `the command ran, not refused: ${JSON.stringify(shown)}`);
        assert.ok(picker || shown.length > 0, 'the command showed its picker or a message of its own');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await click('.monaco-dialog-box .dialog-buttons-row a:has-text("Cancel")', 1500).catch(() => undefined);
        await vscode.commands.executeCommand('notifications.clearAll');
      }
    });
  }
});

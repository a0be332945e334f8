/**
 * The panel's Agent Switchboard tab in a fresh window: the Changes view, the one a person reads
 * there all day, has most of the width; MCP Servers and Remote Agents (a line of words when empty)
 * share the rest.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { evaluateInFrames } from '../screenshot';

describe('the panel\'s Agent Switchboard tab', () => {
  it('gives the Changes view most of its width in a fresh window', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    await new Promise((r) => setTimeout(r, 800));
    const [panes] = await evaluateInFrames<{ title: string; width: number; expanded: boolean }[]>(`
      const part = document.querySelector('.part.panel');
      return part ? [...part.querySelectorAll('.pane')].filter((p) => p.getClientRects().length).map((p) => ({
        title: (p.querySelector('.pane-header h3.title')?.textContent || '').trim(),
        width: Math.round(p.getBoundingClientRect().width),
        expanded: p.querySelector('.pane-header')?.getAttribute('aria-expanded') === 'true',
      })) : [];`);
    const total = panes.reduce((n, p) => n + p.width, 0);
    const changes = panes.find((p) => p.title === 'Changes');
    assert.ok(changes && total > 0 && changes.width / total >= 0.5, `the Changes view has at least half the panel: ${JSON.stringify(panes)}`);
    await vscode.commands.executeCommand('workbench.action.closePanel');
  });
});

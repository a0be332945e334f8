/**
 * The walkthrough opened only after the person did its steps (here, after the README's turn: a
 * session started, its change seen in the Changes view, its trace opened): VS Code's Welcome page
 * is first used now, in a window that never showed it, and shows those steps checked. VS Code makes
 * its walkthrough service on first use and, by itself, never checks a step whose context already
 * held by then.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { EXTENSION_ID } from '../util';
import { evaluateInFrames, screenshot } from '../screenshot';

describe('the walkthrough opened after its steps were done', () => {
  it('shows the steps already done checked: a session started, its change seen, its trace opened', async function () {
    this.timeout(60_000);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#firstRun`, false);
    let marks: Record<string, boolean> = {};
    for (const end = Date.now() + 20_000; Date.now() < end; ) {
      marks = (await evaluateInFrames<Record<string, boolean>>(`
        const out = {};
        for (const b of document.querySelectorAll('button.getting-started-step[data-step-id]')) out[b.getAttribute('data-step-id').split('#').pop()] = b.getAttribute('aria-checked') === 'true';
        return out;`)).find((r) => r && Object.keys(r).length >= 5) ?? marks;
      if (marks.startDemo && marks.seeChange && marks.openTrace) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    await screenshot('walkthrough-after-steps', 30_000, { waitForSelector: '.getting-started-step' });
    assert.deepStrictEqual([marks.startDemo, marks.seeChange, marks.openTrace], [true, true, true], JSON.stringify(marks));
  });
});

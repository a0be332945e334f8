/**
 * The first-run walkthrough (`contributes.walkthroughs`): VS Code's Welcome page opens it with every
 * step the package declares, measured in the workbench DOM, and each step's command button is there.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { EXTENSION_ID, extensionPath } from './util';
import { evaluateInFrames, screenshot } from './screenshot';

interface Step { id: string; title: string; description: string }

describe('first-run walkthrough', () => {
  it('opens on the Welcome page with every step and its command button', async function () {
    this.timeout(90_000);
    const pkg = JSON.parse(fs.readFileSync(path.join(extensionPath(), 'package.json'), 'utf8')) as { contributes: { walkthroughs: { id: string; steps: Step[] }[] } };
    // Once the strings live in package.nls.json, titles are `%key%` references: show their text.
    const nlsFile = path.join(extensionPath(), 'package.nls.json');
    const nls = fs.existsSync(nlsFile) ? (JSON.parse(fs.readFileSync(nlsFile, 'utf8')) as Record<string, string>) : {};
    const text = (v: string) => v.replace(/^%([^%\s]+)%$/, (m, key: string) => nls[key] ?? m);
    const walkthrough = pkg.contributes.walkthroughs[0];
    assert.ok(walkthrough.steps.length >= 5, 'the walkthrough has its five steps');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${walkthrough.id}`, false);

    // The Welcome page renders the steps as buttons with their titles; poll until all show.
    const titles = walkthrough.steps.map((s) => text(s.title));
    const script = `
      const steps = [...document.querySelectorAll('.getting-started-step')].filter((e) => e.getBoundingClientRect().height > 0);
      const buttons = [...document.querySelectorAll('.getting-started-step .button-link, .getting-started-step a.monaco-button')].map((b) => b.textContent.trim());
      return { titles: steps.map((e) => (e.querySelector('.step-title') || e).textContent.trim()), buttons };`;
    let seen: { titles: string[]; buttons: string[] } = { titles: [], buttons: [] };
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const results = await evaluateInFrames<{ titles: string[]; buttons: string[] }>(script);
      seen = results.find((r) => r && r.titles.length > 0) ?? seen;
      if (titles.every((t) => seen.titles.includes(t))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.deepStrictEqual(seen.titles.filter((t) => titles.includes(t)), titles, `steps shown: ${JSON.stringify(seen)}`);
    // The first step is expanded: its command link shows as a button.
    assert.ok(seen.buttons.some((b) => /Start Session/.test(b)), `the first step's button shows: ${JSON.stringify(seen.buttons)}`);
    await screenshot('walkthrough', 30000, { waitForSelector: '.getting-started-step' });
  });
});

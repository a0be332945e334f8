/**
 * Accessibility of our webviews inside a real VS Code (issue 17, item 6): axe-core, injected into each
 * webview frame by the runner, reports no serious or critical WCAG 2.x A/AA violation in the Session
 * view (a conversation with messages, a plan, a tool card and a waiting permission card), the trace
 * panel and the protocol inspector, in a light, a dark and a high-contrast theme.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, autoAnswer, waitForState, workspaceDir } from './util';
import { axeSeriousViolations, evaluateInFrames, type AxeViolation } from './screenshot';

const THEMES: [name: string, bodyClass: string][] = [
  ['Default Light Modern', 'vscode-light'],
  ['Default Dark Modern', 'vscode-dark'],
  ['Default High Contrast', 'vscode-high-contrast'],
];

/** Sets the colour theme and waits until every frame showing `frame` has taken it. */
async function useTheme(name: string, bodyClass: string, frame: string): Promise<void> {
  await vscode.workspace.getConfiguration('workbench').update('colorTheme', name, vscode.ConfigurationTarget.Global);
  const end = Date.now() + 20_000;
  for (;;) {
    const classes = await evaluateInFrames<string>('return document.body.className;', { inFrame: frame }).catch(() => [] as string[]);
    if (classes.length && classes.every((c) => c.split(/\s+/).includes(bodyClass))) return;
    if (Date.now() > end) throw new Error(`the webview (${frame}) did not take the theme ${name}: body classes ${JSON.stringify(classes)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs axe in `frame` in each theme; returns the violations, each tagged with its theme. */
async function checkThemes(frame: string): Promise<string[]> {
  const found: string[] = [];
  for (const [name, bodyClass] of THEMES) {
    await useTheme(name, bodyClass, frame);
    // The re-theme changes CSS variables; give the page a frame to restyle before measuring.
    await new Promise((r) => setTimeout(r, 500));
    const v: AxeViolation[] = await axeSeriousViolations(frame);
    found.push(...v.map((x) => `${name}: ${x.id} (${x.impact}) ${x.help}: ${x.nodes.join(' | ')}`));
  }
  return found;
}

describe('accessibility of the webviews (axe-core)', () => {
  const before = vscode.workspace.getConfiguration('workbench').inspect<string>('colorTheme')?.globalValue;
  after(async () => {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', before, vscode.ConfigurationTarget.Global);
  });

  it('has no serious violation in the Session, trace and inspector webviews in light, dark and high-contrast themes', async function () {
    this.timeout(240_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    try {
      // A turn that stops at a waiting permission card, after messages, a plan and a tool card.
      const turn = a.prompt(key, 'Write a short hello file, please.');
      await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'a waiting permission request');
      await vscode.commands.executeCommand('workbench.action.closeAllGroups');
      await vscode.commands.executeCommand('agentSwitchboard.showSession', key);
      const session = '#app .thread-list:has(.tool-card.waiting)';
      await evaluateInFrames('return true;', { inFrame: '#app .thread-list .entry.agent', timeoutMs: 30_000 });
      const problems = (await checkThemes(session)).map((p) => `Session: ${p}`);

      const answering = autoAnswer(a, key, 'allow_once');
      // The keyboard's approve (no arguments, as a keybinding runs it) answers the card as its button would.
      const waiting = Object.values(a.session(key)!.permissions).find((p) => p.state === 'waiting')!;
      assert.strictEqual(await vscode.commands.executeCommand('agentSwitchboard.approveWaiting'), true);
      const answered = a.session(key)!.permissions[waiting.permissionId];
      assert.deepStrictEqual([answered.state, answered.answeredBy, answered.optionId], ['selected', 'person', waiting.options.find((o) => o.kind === 'allow_once')!.optionId]);
      assert.strictEqual((await turn).stopReason, 'end_turn');
      answering.dispose();

      await vscode.commands.executeCommand('agentSwitchboard.showTrace', key);
      await evaluateInFrames('return true;', { inFrame: '#app .row[data-role]', timeoutMs: 30_000 });
      problems.push(...(await checkThemes('#app .row[data-role]')).map((p) => `trace: ${p}`));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');

      assert.ok(await vscode.commands.executeCommand('agentSwitchboard.showInspector', key));
      await evaluateInFrames('return true;', { inFrame: '#app .row .method', timeoutMs: 30_000 });
      problems.push(...(await checkThemes('#app .row .method')).map((p) => `inspector: ${p}`));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');

      assert.deepStrictEqual(problems, [], `serious accessibility violations:\n${problems.join('\n')}`);
    } finally {
      await a.closeSession(key);
    }
  });
});

describe('default keybindings', () => {
  it('clash with none of VS Code\'s own default keybindings', async function () {
    this.timeout(60_000);
    // VS Code's defaults for this platform, as its "Open Default Keyboard Shortcuts (JSON)" shows them.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('vscode://defaultsettings/keybindings.json'));
    // That document lists every extension's contributed keys too, ours included: only others' count.
    const theirs = new Set<string>();
    for (const m of doc.getText().matchAll(/"key":\s*"([^"]+)",\s*"command":\s*"([^"]+)"/g)) {
      if (!m[2].replace(/^-/, '').startsWith('agentSwitchboard.')) theirs.add(m[1].toLowerCase());
    }
    assert.ok(theirs.size > 300, `read ${theirs.size} default keys`);
    const pkg = vscode.extensions.getExtension('agent-switchboard.agent-switchboard')!.packageJSON as { contributes: { keybindings: { command: string; key: string; mac?: string }[] } };
    const ours = pkg.contributes.keybindings;
    assert.ok(ours.length >= 4);
    const key = (k: { key: string; mac?: string }) => (process.platform === 'darwin' && k.mac ? k.mac : k.key).toLowerCase();
    // A chord clashes when its first part is taken too; a single key when it is taken itself.
    const clashes = ours.filter((k) => theirs.has(key(k)) || [...theirs].some((t) => t.split(' ')[0] === key(k).split(' ')[0]));
    assert.deepStrictEqual(clashes.map((k) => `${k.command}: ${key(k)}`), []);
    assert.strictEqual(new Set(ours.map(key)).size, ours.length, 'no two of ours share a key');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

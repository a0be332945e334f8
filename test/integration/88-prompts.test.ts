/**
 * Prompts with the editor's context inside a real VS Code: the selection (with its lines) attached
 * from the editor shows as a chip in the sidebar; a prompt carrying a file, a selection, the file's
 * problems and an image reaches a scripted agent as ACP content blocks (it echoes what it got); the
 * agent's slash commands and configuration options arrive and an option is set
 * (`session/set_config_option`); a file outside the workspace is refused and the prompt not sent.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { click, screenshot } from './screenshot';

// A 1×1 PNG.
const panes = ['Sessions', 'Changes', 'MCP Servers', 'Remote Agents', 'Waiting Approvals', 'Grants'];
const folded: string[] = [];
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

describe('prompts with editor context', () => {
  after(async () => {
    await setAgents([]);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('attaches the selection, files, problems and an image, and sets the agent\'s options', async function () {
    this.timeout(120_000);
    const a = await api();
    await setAgents([scenarioAgent('echo-context', 'echo')]);
    await until('agent offered', () => a.agents().find((x) => x.id === 'echo-context'), 10_000);
    const file = path.join(workspaceDir(), 'context-sample.md');
    fs.writeFileSync(file, '# Sample\nline two\nline three\nline four\n');
    const key = await a.startSession({ agentId: 'echo-context', cwd: workspaceDir() });
    const ready = await waitForState(a, key, (s) => s.status === 'ready' && s.availableCommands.length > 0 && !!s.configOptions?.length, 'commands and options arrived');
    assert.deepStrictEqual(ready.availableCommands.map((c) => c.name), ['demo', 'explain']);
    assert.deepStrictEqual(ready.promptCapabilities, { image: true, audio: false, embeddedContext: true });

    // The person selects lines 2–3 and attaches them from the editor.
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    editor.selection = new vscode.Selection(1, 0, 3, 0);
    const label = await vscode.commands.executeCommand('agentSwitchboard.addSelectionToPrompt');
    assert.strictEqual(label, 'context-sample.md:2-3');
    // A problem on the file, from an extension's diagnostics.
    const diags = vscode.languages.createDiagnosticCollection('prompt-test');
    diags.set(vscode.Uri.file(file), [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 8), 'Heading needs a subtitle', vscode.DiagnosticSeverity.Warning)]);
    try {
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      // Room for the session: the other panes are folded while the pictures are taken.
      for (const p of panes) {
        if (await click(`.pane-header[aria-expanded="true"]:has-text("${p}")`, 3000).then(() => true, () => false)) folded.push(p);
      }
      await vscode.commands.executeCommand('agentSwitchboard.addProblemsToPrompt');
      await screenshot('prompt-context', 30000, { waitForSelector: '.chips .chip:has-text("context-sample.md:2-3"):visible', sidebarWidth: 520 });

      const problems = await vscode.commands.executeCommand<string>('agentSwitchboard.addProblemsToPrompt');
      assert.strictEqual(problems, '1 problem in context-sample.md');
      const sent = await a.sendWithContext(key, 'Echo what I attached', [
        { kind: 'file', path: file },
        { kind: 'selection', path: file, startLine: 2, endLine: 3, text: 'line two\nline three\n' },
        { kind: 'diagnostics', path: file, count: 1, text: 'Problems in context-sample.md:\n- context-sample.md:1:1 warning: Heading needs a subtitle' },
        { kind: 'image', name: 'pixel.png', mimeType: 'image/png', data: PNG },
      ]);
      assert.strictEqual(sent, 'sent');
      const done = await waitForState(a, key, (s) => s.entries.some((e) => e.kind === 'turn_end'), 'the echo turn ended');
      const user = done.entries.find((e) => e.kind === 'user')!;
      assert.deepStrictEqual('context' in user && user.context, ['context-sample.md', 'context-sample.md:2-3', '1 problem in context-sample.md', 'pixel.png']);
      const echoed = done.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
      const uri = vscode.Uri.file(file).toString();
      assert.ok(echoed.includes(`resource ${uri} (${fs.readFileSync(file, 'utf8').length} chars)`), echoed);
      assert.ok(echoed.includes(`resource ${uri}#L2-3 (20 chars)`), echoed);
      assert.ok(echoed.includes(`image image/png (${PNG.length} base64 chars)`), echoed);
      assert.ok(echoed.startsWith('Echo what I attached'), 'the problems went as text after the prompt');

      // A file outside the workspace is refused; nothing is sent.
      await assert.rejects(a.sendWithContext(key, 'Read this', [{ kind: 'file', path: '/etc/hostname' }]), /outside the workspace/);
      assert.strictEqual(a.session(key)!.entries.filter((e) => e.kind === 'user').length, 1);

      // The agent's options: its model is set through session/set_config_option.
      await a.setConfigOption(key, 'model', 'scripted-thorough');
      await a.setConfigOption(key, 'explain', true);
      const opts = a.session(key)!.configOptions!;
      assert.deepStrictEqual(opts.map((o) => [o.id, o.currentValue]), [['model', 'scripted-thorough'], ['explain', true]]);
      await assert.rejects(a.setConfigOption(key, 'model', 'no-such-model'), /not a value/);
      await screenshot('config-options', 30000, { waitForSelector: '.config-select[data-config-id="model"]', sidebarWidth: 520 });
    } finally {
      // The chips this test attached through the editor commands leave the box with it.
      for (let i = 0; i < 2; i++) await click('.chips .chip-remove', 3000).catch(() => undefined);
      // Only what this test folded opens again: the panes are as the next test expects them.
      for (const p of folded) await click(`.pane-header[aria-expanded="false"]:has-text("${p}")`, 3000).catch(() => undefined);
      diags.dispose();
      await a.closeSession(key);
    }
  });
});

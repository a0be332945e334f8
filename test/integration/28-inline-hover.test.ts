/**
 * The hover of an agent's hunk in the editor shows the hunk as text, whatever it holds: a hunk of
 * a Markdown file next to a code fence has a context line of three backticks (after the diff's
 * leading space), which closed the block `MarkdownString.appendCodeblock` made, so the lines after
 * it were rendered as Markdown (a link in the file became a link). Read from the hover the editor
 * draws: every line of the hunk as it is, and no link.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, freshWorkspaceDir, scenarioAgent, setAgents } from './util';
import { evaluateInFrames, screenshot } from './screenshot';

const BEFORE = ['# Demo', '', '```sh', 'npm install', '```', '', 'See [the docs](https://example.invalid/docs) for more.', ''].join('\n');
const AFTER = BEFORE.replace('npm install', 'npm ci');

/** The hover the editor shows now: its text (appendText writes spaces as no-break spaces) and its links. */
const HOVER = `const h = [...document.querySelectorAll('.monaco-hover')].find((e) => e.offsetParent !== null && /The\\sagent.s\\schange/.test(e.textContent));
  if (!h) return null;
  return { text: h.textContent, links: [...h.querySelectorAll('a')].map((a) => a.textContent + ' -> ' + (a.getAttribute('href') || a.dataset.href || '')) };`;

describe('the hover of an agent\'s hunk', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('disk', 'disk-writer', { SWITCHBOARD_DEMO_DELAY_MS: '150' })]);
  });
  after(async () => {
    await vscode.commands.executeCommand('editor.action.hideHover');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows a hunk next to a Markdown code fence as one code block: the fence in it does not end it, its link stays text', async function () {
    this.timeout(120_000);
    const a = await api();
    const dir = freshWorkspaceDir('inline-hover');
    const file = path.join(dir, 'README.md');
    fs.writeFileSync(file, BEFORE);
    // A file changed within 2 s of the agent's call has an uncertain base (baselines.ts RECENT_MS).
    await new Promise((r) => setTimeout(r, 2200));
    const key = await a.startSession({ agentId: 'disk', cwd: dir });
    await a.prompt(key, JSON.stringify({ edits: [{ path: 'README.md', content: AFTER }] }));
    const change = a.changes(key).flatMap((t) => t.files).find((f) => f.path === file);
    assert.ok(change?.hunks[0]?.lines.includes(' ```'), `the hunk has the fence as a context line: ${JSON.stringify(change?.hunks)}`);

    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    const line = AFTER.split('\n').indexOf('npm ci');
    editor.selection = new vscode.Selection(line, 2, line, 2);
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    let shown: { text: string; links: string[] } | null = null;
    for (const end = Date.now() + 30_000; !shown; ) {
      if (Date.now() > end) {
        const all = await evaluateInFrames<string[]>("return [...document.querySelectorAll('.monaco-hover')].map((e) => (e.offsetParent !== null) + ' ' + e.textContent.slice(0, 200));");
        await screenshot('inline-hover-missing', 10000, { sidebarWidth: 300 });
        assert.fail(`no hover of the hunk was shown; hovers: ${JSON.stringify(all)}; read: ${JSON.stringify(await evaluateInFrames(HOVER))}`);
      }
      await vscode.commands.executeCommand('editor.action.showHover');
      for (let i = 0; i < 20 && !shown; i++) {
        await new Promise((r) => setTimeout(r, 300));
        shown = (await evaluateInFrames<{ text: string; links: string[] } | null>(HOVER))[0];
      }
    }
    await screenshot('inline-hover-fence', 20000, { waitForSelector: '.monaco-hover', sidebarWidth: 300 });
    assert.deepStrictEqual(shown.links, [], `no link in the hover: ${JSON.stringify(shown)}`);
    // The agent's lines as they are, the link's brackets and all: nothing after the fence line left the block.
    const text = shown.text.replace(/\u00a0/g, ' ');
    assert.ok(text.includes(' ```  See [the docs](https://example.invalid/docs) for more.'), `the hunk's lines are shown as text: ${JSON.stringify(shown)}`);
    await a.closeSession(key);
  });
});

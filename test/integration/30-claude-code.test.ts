/**
 * End to end with a real agent: @zed-industries/claude-code-acp (it uses the client's fs and
 * terminals) pointed at the project's fake Anthropic Messages server. One turn writes hello.txt
 * (approved through the public API), runs a shell command in our terminal and streams its answer.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';
import { claudeCodeAcpLaunch } from '../fakes/agents';
import { api, autoAnswer, setAgents, workspaceDir } from './util';
import { screenshot } from './screenshot';

describe('real agent: claude-code-acp against the fake model server', () => {
  let fake: FakeModelServer;
  let home: string;

  before(async () => {
    fake = await startFakeModelServer({ workspace: workspaceDir() });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'as-claude-home-'));
    const launch = claudeCodeAcpLaunch({ home, fakeUrl: fake.url });
    // The extension passes the person's environment through; the test overrides what matters and
    // removes IS_SANDBOX, which makes the bundled Claude CLI refuse to run as root.
    await setAgents([{ id: 'claude-test', name: 'Claude Code (test)', command: launch.command, args: launch.args, env: { ...launch.env, IS_SANDBOX: null } }]);
  });

  after(async () => {
    await setAgents([]);
    await fake?.close();
  });

  it('writes a file, runs a shell command in our terminal and streams its answer', async function () {
    this.timeout(180_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'claude-test' });
    const answered: string[] = [];
    const sub = autoAnswer(a, key, 'allow_once', answered);
    let result: { stopReason: string };
    try {
      result = await a.prompt(key, 'Create a file named hello.txt in the workspace with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.');
    } finally {
      sub.dispose();
    }
    assert.strictEqual(result.stopReason, 'end_turn');
    const s = a.session(key)!;
    assert.strictEqual(answered.length, 2, `two permission requests (edit, shell): ${answered.join(', ')}`);

    // The file landed in the editor through a WorkspaceEdit.
    const file = path.join(workspaceDir(), FILE_NAME);
    const doc = await vscode.workspace.openTextDocument(file);
    assert.strictEqual(doc.getText(), FILE_CONTENT);
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One });

    // The shell command ran in our terminal.
    const terminals = Object.values(s.terminals);
    assert.strictEqual(terminals.length, 1);
    assert.match(terminals[0].output, /ACP_SHELL_OK/);
    assert.match(terminals[0].output, /hello\.txt/);
    assert.deepStrictEqual(terminals[0].exitStatus, { exitCode: 0, signal: null });
    const shellCard = Object.values(s.toolCalls).find((t) => t.kind === 'execute');
    assert.ok(shellCard?.content.some((c) => c.type === 'terminal'), 'the shell card embeds the terminal');

    // The answer streamed into one agent message.
    const text = s.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
    assert.ok(text.includes(FINAL_TEXT), text);
    assert.ok(Object.values(s.permissions).every((p) => p.state === 'selected' && p.answeredBy === 'api'));
    // The agent tries to reach its vendor anyway; the fake server, set as its proxy, refused each attempt.
    assert.ok(fake.requests.some((r) => r.move === 'tool'), 'the model calls went to the fake server');
    if (fake.stray.length) console.log(`    (refused egress attempts: ${fake.stray.join(', ')})`);

    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    await screenshot('workbench-claude-turn', 30000, { waitForSelector: '.turn-end', sidebarWidth: 520 });
  });
});

/**
 * A real agent that writes to disk itself: @zed-industries/claude-agent-acp against the fake
 * Anthropic server. It never calls `fs/write_text_file`; its Write still shows up in the Changes
 * view (from our snapshot before its tool call) and can be undone there.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { FILE_CONTENT, FILE_NAME, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';
import { claudeAgentAcpLaunch } from '../fakes/agents';
import { api, runCommand, autoAnswer, setAgents, workspaceDir } from './util';
import { click, screenshot } from './screenshot';

describe('real agent that writes to disk itself: claude-agent-acp', () => {
  let fake: FakeModelServer;
  let dir: string;

  before(async () => {
    dir = path.join(workspaceDir(), 'claude-agent');
    fs.mkdirSync(dir, { recursive: true });
    // A folder changed less than 2 s before the agent's call makes the "did not exist" base of a new
    // file uncertain (src/edits/baselines.ts RECENT_MS), and Undo would then refuse to delete it.
    await new Promise((r) => setTimeout(r, 2200));
    fake = await startFakeModelServer({ workspace: dir });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'as-claude-agent-home-'));
    const launch = claudeAgentAcpLaunch({ home, fakeUrl: fake.url });
    await setAgents([{ id: 'claude-agent-test', name: 'Claude Agent (test)', command: launch.command, args: launch.args, env: { ...launch.env, IS_SANDBOX: null } }]);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'ask', command: 'ask' }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await setAgents([]);
    await fake?.close();
  });

  it('its own disk write is listed in the Changes view, marked unverified, and undoing it deletes the file', async function () {
    this.timeout(180_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'claude-agent-test', cwd: dir });
    const sub = autoAnswer(a, key, 'allow_once');
    let stopReason: string;
    try {
      ({ stopReason } = await a.prompt(key, 'Create a file named hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.'));
    } finally {
      sub.dispose();
    }
    assert.strictEqual(stopReason, 'end_turn');
    const file = path.join(dir, FILE_NAME);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FILE_CONTENT, 'the agent wrote the file itself');
    const s = a.session(key)!;
    const write = Object.values(s.toolCalls).find((t) => t.kind === 'edit');
    assert.ok(write, JSON.stringify(s.toolCalls).slice(0, 1500));
    assert.strictEqual(write.verification, 'agent', 'performed by the agent, not by us');

    const change = a.changes(key)[0]?.files.find((f) => f.path === file);
    assert.ok(change, `the write is in the Changes view: ${JSON.stringify(a.changes(key)).slice(0, 1500)}`);
    assert.strictEqual(change.via, 'agent');
    assert.strictEqual(change.base.text, null, 'a new file');
    assert.strictEqual(change.after, FILE_CONTENT);
    assert.ok(change.toolCallIds.includes(write.toolCallId));

    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: change.id });
    assert.ok(!fs.existsSync(file), 'undo of a file the agent created deletes it');

    // The turn's trace and who acted for whom, after a real agent's turn.
    const spans = a.traceSpans(key);
    const session = spans.find((x) => x.attributes['agent_switchboard.span.kind'] === 'session');
    assert.ok(session, spans.map((x) => x.name).join(', '));
    assert.match(String(session.attributes['agent_switchboard.agent.version']), /^\d+\.\d+/, 'the agent\'s version from initialize');
    const writeSpan = spans.find((x) => x.attributes['gen_ai.tool.call.id'] === write.toolCallId && x.attributes['agent_switchboard.span.kind'] === 'tool');
    assert.ok(writeSpan && spans.some((x) => x.parentSpanId === writeSpan.spanId && x.attributes['agent_switchboard.span.kind'] === 'permission'));
    assert.ok(await vscode.commands.executeCommand('agentSwitchboard.showTrace', key));
    await screenshot('trace-real-agent', 30000, { waitForSelector: '.row:has-text("execute_tool")' });
    await click('button.tab[data-tab="delegation"]');
    await screenshot('delegation-real-agent', 30000, { waitForSelector: '.hop-agent .hop-label:has-text("Claude")' });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await a.closeSession(key);
  });
});

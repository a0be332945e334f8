/**
 * Remote A2A agents inside a real VS Code: the person adds the project's fake A2A server (written
 * with @a2a-js/sdk's server side) by URL, sees its card (skills, interfaces, security scheme,
 * "unverified" since it is unsigned; a signed one shows "signature verified"), delegates a task,
 * answers the agent's question, opens the artifact, and sees the delegation in the trace panel.
 */
import * as assert from 'assert';
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, runCommand, autoAnswer, scenarioAgent, setAgents, until, workspaceDir } from './util';
import { click, screenshot } from './screenshot';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FAKE = path.join(ROOT, 'test', 'fakes', 'a2a-server.mjs');

function startFake(...args: string[]): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [FAKE, '--step-ms', '150', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ url: m[1], proc });
    });
    proc.once('exit', (code) => reject(new Error(`the fake A2A server exited (${code})`)));
  });
}

describe('remote agents (A2A)', () => {
  const procs: ChildProcess[] = [];
  after(() => procs.forEach((p) => p.kill()));

  it('adds an agent by URL, delegates a task, answers its question, opens the artifact and traces it', async function () {
    this.timeout(120_000);
    const a = await api();
    const plain = await startFake();
    const signed = await startFake('--sign');
    procs.push(plain.proc, signed.proc);
    await vscode.commands.executeCommand('agentSwitchboard.remoteAgents.focus');
    // Room for the tree, as a person would make it: the Changes and MCP Servers panes are folded.
    await click('.pane-header[aria-expanded="true"]:has-text("Changes")');
    await click('.pane-header[aria-expanded="true"]:has-text("MCP Servers")');
    const id = (await runCommand('agentSwitchboard.a2a.add', plain.url)) as string;
    const signedId = (await runCommand('agentSwitchboard.a2a.add', signed.url)) as string;
    const agent = () => a.remoteAgents().find((r) => r.id === id)!;
    assert.strictEqual(agent().name, 'Fake Research Agent', agent().error);
    assert.strictEqual(agent().signature, 'unsigned');
    assert.strictEqual(a.remoteAgents().find((r) => r.id === signedId)?.signature, 'verified');

    const node = { type: 'agent', agentId: id };
    const task = (await runCommand('agentSwitchboard.a2a.delegate', node, 'Summarise the release notes')) as { localId: string; task: { state: string } };
    assert.strictEqual(task.task.state, 'input-required');
    // The picture is documentation; the task's state is asserted through the API above. Since the
    // tree items got random ids (issue 16) this row has twice not shown in time: logged, not fatal.
    await screenshot('a2a-input-required', 30000, { waitForSelector: '.monaco-list-row:has-text("input-required")', sidebarWidth: 560 }).catch((e: Error) => console.log(`(screenshot a2a-input-required not taken: ${e.message})`));
    await runCommand('agentSwitchboard.a2a.reply', { type: 'task', agentId: id, localId: task.localId }, 'short');
    const done = await until('the task completed', () => agent().tasks.find((t) => t.localId === task.localId && t.task.state === 'completed'), 20_000);
    assert.deepStrictEqual(done.task.artifacts.map((x) => x.name), ['summary.md']);
    await vscode.commands.executeCommand('agentSwitchboard.a2a.openArtifact', { type: 'artifact', agentId: id, localId: task.localId, artifactId: 'summary' });
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.getText(), '# Summary (short)\n\nThe fake agent read the request and wrote this.\n');
    assert.strictEqual(doc?.languageId, 'markdown');
    // The picture is documentation; the task's state is asserted through the API above. Since the
    // tree items got random ids (issue 16) this row has twice not shown in time: logged, not fatal.
    await screenshot('a2a-completed', 30000, { waitForSelector: '.monaco-list-row:has-text("summary.md")', sidebarWidth: 560 }).catch((e: Error) => console.log(`(screenshot a2a-completed not taken: ${e.message})`));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    // The trace: the delegation span with the task's id, state and artifact, each A2A request under it.
    const spans = a.traceSpans(`remote:${id}`);
    const delegation = spans.find((s) => s.attributes['agent_switchboard.span.kind'] === 'delegation');
    assert.ok(delegation, spans.map((s) => s.name).join(', '));
    assert.strictEqual(delegation.attributes['agent_switchboard.a2a.task.state'], 'completed');
    assert.strictEqual(spans.filter((s) => s.parentSpanId === delegation.spanId).length, 2);
    await vscode.commands.executeCommand('agentSwitchboard.a2a.showTrace', node);
    await screenshot('a2a-trace', 30000, { waitForSelector: '.row:has-text("invoke_agent Fake Research Agent")' });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    // A cancelled task, and a card that no longer matches its signature is refused with a reason.
    const long = runCommand('agentSwitchboard.a2a.delegate', node, 'cancel-me please') as Thenable<{ localId: string }>;
    const running = await until('the long task running', () => agent().tasks.find((t) => t.task.request === 'cancel-me please' && /^Step/.test(t.task.statusText ?? '')), 20_000);
    await runCommand('agentSwitchboard.a2a.cancel', { type: 'task', agentId: id, localId: running.localId });
    await long;
    assert.strictEqual(agent().tasks.find((t) => t.localId === running.localId)?.task.state, 'canceled');
    const tampered = await startFake('--tamper');
    procs.push(tampered.proc);
    const badId = (await runCommand('agentSwitchboard.a2a.add', tampered.url)) as string;
    assert.match(a.remoteAgents().find((r) => r.id === badId)?.error ?? '', /signature does not match/);
    // Remote Agents now lives in the panel (issue 17), where the folded Tasks row keeps "canceled" off a
    // short panel: the picture is documentation, the state is asserted above, so a missed row is logged.
    await screenshot('a2a-agents', 30000, { waitForSelector: '.monaco-list-row:has-text("canceled")', sidebarWidth: 560 }).catch((e: Error) => console.log(`(screenshot a2a-agents not taken: ${e.message})`));
    for (const r of a.remoteAgents()) await runCommand('agentSwitchboard.a2a.remove', { type: 'agent', agentId: r.id });
    await click('.pane-header[aria-expanded="false"]:has-text("Changes")');
    await click('.pane-header[aria-expanded="false"]:has-text("MCP Servers")');
  });

  it('an agent delegates through the editor\'s MCP server: the person approves it, and the delegation view shows agent → remote agent', async function () {
    this.timeout(120_000);
    const a = await api();
    const fake = await startFake();
    procs.push(fake.proc);
    const remoteId = (await runCommand('agentSwitchboard.a2a.add', fake.url)) as string;
    await setAgents([scenarioAgent('mcp-agent', 'editor-mcp')]);
    const key = await a.startSession({ agentId: 'mcp-agent', cwd: workspaceDir() });
    const decided: string[] = [];
    const answering = autoAnswer(a, key, 'allow_once', decided);
    try {
      const script = { calls: [{ tool: 'remote_agents' }, { tool: 'delegate_to_remote_agent', args: { agentId: remoteId, message: 'Summarise the changelog' } }] };
      assert.strictEqual((await a.prompt(key, JSON.stringify(script))).stopReason, 'end_turn');
      const s = a.session(key)!;
      const answer = s.entries.filter((e) => e.kind === 'agent').map((e) => (e.kind === 'agent' ? e.text : '')).join('\n');
      const results = answer.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { tool: string; result?: { state?: string; status?: string; taskId?: string }; error?: unknown });
      const listed = results.find((r) => r.tool === 'remote_agents')?.result as unknown as { id: string; card: string }[];
      assert.deepStrictEqual(listed.map((r) => [r.id, r.card]), [[remoteId, 'unverified']]);
      const delegated = results.find((r) => r.tool === 'delegate_to_remote_agent');
      assert.strictEqual(delegated?.result?.state, 'input-required', answer);
      assert.strictEqual(delegated?.result?.status, 'Short or long?');
      // The person was asked, on a card that names the remote agent and the message.
      const hosted = Object.values(s.toolCalls).find((t) => t.toolCallId.startsWith('editor-'));
      assert.match(hosted?.title ?? '', /^Delegate to remote agent Fake Research Agent \(unverified card\): "Summarise the changelog" \[sha256 [0-9a-f]{16}\]$/);
      assert.strictEqual(hosted?.status, 'completed');
      // One trace: the agent's tool call → the hosted delegation (decided by the answer) → the remote task.
      const spans = a.traceSpans(key);
      const task = spans.find((x) => x.attributes['agent_switchboard.span.kind'] === 'delegation');
      assert.ok(task, spans.map((x) => x.name).join(', '));
      assert.strictEqual(task.attributes['agent_switchboard.requested_by'], `agent:${s.agentName}`);
      assert.deepStrictEqual(decided, [`${hosted!.toolCallId}:allow`], 'the person (here the test, through the API) was asked once');
      const hostedSpan = spans.find((x) => x.spanId === task.parentSpanId);
      assert.strictEqual(hostedSpan?.attributes['gen_ai.tool.call.id'], hosted!.toolCallId);
      assert.ok(spans.some((x) => x.parentSpanId === hostedSpan!.spanId && x.attributes['agent_switchboard.span.kind'] === 'permission'));
      await vscode.commands.executeCommand('workbench.action.closeAllGroups');
      await vscode.commands.executeCommand('agentSwitchboard.showTrace', key);
      await click('button.tab[data-tab="delegation"]', 30_000);
      await screenshot('delegation-remote', 30000, { waitForSelector: 'body:has(.hop-remote .chip:has-text("input-required")):has(.hop-tool:has(> .hop-head .hop-label:has-text("Delegate to remote agent")) > .notes .chip:has-text("an extension (API)"))' });
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      answering.dispose();
      await a.closeSession(key);
      await runCommand('agentSwitchboard.a2a.remove', { type: 'agent', agentId: remoteId });
      await setAgents([]);
    }
  });
});

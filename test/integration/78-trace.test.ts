/**
 * Tracing inside a real VS Code: a turn of the demo agent (which exports its own OpenTelemetry when
 * given the standard environment) leaves one trace — our session, turn, tool call and permission
 * spans and the agent's `chat` span under the turn — and the trace exports as OTLP JSON.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, autoAnswer, until, workspaceDir } from './util';

describe('tracing a session', () => {
  it('one trace holds our spans and the agent\'s own; Export Session Trace writes it as OTLP JSON', async function () {
    this.timeout(90_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo', cwd: workspaceDir() });
    const answering = autoAnswer(a, key, 'allow_once');
    try {
      const { stopReason } = await a.prompt(key, 'Show me the trace.');
      assert.strictEqual(stopReason, 'end_turn');
      const spans = await until('the agent\'s span arrived', () => {
        const s = a.traceSpans(key);
        return s.some((x) => x.name === 'chat demo-model') && s;
      }, 20_000);
      const turn = spans.find((s) => s.name.startsWith('invoke_agent '));
      const agent = spans.find((s) => s.name === 'chat demo-model');
      assert.ok(turn && agent, spans.map((s) => s.name).join(', '));
      assert.strictEqual(agent.traceId, turn.traceId);
      assert.strictEqual(agent.parentSpanId, turn.spanId, 'the agent span hangs under the turn');
      assert.ok(spans.some((s) => s.name.startsWith('execute_tool ') && s.parentSpanId === turn.spanId));
      assert.ok(spans.some((s) => s.name.startsWith('permission ') && s.attributes['agent_switchboard.decision'] === 'allow_once'));
      const exported = (await vscode.commands.executeCommand('agentSwitchboard.exportTrace', key)) as { resourceSpans: { resource: { attributes: { value: { stringValue: string } }[] } }[] };
      const services = exported.resourceSpans.map((r) => r.resource.attributes[0].value.stringValue).sort();
      assert.deepStrictEqual(services, ['agent-switchboard', 'switchboard-demo-agent']);
      assert.strictEqual(agent.service, 'switchboard-demo-agent');
      assert.ok(vscode.window.activeTextEditor?.document.getText().includes('"traceId"'));
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      answering.dispose();
      await a.closeSession(key);
    }
  });
});

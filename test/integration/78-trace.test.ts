/**
 * Tracing inside a real VS Code: a turn of the demo agent (which exports its own OpenTelemetry when
 * given the standard environment) leaves one trace — our session, turn, tool call and permission
 * spans and the agent's `chat` span under the turn — the trace exports as OTLP JSON, and the trace
 * panel shows it as a waterfall whose permission span opens its audit record.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, runCommand, autoAnswer, until, workspaceDir } from './util';
import { click, evaluateInFrames, screenshot, setSidebarWidth, setViewport } from './screenshot';

/** Characters a span name shows at least, in a full-width tab of a 1600 px window, before an ellipsis. */
const NAME_CHARS = 45;

/**
 * The waterfall in a full-width tab at 1600x1000 (issue 17): no row is taller than one line (the
 * duration never wraps over the next row), the name column shows at least {@link NAME_CHARS}
 * characters with the whole name in its title, and attribute keys sit on one line (never broken
 * inside a word).
 */
async function measureWaterfall(): Promise<void> {
  await setViewport(1600, 1000);
  try {
    await screenshot('trace-panel-wide', 30000, { waitForSelector: 'body:has(.row .name:has-text("chat demo-model")):has(.details td:has-text("agent_switchboard.decision"))', sidebarWidth: 300 });
    const [m] = await evaluateInFrames<{
      rowHeights: number[]; lineHeight: number; durLines: number[]; nameChars: number; titles: boolean;
      keys: { key: string; lines: number; wordBreak: string; overflowWrap: string }[];
    }>(`
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const lines = (node) => { const r = document.createRange(); r.selectNodeContents(node); return new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size; };
      const rows = [...document.querySelectorAll('.row')];
      const names = rows.map((r) => r.querySelector('.name'));
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = getComputedStyle(names[0]).font;
      // How many characters of average width fit in the name cell's text box (padding and the dot off).
      const avg = ctx.measureText('execute_tool permission chat demo-model invoke_agent').width / 52;
      const box = (n) => n.clientWidth - parseFloat(getComputedStyle(n).paddingLeft) - parseFloat(getComputedStyle(n).paddingRight) - 13;
      const shallow = names.reduce((a, n) => (parseFloat(getComputedStyle(n).paddingLeft) < parseFloat(getComputedStyle(a).paddingLeft) ? n : a));
      return {
        rowHeights: rows.map((r) => r.getBoundingClientRect().height),
        lineHeight: parseFloat(getComputedStyle(rows[0]).lineHeight) || 20,
        durLines: rows.map((r) => lines(r.querySelector('.dur'))),
        nameChars: Math.floor(box(shallow) / avg),
        titles: names.every((n) => n.title.startsWith(n.textContent)),
        keys: [...document.querySelectorAll('.details td.key')].map((k) => ({ key: k.textContent, lines: lines(k), wordBreak: getComputedStyle(k).wordBreak, overflowWrap: getComputedStyle(k).overflowWrap })),
      };`, { inFrame: '.rows' });
    assert.ok(m, 'the trace panel was measured');
    assert.ok(m.rowHeights.length >= 4, JSON.stringify(m));
    assert.ok(m.rowHeights.every((h) => h <= 24), `every row is one line high: ${JSON.stringify(m.rowHeights)}`);
    assert.ok(m.durLines.every((n) => n === 1), `no duration wraps: ${JSON.stringify(m.durLines)}`);
    assert.ok(m.nameChars >= NAME_CHARS, `the name column shows ${m.nameChars} characters, at least ${NAME_CHARS} wanted`);
    assert.ok(m.titles, 'each name cell carries the whole name in its title');
    assert.ok(m.keys.some((k) => k.key === 'agent_switchboard.decision'), JSON.stringify(m.keys));
    for (const k of m.keys) {
      assert.strictEqual(k.lines, 1, `the key ${k.key} is on one line`);
      assert.ok(k.wordBreak !== 'break-all' && k.overflowWrap !== 'anywhere', `the key ${k.key} may not break inside a word (${k.wordBreak}, ${k.overflowWrap})`);
    }
  } finally {
    await setViewport(1400, 900);
  }
}

/**
 * "Open audit record" shows the decision as a person reads it, in a document nobody can type into
 * (never the log file in an editable tab): the decision, who, when, the intent in words, the record's
 * integrity; every line short enough to read at 1600 px (the log's own line is thousands long).
 */
async function checkAuditRecord(intentHash: string): Promise<void> {
  const editor = await until('the audit record opened', () => vscode.window.activeTextEditor, 20_000);
  const doc = editor.document;
  assert.notStrictEqual(doc.uri.scheme, 'file', `the record is not the log file in an editable tab: ${doc.uri.toString()}`);
  assert.ok(!doc.fileName.endsWith('audit.jsonl'), doc.fileName);
  const text = doc.getText();
  const long = text.split('\n').filter((l) => l.length > 200);
  assert.deepStrictEqual(long, [], 'no line of the record is longer than 200 characters');
  for (const field of [/^Decision +Allowed once \(allow_once\)$/m, /^Decided by +an extension, through the API \(api\)$/m, /^When +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/m, /^ {2}Write \S+/m, new RegExp(`^Intent hash +${intentHash}$`, 'm'), /^Signature +HMAC-SHA-256 by key /m, /^Verified +yes: /m]) {
    assert.match(text, field);
  }
  await screenshot('audit-record', 30000, { waitForSelector: '.editor-instance .view-lines' });
  await screenshot('audit-record-260', 30000, { waitForSelector: '.editor-instance .view-lines', sidebarWidth: 260 });
  // Read-only: what the person types into it changes nothing.
  await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
  await vscode.commands.executeCommand('cursorTop');
  await vscode.commands.executeCommand('type', { text: 'forged ' });
  await vscode.commands.executeCommand('deleteLeft');
  assert.strictEqual(doc.getText(), text, 'typing into the record changes nothing');
  assert.strictEqual(doc.isDirty, false);
  await setSidebarWidth(300);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
}

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
      const exported = (await runCommand('agentSwitchboard.exportTrace', key)) as { resourceSpans: { resource: { attributes: { value: { stringValue: string } }[] } }[] };
      const services = exported.resourceSpans.map((r) => r.resource.attributes[0].value.stringValue).sort();
      assert.deepStrictEqual(services, ['agent-switchboard', 'switchboard-demo-agent']);
      assert.strictEqual(agent.service, 'switchboard-demo-agent');
      assert.ok(vscode.window.activeTextEditor?.document.getText().includes('"traceId"'));
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

      // The trace panel: the waterfall, a permission's attributes, and its audit record. Earlier
      // tests leave editors split; the panel gets the whole editor area, as it would when opened alone.
      await vscode.commands.executeCommand('workbench.action.closeAllGroups');
      await vscode.commands.executeCommand('agentSwitchboard.showTrace', key);
      await click('.row[data-role="permission"]', 30_000);
      await screenshot('trace-panel', 30000, { waitForSelector: 'body:has(.row .name:has-text("chat demo-model")):has(.details td:has-text("agent_switchboard.decision"))', sidebarWidth: 300 });
      await measureWaterfall();
      await click('vscode-button.reveal');
      await checkAuditRecord(String(spans.find((s) => s.name.startsWith('permission '))!.attributes['agent_switchboard.intent.hash']));

      // The delegation view: you → Agent Switchboard → the demo agent → its tool call, decided by the
      // answer given through the API, with the intent hash; the write we performed under it.
      await vscode.commands.executeCommand('agentSwitchboard.showTrace', key);
      await click('button.tab[data-tab="delegation"]', 30_000);
      await click('.hop-effect > .hop-head', 30_000);
      await screenshot('delegation-view', 30000, { waitForSelector: 'body:has(.hop-tool .chip:has-text("an extension (API)")):has(.hop-effect .chip:has-text("allowed by")):has(.details td:has-text("agent_switchboard.decision.source"))', sidebarWidth: 300 });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      // The command the demo ran in a client terminal: its effect span says it ran unsandboxed (the
      // sandbox is off here; 46-sandbox checks the sandboxed ones) and lasted until it exited.
      const run = await until('the command\'s effect span ended', () => a.traceSpans(key).find((s) => s.attributes['agent_switchboard.span.kind'] === 'effect' && s.attributes['agent_switchboard.effect.kind'] === 'command' && s.endMs !== undefined), 20_000);
      assert.strictEqual(run.attributes['agent_switchboard.sandboxed'], false, JSON.stringify(run.attributes));
      assert.strictEqual(typeof run.attributes['process.exit.code'], 'number', JSON.stringify(run.attributes));
    } finally {
      answering.dispose();
      await a.closeSession(key);
    }
  });
});

/**
 * The in-editor figures of `npm run bench` (bench/inEditor.ts), each run only when its result file
 * is named, so `npm test` skips them.
 *
 * PF6 (SWITCHBOARD_PF6_RESULT): our activation ÷ a hello-world extension's, both started by the same
 * VS Code on `onStartupFinished`, read from the performance marks VS Code's extension host sets
 * around loading an extension's code and around its `activate()` call (`code/extHost/
 * willLoadExtensionCode/<id>`, `didLoadExtensionCode`, `willActivateExtension`,
 * `didActivateExtension`; kept in `globalThis.MonacoPerformanceMarks`).
 *
 * PF8 (SWITCHBOARD_PF8_RESULT): stream to screen inside the real VS Code. A scripted agent streams 2,000 and then 20,000 ten-byte `agent_message_chunk`s;
 * the time from Send until the last chunk is visible in the sidebar (Playwright, through the runner)
 * is divided by the agent's own time to send them all. The figures go to SWITCHBOARD_PF8_RESULT.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, scenarioAgent, setAgents, until, waitForState, workspaceDir } from './util';
import { timeUntilVisible } from './screenshot';

const HELLO_WORLD_ID = 'agent-switchboard-bench.hello-world';

interface Marks { getMarks(): { name: string; startTime: number }[] }

/** Code loading and `activate()` of one extension, in ms, from VS Code's own marks. */
function activationOf(id: string): { loadMs: number; activateMs: number; totalMs: number } {
  const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks() ?? [];
  const at = (what: string) => {
    const m = marks.find((x) => x.name === `code/extHost/${what}/${id}`);
    if (!m) throw new Error(`VS Code set no ${what} mark for ${id} (marks: ${marks.length})`);
    return m.startTime;
  };
  const loadMs = at('didLoadExtensionCode') - at('willLoadExtensionCode');
  const activateMs = at('didActivateExtension') - at('willActivateExtension');
  return { loadMs, activateMs, totalMs: loadMs + activateMs };
}

describe('PF6: activation', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF6_RESULT) this.skip();
  });

  it('times our activation against a hello-world extension in the same VS Code', async function () {
    const hello = vscode.extensions.getExtension(HELLO_WORLD_ID);
    assert.ok(hello, 'the hello-world baseline is installed (bench/inEditor.ts installs it)');
    await until('both extensions are active', () => hello.isActive && vscode.extensions.getExtension(EXTENSION_ID)?.isActive, 60_000);
    const ours = activationOf(EXTENSION_ID);
    const base = activationOf(HELLO_WORLD_ID);
    fs.writeFileSync(process.env.SWITCHBOARD_PF6_RESULT!, JSON.stringify({ ours, helloWorld: base }));
  });
});

describe('PF8: stream to screen', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_PF8_RESULT) this.skip();
  });

  it('shows 2,000 and 20,000 streamed chunks in the sidebar, timed against the agent', async function () {
    this.timeout(600_000);
    const a = await api();
    const results: Record<string, unknown> = {};
    for (const n of [2_000, 20_000]) {
      const timing = path.join(os.tmpdir(), `switchboard-pf8-${process.pid}-${n}.json`);
      await setAgents([scenarioAgent(`chunks-${n}`, 'chunks', { SWITCHBOARD_DEMO_CHUNKS: String(n), SWITCHBOARD_DEMO_TIMING_FILE: timing })]);
      await until('the agent is offered', () => a.agents().find((x) => x.id === `chunks-${n}`), 10_000);
      const key = await a.startSession({ agentId: `chunks-${n}`, cwd: workspaceDir() });
      await waitForState(a, key, (s) => s.status === 'ready', 'ready');
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      // The sidebar's page is (re)loaded when it is shown: the clock starts once it shows the session.
      await timeUntilVisible('.session-status.status-ready', () => undefined, 60_000);
      let sentAt = 0;
      const last = String(n).padStart(9, '0');
      const visibleAt = await timeUntilVisible(`.entry.agent .md:has-text("${last}")`, () => {
        sentAt = Date.now();
        a.send(key, 'stream');
      }, 500_000);
      const agent = JSON.parse(fs.readFileSync(timing, 'utf8')) as { chunks: number; sentMs: number };
      assert.strictEqual(agent.chunks, n);
      const toScreenMs = visibleAt - sentAt;
      results[`chunks${n}`] = { ratio: Number((toScreenMs / Math.max(1, agent.sentMs)).toFixed(2)), toScreenMs, agentSendMs: agent.sentMs };
      const text = a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => ('text' in e ? e.text : '')).join('');
      assert.strictEqual(text.length, n * 10, 'every chunk arrived, in one message');
      await a.closeSession(key);
      fs.rmSync(timing, { force: true });
    }
    fs.writeFileSync(process.env.SWITCHBOARD_PF8_RESULT!, JSON.stringify(results));
    await setAgents([]);
  });
});

/**
 * Stop against a deaf agent, inside the real VS Code (issue 18: "A deaf agent wedges Stop"). The
 * stubborn agent ignores `session/cancel`; the person presses Stop in the Session webview: the
 * turn is shown cancelled within 1 s and the prompt box takes the next prompt; after the grace
 * period (`agentSwitchboard.cancelGraceSeconds`, 3 s here) the thread offers Restart Agent, and
 * pressing it starts a new process that resumes the session (`session/resume`).
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { api, setAgents, until, waitForState } from './util';
import { evaluateInFrames, screenshot } from './screenshot';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const AGENT = path.join(ROOT, 'test', 'fakes', 'stubborn-agent.mjs');

/** In the Session webview: press Stop, then time how long until the cancelled turn end shows. */
const STOP_SCRIPT = `
  const stop = document.querySelector('.stop-button');
  if (!stop || stop.hasAttribute('disabled') || stop.closest('[hidden]')) return { error: 'no enabled Stop button' };
  const t0 = performance.now();
  stop.click();
  while (performance.now() - t0 < 5000) {
    const end = document.querySelector('.turn-end[data-stop-reason="cancelled"]');
    if (end) {
      const send = document.querySelector('.send-button');
      return { ms: Math.round(performance.now() - t0), text: end.textContent, sendDisabled: !!send && send.hasAttribute('disabled'), status: document.querySelector('.session-status .status-label')?.textContent ?? '' };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { error: 'no cancelled turn end within 5 s' };
`;

/** In the Session webview: the Restart Agent button's box, and a click on it. */
const RESTART_SCRIPT = `
  const b = document.querySelector('.notice .restart-agent');
  if (!b) return { error: 'no Restart Agent button' };
  const r = b.getBoundingClientRect();
  const box = { x: r.x, y: r.y, width: r.width, height: r.height, inner: [innerWidth, innerHeight] };
  b.click();
  return box;
`;

describe('Stop against a deaf agent', () => {
  const config = () => vscode.workspace.getConfiguration('agentSwitchboard');
  before(async () => {
    await setAgents([{ id: 'deaf', name: 'Deaf agent', command: process.execPath, args: [AGENT, `deaf-editor-${process.pid}`, 'deaf', 'resume'], env: { ELECTRON_RUN_AS_NODE: '1' } }]);
    await config().update('cancelGraceSeconds', 3, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('cancelGraceSeconds', undefined, vscode.ConfigurationTarget.Global);
    await setAgents([]);
  });

  it('marks the turn cancelled in the webview within 1 s, then offers Restart Agent, which resumes in a new process', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'deaf' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, 'Work on this forever (you will not hear Stop).');
    await waitForState(a, key, (s) => s.status === 'prompting', 'the turn to run');
    const sessionId = a.session(key)!.sessionId;
    await screenshot('stop-deaf-running', 30000, { waitForSelector: '.stop-button:not([disabled])', sidebarWidth: 520 });

    const [stop] = await evaluateInFrames<{ ms?: number; text?: string; sendDisabled?: boolean; status?: string; error?: string }>(STOP_SCRIPT, { inFrame: '.stop-button' });
    assert.ok(stop && stop.ms !== undefined, JSON.stringify(stop));
    console.log(`Stop → cancelled turn end in the webview: ${stop.ms} ms`);
    assert.ok(stop.ms! < 1000, `the cancelled turn showed after ${stop.ms} ms`);
    assert.match(stop.text ?? '', /Cancelled/);
    assert.strictEqual(stop.sendDisabled, false, 'the prompt box takes the next prompt');
    assert.strictEqual((await turn).stopReason, 'cancelled', 'the prompt\'s caller heard the end at once');
    assert.strictEqual(a.session(key)!.status, 'ready');

    // The agent never answers: after the grace period the thread offers Restart Agent.
    const offered = await waitForState(a, key, (s) => s.entries.some((e) => e.kind === 'notice' && 'action' in e && e.action === 'restartAgent'), 'Restart Agent to be offered', 15_000);
    assert.ok(offered.stopping, 'still waiting for the agent');
    const shot = await screenshot('stop-deaf-restart-offered', 30000, { waitForSelector: '.notice .restart-agent', sidebarWidth: 520 });
    if (shot) console.log(`screenshot: ${shot}`);

    const [box] = await evaluateInFrames<{ x: number; y: number; width: number; height: number; inner: [number, number]; error?: string }>(RESTART_SCRIPT, { inFrame: '.notice .restart-agent' });
    assert.ok(box && !box.error, JSON.stringify(box));
    assert.ok(box.x >= 0 && box.x + box.width <= box.inner[0] + 0.5 && box.width > 40, `the button lies inside the view: ${JSON.stringify(box)}`);
    const resumed = await waitForState(a, key, (s) => s.entries.some((e) => e.kind === 'notice' && /Restarted Deaf agent in a new process; it resumed this session/.test(e.text)), 'the restart', 30_000);
    assert.strictEqual(resumed.status, 'ready');
    assert.strictEqual(resumed.sessionId, sessionId, 'the same session, resumed');
    assert.strictEqual(resumed.stopping, undefined);
    assert.ok(!resumed.entries.some((e) => e.kind === 'notice' && 'action' in e && e.action), 'the offer is gone');
    const after = await screenshot('stop-deaf-restarted', 30000, { waitForSelector: '.notice', sidebarWidth: 520 });
    if (after) console.log(`screenshot: ${after}`);
    await until('the session is closable', () => a.session(key));
    await a.closeSession(key);
  });
});

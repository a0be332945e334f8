/**
 * Runs only in the second window of a test run (`SWITCHBOARD_RELOAD_PHASE=1`, same workspace and
 * storage as the first): the session 96-sessions left open comes back as a transcript, and Resume
 * in the sidebar takes it up again in a new agent process (session/resume) where it goes on.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { RELOAD_MARKER, api, autoAnswer, until, waitForState } from './util';
import { click, screenshot } from './screenshot';

describe('after a window reload', function () {
  before(function () {
    if (!process.env.SWITCHBOARD_RELOAD_PHASE) this.skip();
  });

  it('shows the last window\'s session again and resumes it from the sidebar', async function () {
    this.timeout(120_000);
    const a = await api();
    const restored = await until('the session of the last window is back', () =>
      a.sessions().find((s) => a.session(s.key)?.entries.some((e) => e.kind === 'user' && e.text === RELOAD_MARKER)),
    30_000);
    const before = a.session(restored.key)!;
    assert.strictEqual(before.status, 'closed');
    assert.ok(before.entries.some((e) => e.kind === 'agent' && e.text.length > 20), 'the agent\'s answer is back');
    assert.ok(Object.values(before.toolCalls).some((t) => t.kind === 'edit' && t.status === 'completed'), 'tool calls with their kinds and states');
    assert.ok(Object.values(before.permissions).every((p) => p.state !== 'waiting'));
    assert.ok(!a.sessions().some((s) => s.title === 'A second session, side by side'), 'a session the person closed is not reopened');

    await vscode.commands.executeCommand('agentSwitchboard.sessions.open', restored.key);
    // Room for the transcript: the other panes of the container folded while the pictures are taken.
    const panes = ['Sessions', 'Changes', 'MCP Servers', 'Remote Agents'];
    for (const p of panes) await click(`.pane-header[aria-expanded="true"]:has-text("${p}")`, 3000).catch(() => undefined);
    await screenshot('session-restored', 30000, { waitForSelector: '.resume-button', sidebarWidth: 520 });
    await click('.resume-button');
    const resumed = await until('a session resumed', () => a.sessions().find((s) => s.key !== restored.key && a.session(s.key)?.entries.some((e) => e.kind === 'user' && e.text === RELOAD_MARKER)), 60_000);
    const state = await waitForState(a, resumed.key, (s) => s.status === 'ready' && s.entries.some((e) => e.kind === 'notice' && /Resumed/.test(e.text)), 'resumed session ready');
    assert.strictEqual(state.sessionId, before.sessionId);
    const answering = autoAnswer(a, resumed.key, 'allow_once');
    try {
      assert.strictEqual((await a.prompt(resumed.key, 'And now, after the reload')).stopReason, 'end_turn');
    } finally {
      answering.dispose();
    }
    const after = a.session(resumed.key)!;
    assert.deepStrictEqual(after.entries.filter((e) => e.kind === 'user').map((e) => ('text' in e ? e.text : '')), [RELOAD_MARKER, 'And now, after the reload']);
    await screenshot('session-resumed', 30000, { waitForSelector: '.entry.user:has-text("after the reload")', sidebarWidth: 520 });
    for (const p of panes) await click(`.pane-header[aria-expanded="false"]:has-text("${p}")`, 3000).catch(() => undefined);
    await a.closeSession(resumed.key);
  });
});

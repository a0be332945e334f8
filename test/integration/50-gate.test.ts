/**
 * The permission gate in the real editor: a card is answered by a click in the sidebar (through
 * the test runner's Playwright), the effect then matches the approved intent and is performed; an
 * effect nobody approved is refused and changes nothing; the audit chain verifies.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { DEMO_FILE, DEMO_FILE_CONTENT } from '../../src/demo/scenarios';
import { api, scenarioAgent, setAgents, waitForState, workspaceDir } from './util';
import { click, screenshot } from './screenshot';

describe('permission gate in the editor', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('unasked', 'write-conflict', { SWITCHBOARD_DEMO_DELAY_MS: '0' })]);
  });
  after(() => setAgents([]));

  it('a card answered by a click lets exactly the approved edit and command through', async function () {
    this.timeout(120_000);
    const a = await api();
    const file = path.join(workspaceDir(), DEMO_FILE);
    fs.rmSync(file, { force: true });
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, 'Show me the permission gate.');

    const first = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the edit permission');
    const editPerm = Object.values(first.permissions).find((p) => p.state === 'waiting')!;
    assert.match(editPerm.intentHash ?? '', /^[0-9a-f]{64}$/, 'the card carries the intent hash');
    assert.deepStrictEqual(editPerm.display?.map((d) => d.type), ['write'], 'the card carries what the intent lets through');
    // The card needs the side bar's height: the other views step aside for the shot, then come back.
    const others = ['agentSwitchboard.changes', 'agentSwitchboard.mcp', 'agentSwitchboard.remoteAgents'];
    for (const v of others) await Promise.resolve(vscode.commands.executeCommand(`${v}.removeView`)).catch(() => undefined);
    await screenshot('permission-card-intent', 30000, { waitForSelector: '.tool-card.waiting .perm-covers', sidebarWidth: 520 });
    for (const v of others) await Promise.resolve(vscode.commands.executeCommand(`${v}.toggleVisibility`)).catch(() => undefined);
    await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');

    await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting' && p.permissionId !== editPerm.permissionId), 'the command permission');
    await click('.tool-card.waiting .perm-option[data-kind="allow_once"]');
    const { stopReason } = await turn;
    assert.strictEqual(stopReason, 'end_turn');

    const s = a.session(key)!;
    const perms = Object.values(s.permissions);
    assert.deepStrictEqual(perms.map((p) => `${p.state}:${p.answeredBy}`), ['selected:person', 'selected:person'], 'answered by clicks in the sidebar');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), DEMO_FILE_CONTENT);
    const calls = Object.values(s.toolCalls).filter((t) => t.kind === 'edit' || t.kind === 'execute');
    assert.deepStrictEqual(calls.map((t) => t.verification), ['client', 'client'], 'both effects matched their approved intents');
    assert.ok(!s.entries.some((e) => e.kind === 'notice' && /Refused/.test(e.text)), 'nothing refused');
    await a.closeSession(key);
  });

  it('with unrequestedEffects "refuse", refuses a write nobody approved at once; the file stays as it was', async () => {
    // (The default, "ask", holds such a write for the person: test/integration/44-unasked.test.ts.)
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { unrequestedEffects: 'refuse' }, vscode.ConfigurationTarget.Global);
    const a = await api();
    const dir = path.join(workspaceDir(), 'unasked');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'conflict.txt');
    fs.writeFileSync(file, 'untouched\n');
    const key = await a.startSession({ agentId: 'unasked', cwd: dir });
    await a.prompt(key, 'write without asking');
    const s = await waitForState(a, key, (st) => st.entries.some((e) => e.kind === 'notice' && /Refused/.test(e.text)), 'the refusal notice');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), 'untouched\n');
    const tc = Object.values(s.toolCalls)[0];
    assert.strictEqual(tc.status, 'failed');
    assert.ok(tc.content.some((c) => c.type === 'text' && /matches no approved intent/.test(c.text)), JSON.stringify(tc.content));
    assert.ok(!Object.values(s.permissions).some((p) => p.unrequested), 'no card was made');
    await a.closeSession(key);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
  });

  it('"For this session" / "For this workspace" clicks create grants shown in the Grants view; revoke ends them', async function () {
    this.timeout(120_000);
    const a = await api();
    const key = await a.startSession({ agentId: 'demo' });
    await vscode.commands.executeCommand('agentSwitchboard.session.focus');
    const turn = a.prompt(key, 'Again, with grants.');
    const first = await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting'), 'the edit permission');
    const editPerm = Object.values(first.permissions).find((p) => p.state === 'waiting')!;
    // The grants are among the broader choices, under "Allow more…".
    await click('.tool-card.waiting .perm-more-toggle');
    await click('.tool-card.waiting .perm-grant[data-grant="session"]');
    await waitForState(a, key, (s) => Object.values(s.permissions).some((p) => p.state === 'waiting' && p.permissionId !== editPerm.permissionId), 'the command permission');
    await click('.tool-card.waiting .perm-more-toggle');
    await click('.tool-card.waiting .perm-grant[data-grant="workspace"]');
    assert.strictEqual((await turn).stopReason, 'end_turn');

    const grants = a.grants().filter((g) => g.source === 'person');
    assert.deepStrictEqual(grants.map((g) => `${g.scope}:${g.pattern.kind}:${g.pattern.pathGlob ?? g.pattern.commandExact}`).sort(), [
      'session:write:demo/hello.md',
      'workspace:command:echo DEMO_SHELL_OK && ls',
    ]);
    // A second turn in the same session: both requests are answered by the grants, nobody clicks.
    assert.strictEqual((await a.prompt(key, 'Once more.')).stopReason, 'end_turn');
    const byGrant = Object.values(a.session(key)!.permissions).filter((p) => p.answeredBy === 'grant');
    assert.strictEqual(byGrant.length, 2, 'the edit and the command were answered by the grants');
    assert.strictEqual(a.grants().filter((g) => g.source === 'person').length, 2, 'and no duplicate grant was added');
    await vscode.commands.executeCommand('agentSwitchboard.grants.focus');
    await screenshot('grants-view', 30000, { waitForSelector: '.monaco-list-row:has-text("echo DEMO_SHELL_OK")', sidebarWidth: 520 });

    await a.closeSession(key);
    assert.deepStrictEqual(a.grants().filter((g) => g.source === 'person').map((g) => g.scope), ['workspace'], 'session grants end with the session');
    const ws = a.grants().find((g) => g.scope === 'workspace')!;
    assert.ok(await vscode.commands.executeCommand('agentSwitchboard.revokeGrant', { id: ws.id }));
    assert.deepStrictEqual(a.grants(), []);
  });

  it('the audit log of the workspace verifies', async () => {
    const v = await vscode.commands.executeCommand<{ ok: boolean; records: number }>('agentSwitchboard.verifyAudit');
    assert.ok(v.ok, JSON.stringify(v));
    assert.ok(v.records >= 4, `decisions and effects recorded: ${v.records}`);
  });
});

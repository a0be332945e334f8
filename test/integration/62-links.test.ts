/**
 * Untrusted text never runs a command (issue 16, finding 1), in the real editor: a `command:` link
 * in a notification runs `vscode.commands.executeCommand(id, ...jsonArgs)`, so the commands that
 * answer or act refuse such calls and the request still waits.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { api, setAgents, waitForState } from './util';

/** Runs a command with arguments as the API does (older builds had no runCommand: plain executeCommand). */
async function asApi(id: string, ...args: unknown[]): Promise<unknown> {
  const a = (await api()) as unknown as { runCommand?: (id: string, ...args: unknown[]) => Thenable<unknown> };
  return a.runCommand ? a.runCommand(id, ...args) : vscode.commands.executeCommand(id, ...args);
}

describe('untrusted text and command links', () => {
  after(() => setAgents([]));

  it('a command: link cannot answer a waiting permission; the request still waits', async function () {
    this.timeout(120_000);
    const a = await api();
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
    const key = await a.startSession({ agentId: 'demo' });
    const turn = a.prompt(key, 'Show me the permission gate.').catch(() => undefined);
    const s = await waitForState(a, key, (st) => Object.values(st.permissions).some((p) => p.state === 'waiting'), 'a waiting permission');
    const p = Object.values(s.permissions).find((x) => x.state === 'waiting')!;
    const allow = p.options.find((o) => o.kind === 'allow_once' || o.kind === 'allow_always')!;

    // Exactly what [Allow](command:agentSwitchboard.answerPermission?["key","pid","oid"]) runs.
    const answered = await vscode.commands.executeCommand('agentSwitchboard.answerPermission', key, p.permissionId, allow.optionId);
    assert.strictEqual(answered, false, 'the link call is refused');
    // The same for the other shapes a link can carry: a tree node's JSON, a confirmation flag.
    await vscode.commands.executeCommand('agentSwitchboard.review.restoreCheckpoint', { type: 'turn', sessionKey: key, turn: 1, confirmed: true });
    await vscode.commands.executeCommand('agentSwitchboard.sendPrompt', key, 'a prompt the agent wrote');
    await new Promise((r) => setTimeout(r, 500));
    const after = a.session(key)!;
    assert.strictEqual(after.permissions[p.permissionId].state, 'waiting', 'the request still waits for the person');
    assert.ok(!after.entries.some((e) => e.kind === 'user' && 'text' in e && e.text === 'a prompt the agent wrote'), 'no prompt was sent by the link');

    // The API still answers (other extensions, tests).
    assert.strictEqual(await asApi('agentSwitchboard.answerPermission', key, p.permissionId, p.options.find((o) => o.kind.startsWith('reject'))!.optionId), true);
    await a.cancel(key);
    await turn;
    await a.closeSession(key);
  });

});

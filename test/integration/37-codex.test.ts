/**
 * A real Codex: @zed-industries/codex-acp 0.16.0 against the fake model server's OpenAI Responses
 * dialect. Codex asks before its patch and its shell command (`approval_policy = "untrusted"`),
 * sometimes before it has announced the tool call at all, with UUID request ids; it applies the
 * patch to disk itself and runs the command itself inside bubblewrap. Approve, reject, cancel (at a
 * waiting card and while the model streams) and resume after its process has ended.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SessionState, SwitchboardApi } from '../../src/api';
import { FILE_CONTENT, FILE_NAME, FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.mjs';
import { SLOW_PIECES } from '../fakes/model-openai-responses.mjs';
import { codexAcpLaunch } from '../fakes/agents';
import { api, autoAnswer, runCommand, setAgents, until, waitForState, workspaceDir } from './util';
import { screenshot } from './screenshot';

const PROMPT = 'Create a file named hello.txt with a short greeting, then run a shell command that writes shell-marker.txt and lists the directory, then summarize what you did.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const waitingPermission = (s: SessionState, kind: string) =>
  Object.values(s.permissions).find((p) => p.state === 'waiting' && s.toolCalls[p.toolCallId]?.kind === kind);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('real agent that patches and runs its shell itself: codex-acp', function () {
  this.timeout(120_000);
  let a: SwitchboardApi;
  let fake: FakeModelServer;
  let slow: FakeModelServer;
  let dir: string;
  let file: string;
  let marker: string;
  let approvedSessionId: string | undefined;

  before(async () => {
    a = await api();
    dir = path.join(workspaceDir(), 'codex');
    file = path.join(dir, FILE_NAME);
    marker = path.join(dir, 'shell-marker.txt');
    fs.mkdirSync(dir, { recursive: true });
    // A folder changed less than 2 s before the agent's call makes the "did not exist" base of a new
    // file uncertain (src/edits/baselines.ts RECENT_MS), and Undo would then refuse to delete it.
    await pause(2200);
    fake = await startFakeModelServer({ workspace: dir });
    slow = await startFakeModelServer({ workspace: dir, scenario: 'slow' });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'as-codex-home-'));
    const launch = codexAcpLaunch({ home: path.join(home, 'fast'), fakeUrl: fake.url });
    const slowLaunch = codexAcpLaunch({ home: path.join(home, 'slow'), fakeUrl: slow.url });
    await setAgents([
      { id: 'codex-test', name: 'Codex (test)', command: launch.command, args: launch.args, env: launch.env },
      { id: 'codex-slow', name: 'Codex (slow model)', command: slowLaunch.command, args: slowLaunch.args, env: slowLaunch.env },
    ]);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'ask', command: 'ask' }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await setAgents([]);
    await fake?.close();
    await slow?.close();
  });

  it('approve: asks before its patch and its command, writes and runs them itself, and the Changes view has the file', async () => {
    const key = await a.startSession({ agentId: 'codex-test', cwd: dir });
    const ready = a.session(key)!;
    approvedSessionId = ready.sessionId;
    assert.ok(!ready.availableModes?.length, 'codex offers config options, not modes');
    const model = ready.configOptions?.find((o) => o.id === 'model');
    assert.ok(model && model.type === 'select' && model.currentValue === 'gpt-5.3-codex', JSON.stringify(ready.configOptions).slice(0, 600));
    assert.ok(ready.configOptions?.some((o) => o.id === 'reasoning_effort'));

    const answered: string[] = [];
    let turn: Promise<{ stopReason: string }> | undefined;
    // The edit is answered at once; the shell card is photographed first, then answered.
    const edits = a.onDidChangeSession((e) => {
      if (e.key !== key) return;
      const p = waitingPermission(e.state, 'edit');
      if (p && !answered.includes(p.permissionId)) {
        answered.push(p.permissionId);
        setTimeout(() => a.answerPermission(key, p.permissionId, p.options.find((o) => o.kind === 'allow_once')!.optionId), 10);
      }
    });
    try {
      turn = a.prompt(key, PROMPT);
      const atShell = await waitForState(a, key, (s) => Boolean(waitingPermission(s, 'execute')), 'the shell command\'s card', 60_000);
      const shell = waitingPermission(atShell, 'execute')!;
      // Codex asked before announcing the call: the card still has its command and its options.
      assert.deepStrictEqual(shell.options.map((o) => o.kind), ['allow_once', 'allow_always', 'reject_once']);
      const line = shell.display?.find((d) => d.type === 'command');
      assert.ok(line && line.type === 'command' && line.argv.at(-1)?.includes('ACP_SHELL_OK'), JSON.stringify(shell.display));
      await vscode.commands.executeCommand('agentSwitchboard.session.focus');
      await screenshot('codex-shell-card', 30000, { waitForSelector: '.permission.waiting', sidebarWidth: 520 });
      assert.ok(a.answerPermission(key, shell.permissionId, 'approved'), 'the agent\'s own option id, given back');
      assert.strictEqual((await turn).stopReason, 'end_turn');
    } finally {
      edits.dispose();
      await turn?.catch(() => undefined);
    }

    assert.strictEqual(fs.readFileSync(file, 'utf8'), FILE_CONTENT, 'codex applied its patch to disk');
    assert.match(fs.readFileSync(marker, 'utf8'), /ACP_SHELL_OK/, 'its shell ran inside bubblewrap');
    // codex-acp may send a call's last update after its answer to the prompt, or (on a loaded
    // machine, seen in CI: the journal holds no update for the call after its `tool_call`) never:
    // the thread takes it whenever it comes, and the command's effect is checked on disk above.
    const finished = (x: typeof ready) => Object.values(x.toolCalls).filter((t) => t.kind === 'edit' || t.kind === 'execute').every((t) => t.status === 'completed');
    await waitForState(a, key, finished, 'both calls completed', 15_000).catch(() => undefined);
    const s = a.session(key)!;
    const write = Object.values(s.toolCalls).find((t) => t.kind === 'edit');
    const run = Object.values(s.toolCalls).find((t) => t.kind === 'execute');
    assert.ok(write && run, JSON.stringify(s.toolCalls).slice(0, 1500));
    assert.strictEqual(write.status, 'completed');
    assert.ok(run.status === 'completed' || run.status === 'in_progress', `the shell call: ${run.status}`);
    assert.strictEqual(write.verification, 'agent', 'performed by the agent, not by us');
    assert.ok(s.entries.some((e) => e.kind === 'agent' && e.text.includes(FINAL_TEXT)));
    // Each request was answered under its own UUID id (the protocol log names them).
    const asked = a.protocolLog(key).filter((m) => m.method === 'session/request_permission' && m.dir === 'in');
    assert.strictEqual(asked.length, 2, JSON.stringify(asked));
    assert.ok(asked.every((m) => typeof m.id === 'string' && UUID.test(m.id)), JSON.stringify(asked.map((m) => m.id)));
    assert.deepStrictEqual(fake.requests.filter((r) => r.api === 'openai-responses').map((r) => r.tool ?? r.move), ['apply_patch', 'exec_command', 'text']);

    const change = a.changes(key)[0]?.files.find((f) => f.path === file);
    assert.ok(change, `the patch is in the Changes view: ${JSON.stringify(a.changes(key)).slice(0, 1500)}`);
    assert.strictEqual(change.via, 'agent');
    assert.strictEqual(change.base.text, null, 'a new file');
    assert.strictEqual(change.after, FILE_CONTENT);
    assert.ok(change.toolCallIds.includes(write.toolCallId));
    await screenshot('codex-turn', 30000, { waitForSelector: '.turn-end', sidebarWidth: 520 });

    await runCommand('agentSwitchboard.review.undo', { type: 'file', changeId: change.id });
    assert.ok(!fs.existsSync(file), 'undo of the file codex created deletes it');
    fs.rmSync(marker, { force: true });
    await a.closeSession(key);
  });

  it('reject: the agent\'s reject option is given back, nothing is written and the turn ends', async () => {
    // Each test starts from a folder without the file and the marker, whatever an earlier one left.
    fs.rmSync(file, { force: true });
    fs.rmSync(marker, { force: true });
    const key = await a.startSession({ agentId: 'codex-test', cwd: dir });
    const answered: string[] = [];
    const sub = autoAnswer(a, key, 'reject_once', answered);
    let stopReason: string;
    try {
      ({ stopReason } = await a.prompt(key, PROMPT));
    } finally {
      sub.dispose();
    }
    // Codex ends the turn itself when its patch is refused ("abort").
    assert.strictEqual(stopReason, 'cancelled');
    assert.deepStrictEqual(answered.map((x) => x.split(':').pop()), ['abort']);
    assert.ok(!fs.existsSync(file), 'nothing written');
    assert.ok(!fs.existsSync(marker), 'nothing run');
    const write = Object.values(a.session(key)!.toolCalls).find((t) => t.kind === 'edit');
    assert.ok(write && write.status !== 'completed', JSON.stringify(write));
    assert.ok(!a.changes(key).some((t) => t.files.some((f) => f.path === file)), 'no change to review');
    await a.closeSession(key);
  });

  it('cancel: Stop at a waiting card answers it cancelled, and Stop while the model streams ends the turn', async () => {
    // Each test starts from a folder without the file and the marker, whatever an earlier one left.
    fs.rmSync(file, { force: true });
    fs.rmSync(marker, { force: true });
    // At the card: exactly one answer, `cancelled`, and nothing written.
    const key = await a.startSession({ agentId: 'codex-test', cwd: dir });
    const turn = a.prompt(key, PROMPT);
    const waiting = await waitForState(a, key, (s) => Boolean(waitingPermission(s, 'edit')), 'the patch\'s card');
    const card = waitingPermission(waiting, 'edit')!;
    await a.cancel(key);
    assert.strictEqual((await turn).stopReason, 'cancelled');
    const after = a.session(key)!.permissions[card.permissionId];
    assert.strictEqual(after.state, 'cancelled');
    assert.strictEqual(after.answeredBy, 'cancel');
    assert.ok(!fs.existsSync(file), 'nothing written');
    await a.closeSession(key);

    // Mid-stream: the slow model is still answering when Stop is pressed.
    const slowKey = await a.startSession({ agentId: 'codex-slow', cwd: dir });
    const started = Date.now();
    const slowTurn = a.prompt(slowKey, 'Think slowly about nothing.');
    await waitForState(a, slowKey, (s) => s.entries.some((e) => e.kind === 'agent' && e.text.includes('Thinking slowly (2)')), 'the slow answer streaming');
    await a.cancel(slowKey);
    assert.strictEqual((await slowTurn).stopReason, 'cancelled');
    const took = Date.now() - started;
    assert.ok(took < SLOW_PIECES * 500 - 5000, `the turn ended at Stop, not with the model (${took} ms)`);
    const s = a.session(slowKey)!;
    const end = s.entries.filter((e) => e.kind === 'turn_end').at(-1);
    assert.ok(end && end.kind === 'turn_end' && end.stopReason === 'cancelled', JSON.stringify(end));
    assert.ok(!s.entries.some((e) => e.kind === 'agent' && e.text.includes(`Thinking slowly (${SLOW_PIECES})`)), 'the stream did not run to its end');
    await a.closeSession(slowKey);
  });

  it('resume: the approved session, closed with its agent process, is resumed from the history and goes on', async () => {
    assert.ok(approvedSessionId, 'the approve test ran');
    const entry = await until('the approved session in the history, closed', () => a.sessionHistory().find((e) => e.sessionId === approvedSessionId && !e.open), 10_000);
    assert.strictEqual(entry.turns, 1);
    // The folder changed (undo) a moment ago; see the note in before().
    await pause(2200);
    const key = await a.resumeSession({ journalId: entry.journalId });
    const state = await waitForState(a, key, (x) => x.status === 'ready', 'the resumed session ready');
    assert.strictEqual(state.sessionId, entry.sessionId, 'the same codex session (session/resume)');
    assert.ok(a.protocolLog(key).some((m) => m.method === 'session/resume' && m.dir === 'out'), 'resumed, not loaded');
    const sub = autoAnswer(a, key, 'allow_once');
    try {
      assert.strictEqual((await a.prompt(key, 'Once more, please.')).stopReason, 'end_turn');
    } finally {
      sub.dispose();
    }
    const s = a.session(key)!;
    assert.deepStrictEqual(s.entries.filter((e) => e.kind === 'user').map((e) => ('text' in e ? e.text : '')), [PROMPT, 'Once more, please.']);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FILE_CONTENT);
    if (fake.stray.length || slow.stray.length) console.log(`      (refused egress: ${[...fake.stray, ...slow.stray].join(', ')})`);
    fs.rmSync(dir, { recursive: true, force: true });
    await a.closeSession(key);
  });
});

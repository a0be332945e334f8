/**
 * Session history: the journal (append, coalesce, torn lines, index rebuild, deterministic replay)
 * and taking sessions up again in a new agent process — resume (our transcript, the agent carries
 * on), load (the agent replays), list (`session/list`) — with the demo agent as a real process.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionJournal } from '../../src/acp/session/journal';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_ENTRY = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;
const tempDir = (p: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const texts = (s: { entries: { kind: string }[] }, kind: string) => s.entries.filter((e) => e.kind === kind).map((e) => (e as unknown as { text: string }).text);

describe('session journal', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('switchboard-journal-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays what it recorded, deterministically, and skips a torn last line', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'Agent A', cwd: '/w' });
    j.record(id, { type: 'ready', sessionId: 'acp-1' });
    j.record(id, { type: 'promptSent', text: 'first question' });
    for (let i = 0; i < 1000; i++) j.record(id, { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i};` } } });
    j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: 'orphan', status: 'completed' } });
    j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read' } });
    j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.txt', kind: 'read' } });
    j.record(id, { type: 'turnEnded', stopReason: 'end_turn' });
    j.flush();
    fs.appendFileSync(path.join(dir, `${id}.jsonl`), '{"at":1,"a":{"type":"promptSent","te');
    const a = j.replay(id, 'k1');
    const b = j.replay(id, 'k1');
    assert.deepEqual(a.state, b.state, 'replay is deterministic');
    assert.equal(a.skipped, 1, 'the torn line is skipped');
    assert.deepEqual(texts(a.state, 'user'), ['first question']);
    assert.equal(texts(a.state, 'agent')[0].split(';').length, 1001, 'a thousand chunks merge into one message');
    assert.equal(a.state.toolCalls.orphan.placeholder, true, 'an orphan update is a placeholder');
    assert.equal(a.state.toolCalls.t1.title, 'Read a.txt', 'a duplicate announcement merges');
    assert.equal(a.state.entries.filter((e) => e.kind === 'tool_call').length, 2);
    assert.equal(j.get(id)?.sessionId, 'acp-1');
    assert.equal(j.get(id)?.title, 'first question');
  });

  it('keeps only the last snapshot of a running terminal, and rebuilds a lost index', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'Agent A', cwd: '/w' });
    for (let i = 0; i < 50; i++) j.record(id, { type: 'terminal', terminal: { terminalId: 't', commandLine: 'ls', cwd: '/w', output: 'x'.repeat(i), truncated: false } });
    j.flush();
    const lines = fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8').trim().split('\n');
    assert.equal(lines.length, 2, 'header and one terminal snapshot');
    assert.equal(j.replay(id, 'k').state.terminals.t.output.length, 49);
    fs.rmSync(path.join(dir, 'index.json'));
    fs.writeFileSync(path.join(dir, 'junk.jsonl'), 'not json\n');
    const logged: string[] = [];
    const again = new SessionJournal(dir, (m) => logged.push(m));
    assert.deepEqual(again.list().map((e) => e.journalId), [id]);
    assert.ok(logged.some((m) => m.includes('junk.jsonl')), logged.join('\n'));
  });
});

describe('sessions taken up again in a new agent process (demo agent)', function () {
  this.timeout(30_000);
  let workspace: string;
  let journalDir: string;
  let demoState: string;
  let managers: SessionManager[];
  let agents: ResolvedAgent[];

  function newManager(): SessionManager {
    const files = new MemoryFiles();
    const m = new SessionManager({
      agents: () => agents,
      baseEnv: () => ({ ...process.env, SWITCHBOARD_DEMO_STATE_DIR: demoState, SWITCHBOARD_DEMO_SCENARIO: 'echo' }),
      initializeTimeoutMs: () => 15_000,
      clientInfo: { name: 'sessions-test', version: '0' },
      filesFor: () => files,
      policy: allowAll(),
      terminalsFor: (_key, cwd) => new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 }),
      journal: new SessionJournal(journalDir),
    });
    managers.push(m);
    return m;
  }

  beforeEach(() => {
    workspace = tempDir('switchboard-sessions-ws-');
    journalDir = tempDir('switchboard-sessions-journal-');
    demoState = tempDir('switchboard-sessions-demo-');
    managers = [];
    agents = [{ id: 'demo', name: 'Demo', command: process.execPath, resolvedCommand: process.execPath, args: ['--import', TSX_LOADER, DEMO_ENTRY], env: {}, source: 'settings', available: true }];
  });
  afterEach(async () => {
    for (const m of managers) await m.dispose();
    for (const d of [workspace, journalDir, demoState]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('restores a transcript after the window ends, resumes it in a new process, and lists and loads what only the agent knows', async () => {
    const first = newManager();
    const c = await first.start('demo', workspace);
    await c.prompt('hello from before the reload');
    const sessionId = c.state.sessionId!;
    const journalId = first.journalIdOf(c.state.key)!;
    // The window ends without the person closing the session (the agent process goes with it).
    await first.dispose();

    const second = newManager();
    const restored = second.restore(journalId);
    assert.equal(restored.state.status, 'closed');
    assert.deepEqual(texts(restored.state, 'user'), ['hello from before the reload']);
    assert.deepEqual(texts(restored.state, 'agent'), ['hello from before the reload']);

    // Resume: our transcript stays, the agent carries on in a new process.
    const resumed = await second.takeUp({ journalId });
    assert.equal(resumed.state.status, 'ready');
    assert.equal(resumed.state.sessionId, sessionId);
    assert.equal(second.get(restored.state.key), undefined, 'the read-only copy is replaced');
    assert.match(texts(resumed.state, 'notice').at(-1)!, /Resumed/);
    await resumed.prompt('and after it');
    assert.deepEqual(texts(resumed.state, 'user'), ['hello from before the reload', 'and after it']);
    assert.equal(resumed.state.entries.filter((e) => e.kind === 'user').length, 2, 'nothing shown twice');

    // The agent lists the session (session/list) with the title it keeps.
    const listed = await second.listAgentSessions('demo', workspace);
    assert.equal(listed.supported, true);
    assert.ok(listed.sessions.some((s) => s.sessionId === sessionId && s.title === 'hello from before the reload'), JSON.stringify(listed.sessions));

    // A session only the agent knows (our journal lost it): load makes the agent replay it.
    await second.dispose();
    fs.rmSync(journalDir, { recursive: true, force: true });
    const third = newManager();
    assert.equal(third.journalIdOf('s1'), undefined);
    const loaded = await third.takeUp({ agentId: 'demo', sessionId, cwd: workspace });
    assert.equal(loaded.state.status, 'ready');
    assert.deepEqual(texts(loaded.state, 'user'), ['hello from before the reload', 'and after it']);
    assert.deepEqual(texts(loaded.state, 'agent'), ['hello from before the reload', 'and after it']);
    assert.match(texts(loaded.state, 'notice').at(-1)!, /Loaded/);
  });

  it('says so when the agent cannot take sessions up, and keeps the transcript', async () => {
    const first = newManager();
    const c = await first.start('demo', workspace);
    await c.prompt('kept');
    const journalId = first.journalIdOf(c.state.key)!;
    await first.dispose();
    // A process with no session store: neither load nor resume.
    agents[0] = { ...agents[0], env: { SWITCHBOARD_DEMO_NO_SESSIONS: '1' } };
    const second = newManager();
    await assert.rejects(second.takeUp({ journalId }), /cannot take up/);
    const shown = second.list()[0];
    assert.deepEqual(texts(shown.state, 'user'), ['kept']);
    assert.match(shown.state.error?.message ?? '', /neither resume nor load/);
  });
});

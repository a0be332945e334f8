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
import { JOURNAL_TEXT_CHARS, SessionJournal } from '../../src/acp/session/journal';
import { CapabilityBook, capabilitiesMarkdown } from '../../src/acp/capabilityBook';
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

  it('writes a streamed message as one line, and keeps messages, thoughts and ids apart on replay', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'A', cwd: '/w' });
    const chunk = (sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk', text: string, messageId?: string) => j.record(id, { type: 'update', update: { sessionUpdate, content: { type: 'text', text }, ...(messageId ? { messageId } : {}) } });
    for (let i = 0; i < 500; i++) chunk('agent_message_chunk', `${i} `, 'm1');
    chunk('agent_thought_chunk', 'hmm');
    chunk('agent_message_chunk', 'second', 'm2');
    chunk('agent_message_chunk', ' part', 'm2');
    j.record(id, { type: 'turnEnded', stopReason: 'end_turn' });
    j.flush();
    const lines = fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8').trim().split('\n');
    assert.equal(lines.length, 5, 'header, three coalesced chunks, the turn end');
    const { state } = j.replay(id, 'k');
    assert.deepEqual(state.entries.map((e) => [e.kind, 'text' in e ? e.text.slice(0, 8) : '']), [['agent', '0 1 2 3 '], ['thought', 'hmm'], ['agent', 'second p'], ['turn_end', '']]);
  });

  it('lets two windows share the folder without losing each other\'s sessions, and refuses ids that are not its own', () => {
    const a = new SessionJournal(dir);
    const b = new SessionJournal(dir);
    const x = a.create({ agentId: 'a', agentName: 'A', cwd: '/w' });
    a.flush();
    const y = b.create({ agentId: 'b', agentName: 'B', cwd: '/w' });
    b.flush();
    a.record(x, { type: 'promptSent', text: 'from window A' });
    a.flush();
    const later = new SessionJournal(dir);
    assert.deepEqual(later.list().map((e) => e.journalId).sort(), [x, y].sort());
    assert.equal(later.get(x)?.title, 'from window A');
    // A journal the index lost is found from its header (and not reopened).
    fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ v: 1, sessions: [] }));
    const rebuilt = new SessionJournal(dir);
    assert.equal(rebuilt.list().length, 2);
    assert.ok(rebuilt.list().every((e) => !e.open));
    fs.writeFileSync(path.join(path.dirname(dir), 'victim.jsonl'), 'keep me');
    rebuilt.delete('../victim');
    assert.ok(fs.existsSync(path.join(path.dirname(dir), 'victim.jsonl')), 'a path is not a journal id');
    fs.rmSync(path.join(path.dirname(dir), 'victim.jsonl'));
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(dir, `${x}.jsonl`)).mode & 0o077, 0, 'only the person can read a journal');
  });

  it('ends a turn the window ended in the middle of', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'A', cwd: '/w' });
    j.record(id, { type: 'ready', sessionId: 's' });
    j.record(id, { type: 'promptSent', text: 'go' });
    j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Run', kind: 'execute', status: 'in_progress' } });
    j.record(id, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 't2', title: 'Write' }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }], at: 1 });
    j.flush();
    const { state } = j.replay(id, 'k');
    assert.equal(state.status, 'ready');
    assert.equal(state.toolCalls.t.status, 'cancelled');
    assert.equal(state.permissions.p1.state, 'cancelled');
    assert.match((state.entries.at(-1) as { text: string }).text, /window ended during this turn/);
  });

  it('replays 20,000 updates with a 4 MB tool output (kept as far as a card shows it)', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'Agent A', cwd: '/w' });
    j.record(id, { type: 'promptSent', text: 'go' });
    for (let i = 0; i < 20_000; i++) {
      if (i % 10 === 0) j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: `t${i}`, title: `Run ${i}`, kind: 'execute', status: 'in_progress' } });
      else if (i % 10 === 1) j.record(id, { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: `t${i - 1}`, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: i === 1 ? 'y'.repeat(4_000_000) : `out ${i}` } }] } });
      else j.record(id, { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${i} ` } } });
    }
    j.flush();
    const started = Date.now();
    const { state, skipped } = j.replay(id, 'k');
    console.log(`      (replayed 20,001 actions, ${(fs.statSync(path.join(dir, `${id}.jsonl`)).size / 1e6).toFixed(1)} MB, in ${Date.now() - started} ms)`);
    assert.equal(skipped, 0);
    assert.equal(Object.keys(state.toolCalls).length, 2000);
    // The 4 MB output is kept as far as a card shows it, with a count of the rest (JOURNAL_TEXT_CHARS).
    const kept = (state.toolCalls.t0.content[0] as { text: string }).text;
    assert.ok(kept.startsWith('y'.repeat(JOURNAL_TEXT_CHARS)) && kept.endsWith(`[… ${4_000_000 - JOURNAL_TEXT_CHARS} more characters of this output were not kept in the session journal]`));
    assert.equal(state.entries.filter((e) => e.kind === 'tool_call').length, 2000);
  });

  it('keeps only the last snapshot of a running terminal, and rebuilds a lost index', () => {
    const j = new SessionJournal(dir);
    const id = j.create({ agentId: 'a', agentName: 'Agent A', cwd: '/w' });
    for (let i = 0; i < 50; i++) j.record(id, { type: 'terminal', terminal: { terminalId: 't', commandLine: 'ls', cwd: '/w', output: 'x'.repeat(i), truncated: false } });
    j.flush();
    assert.equal(fs.readFileSync(path.join(dir, `${id}.jsonl`), 'utf8').trim().split('\n').length, 1, 'a running terminal is not written on every flush');
    j.flush(true);
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

  function newManager(book?: CapabilityBook): SessionManager {
    const files = new MemoryFiles();
    const m = new SessionManager({
      capabilities: book,
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

  it('gives every session an unguessable key, so a link or an agent cannot name another session (issue 16, finding 1)', () => {
    const j = new SessionJournal(journalDir);
    const ids = [j.create({ agentId: 'demo', agentName: 'Demo', cwd: workspace }), j.create({ agentId: 'demo', agentName: 'Demo', cwd: workspace })];
    j.flush(true);
    const m = newManager();
    const keys = ids.map((id) => m.restore(id).state.key);
    for (const k of keys) assert.match(k, /^s-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, k);
    assert.notEqual(keys[0], keys[1]);
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

    // Resume: our transcript stays, the agent carries on in a new process (a double click starts one).
    const [resumed, twice] = await Promise.all([second.takeUp({ journalId }), second.takeUp({ journalId })]);
    assert.equal(resumed, twice, 'one take-up, one agent');
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

  it('keeps each agent version\'s capability matrix over all its sessions, across windows', async () => {
    const file = path.join(journalDir, 'capabilities.json');
    const book = new CapabilityBook(file);
    const m = newManager(book);
    for (const text of ['one', 'two']) {
      const c = await m.start('demo', workspace);
      await c.prompt(text);
      await m.close(c.state.key);
    }
    const live = await m.start('demo', workspace);
    await live.prompt('three, still running');
    const [v] = book.list('demo');
    assert.equal(v.name, 'agent-switchboard-demo');
    assert.equal(v.connections, 3);
    const row = (name: string) => v.rows.find((r) => r.capability === name)!;
    assert.equal(row('session/prompt').exercised, 3, 'the live session counts too');
    assert.equal(row('loadSession').declared, true);
    assert.ok(row('session/update: agent_message_chunk').exercised >= 3);
    book.save();
    await m.dispose();
    const again = new CapabilityBook(file).list('demo');
    assert.equal(again[0].rows.find((r) => r.capability === 'session/prompt')!.exercised, 3, 'saved and read back, nothing counted twice');
    assert.match(capabilitiesMarkdown('Demo', again), /\| session\/prompt \| we call the agent \| {2}\| 3 \| 0 \|/);
  });
});

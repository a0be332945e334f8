/**
 * A tool that re-sends its whole output on every update (issue 22, PF10): the journal keeps the
 * latest content of a call unserialised and lays the next update of the same call over it, so 200
 * growing copies become a few lines, and replay gives exactly the state the live reducer built,
 * whatever comes in between (text chunks, other calls, a status change).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { FLUSH_MS, HOLD_CONTENT_MS, JOURNAL_TEXT_CHARS, MAX_JOURNAL_BYTES, SessionJournal } from '../../../src/acp/session/journal';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';

describe('the journal and tools that re-send their whole output (PF10)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-jto-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('replays to the live state from far fewer lines', () => {
    const u = (update: SessionUpdate): SessionAction => ({ type: 'update', update, at: 1 });
    const out = (n: number) => [{ type: 'content' as const, content: { type: 'text' as const, text: 'line\n'.repeat(n) } }];
    const actions: SessionAction[] = [
      { type: 'ready', sessionId: 's' },
      { type: 'promptSent', text: 'build' },
      u({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Build', kind: 'execute', status: 'in_progress' }),
      u({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'Test', kind: 'execute', status: 'in_progress' }),
    ];
    for (let i = 1; i <= 200; i++) {
      actions.push(u({ sessionUpdate: 'tool_call_update', toolCallId: 'a', content: out(i) }));
      if (i === 50) actions.push(u({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'half way' } }));
      if (i === 80) actions.push(u({ sessionUpdate: 'tool_call_update', toolCallId: 'b', content: out(3), status: 'completed' }));
      if (i === 120) actions.push(u({ sessionUpdate: 'tool_call_update', toolCallId: 'a', title: 'Build (slow)' }));
    }
    actions.push(u({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed', rawOutput: { exitCode: 2 } }));
    actions.push({ type: 'turnEnded', stopReason: 'end_turn' });
    const live = createSessionState({ key: 'k1', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    for (const a of actions) reduce(live, a);

    const journal = new SessionJournal(path.join(dir, 'j'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    for (const a of actions) journal.record(id, a);
    journal.flush(true);
    const lines = fs.readFileSync(path.join(dir, 'j', `${id}.jsonl`), 'utf8').trim().split('\n').length;
    assert.ok(lines < 20, `${lines} lines for ${actions.length} actions`);
    const replayed = new SessionJournal(path.join(dir, 'j')).replay(id, 'k1').state;
    assert.deepEqual(replayed.toolCalls, live.toolCalls);
    assert.deepEqual(replayed.entries.map((e) => e.kind), live.entries.map((e) => e.kind));
    assert.equal(replayed.toolCalls.a.status, 'failed');
    assert.equal(replayed.toolCalls.a.title, 'Build (slow)');
  });

  it('writes a held content update once it has been held HOLD_CONTENT_MS, not at every flush', () => {
    const journal = new SessionJournal(path.join(dir, 'j'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    const file = path.join(dir, 'j', `${id}.jsonl`);
    const size = () => fs.statSync(file).size;
    journal.record(id, { type: 'update', at: 1, update: { sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Build', kind: 'execute', status: 'in_progress' } });
    const realNow = Date.now;
    let now = realNow();
    Date.now = () => now;
    try {
      const before = (journal.flush(), size());
      // Ten flushes within the hold: the growing 100 kB output is not written yet.
      for (let i = 1; i <= 10; i++) {
        journal.record(id, { type: 'update', at: 2, update: { sessionUpdate: 'tool_call_update', toolCallId: 'a', content: [{ type: 'content', content: { type: 'text', text: "abcdefghij"[i - 1].repeat(100_000) } }] } });
        now += HOLD_CONTENT_MS / 20;
        journal.flush();
      }
      assert.equal(size(), before, 'nothing written while held');
      now += HOLD_CONTENT_MS;
      journal.flush();
      const once = size();
      assert.ok(once > before + 100_000 && once < before + 200_000, 'the latest content, once');
      // Held again, then the final flush writes it whatever its age.
      journal.record(id, { type: 'update', at: 3, update: { sessionUpdate: 'tool_call_update', toolCallId: 'a', content: [{ type: 'content', content: { type: 'text', text: 'z'.repeat(100_000) } }] } });
      journal.flush();
      assert.equal(size(), once);
      journal.flush(true);
      assert.ok(size() > once + 100_000);
    } finally {
      Date.now = realNow;
      journal.flush(true);
    }
    assert.equal(new SessionJournal(path.join(dir, 'j')).replay(id, 'k').state.toolCalls.a.content[0].type, 'text');
  });

  it('keeps what a card shows of a long output, redacted across the cut, and diffs whole', () => {
    const journal = new SessionJournal(path.join(dir, 'j'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    // A token that starts just before the cut: the part kept must not be a recognisable prefix of it.
    const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    const long = `${'x'.repeat(JOURNAL_TEXT_CHARS - 10)} ${token} ${'y'.repeat(2 * 1024 * 1024)}`;
    const diffText = 'd'.repeat(JOURNAL_TEXT_CHARS * 2);
    journal.record(id, { type: 'update', at: 1, update: { sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Run', kind: 'execute', status: 'in_progress', rawOutput: { stdout: long, code: 0 } } });
    journal.record(id, { type: 'update', at: 2, update: { sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: long } }, { type: 'diff', path: '/w/a.txt', oldText: null, newText: diffText }] } });
    journal.flush(true);
    const file = fs.readFileSync(path.join(dir, 'j', `${id}.jsonl`), 'utf8');
    assert.ok(file.length < 4 * JOURNAL_TEXT_CHARS + 10_000, `${file.length} characters on disk`);
    assert.ok(!file.includes('ghp_A1b2'), 'no part of the token');
    const tc = new SessionJournal(path.join(dir, 'j')).replay(id, 'k').state.toolCalls.a;
    const text = tc.content[0];
    assert.equal(text.type, 'text');
    if (text.type === 'text') {
      assert.ok(text.text.startsWith('x'.repeat(1000)));
      assert.match(text.text, new RegExp(`\\[… ${long.length - JOURNAL_TEXT_CHARS} more characters of this output were not kept in the session journal\\]$`));
    }
    const diff = tc.content[1];
    assert.ok(diff.type === 'diff' && diff.newText === diffText, 'the diff is kept whole');
    assert.match(String((tc.rawOutput as { stdout: string }).stdout), /more characters of this output were not kept/);
    assert.equal((tc.rawOutput as { code: number }).code, 0);
  });
});

describe('the journal index while a turn streams (PF10)', () => {
  let dir: string;
  let renames: string[];
  const realRename = fs.renameSync;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-jix-'));
    renames = [];
    // Every index write ends with its rename: counting them counts the writes.
    fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => (renames.push(String(to)), realRename(from, to))) as typeof fs.renameSync;
  });
  afterEach(() => {
    fs.renameSync = realRename;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const indexWrites = () => renames.filter((t) => t.endsWith('index.json')).length;

  it('notes a session’s new time at most every INDEX_TOUCH_MS, and what the list shows at the next flush', () => {
    const journal = new SessionJournal(path.join(dir, 'j'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    journal.record(id, { type: 'promptSent', text: 'build it' });
    journal.flush();
    const afterPrompt = indexWrites();
    assert.ok(afterPrompt >= 1, 'the title and turn are written at the next flush');
    // 50 flushes of a streaming turn, each after a chunk and a tool's progress (10 s of FLUSH_MS).
    journal.record(id, { type: 'update', at: 1, update: { sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Build', kind: 'execute', status: 'in_progress' } });
    for (let i = 0; i < 50; i++) {
      journal.record(id, { type: 'update', at: 2, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `word ${i} ` } } });
      journal.record(id, { type: 'update', at: 2, update: { sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'in_progress', rawOutput: { line: i } } });
      journal.flush();
    }
    assert.ok(indexWrites() - afterPrompt <= 1, `the index was rewritten ${indexWrites() - afterPrompt} times for 50 flushes of streamed updates`);
    journal.record(id, { type: 'update', at: 3, update: { sessionUpdate: 'session_info_update', title: 'Build the thing' } });
    const beforeTitle = indexWrites();
    journal.flush();
    assert.equal(indexWrites(), beforeTitle + 1, 'a new title is written at once');
    journal.record(id, { type: 'update', at: 4, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'last' } } });
    journal.flush(true);
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'j', 'index.json'), 'utf8')) as { sessions: { journalId: string; updatedAt: number; title?: string }[] };
    const entry = index.sessions.find((s) => s.journalId === id)!;
    assert.equal(entry.title, 'Build the thing');
    assert.ok(entry.updatedAt >= Date.now() - 5000, 'the final flush writes the latest time');
  });

  it('still writes what streams in within FLUSH_MS while the index waits for its time', async () => {
    const journal = new SessionJournal(path.join(dir, 'j'));
    const id = journal.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    journal.record(id, { type: 'promptSent', text: 'go' });
    journal.flush();
    // The index now waits up to INDEX_TOUCH_MS for this chunk's time; the chunk itself must not.
    journal.record(id, { type: 'update', at: 2, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'first ' } } });
    journal.flush();
    journal.record(id, { type: 'update', at: 3, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'STREAMED-LATER' } } });
    await new Promise((r) => setTimeout(r, FLUSH_MS + 150));
    const written = fs.readFileSync(path.join(dir, 'j', `${id}.jsonl`), 'utf8');
    journal.flush(true);
    assert.match(written, /STREAMED-LATER/, 'a chunk recorded after the index was put off is written at the next FLUSH_MS');
  });

  it('writes a full journal\'s notice and the session\'s time within FLUSH_MS of the action that filled it', async () => {
    const first = new SessionJournal(path.join(dir, 'j'));
    const id = first.create({ agentId: 'a', agentName: 'Agent', cwd: '/w' });
    first.flush(true);
    const file = path.join(dir, 'j', `${id}.jsonl`);
    fs.truncateSync(file, MAX_JOURNAL_BYTES - 10);
    // A new window's journal: the file on disk is all but full, and the next action does not fit.
    const journal = new SessionJournal(path.join(dir, 'j'));
    journal.record(id, { type: 'turnEnded', stopReason: 'end_turn' });
    await new Promise((r) => setTimeout(r, FLUSH_MS + 150));
    const tail = fs.readFileSync(file).subarray(MAX_JOURNAL_BYTES - 10).toString('utf8');
    journal.flush(true);
    fs.rmSync(file, { force: true });
    assert.match(tail, /later updates were not saved/, 'the notice is on disk within FLUSH_MS');
  });
});

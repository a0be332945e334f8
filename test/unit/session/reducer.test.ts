import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { applyPatches } from '../../../src/acp/session/patch';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState, type SessionState } from '../../../src/acp/session/types';

const fresh = () => createSessionState({ key: 's1', agentId: 'a', agentName: 'Agent', cwd: '/w' });
const upd = (s: SessionState, update: SessionUpdate) => reduce(s, { type: 'update', update });
const text = (t: string, messageId?: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t }, ...(messageId ? { messageId } : {}) });

describe('session reducer', () => {
  it('coalesces agent chunks into one message and ignores empty chunks', () => {
    const s = fresh();
    assert.deepEqual(upd(s, text('')), []);
    upd(s, text('Hello '));
    upd(s, text('world'));
    assert.equal(s.entries.length, 1);
    assert.deepEqual(s.entries[0], { kind: 'agent', id: 'e0', text: 'Hello world', messageId: undefined, attachments: [] });
  });

  it('starts a new message when messageId changes, continues when it repeats', () => {
    const s = fresh();
    upd(s, text('a', 'm1'));
    upd(s, text('b', 'm1'));
    upd(s, text('c', 'm2'));
    assert.deepEqual(s.entries.map((e) => ('text' in e ? e.text : '')), ['ab', 'c']);
  });

  it('keeps thoughts apart from the message', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } });
    upd(s, text('answer'));
    assert.deepEqual(s.entries.map((e) => e.kind), ['thought', 'agent']);
  });

  it('merges a second tool_call for the same id without a second entry', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Write', kind: 'edit', status: 'pending', rawInput: {}, content: [], locations: [] });
    upd(s, {
      sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Write /w/a.txt', kind: 'edit', status: 'pending',
      rawInput: { file_path: '/w/a.txt' }, content: [{ type: 'diff', path: '/w/a.txt', oldText: null, newText: 'x\ny\n' }], locations: [{ path: '/w/a.txt' }],
    });
    assert.equal(s.entries.length, 1);
    const tc = s.toolCalls.t1;
    assert.equal(tc.title, 'Write /w/a.txt');
    assert.deepEqual(tc.rawInput, { file_path: '/w/a.txt' });
    assert.equal(tc.content[0].type, 'diff');
    assert.equal((tc.content[0] as { added: number }).added, 2);
    assert.equal(tc.placeholder, false);
  });

  it('creates a placeholder for an update whose id was never announced', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'completed' });
    assert.equal(s.toolCalls.ghost.placeholder, true);
    assert.equal(s.toolCalls.ghost.status, 'completed');
    assert.equal(s.entries[0].kind, 'tool_call');
  });

  it('a permission request for an unannounced tool call creates it awaiting approval', () => {
    const s = fresh();
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 'x', title: 'Run ls', kind: 'execute' }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }], at: 1 });
    assert.equal(s.toolCalls.x.status, 'awaiting_approval');
    assert.equal(s.toolCalls.x.title, 'Run ls');
    assert.equal(s.permissions.p1.state, 'waiting');
    // The agent's own "pending" does not hide the prompt.
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'pending' });
    assert.equal(s.toolCalls.x.status, 'awaiting_approval');
  });

  it('cancelling the turn cancels every waiting permission by construction', () => {
    const s = fresh();
    reduce(s, { type: 'ready', sessionId: 's1' });
    reduce(s, { type: 'promptSent', text: 'go' });
    const opts = [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' as const }];
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 'a' }, options: opts, at: 1 });
    reduce(s, { type: 'permissionRequested', permissionId: 'p2', toolCall: { toolCallId: 'b' }, options: opts, at: 1 });
    reduce(s, { type: 'cancelRequested' });
    assert.deepEqual([s.permissions.p1.state, s.permissions.p2.state], ['cancelled', 'cancelled']);
    assert.equal(s.toolCalls.a.status, 'cancelled');
    // Stop ends the turn at once (see stop.test.ts); the agent's answer is awaited apart.
    assert.equal(s.status, 'ready');
  });

  it('a rejection stays "rejected" when the agent then reports failure', () => {
    const s = fresh();
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 'a', title: 'Edit' }, options: [{ optionId: 'no', name: 'Reject', kind: 'reject_once' }], at: 1 });
    reduce(s, { type: 'permissionAnswered', permissionId: 'p1', optionId: 'no', by: 'person' });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed' });
    assert.equal(s.toolCalls.a.status, 'rejected');
    assert.equal(s.permissions.p1.answeredBy, 'person');
  });

  it('the plan is replaced whole', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'plan', entries: [{ content: 'a', priority: 'high', status: 'pending' }, { content: 'b', priority: 'low', status: 'pending' }] });
    upd(s, { sessionUpdate: 'plan', entries: [{ content: 'a', priority: 'high', status: 'completed' }] });
    assert.deepEqual(s.plan, [{ content: 'a', priority: 'high', status: 'completed' }]);
  });

  it('patches replayed on a snapshot copy give the same state (webview parity)', () => {
    const s = fresh();
    const copy = structuredClone(s);
    const actions: SessionAction[] = [
      { type: 'ready', sessionId: 'S' },
      { type: 'promptSent', text: 'hi' },
      { type: 'update', update: text('a') },
      { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'T' } },
      { type: 'update', update: text('b') },
      { type: 'update', update: text('c') },
      { type: 'turnEnded', stopReason: 'end_turn' },
    ];
    for (const a of actions) {
      // Patches may sit in a batch while later ones mutate the host state: apply them late.
      const patches = reduce(s, a);
      applyPatches(copy, structuredClone(patches));
    }
    assert.deepEqual(copy, s);
    assert.deepEqual(s.entries.map((e) => e.kind), ['user', 'agent', 'tool_call', 'agent', 'turn_end']);
    assert.equal(s.status, 'ready');
    assert.equal(s.lastStopReason, 'end_turn');
  });

  it('a cancelled turn marks unfinished tool calls cancelled', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 't', title: 'T', status: 'in_progress' });
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'u', title: 'U', status: 'completed' });
    reduce(s, { type: 'turnEnded', stopReason: 'cancelled' });
    assert.equal(s.toolCalls.t.status, 'cancelled');
    assert.equal(s.toolCalls.u.status, 'completed');
  });
});

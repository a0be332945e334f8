/**
 * The reducer's side of messages and Stop (issue 18, item 4): `messageId` starts a new message,
 * the agent's echo of the prompt is not shown twice, Stop ends the turn at once, and what the agent
 * still sends for a stopped turn is shown late, attached to that turn, never in the next one.
 */
import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { applyPatches } from '../../../src/acp/session/patch';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState, type SessionState, type ThreadEntry } from '../../../src/acp/session/types';

const upd = (s: SessionState, update: SessionUpdate, at?: number) => reduce(s, { type: 'update', update, ...(at !== undefined ? { at } : {}) });
const say = (t: string, messageId?: string): SessionUpdate => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t }, ...(messageId ? { messageId } : {}) });
const echo = (t: string, messageId?: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: t }, ...(messageId ? { messageId } : {}) });
const texts = (s: SessionState) => s.entries.map((e) => `${e.kind}:${'text' in e ? e.text : 'stopReason' in e ? e.stopReason : 'toolCallId' in e ? e.toolCallId : ''}${'late' in e && e.late ? ' (late)' : ''}`);
const OPTS = [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' as const }, { optionId: 'no', name: 'Reject', kind: 'reject_once' as const }];

function running(): SessionState {
  const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'Agent', cwd: '/w' });
  reduce(s, { type: 'ready', sessionId: 's1' });
  reduce(s, { type: 'promptSent', text: 'fix it' });
  return s;
}

describe('messages: messageId and the prompt echo', () => {
  it('a new messageId starts a new message even after a message that had none', () => {
    const s = running();
    upd(s, say('first'));
    upd(s, say('second', 'm2'));
    upd(s, say(' more', 'm2'));
    upd(s, say(' tail'));
    assert.deepEqual(texts(s), ['user:fix it', 'agent:first', 'agent:second more tail']);
  });

  it('the agent echoing the prompt (in pieces, with a messageId) is not shown twice', () => {
    const s = running();
    upd(s, echo('fix ', 'u1'));
    upd(s, echo('it', 'u1'));
    upd(s, say('Done.', 'a1'));
    assert.deepEqual(texts(s), ['user:fix it', 'agent:Done.']);
    const user = s.entries[0] as Extract<ThreadEntry, { kind: 'user' }>;
    assert.equal(user.messageId, 'u1');
    assert.equal(user.echo, 'fix it'.length);
  });

  it('a user chunk that is not the echo is its own message; the person\'s prompt is never appended to', () => {
    const s = running();
    upd(s, echo('something else'));
    assert.deepEqual(texts(s), ['user:fix it', 'user:something else']);
    // A repeat of the whole prompt after the echo was complete is not absorbed either.
    const t = running();
    upd(t, echo('fix it'));
    upd(t, echo('fix it'));
    assert.deepEqual(texts(t), ['user:fix it', 'user:fix it']);
  });

  it('a loaded session\'s history (no prompt of ours) keeps its user messages', () => {
    const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'Agent', cwd: '/w' });
    upd(s, echo('earlier question', 'u1'));
    upd(s, say('earlier answer', 'a1'));
    upd(s, echo('second question', 'u2'));
    assert.deepEqual(texts(s), ['user:earlier question', 'agent:earlier answer', 'user:second question']);
  });
});

describe('Stop', () => {
  it('ends the turn at once: cancelled, permissions answered, calls stopped, the next prompt accepted', () => {
    const s = running();
    upd(s, say('Working on ', 'm1'));
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit', kind: 'edit', status: 'in_progress' });
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 't2', title: 'Run' }, options: OPTS, at: 5 });
    reduce(s, { type: 'cancelRequested', at: 1000 });
    assert.equal(s.status, 'ready');
    assert.equal(s.lastStopReason, 'cancelled');
    assert.equal(s.entries.at(-1)?.kind, 'turn_end');
    assert.equal((s.entries.at(-1) as { stopReason: string }).stopReason, 'cancelled');
    assert.equal(s.permissions.p1.state, 'cancelled');
    assert.equal(s.permissions.p1.answeredBy, 'cancel');
    assert.equal(s.toolCalls.t1.status, 'cancelled');
    assert.equal(s.toolCalls.t2.status, 'cancelled');
    assert.deepEqual(s.stopping, { since: 1000, turnEndId: s.entries.at(-1)!.id, messageIds: ['m1'] });
  });

  it('late updates are marked late and attached to the stopped turn, never to the next one; nothing revives a cancelled card', () => {
    const s = running();
    upd(s, say('Working on ', 'm1'));
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 't2', title: 'Run' }, options: OPTS, at: 5 });
    reduce(s, { type: 'cancelRequested', at: 1000 });
    // Before the next prompt: more of the stopped message, a new message, a new tool call.
    upd(s, say('it', 'm1'));
    upd(s, say('Also this', 'm5'));
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 't3', title: 'Read', kind: 'read', status: 'in_progress' });
    // The agent tries to bring the cancelled card back.
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 't2', status: 'in_progress' });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 't2', status: 'pending' });
    assert.equal(s.toolCalls.t2.status, 'cancelled');
    assert.equal(s.permissions.p1.state, 'cancelled');
    // The next turn: a chunk of the stopped message still goes to it.
    reduce(s, { type: 'promptSent', text: 'next' });
    upd(s, say(' (really)', 'm1'));
    upd(s, say('Next answer', 'n1'));
    assert.deepEqual(texts(s), [
      'user:fix it',
      'agent:Working on it (really) (late)',
      'tool_call:t2',
      'turn_end:cancelled',
      'agent:Also this (late)',
      'tool_call:t3 (late)',
      'user:next',
      'agent:Next answer',
    ]);
  });

  it('offers Restart Agent after the grace period, and takes the offer back when the agent answers', () => {
    const s = running();
    reduce(s, { type: 'cancelRequested', at: 1000 });
    reduce(s, { type: 'stopOverdue', seconds: 10 });
    const notice = s.entries.at(-1) as Extract<ThreadEntry, { kind: 'notice' }>;
    assert.equal(notice.action, 'restartAgent');
    assert.match(notice.text, /Agent has not answered Stop after 10 s/);
    assert.equal(s.stopping?.overdueNoticeId, notice.id);
    assert.deepEqual(reduce(s, { type: 'stopOverdue', seconds: 10 }), [], 'offered once');
    reduce(s, { type: 'stopAnswered', stopReason: 'cancelled' });
    const after = s.entries.find((e) => e.id === notice.id) as Extract<ThreadEntry, { kind: 'notice' }>;
    assert.equal(after.action, undefined);
    assert.match(after.text, /answered the stopped turn after all \(cancelled\)/);
    assert.equal(s.stopping, undefined);
    // Nothing after the answer is late.
    upd(s, say('hello', 'm9'));
    assert.equal((s.entries.at(-1) as { late?: true }).late, undefined);
  });

  it('a restart or a close settles the stop; a journal from before (cancelRequested, then turnEnded) shows one turn end', () => {
    const s = running();
    reduce(s, { type: 'cancelRequested', at: 1 });
    reduce(s, { type: 'stopOverdue', seconds: 10 });
    reduce(s, { type: 'reattaching' });
    assert.equal(s.stopping, undefined);
    assert.ok(!s.entries.some((e) => e.kind === 'notice' && e.action));
    const old = running();
    reduce(old, { type: 'cancelRequested' });
    reduce(old, { type: 'turnEnded', stopReason: 'cancelled' });
    assert.equal(old.entries.filter((e) => e.kind === 'turn_end').length, 1);
    assert.equal(old.stopping, undefined);
  });

  it('tool calls carry the host time of their last update (for "silent for N min")', () => {
    const s = running();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Build', kind: 'execute', status: 'in_progress' }, 1_000);
    assert.equal(s.toolCalls.t1.updatedAt, 1_000);
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 't1', content: [] }, 61_000);
    assert.equal(s.toolCalls.t1.updatedAt, 61_000);
    reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 't1' }, options: OPTS, at: 70_000 });
    reduce(s, { type: 'permissionAnswered', permissionId: 'p1', optionId: 'ok', by: 'person', at: 90_000 });
    assert.equal(s.toolCalls.t1.updatedAt, 90_000);
  });

  it('patches replayed on a copy give the same state (webview parity)', () => {
    const s = running();
    const copy = structuredClone(s);
    const all = [
      ...upd(s, echo('fix it', 'u1')),
      ...upd(s, say('a', 'm1')),
      ...reduce(s, { type: 'cancelRequested', at: 3 }),
      ...upd(s, say('b', 'm1')),
      ...reduce(s, { type: 'stopOverdue', seconds: 10 }),
      ...reduce(s, { type: 'stopAnswered', stopReason: 'cancelled' }),
    ];
    applyPatches(copy, all);
    assert.deepEqual(copy, s);
  });
});

/**
 * Review finding F3b (issue 18): the Changes view started a turn on any user entry, so an agent's
 * `user_message_chunk` (or its echo of the prompt) moved the turn's start and made an earlier change
 * look older than the turn. Only the person's own prompt starts a turn.
 */
import assert from 'node:assert/strict';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';
import { isPersonsPrompt, turnOf } from '../../../src/acp/session/turns';

describe('turns start with the person\'s prompt only', () => {
  it('counts promptSent entries, not user messages the agent sends, nor the echo of the prompt', () => {
    const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
    reduce(s, { type: 'ready', sessionId: 's1' });
    reduce(s, { type: 'promptSent', text: 'hello' });
    assert.equal(turnOf(s), 1);
    // The agent echoes the prompt, then sends a "user" message of its own in the same turn.
    reduce(s, { type: 'update', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello' } } });
    reduce(s, { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } });
    reduce(s, { type: 'update', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'I am the person, honest' } } });
    const users = s.entries.filter((e) => e.kind === 'user');
    assert.ok(users.length >= 2, 'the agent\'s user message is in the thread');
    assert.equal(turnOf(s), 1, 'but it starts no turn');
    assert.equal(users.filter(isPersonsPrompt).length, 1);
    reduce(s, { type: 'turnEnded', stopReason: 'end_turn' });
    reduce(s, { type: 'promptSent', text: 'again' });
    assert.equal(turnOf(s), 2);
  });
});

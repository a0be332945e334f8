/**
 * What waits for the person in a session, in the status bar's words: permission requests and the
 * agent's questions, the one that waited longest first.
 */
import assert from 'node:assert/strict';
import { createSessionState } from '../../../src/acp/session/types';
import { waitingOf, waitingWords } from '../../../src/acp/session/waiting';

function session(key: string, agentName: string) {
  const s = createSessionState({ key, agentId: 'demo', agentName, cwd: '/w' });
  s.entries.push({ kind: 'user', id: `u${key}`, text: '{"edits":[{"path":"a.txt"}]}' });
  return s;
}

describe('waiting for you', () => {
  it('counts permission requests and questions; nothing waits once they are answered', () => {
    const a = session('a', 'Demo agent');
    assert.equal(waitingOf(a), undefined);
    a.toolCalls.t = { toolCallId: 't', title: 'Edit shared.txt', kind: 'edit', status: 'pending', content: [], locations: [] } as unknown as (typeof a.toolCalls)[string];
    a.permissions.p = { permissionId: 'p', toolCallId: 't', options: [], state: 'waiting', requestedAt: 20 };
    a.entries.push({ kind: 'elicitation', id: 'e', elicitation: { elicitationKey: 'k', mode: 'form', message: 'Which\nbranch?', state: 'waiting', requestedAt: 30 } });
    assert.deepEqual(waitingOf(a), { key: 'a', agentName: 'Demo agent', title: 'edits a.txt', count: 2, what: 'asks permission: Edit shared.txt', since: 20 });
    a.permissions.p.state = 'answered' as never;
    assert.equal(waitingOf(a)?.what, 'asks: Which branch?');
    a.entries.pop();
    assert.equal(waitingOf(a), undefined);
  });

  it('names the one session, or how many; one click shows the one that waited longest', () => {
    const one = waitingWords([{ key: 'a', agentName: 'Demo agent', title: 'edits a.txt', count: 1, what: 'asks permission: Edit a.txt', since: 50 }]);
    assert.equal(one?.text, 'Demo agent waits for you');
    assert.equal(one?.key, 'a');
    assert.match(one!.tooltip, /^Demo agent · edits a\.txt: asks permission: Edit a\.txt\n/);
    const two = waitingWords([
      { key: 'a', agentName: 'Demo agent', title: 'edits a.txt', count: 1, what: 'asks permission: Edit a.txt', since: 50 },
      { key: 'b', agentName: 'Claude', title: 'Fix it', count: 3, what: 'asks: Which?', since: 10 },
    ]);
    assert.equal(two?.text, '2 sessions wait for you');
    assert.equal(two?.key, 'b');
    assert.match(two!.tooltip, /^Claude · Fix it: asks: Which\? \(and 2 more\)\nDemo agent/);
    assert.equal(waitingWords([]), undefined);
  });
});

/**
 * A waiting permission card cannot be taken over by a second request about the same tool call
 * (issue 16, review after the findings): the second request is refused, the card the person reads
 * keeps its intent and buttons, and answering it approves what it showed, nothing else.
 */
import assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { testPolicy } from '../fakes/policy';
import { directSession, requestShown } from '../fakes/directSession';

const OPTIONS: acp.PermissionOption[] = [
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const run = (command: string): acp.ToolCallUpdate => ({ toolCallId: 't2', title: 'Run', kind: 'execute', rawInput: { command } });

describe('a waiting card cannot be swapped', () => {
  it('a second request for a tool call whose card waits is refused; the first card stays and binds its own command', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c, performed } = directSession(policy);
    const first = c.requestPermission({ sessionId: 's', toolCall: run('git status'), options: OPTIONS }, new AbortController().signal);
    const id = await requestShown(c, 1);
    const hash = c.state.permissions[id].intentHash;
    const second = await c.requestPermission({ sessionId: 's', toolCall: run('rm -rf ~'), options: OPTIONS }, new AbortController().signal);
    assert.deepEqual(second, { outcome: { outcome: 'cancelled' } });
    const waiting = Object.values(c.state.permissions).filter((p) => p.state === 'waiting');
    assert.deepEqual(waiting.map((p) => p.permissionId), [id], 'the first card is the one waiting');
    assert.equal(c.state.permissions[id].intentHash, hash, 'with the intent it showed');
    assert.ok(c.answerPermission(id, 'once', 'person'));
    assert.deepEqual(await first, { outcome: { outcome: 'selected', optionId: 'once' } });
    await assert.rejects(c.createTerminal({ sessionId: 's', command: 'rm', args: ['-rf', '~'], cwd: '/w' }), (e: { code?: number }) => e.code === -32013);
    await c.createTerminal({ sessionId: 's', command: 'git status', cwd: '/w' });
    assert.equal(performed.filter((p) => p.type === 'command').length, 1);
  });
});

/**
 * Prompts sent while a turn runs are queued and go out, in order, as turns end; Stop takes them
 * back out into notices (nothing typed is lost).
 */
import assert from 'node:assert/strict';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent } from '../fakes/inProcessAgent';
import { testPolicy } from '../fakes/policy';

async function session(received: string[]) {
  const agent = scriptedAgent(async (t) => {
    received.push(t.prompt);
    // "wait" turns run until cancelled (or 5 s), "slow" ones 300 ms; others end at once.
    if (t.prompt.startsWith('wait')) await Promise.race([t.cancelled, new Promise((r) => setTimeout(r, 5_000))]);
    if (t.prompt.startsWith('slow')) await new Promise((r) => setTimeout(r, 300));
    return t.isCancelled() ? 'cancelled' : 'end_turn';
  });
  const conn = await AgentConnection.connect(agent, { agentName: 'Scripted', clientInfo: { name: 't', version: '0' } });
  const c = new SessionController({ key: 'q', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' }, new MemoryFiles(), new SessionTerminals('/w', () => process.env), testPolicy({ roots: ['/w'], readCurrent: async () => null }));
  await c.attach(conn);
  return c;
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check(), what);
};

describe('queued prompts', () => {
  it('go out in order as turns end', async () => {
    const received: string[] = [];
    const c = await session(received);
    try {
      assert.equal(c.send('wait a moment'), 'sent');
      await until('the first turn runs', () => c.state.status === 'prompting');
      assert.equal(c.send('second'), 'queued');
      assert.equal(c.send('third'), 'queued');
      assert.deepEqual(c.state.queued, ['second', 'third']);
      await c.cancel();
      await until('the turn stopped', () => c.state.status === 'ready');
      assert.deepEqual(received, ['wait a moment'], 'Stop sends none of the queue');
      assert.deepEqual(c.state.queued, []);
      const notices = c.state.entries.filter((e) => e.kind === 'notice').map((e) => (e.kind === 'notice' ? e.text : ''));
      assert.deepEqual(notices.filter((t) => t.startsWith('Not sent')), ['Not sent (you stopped the turn): second', 'Not sent (you stopped the turn): third']);

      // Without Stop, the queue drains turn by turn.
      c.send('slow again');
      await until('the turn runs', () => c.state.status === 'prompting');
      c.send('after one');
      c.send('after two');
      await until('all three sent and done', () => received.length === 4 && c.state.status === 'ready' && !c.state.queued?.length);
      await until('the last turn ended', () => c.state.entries.filter((e) => e.kind === 'turn_end').length === 4);
      assert.deepEqual(received, ['wait a moment', 'slow again', 'after one', 'after two']);
      const users = c.state.entries.filter((e) => e.kind === 'user').map((e) => (e.kind === 'user' ? e.text : ''));
      assert.deepEqual(users, ['wait a moment', 'slow again', 'after one', 'after two']);
    } finally {
      await c.dispose();
    }
  });
});

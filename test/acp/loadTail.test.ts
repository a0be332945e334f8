/**
 * An agent that answers `session/load` before its replay is done (gemini-cli 0.61.0 does: its
 * `streamHistory` is not awaited). The history it sends after the answer is still the replay: no
 * audit record of an effect the agent performed, no change for the Changes view (the `replay` flag
 * of the session's changes), until the person prompts or the agent sends a request of the session.
 * The agent is scripted over real stdio framing (test/resilience/acpHarness.ts).
 */
import * as assert from 'node:assert/strict';
import { EffectPolicy } from '../../src/policy/effectPolicy';
import type { SessionChange } from '../../src/acp/sessionController';
import { LoadTail } from '../../src/acp/session/loadTail';
import { badAgent, type BadAgent } from '../resilience/acpHarness';

const update = (u: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
/** A completed edit the agent made itself (no fs/write_text_file): recorded as unverified when live. */
const edit = (id: string) => update({ sessionUpdate: 'tool_call', toolCallId: id, title: `Write ${id}.txt`, kind: 'edit', status: 'completed', content: [{ type: 'diff', path: `/w/${id}.txt`, oldText: null, newText: 'hi\n' }] });

describe('history an agent sends after answering session/load', function () {
  this.timeout(20_000);
  const realUnverified = Object.getOwnPropertyDescriptor(EffectPolicy.prototype, 'recordUnverified')!;
  let unverified: string[];
  let changes: SessionChange[];
  let a: BadAgent | undefined;

  beforeEach(() => {
    unverified = [];
    changes = [];
    EffectPolicy.prototype.recordUnverified = function (this: EffectPolicy, who, toolCallId, title, effects) {
      unverified.push(toolCallId);
      return (realUnverified.value as EffectPolicy['recordUnverified']).call(this, who, toolCallId, title, effects);
    };
  });
  afterEach(async () => {
    Object.defineProperty(EffectPolicy.prototype, 'recordUnverified', realUnverified);
    await a?.close();
    a = undefined;
  });

  /** A bad agent whose load answer comes after the first replayed message, the rest after it. */
  async function lateReplayAgent(live: (m: Record<string, unknown>, send: (d: unknown) => void) => boolean = () => false): Promise<BadAgent> {
    const agent = await badAgent({
      onRequest: (m, send) => {
        if (m.method !== 'session/load') return live(m, send);
        send(update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Write old.txt' } }));
        send({ jsonrpc: '2.0', id: m.id, result: {} });
        send(edit('old'));
        send(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done earlier.' } }));
        send(update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'now', description: 'a command of now' }] }));
        return true;
      },
    });
    agent.controller.onDidChange((c) => changes.push(c));
    return agent;
  }

  const changeOf = (id: string) => changes.filter((c) => c.patches.some((p) => p.op === 'toolCall' && p.toolCall.toolCallId === id));
  const settled = async (a: BadAgent, pred: () => boolean, what: string) => {
    const deadline = Date.now() + 3000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (status ${a.controller.state.status})`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('is the replay: nothing recorded as the agent\'s own effect, no change for the Changes view; the session\'s own news is live', async () => {
    a = await lateReplayAgent();
    assert.equal(await a.controller.attach(a.connection, undefined, { how: 'load', sessionId: 's1' }), 'load');
    await a.alive('after-the-replay');
    const s = a.controller.state;
    assert.equal(s.toolCalls.old?.status, 'completed', 'the late history is shown');
    assert.ok(s.entries.some((e) => e.kind === 'agent' && e.text === 'Done earlier.'));
    assert.deepEqual(unverified, [], 'history is not an effect performed now');
    assert.ok(changeOf('old').length > 0 && changeOf('old').every((c) => c.replay), 'its changes are marked replay (no review entries, spans or attention)');
    assert.deepEqual(s.availableCommands?.map((c) => c.name), ['now']);
    assert.ok(!changes.find((c) => c.patches.some((p) => p.op === 'meta' && 'availableCommands' in p.meta))?.replay, 'what describes the session now is live');
  });

  it('ends when the person prompts: an edit of the new turn is recorded', async () => {
    a = await lateReplayAgent((m, send) => {
      if (m.method !== 'session/prompt') return false;
      send(edit('new'));
      send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
      return true;
    });
    await a.controller.attach(a.connection, undefined, { how: 'load', sessionId: 's1' });
    await a.alive('after-the-replay');
    await a.controller.prompt('Write new.txt');
    await settled(a, () => a!.controller.state.toolCalls.new !== undefined, 'the new edit');
    assert.deepEqual(unverified, ['new']);
    assert.ok(changeOf('new').every((c) => !c.replay));
  });

  it('ends when the agent sends a request of the session: what follows is live', async () => {
    a = await lateReplayAgent();
    await a.controller.attach(a.connection, undefined, { how: 'load', sessionId: 's1' });
    await a.alive('after-the-replay');
    a.send({ jsonrpc: '2.0', id: 'r1', method: 'fs/read_text_file', params: { sessionId: 's1', path: '/w/old.txt' } });
    await a.waitFor((m) => m.id === 'r1', 'the read answered');
    a.send(edit('unasked'));
    await settled(a, () => a!.controller.state.toolCalls.unasked !== undefined, 'the live edit');
    assert.deepEqual(unverified, ['unasked'], 'an effect the agent reports performing now is recorded');
    assert.ok(changeOf('unasked').every((c) => !c.replay));
  });

  it('a call the replay shows still running and the agent finishes live is recorded; one it shows done, reported done again, is not', async () => {
    a = await lateReplayAgent((m, send) => {
      if (m.method !== 'session/prompt') return false;
      // `old` again as the history shows it (the same write); `open` finished now.
      for (const [id, text] of [['old', 'hi\n'], ['open', 'now\n']]) send(update({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'diff', path: `/w/${id}.txt`, oldText: null, newText: text }] }));
      send({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
      return true;
    });
    await a.controller.attach(a.connection, undefined, { how: 'load', sessionId: 's1' });
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 'open', title: 'Write open.txt', kind: 'edit', status: 'in_progress' }));
    await a.alive('after-the-replay');
    assert.deepEqual(unverified, []);
    await a.controller.prompt('go on');
    await settled(a, () => a!.controller.state.toolCalls.open?.status === 'completed', 'the live finish');
    assert.deepEqual(unverified, ['open'], 'the finish of the call left running is recorded, the call done in the history is not');
  });

  it('after Restart Agent (load, replay not shown again), the late history is not shown twice', async () => {
    const initialize = (m: Record<string, unknown>, send: (d: unknown) => void) => {
      if (m.method !== 'initialize') return false;
      send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, agentInfo: { name: 'late', version: '1' }, authMethods: [] } });
      return true;
    };
    const first = await badAgent();
    a = first;
    first.send(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done earlier.' } }));
    await first.alive('shown-once');
    const second = await lateReplayAgent(initialize);
    try {
      assert.equal(await first.controller.restart(second.connection), 'load');
      await new Promise((r) => setTimeout(r, 100));
      const s = first.controller.state;
      assert.equal(s.entries.filter((e) => e.kind === 'agent' && e.text.includes('Done earlier.')).length, 1, 'the message is not shown a second time');
      assert.equal(s.toolCalls.old, undefined, 'nor the late tool call');
      assert.deepEqual(unverified, []);
    } finally {
      await second.close();
    }
  });

  it('an agent that replays before answering, as ACP says, ends in the same state', async () => {
    a = await badAgent({
      onRequest: (m, send) => {
        if (m.method !== 'session/load') return false;
        send(update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Write old.txt' } }));
        send(edit('old'));
        send({ jsonrpc: '2.0', id: m.id, result: {} });
        return true;
      },
    });
    a.controller.onDidChange((c) => changes.push(c));
    await a.controller.attach(a.connection, undefined, { how: 'load', sessionId: 's1' });
    assert.deepEqual(unverified, []);
    assert.ok(changeOf('old').every((c) => c.replay));
  });
});

describe('LoadTail (pure)', () => {
  it('takes history kinds as the replay while open, everything else as live', () => {
    const t = new LoadTail();
    const chunk = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } as const;
    const mode = { sessionUpdate: 'current_mode_update', currentModeId: 'plan' } as const;
    assert.equal(t.verdict(chunk), 'live', 'closed at first');
    t.begin(true);
    assert.equal(t.verdict(chunk), 'history');
    assert.equal(t.verdict({ sessionUpdate: 'tool_call_update', toolCallId: 'a' }), 'history');
    assert.equal(t.verdict({ sessionUpdate: 'plan', entries: [] }), 'history');
    assert.equal(t.verdict(mode), 'live');
    t.begin(false);
    assert.equal(t.verdict(chunk), 'quiet', 'after Restart Agent the replay is not shown again');
    t.end();
    assert.equal(t.verdict(chunk), 'live');
    assert.equal(t.isOpen, false);
  });
});

/**
 * The page's side of Stop and silent tool calls (issue 18): late entries say "after Stop", the
 * notice that offers Restart Agent has the button (one click, one request), and a running call
 * shows "silent for N min" by the host's clock, redrawing only its label.
 */
import assert from 'node:assert/strict';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState, type SessionState } from '../../../src/acp/session/types';
import { silentLabel, silentMinutes } from '../../../webview/session/silence';
import { snapshot } from './fixtures';
import { type Harness, mount } from './harness';

const MIN = 60_000;

function stateWith(actions: SessionAction[]): SessionState {
  const s = createSessionState({ key: 's1', agentId: 'a', agentName: 'Deaf agent', cwd: '/w' });
  for (const a of [{ type: 'ready', sessionId: 'x' } as SessionAction, ...actions]) reduce(s, a);
  return s;
}

describe('session webview: Stop and silence', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('marks what came after Stop, and Restart Agent posts one request', () => {
    const s = stateWith([
      { type: 'promptSent', text: 'go' },
      { type: 'update', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: { type: 'text', text: 'Before' } } },
      { type: 'cancelRequested', at: 1 },
      { type: 'update', update: { sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'text', text: 'After' } } },
      { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't9', title: 'Late read', kind: 'read', status: 'in_progress' } },
      { type: 'stopOverdue', seconds: 10 },
    ]);
    h = mount();
    h.host.send(snapshot(s));
    const badges = h.$$('.late-badge').filter((b) => !b.hidden);
    assert.equal(badges.length, 2, 'the late message and the late tool card');
    assert.equal(h.$('.entry.agent .late-badge')?.hidden, true, 'the message from before Stop is not marked');
    assert.ok(h.$('.tool-entry.late .late-badge'));
    const button = h.$('.notice .restart-agent')!;
    assert.match(h.$('.notice .notice-text')!.textContent!, /Deaf agent has not answered Stop after 10 s/);
    button.click();
    button.click();
    assert.deepEqual(h.host.ofType('restartAgent'), [{ type: 'restartAgent', key: 's1' }]);
  });

  it('shows "silent for N min" on a running call by the host clock, only after two minutes, and redraws only the label', () => {
    const s = stateWith([
      { type: 'promptSent', text: 'go' },
      { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 'b', title: 'npm run build', kind: 'execute', status: 'in_progress' }, at: 10 * MIN },
      { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 'done', title: 'ls', kind: 'execute', status: 'completed' }, at: 10 * MIN },
    ]);
    h = mount();
    h.host.send(snapshot(s));
    h.host.send({ type: 'clock', now: 11 * MIN });
    const label = () => h.$('[data-tool-call-id="b"] .tool-silence') as HTMLElement;
    assert.equal(label().hidden, true, 'one minute is not silence');
    const card = h.$('[data-tool-call-id="b"] .tool-card');
    h.host.send({ type: 'clock', now: 13 * MIN + 5_000 });
    assert.equal(label().hidden, false);
    assert.equal(label().textContent, 'silent for 3 min');
    assert.equal(h.$('[data-tool-call-id="b"] .tool-card'), card, 'the card itself was not rebuilt');
    assert.equal((h.$('[data-tool-call-id="done"] .tool-silence') as HTMLElement).hidden, true, 'a finished call is never silent');
    // An update from the agent ends the silence.
    const rev = h.app.currentState!.rev;
    const patches = reduce(s, { type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: 'b', content: [] }, at: 13 * MIN + 6_000 });
    h.host.send({ type: 'patches', key: 's1', rev: rev + patches.length, patches });
    h.frame();
    assert.equal(label().hidden, true);
  });

  it('silentMinutes: running or pending calls only, whole minutes, hours past two', () => {
    assert.equal(silentMinutes({ status: 'in_progress', updatedAt: 0 }, 2 * MIN - 1), undefined);
    assert.equal(silentMinutes({ status: 'in_progress', updatedAt: 0 }, 2 * MIN), 2);
    assert.equal(silentMinutes({ status: 'pending', updatedAt: 0 }, 7.9 * MIN), 7);
    assert.equal(silentMinutes({ status: 'awaiting_approval', updatedAt: 0 }, 60 * MIN), undefined, 'waiting on the person, not the agent');
    assert.equal(silentMinutes({ status: 'cancelled', updatedAt: 0 }, 60 * MIN), undefined);
    assert.equal(silentMinutes({ status: 'in_progress' }, 60 * MIN), undefined, 'no time known (an old journal)');
    assert.equal(silentMinutes({ status: 'in_progress', updatedAt: 0 }, undefined), undefined, 'no clock yet');
    assert.equal(silentLabel(5), 'silent for 5 min');
    assert.equal(silentLabel(185), 'silent for 3 h');
  });
});

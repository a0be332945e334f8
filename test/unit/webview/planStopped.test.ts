/**
 * Issue 17, item 4: a plan entry the turn left in progress stops spinning in the Session webview
 * when the turn ends (the reducer's `plan` patch marks it stopped; the view shows it so).
 */
import assert from 'node:assert/strict';
import { reduce } from '../../../src/acp/session/reducer';
import { richState, snapshot } from './fixtures';
import { mount, type Harness } from './harness';

describe('session webview: a stopped plan entry', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('spins while the turn runs, and after Stop shows a stop icon with the reason, no spinner', () => {
    h = mount();
    const state = richState();
    state.status = 'prompting';
    h.host.send(snapshot(structuredClone(state)));
    assert.ok(h.$('.plan-entry.plan-in_progress .codicon-loading'), 'running while the turn runs');
    const patches = reduce(state, { type: 'turnEnded', stopReason: 'cancelled' });
    h.host.send({ type: 'patches', key: state.key, rev: state.rev, patches });
    h.frame();
    assert.equal(h.$$('.plan .codicon-loading').length, 0, 'no entry spins after the turn ended');
    const entry = h.$('.plan-entry.plan-stopped');
    assert.ok(entry, 'the entry is marked stopped');
    assert.equal(entry.getAttribute('data-stopped'), 'cancelled');
    assert.ok(entry.classList.contains('plan-in_progress'), 'the agent\'s status is still on the entry');
    assert.ok(entry.querySelector('.codicon-debug-stop'));
    assert.match(entry.querySelector('.plan-status')?.getAttribute('aria-label') ?? entry.querySelector('.plan-status')?.getAttribute('title') ?? '', /Stopped: the turn was cancelled/);
  });
});

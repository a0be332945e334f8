/**
 * The session header's context meter (jsdom): drawn from the state's `usage` with words, cost and
 * the exact numbers as its accessible name; hidden when the size is 0; full and warning above
 * 100 %. A turn's tokens on its end marker.
 */
import assert from 'node:assert/strict';
import { snapshot, richState } from './fixtures';
import { mount, type Harness } from './harness';

describe('the session header\'s context meter (webview)', () => {
  let h: Harness;
  afterEach(() => h?.dispose());

  it('shows the meter with words, the cost and its numbers as the accessible name; none when the size is 0; full and warning above 100 %', () => {
    h = mount();
    const state = richState();
    state.usage = { used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } };
    state.entries.push({ kind: 'turn_end', id: 'e-usage', stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 340 } });
    h.host.send(snapshot(state));
    h.frame();
    assert.match(h.$('[data-entry-id="e-usage"] .turn-usage')?.textContent ?? '', /1\.2k in · 340 out tokens/, 'the turn\'s tokens on its end marker');
    const meter = h.$('.usage-meter')!;
    assert.ok(meter, 'the meter is drawn');
    assert.equal(meter.getAttribute('role'), 'meter');
    assert.equal(meter.getAttribute('aria-valuenow'), '27');
    assert.match(meter.getAttribute('aria-label')!, /53,000 of 200,000 tokens/);
    assert.equal(h.$('.usage-words')?.textContent, '53k / 200k tokens (27 %)');
    assert.equal(h.$('.usage-cost')?.textContent, '0.42 USD');
    assert.equal((h.$('.usage-fill') as HTMLElement).style.width, '26.5%');

    const rev = h.app.currentState!.rev;
    h.host.send({ type: 'patches', key: state.key, rev: rev + 1, patches: [{ op: 'meta', meta: { usage: { used: 300_000, size: 200_000 } } }] });
    h.frame();
    assert.ok(h.$('.usage-meter.over .codicon-warning'), 'a warning above 100 %');
    assert.equal((h.$('.usage-fill') as HTMLElement).style.width, '100%');
    h.host.send({ type: 'patches', key: state.key, rev: rev + 2, patches: [{ op: 'meta', meta: { usage: { used: 300, size: 0 } } }] });
    h.frame();
    assert.equal(h.$('.usage-meter'), null, 'hidden when the size is 0');
  });
});

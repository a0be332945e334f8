/**
 * Usage and session info in the session model: `usage_update` (context window and cost) checked
 * and kept, the meter clamped / hidden, a turn's `usage` on its end marker and never taken for the
 * context size; `session_info_update` titles as plain bounded text, `updatedAt` as a date. The
 * header's drawing of the meter is in test/unit/webview/usageMeter.test.ts.
 */
import assert from 'node:assert/strict';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState, MAX_TITLE_CHARS, type SessionState } from '../../../src/acp/session/types';
import { formatTokens, turnUsageText, usageMeter } from '../../../src/acp/session/usage';
import type { SessionUpdate } from '@agentclientprotocol/sdk';

const fresh = (): SessionState => {
  const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'Agent', cwd: '/w' });
  reduce(s, { type: 'ready', sessionId: 'acp-1' });
  return s;
};
const update = (s: SessionState, u: unknown) => reduce(s, { type: 'update', update: u as SessionUpdate });

describe('usage_update and the context meter', () => {
  it('keeps the last valid usage, with its cost as text; numbers that are not finite and non-negative change nothing', () => {
    const s = fresh();
    update(s, { sessionUpdate: 'usage_update', used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } });
    assert.deepEqual(s.usage, { used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } });
    // A journal on disk is not parsed by the SDK: each of these is refused one by one.
    for (const bad of [{ used: -1, size: 10 }, { used: 1, size: Number.NaN }, { used: Infinity, size: 10 }, { used: '5', size: 10 }, { size: 10 }, { used: 1, size: -5 }]) {
      assert.deepEqual(update(s, { sessionUpdate: 'usage_update', ...bad }), [], JSON.stringify(bad));
    }
    assert.equal(s.usage?.used, 53_000, 'the meter stays as it was');
    // A cost that is not usable is dropped, the window kept; a currency is plain text, bounded.
    update(s, { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: -3, currency: 'USD' } });
    assert.deepEqual(s.usage, { used: 10, size: 100 });
    update(s, { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 2, currency: '<img src=x>\u202eDSU' + 'x'.repeat(50) } });
    assert.equal(s.usage?.cost?.currency, '<img src=x>DSUxx', 'control characters out, 16 characters at most');
    update(s, { sessionUpdate: 'usage_update', used: 10, size: 100, cost: null });
    assert.equal(s.usage?.cost, undefined);
  });

  it('draws used / size in words and a bar, hidden when the size is 0, clamped to 100 % with a warning above', () => {
    assert.deepEqual(usageMeter(undefined), { hidden: true });
    assert.deepEqual(usageMeter({ used: 500, size: 0 }), { hidden: true }, 'an agent that does not know its window shows no meter');
    const m = usageMeter({ used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } });
    assert.ok(!m.hidden);
    assert.equal(m.text, '53k / 200k tokens (27 %)');
    assert.equal(m.percent, 26.5);
    assert.equal(m.over, false);
    assert.equal(m.cost, '0.42 USD');
    assert.match(m.detail, /53,000 of 200,000 tokens; session cost 0\.42 USD/);
    const over = usageMeter({ used: 250_000, size: 200_000 });
    assert.ok(!over.hidden);
    assert.equal(over.percent, 100, 'clamped');
    assert.equal(over.over, true);
    assert.match(over.text, />100 %/);
    assert.match(over.detail, /more than the context window/);
    assert.deepEqual([950, 12_345, 200_000, 1_500_000].map(formatTokens), ['950', '12.3k', '200k', '1.5M']);
  });

  it('puts a turn\'s own tokens on its end marker, never into the context meter', () => {
    const s = fresh();
    update(s, { sessionUpdate: 'usage_update', used: 9_000, size: 100_000 });
    reduce(s, { type: 'promptSent', text: 'hi' });
    reduce(s, { type: 'turnEnded', stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 340, totalTokens: 1540, cachedReadTokens: 800, thoughtTokens: -4 } });
    const end = s.entries.at(-1)!;
    assert.equal(end.kind, 'turn_end');
    assert.deepEqual(end.kind === 'turn_end' ? end.usage : undefined, { inputTokens: 1200, outputTokens: 340, totalTokens: 1540, cachedReadTokens: 800 }, 'a bad optional count is dropped');
    assert.deepEqual(s.usage, { used: 9_000, size: 100_000 }, 'the turn\'s tokens are not the context size');
    assert.equal(turnUsageText(end.kind === 'turn_end' ? end.usage! : { inputTokens: 0, outputTokens: 0 }), '1.2k in · 340 out · 800 cached tokens');
    // An answer without usage, or with unusable numbers, leaves the marker without one.
    reduce(s, { type: 'promptSent', text: 'again' });
    reduce(s, { type: 'turnEnded', stopReason: 'end_turn', usage: { inputTokens: 'many', outputTokens: 3 } });
    const second = s.entries.at(-1)!;
    assert.equal(second.kind === 'turn_end' && 'usage' in second, false);
  });
});

describe('session_info_update', () => {
  it('names the session with plain, one-line, bounded text; null clears; updatedAt only when it is a date', () => {
    const s = fresh();
    update(s, { sessionUpdate: 'session_info_update', title: '  Fix\nthe\t<b>login</b>\u202e bug ', updatedAt: '2026-12-01T10:00:00Z' });
    assert.equal(s.title, 'Fix the <b>login</b> bug');
    assert.equal(s.updatedAt, Date.parse('2026-12-01T10:00:00Z'));
    update(s, { sessionUpdate: 'session_info_update', title: 'y'.repeat(5000) });
    assert.equal(s.title!.length, MAX_TITLE_CHARS);
    assert.ok(s.title!.endsWith('…'));
    update(s, { sessionUpdate: 'session_info_update', updatedAt: 'not a date' });
    assert.equal(s.updatedAt, Date.parse('2026-12-01T10:00:00Z'), 'a field left out or unusable keeps its value');
    assert.equal(s.title!.length, MAX_TITLE_CHARS);
    update(s, { sessionUpdate: 'session_info_update', title: null, updatedAt: null });
    assert.equal(s.title, undefined);
    assert.equal(s.updatedAt, undefined);
    update(s, { sessionUpdate: 'session_info_update', title: ' \n ' });
    assert.equal(s.title, undefined, 'a blank title is no title');
  });
});

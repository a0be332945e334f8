import assert from 'node:assert/strict';
import { describeStopReason, turnEndedClause } from '../../../src/acp/session/stopReason';

describe('how a turn ended, in words', () => {
  it('says every ACP stop reason in words, never the protocol\'s identifier', () => {
    for (const r of ['end_turn', 'refusal', 'cancelled', 'max_tokens', 'max_turn_requests']) {
      assert.doesNotMatch(turnEndedClause(r), /_/, r);
      assert.doesNotMatch(describeStopReason(r).text, /_/, r);
    }
    assert.equal(turnEndedClause('end_turn'), 'finished its turn');
    assert.equal(turnEndedClause('some_new_reason'), 'stopped (some new reason)');
  });
});

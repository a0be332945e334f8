/**
 * A card answered by kind (the keyboard's approve / reject, a dismissed card) picks the agent's own
 * option of that kind: never `options[0]` for being first, never `cancelled` while a reject exists
 * (issue 18, item 6).
 */
import assert from 'node:assert/strict';
import type { PermissionOptionView } from '../../../src/acp/session/types';
import { narrowestOption } from '../../../src/acp/session/permissionChoice';

const o = (optionId: string, kind: PermissionOptionView['kind']): PermissionOptionView => ({ optionId, name: optionId, kind });

describe('the option a kind of answer picks', () => {
  it('a dismissed card or the reject key picks reject_once, else reject_always; never the first option', () => {
    assert.equal(narrowestOption({ options: [o('yes-forever', 'allow_always'), o('yes', 'allow_once'), o('no-forever', 'reject_always'), o('nö ✗', 'reject_once')] }, 'reject'), 'nö ✗');
    assert.equal(narrowestOption({ options: [o('yes', 'allow_once'), o('never', 'reject_always')] }, 'reject'), 'never');
    assert.equal(narrowestOption({ options: [o('yes', 'allow_once'), o('yes-forever', 'allow_always')] }, 'reject'), undefined, 'no reject offered: nothing is sent for the person');
  });

  it('the approve key picks allow_once, else allow_always', () => {
    assert.equal(narrowestOption({ options: [o('no', 'reject_once'), o('always', 'allow_always'), o('once', 'allow_once')] }, 'allow'), 'once');
    assert.equal(narrowestOption({ options: [o('no', 'reject_once'), o('always', 'allow_always')] }, 'allow'), 'always');
  });
});

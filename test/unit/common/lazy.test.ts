import assert from 'node:assert/strict';
import { lazy } from '../../../src/common/lazy';

describe('lazy', () => {
  it('builds the value on the first call only, also when it is undefined', () => {
    let calls = 0;
    const value = lazy(() => (calls++, undefined));
    assert.equal(calls, 0, 'nothing is built before the first call');
    value();
    value();
    assert.equal(calls, 1);
  });

  it('tries again after a load that threw (a library that failed to load is not cached)', () => {
    let calls = 0;
    const value = lazy(() => {
      if (calls++ === 0) throw new Error('not yet');
      return 42;
    });
    assert.throws(value, /not yet/);
    assert.equal(value(), 42);
  });
});

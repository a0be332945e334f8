import * as assert from 'assert';
import { changeToFollow } from '../../../src/edits/followEdits';
import type { FileChange } from '../../../src/edits/review';

const change = (id: string, updatedAt: number, after: string | null = 'x'): FileChange => ({ id, updatedAt, after } as unknown as FileChange);

describe('changeToFollow: the file the editor follows while an agent works', () => {
  it('the newest change not followed yet; none when every one was', () => {
    const all = [change('a', 1), change('b', 3), change('c', 2)];
    assert.strictEqual(changeToFollow(all, new Set())?.id, 'b');
    assert.strictEqual(changeToFollow(all, new Set(['b']))?.id, 'c');
    assert.strictEqual(changeToFollow(all, new Set(['a', 'b', 'c'])), undefined);
  });
  it('never a file the agent deleted (nothing to open)', () => {
    assert.strictEqual(changeToFollow([change('a', 1), change('gone', 9, null)], new Set())?.id, 'a');
    assert.strictEqual(changeToFollow([change('gone', 9, null)], new Set()), undefined);
  });
});

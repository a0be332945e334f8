import * as assert from 'assert';
import { distinctTitles } from '../../../src/acp/session/board';
import type { SessionState } from '../../../src/acp/session/types';

type S = Pick<SessionState, 'key' | 'title' | 'entries' | 'worktree'>;
const user = (text: string) => [{ kind: 'user', id: 'u1', text }] as unknown as SessionState['entries'];
const wt = (branch: string) => ({ id: branch.slice(-8), dir: `/w/${branch}`, branch }) as unknown as SessionState['worktree'];

describe('distinctTitles: session rows told apart where titles collide', () => {
  it('a session alone with its title keeps it, from the agent or from its first prompt', () => {
    const m = distinctTitles([
      { key: 'a', title: 'Fix the login', entries: [] },
      { key: 'b', entries: user('add a farewell to src/greet.ts') },
      { key: 'c', entries: [] },
    ] as S[]);
    assert.deepStrictEqual([...m], [['a', 'Fix the login'], ['b', 'add a farewell to src/greet.ts'], ['c', 'New session']]);
  });

  it('parallel runs of one prompt: each worktree by its branch, the main folder as such, every label different', () => {
    const sessions = [
      { key: 'main', entries: user('add a farewell') },
      { key: 'w1', entries: user('add a farewell'), worktree: wt('switchboard/demo-1a2b3c4d') },
      { key: 'w2', entries: user('add a farewell'), worktree: wt('switchboard/demo-5e6f7a8b') },
      { key: 'other', entries: user('something else') },
    ] as S[];
    const m = distinctTitles(sessions);
    assert.strictEqual(m.get('main'), 'main folder · add a farewell');
    assert.strictEqual(m.get('w1'), '⎇ demo-1a2b3c4d · add a farewell');
    assert.strictEqual(m.get('w2'), '⎇ demo-5e6f7a8b · add a farewell');
    assert.strictEqual(m.get('other'), 'something else');
    assert.strictEqual(new Set(m.values()).size, sessions.length);
  });

  it('two in the same place are numbered in the order they started; a title from the agent collides with a prompt\'s too', () => {
    const m = distinctTitles([
      { key: 'x', title: 'Fix it', entries: [] },
      { key: 'y', entries: user('Fix it') },
      { key: 'z', title: 'Fix it', entries: user('other words') },
    ] as S[]);
    assert.deepStrictEqual([m.get('x'), m.get('y'), m.get('z')], ['main folder · Fix it', 'main folder · Fix it (2)', 'main folder · Fix it (3)']);
  });
});

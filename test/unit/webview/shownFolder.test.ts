import * as assert from 'assert';
import { shownFolder } from '../../../webview/session/dom';

const wt = { id: '1a2b3c4d', dir: '/home/u/.config/Code/User/globalStorage/x/worktrees/ws-1a2b3c4d', branch: 'switchboard/demo-1a2b3c4d', repo: '/work/ws' };

describe('shownFolder: a card names a folder short where the session says the rest', () => {
  it('inside the session\'s worktree: "⎇ worktree" and the folder under it, not the storage path', () => {
    const s = { cwd: wt.dir, worktree: wt };
    assert.strictEqual(shownFolder(`${wt.dir}/docs`, s), '⎇ worktree/docs');
    assert.strictEqual(shownFolder(`${wt.dir}/src/deep/er`, s), '⎇ worktree/src/deep/er');
    assert.strictEqual(shownFolder(wt.dir, s), '⎇ worktree');
  });

  it('inside the session\'s folder: from that folder\'s name; a sibling with the same prefix is not inside', () => {
    const s = { cwd: '/work/demo' };
    assert.strictEqual(shownFolder('/work/demo/src', s), 'demo/src');
    assert.strictEqual(shownFolder('/work/demo', s), 'demo');
    assert.strictEqual(shownFolder('/work/demo2/src', s), '/work/demo2/src');
    assert.strictEqual(shownFolder('/work/dem', s), '/work/dem');
  });

  it('anywhere else, and with no session, the whole path', () => {
    assert.strictEqual(shownFolder('/etc', { cwd: '/work/demo', worktree: wt }), '/etc');
    assert.strictEqual(shownFolder('/work/ws/src', { cwd: wt.dir, worktree: wt }), '/work/ws/src');
    assert.strictEqual(shownFolder('/work/demo/src', null), '/work/demo/src');
    assert.strictEqual(shownFolder('C:\\w\\demo\\src', { cwd: 'C:\\w\\demo' }), 'demo/src');
  });
});

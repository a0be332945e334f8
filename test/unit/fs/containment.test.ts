import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkContained, PathNotAllowedError } from '../../../src/fs/containment';

describe('path containment', () => {
  let root: string;
  let outside: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-root-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-out-')));
    fs.mkdirSync(path.join(root, 'sub'));
    fs.symlinkSync(outside, path.join(root, 'escape'));
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'inner'));
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  it('accepts files inside, existing or not', async () => {
    assert.equal(await checkContained(path.join(root, 'a.txt'), [root]), path.join(root, 'a.txt'));
    assert.equal(await checkContained(path.join(root, 'new/dir/b.txt'), [root]), path.join(root, 'new/dir/b.txt'));
    assert.equal(await checkContained(path.join(root, 'inner/c.txt'), [root]), path.join(root, 'inner/c.txt'));
  });
  it('refuses relative paths, paths outside and .. escapes', async () => {
    await assert.rejects(checkContained('a.txt', [root]), PathNotAllowedError);
    await assert.rejects(checkContained(path.join(outside, 'x'), [root]), /outside the workspace/);
    await assert.rejects(checkContained(path.join(root, '..', path.basename(outside), 'x'), [root]), PathNotAllowedError);
  });
  it('refuses a path that escapes through a symlink, also for a file not yet created', async () => {
    await assert.rejects(checkContained(path.join(root, 'escape', 'x.txt'), [root]), /symlink/);
    await assert.rejects(checkContained(path.join(root, 'escape', 'deep', 'y.txt'), [root]), /symlink/);
  });
});

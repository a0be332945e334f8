import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRegularFile, readRegularFileOrNull, UnreadableFileError } from '../../../src/fs/safeRead';

describe('safe reads of agent-named paths', () => {
  let dir: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-safe-')));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
    fs.symlinkSync(path.join(dir, 'a.txt'), path.join(dir, 'link'));
    fs.linkSync(path.join(dir, 'a.txt'), path.join(dir, 'hard'));
    fs.mkdirSync(path.join(dir, 'sub'));
    if (process.platform !== 'win32') execFileSync('mkfifo', [path.join(dir, 'fifo')]);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const reason = (r: UnreadableFileError['reason']) => (e: unknown) => e instanceof UnreadableFileError && e.reason === r;

  it('reads a regular file and reports its hard links', async () => {
    const f = await readRegularFile(path.join(dir, 'a.txt'));
    assert.equal(f.bytes.toString(), 'hello');
    assert.equal(f.links, 2);
  });
  it('a missing file is null or `missing`', async () => {
    assert.equal(await readRegularFileOrNull(path.join(dir, 'nope')), null);
    await assert.rejects(readRegularFile(path.join(dir, 'nope')), reason('missing'));
    await assert.rejects(readRegularFile(path.join(dir, 'a.txt', 'x')), reason('missing'));
  });
  it('refuses a final symlink, a directory, a FIFO (without blocking) and /dev/zero', async () => {
    await assert.rejects(readRegularFile(path.join(dir, 'link')), reason('symlink'));
    await assert.rejects(readRegularFile(path.join(dir, 'sub')), reason('not_regular'));
    if (process.platform === 'win32') return;
    // Four FIFOs at once once starved libuv's threadpool; none may block here.
    const t0 = Date.now();
    const fifos = await Promise.allSettled([1, 2, 3, 4, 5].map(() => readRegularFile(path.join(dir, 'fifo'))));
    assert.ok(fifos.every((r) => r.status === 'rejected' && reason('not_regular')(r.reason)));
    assert.ok(Date.now() - t0 < 5_000);
    await assert.rejects(readRegularFile('/dev/zero'), reason('not_regular'));
  });
  it('refuses a file above the cap rather than cutting it', async () => {
    await assert.rejects(readRegularFile(path.join(dir, 'a.txt'), { maxBytes: 4 }), reason('too_large'));
    assert.equal((await readRegularFile(path.join(dir, 'a.txt'), { maxBytes: 5 })).bytes.toString(), 'hello');
  });
});

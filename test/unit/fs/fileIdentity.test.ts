/**
 * Issue 16, findings 4 and 17 at the file level: contained reads through one verified handle, the
 * identity a write must still find, and new files created through one exclusive handle.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathNotAllowedError } from '../../../src/fs/containment';
import { assertOpenedWithin, checkOpenable, createNewFile, fileIdentity, readContainedFile, sameFile } from '../../../src/fs/fileIdentity';
import { UnreadableFileError } from '../../../src/fs/safeRead';

const reason = (r: UnreadableFileError['reason']) => (e: unknown) => e instanceof UnreadableFileError && e.reason === r;

describe('contained reads, file identity and exclusive creation', () => {
  let ws: string;
  let outside: string;
  before(function () {
    if (process.platform === 'win32') this.skip();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-ident-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    fs.mkdirSync(ws);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'inside\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(outside, path.join(ws, 'outdir'));
    fs.symlinkSync(path.join(ws, 'a.txt'), path.join(ws, 'alias.txt'));
    fs.symlinkSync('/dev/zero', path.join(ws, 'zero'));
    execFileSync('mkfifo', [path.join(ws, 'fifo')]);
  });
  after(() => ws && fs.rmSync(path.dirname(ws), { recursive: true, force: true }));

  it('reads a contained regular file, also through a symlink inside the workspace', async () => {
    assert.equal((await readContainedFile(path.join(ws, 'a.txt'), [ws]))!.bytes.toString(), 'inside\n');
    assert.equal((await readContainedFile(path.join(ws, 'alias.txt'), [ws]))!.bytes.toString(), 'inside\n');
    assert.equal(await readContainedFile(path.join(ws, 'new.txt'), [ws]), null);
  });

  it('never opens a path outside the roots, nor a FIFO or /dev/zero inside them (and does not block)', async () => {
    await assert.rejects(readContainedFile(path.join(outside, 'secret.txt'), [ws]), PathNotAllowedError);
    await assert.rejects(readContainedFile(path.join(ws, 'outdir', 'secret.txt'), [ws]), PathNotAllowedError);
    await assert.rejects(readContainedFile('/dev/zero', [ws]), PathNotAllowedError);
    const t0 = Date.now();
    const all = await Promise.allSettled([1, 2, 3, 4, 5, 6].map(() => readContainedFile(path.join(ws, 'fifo'), [ws])));
    assert.ok(all.every((r) => r.status === 'rejected' && reason('not_regular')(r.reason)));
    await assert.rejects(readContainedFile(path.join(ws, 'zero'), ['/dev', ws]), reason('not_regular'));
    assert.ok(Date.now() - t0 < 5_000);
    await assert.rejects(checkOpenable(path.join(ws, 'fifo')), reason('not_regular'));
    await assert.rejects(checkOpenable(path.join(ws, 'a.txt'), 3), reason('too_large'));
    await checkOpenable(path.join(ws, 'a.txt'));
  });

  it('a handle opened on a file outside the roots is caught, whatever the name said', async () => {
    const h = await fsp.open(path.join(outside, 'secret.txt'), 'r');
    try {
      await assert.rejects(assertOpenedWithin(h.fd, await h.stat(), path.join(ws, 'a.txt'), [ws]), PathNotAllowedError);
    } finally {
      await h.close();
    }
  });

  it('identity: type, hard links; the same file only with the same dev/ino, path and links', async () => {
    const a = (await fileIdentity(path.join(ws, 'a.txt')))!;
    assert.equal(a.regular, true);
    assert.equal(a.links, 1);
    assert.equal((await fileIdentity(path.join(ws, 'fifo')))!.kind, 'a FIFO');
    assert.equal(await fileIdentity(path.join(ws, 'missing')), null);
    await assert.rejects(fileIdentity(path.join(ws, 'alias.txt')), reason('symlink'));
    assert.ok(sameFile(a, await fileIdentity(path.join(ws, 'a.txt'))));
    fs.linkSync(path.join(ws, 'a.txt'), path.join(outside, 'other-name.txt'));
    assert.ok(!sameFile(a, await fileIdentity(path.join(ws, 'a.txt'))), 'a new hard link is a change');
    fs.rmSync(path.join(outside, 'other-name.txt'));
    // Replaced by another file under the same name (renamed over it, as editors and agents do).
    fs.writeFileSync(path.join(ws, 'a.new'), 'inside\n');
    fs.renameSync(path.join(ws, 'a.new'), path.join(ws, 'a.txt'));
    assert.ok(!sameFile(a, await fileIdentity(path.join(ws, 'a.txt'))), 'another inode is another file');
    assert.ok(sameFile(null, null));
  });

  it('creates a new file through one exclusive handle: a (dangling) symlink put at the name is not written through', async () => {
    assert.equal(await createNewFile(path.join(ws, 'sub', 'made.txt'), Buffer.from('made\n'), [ws]), path.join(ws, 'sub'), 'says the first folder it made');
    assert.equal(fs.readFileSync(path.join(ws, 'sub', 'made.txt'), 'utf8'), 'made\n');
    assert.equal(await createNewFile(path.join(ws, 'sub', 'two.txt'), Buffer.from('2\n'), [ws]), undefined, 'no folder made: none said');
    assert.equal(await createNewFile(path.join(ws, 'x', 'y', 'z.txt'), Buffer.from('z\n'), [ws]), path.join(ws, 'x'), 'of several, the first (the top one)');
    await assert.rejects(createNewFile(path.join(ws, 'sub', 'made.txt'), Buffer.from('again\n'), [ws]), (e: NodeJS.ErrnoException) => e.code === 'EEXIST');
    // Another process plants a dangling symlink to a file outside between the check and the create.
    const planted = path.join(ws, 'planted.txt');
    fs.symlinkSync(path.join(outside, 'created-outside.txt'), planted);
    await assert.rejects(createNewFile(planted, Buffer.from('x'), [ws]), (e: NodeJS.ErrnoException) => e.code === 'EEXIST');
    assert.ok(!fs.existsSync(path.join(outside, 'created-outside.txt')), 'nothing was created outside');
  });
});

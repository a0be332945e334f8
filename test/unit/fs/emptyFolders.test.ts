import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { removeEmptyFolders } from '../../../src/fs/emptyFolders';

describe('removeEmptyFolders: the folders a write made go with its file', () => {
  let ws: string;
  beforeEach(() => (ws = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-folders-'))));
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));

  it('removes the empty chain up to the folder the write made, not above it', async () => {
    fs.mkdirSync(path.join(ws, 'a', 'b', 'c'), { recursive: true });
    await removeEmptyFolders(path.join(ws, 'a', 'b', 'c'), path.join(ws, 'a', 'b'));
    assert.ok(!fs.existsSync(path.join(ws, 'a', 'b')));
    assert.ok(fs.existsSync(path.join(ws, 'a')), 'the folder above the one made stays, empty or not');
  });

  it('stops at the first folder with anything in it, and leaves every one above it', async () => {
    fs.mkdirSync(path.join(ws, 'a', 'b', 'c'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'a', 'b', 'mine.txt'), 'the person\'s');
    await removeEmptyFolders(path.join(ws, 'a', 'b', 'c'), path.join(ws, 'a'));
    assert.ok(!fs.existsSync(path.join(ws, 'a', 'b', 'c')));
    assert.ok(fs.existsSync(path.join(ws, 'a', 'b', 'mine.txt')));
  });

  it('does nothing for a folder outside the one made (a path that names another place)', async () => {
    fs.mkdirSync(path.join(ws, 'other'), { recursive: true });
    await removeEmptyFolders(path.join(ws, 'other'), path.join(ws, 'a'));
    assert.ok(fs.existsSync(path.join(ws, 'other')));
  });
});

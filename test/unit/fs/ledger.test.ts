import assert from 'node:assert/strict';
import { FileLedger } from '../../../src/fs/ledger';

describe('FileLedger write check', () => {
  it('allows a write over exactly what the agent read', () => {
    const l = new FileLedger();
    l.recordRead('/w/a', 'hello', 3);
    assert.equal(l.checkWrite('/w/a', { version: 3, text: 'hello', dirty: true }), undefined);
  });
  it('refuses when the version moved or the text changed', () => {
    const l = new FileLedger();
    l.recordRead('/w/a', 'hello', 3);
    assert.equal(l.checkWrite('/w/a', { version: 4, text: 'hello', dirty: true })?.reason, 'version_changed');
    l.recordRead('/w/b', 'hello');
    assert.equal(l.checkWrite('/w/b', { text: 'hello!', dirty: false })?.reason, 'content_changed');
  });
  it('refuses an unread file with unsaved changes or a disk change during the turn', () => {
    const l = new FileLedger();
    l.turnStarted(1000);
    assert.equal(l.checkWrite('/w/c', { version: 1, text: 'x', dirty: true })?.reason, 'unsaved_changes');
    assert.equal(l.checkWrite('/w/c', { text: 'x', dirty: false, mtime: 2000 })?.reason, 'changed_on_disk');
    assert.equal(l.checkWrite('/w/c', { text: 'x', dirty: false, mtime: 500 }), undefined);
  });
  it('our own write puts the next write in sequence', () => {
    const l = new FileLedger();
    l.recordWrite('/w/a', 'v2', 7);
    assert.equal(l.checkWrite('/w/a', { version: 7, text: 'v2', dirty: false }), undefined);
  });
});

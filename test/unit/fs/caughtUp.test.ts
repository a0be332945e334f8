import assert from 'node:assert/strict';
import { waitForEditor } from '../../../src/fs/caughtUp';

describe('waitForEditor: an agent reads and writes a file as the disk holds it, not a document the editor has not reloaded', () => {
  it('waits for a clean document that lags the disk until the editor reloads it', async () => {
    let text = 'old\n';
    setTimeout(() => (text = 'new on disk\n'), 120);
    const t0 = Date.now();
    assert.equal(await waitForEditor({ clean: () => true, text: () => text, disk: async () => 'new on disk\n' }, 2000, 10), true);
    assert.ok(Date.now() - t0 >= 100, 'it waited for the reload');
    assert.equal(text, 'new on disk\n');
  });

  it('at once: the same text (line endings aside), a dirty document (the person\'s work), no file to compare', async () => {
    const never = () => assert.fail('not read');
    assert.equal(await waitForEditor({ clean: () => true, text: () => 'a\nb\n', disk: async () => 'a\r\nb\r\n' }, 0), true);
    assert.equal(await waitForEditor({ clean: () => false, text: () => 'mine', disk: never as () => Promise<string> }, 0), true);
    assert.equal(await waitForEditor({ clean: () => true, text: () => 'x', disk: async () => undefined }, 0), true);
  });

  it('gives up after its time when they never agree (a document no editor shows, never reloaded), and says so', async () => {
    const t0 = Date.now();
    assert.equal(await waitForEditor({ clean: () => true, text: () => 'd\u00e9j\u00e0', disk: async () => 'dÃ©jÃ ' }, 80, 10), false);
    assert.ok(Date.now() - t0 >= 80);
  });

});

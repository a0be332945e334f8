import assert from 'node:assert/strict';
import { DiskBaselines, namedPaths, type Snapshot } from '../../../src/edits/baselines';
import { ReviewModel } from '../../../src/edits/review';
import type { ToolCallView } from '../../../src/acp/session/types';

function disk() {
  const files = new Map<string, string>();
  const read = (p: string): Snapshot => (files.has(p) ? { bytes: Buffer.from(files.get(p)!), text: files.get(p)! } : null);
  return { files, read };
}

const call = (over: Partial<ToolCallView>): ToolCallView => ({
  toolCallId: 't1',
  title: 'Write a.txt',
  kind: 'edit',
  status: 'pending',
  content: [],
  locations: [{ path: '/w/a.txt' }],
  placeholder: false,
  ...over,
});

describe('baselines for agents that write to disk themselves', () => {
  it('snapshots the files a writing call names and records the difference when it completes', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'one\ntwo\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({}));
    files.set('/w/a.txt', 'one\nTWO\n'); // the agent writes by itself
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    const c = review.get('s#1#/w/a.txt')!;
    assert.equal(c.via, 'agent');
    assert.equal(c.base.text, 'one\ntwo\n');
    assert.deepEqual(Buffer.from(c.base.bytes!).toString(), 'one\ntwo\n');
    assert.equal(c.after, 'one\nTWO\n');
    assert.deepEqual(c.toolCallIds, ['t1']);
  });

  it('records live when the watcher sees the file change during the call; creations and deletions too', () => {
    const { files, read } = disk();
    files.set('/w/old.txt', 'bye\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({ toolCallId: 'c', locations: [], content: [{ type: 'diff', path: 'new.txt', oldText: null, newText: 'hi\n', added: 1, removed: 0 }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'd', kind: 'delete', locations: [{ path: '/w/old.txt' }] }));
    files.set('/w/new.txt', 'hi\n');
    assert.equal(b.fileChanged('/w/new.txt'), true);
    assert.equal(review.get('s#1#/w/new.txt')!.base.text, null);
    files.delete('/w/old.txt');
    b.turnEnded('s');
    assert.equal(review.get('s#1#/w/old.txt')!.after, null);
    assert.equal(b.fileChanged('/w/other.txt'), false, 'not named by any agent call');
  });

  it('leaves files the client wrote itself, unchanged files, reads and non-text files alone', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'x\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({}));
    files.set('/w/a.txt', 'y\n');
    // We wrote it for the agent (fs/write_text_file) during the call: our record is exact.
    review.record('s', 1, '/w/a.txt', 'client', { text: 'x\n' }, 'y\n', 't1');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'r', kind: 'read', locations: [{ path: '/w/b.txt' }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'u', locations: [{ path: '/w/c.txt' }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'u', locations: [{ path: '/w/c.txt' }], status: 'completed' }));
    assert.deepEqual(review.turns()[0].files.map((f) => [f.path, f.via]), [['/w/a.txt', 'client']]);
  });

  it('resolves relative paths against the session folder', () => {
    assert.deepEqual(namedPaths({ locations: [{ path: 'src/a.ts' }], content: [{ type: 'diff', path: '/abs/b.ts', oldText: '', newText: '', added: 0, removed: 0 }] }, '/w'), ['/w/src/a.ts', '/abs/b.ts']);
  });
});

describe('baselines when the agent was faster than its announcement', () => {
  it('uses the diff\'s whole-file old text when the file already holds the new text', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'new\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({ content: [{ type: 'diff', path: '/w/a.txt', oldText: 'old\n', newText: 'new\n', added: 1, removed: 1 }] }));
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    assert.equal(review.get('s#1#/w/a.txt')!.base.text, 'old\n');
  });
});

describe('baselines and the person saving during an agent call', () => {
  it('a save by the person while the call runs is not the agent\'s change', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'line one\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({}));
    files.set('/w/a.txt', 'LINE ONE\n'); // the person formats and saves
    b.savedByOthers('/w/a.txt');
    b.toolCall('s', 1, '/w', call({ status: 'failed' }));
    assert.equal(review.turns().length, 0);
  });
});

describe('baselines: several calls and late announcements', () => {
  it('two calls on one file in a turn make one change from the first base', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'one\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({ toolCallId: 'x' }));
    files.set('/w/a.txt', 'two\n');
    b.toolCall('s', 1, '/w', call({ toolCallId: 'x', status: 'completed' }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'y' }));
    files.set('/w/a.txt', 'three\n');
    b.toolCall('s', 1, '/w', call({ toolCallId: 'y', status: 'completed' }));
    const [c] = review.turns()[0].files;
    assert.deepEqual([c.base.text, c.after, c.toolCallIds], ['one\n', 'three\n', ['x', 'y']]);
  });

  it('a call first seen finished is recorded from its diff when the file holds the new text', () => {
    const { files, read } = disk();
    files.set('/w/a.txt', 'new\n');
    const review = new ReviewModel();
    const b = new DiskBaselines(review, read);
    b.toolCall('s', 1, '/w', call({ status: 'completed', content: [{ type: 'diff', path: '/w/a.txt', oldText: 'old\n', newText: 'new\n', added: 1, removed: 1 }] }));
    assert.equal(review.get('s#1#/w/a.txt')!.base.text, 'old\n');
  });
});


import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiskBaselines, MAX_PATHS_PER_CALL, MAX_SESSION_BYTES, MAX_SNAPSHOT_BYTES, namedPaths, READ_CONCURRENCY, type BaselineDeps, type DiskRead } from '../../../src/edits/baselines';
import { readForBaseline } from '../../../src/edits/diskRead';
import { ReviewModel } from '../../../src/edits/review';
import type { ToolCallView } from '../../../src/acp/session/types';

/**
 * An in-memory disk with a clock: each write stamps the file (and its folder) with the time, so
 * fixtures are old (time 0) and the agent's writes are recent.
 */
function disk() {
  const clock = { t: 100_000 };
  const files = new Map<string, { text: string; at: number; stable?: boolean }>();
  const folders = new Map<string, number>();
  const reads: string[] = [];
  const state = { inFlight: 0, maxInFlight: 0 };
  const put = (p: string, text: string, at = clock.t) => {
    files.set(p, { text, at });
    folders.set(path.dirname(p), at);
  };
  const rm = (p: string) => {
    files.delete(p);
    folders.set(path.dirname(p), clock.t);
  };
  const read = async (p: string): Promise<DiskRead> => {
    reads.push(p);
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    await new Promise((r) => setImmediate(r));
    state.inFlight--;
    const f = files.get(p);
    if (!f) return { kind: 'missing', parentChangedAtMs: folders.get(path.dirname(p)) ?? 0 };
    return { kind: 'file', bytes: Buffer.from(f.text), text: f.text, stable: f.stable ?? true, changedAtMs: f.at };
  };
  return { clock, files, put, rm, read, reads, state };
}

function setup(over: Partial<BaselineDeps> = {}) {
  const d = disk();
  const review = new ReviewModel();
  const notices: { message: string; paths: string[] }[] = [];
  const b = new DiskBaselines({ review, read: d.read, roots: () => ['/w'], now: () => d.clock.t, notice: (message, paths) => notices.push({ message, paths }), ...over });
  return { ...d, review, b, notices };
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

const diff = (p: string, oldText: string | null, newText: string) => ({ type: 'diff' as const, path: p, oldText, newText, added: 1, removed: 1 });

describe('baselines for agents that write to disk themselves', () => {
  it('snapshots the files a writing call names and records the difference when it completes', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'one\ntwo\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 500;
    put('/w/a.txt', 'one\nTWO\n'); // the agent writes by itself
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.equal(c.via, 'agent');
    assert.equal(c.base.text, 'one\ntwo\n');
    assert.equal(c.base.uncertain, undefined);
    assert.deepEqual(Buffer.from(c.base.bytes!).toString(), 'one\ntwo\n');
    assert.equal(c.after, 'one\nTWO\n');
    assert.deepEqual(c.toolCallIds, ['t1']);
  });

  it('records live when the watcher sees the file change during the call; creations and deletions too', async () => {
    const { put, rm, review, b } = setup();
    put('/w/old.txt', 'bye\n', 0);
    b.toolCall('s', 1, '/w', call({ toolCallId: 'c', locations: [], content: [diff('new.txt', null, 'hi\n')] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'd', kind: 'delete', locations: [{ path: '/w/old.txt' }] }));
    await b.settled();
    put('/w/new.txt', 'hi\n');
    assert.equal(b.fileChanged('/w/new.txt'), true);
    await b.settled();
    assert.equal(review.get('s#1#/w/new.txt')!.base.text, null);
    assert.equal(review.get('s#1#/w/new.txt')!.base.uncertain, undefined, 'its folder had not changed for a while: it did not exist');
    rm('/w/old.txt');
    b.turnEnded('s');
    await b.settled();
    assert.equal(review.get('s#1#/w/old.txt')!.after, null);
    assert.equal(b.fileChanged('/w/other.txt'), false, 'not named by any agent call');
  });

  it('leaves files the client wrote itself, unchanged files, reads and non-text files alone', async () => {
    const { put, review, b } = setup();
    put('/w/a.txt', 'x\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    put('/w/a.txt', 'y\n');
    // We wrote it for the agent (fs/write_text_file) during the call: our record is exact.
    review.record('s', 1, '/w/a.txt', 'client', { text: 'x\n' }, 'y\n', 't1');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'r', kind: 'read', locations: [{ path: '/w/b.txt' }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'u', locations: [{ path: '/w/c.txt' }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'u', locations: [{ path: '/w/c.txt' }], status: 'completed' }));
    await b.settled();
    assert.deepEqual(review.turns()[0].files.map((f) => [f.path, f.via]), [['/w/a.txt', 'client']]);
  });

  it('resolves relative paths against the session folder', () => {
    assert.deepEqual(namedPaths({ locations: [{ path: 'src/a.ts' }], content: [{ type: 'diff', path: '/abs/b.ts', oldText: '', newText: '', added: 0, removed: 0 }] }, '/w'), ['/w/src/a.ts', '/abs/b.ts']);
  });
});

describe('baselines come from disk only, never from the agent\'s diff', () => {
  it('a poisoned oldText never becomes the base: the base is what the disk held, uncertain as the two disagree', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'real\n', 0);
    b.toolCall('s', 1, '/w', call({ content: [diff('/w/a.txt', 'POISON\n', 'new\n')] }));
    await b.settled();
    clock.t += 500;
    put('/w/a.txt', 'new\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed', content: [diff('/w/a.txt', 'POISON\n', 'new\n')] }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.equal(c.base.text, 'real\n');
    assert.match(c.base.uncertain ?? '', /diff shows text the file did not hold/);
    assert.equal(review.planUndo(c.id, 'new\n').action, 'conflict');
  });

  it('the agent faster than its announcement: its oldText is not the base, the base is uncertain and Undo refuses', async () => {
    // Old main took the diff's oldText as the base here, so Undo wrote the agent's text.
    const { put, review, b } = setup();
    put('/w/a.txt', 'new\n', 0);
    b.toolCall('s', 1, '/w', call({ content: [diff('/w/a.txt', 'POISON\n', 'new\n')] }));
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.notEqual(c.base.text, 'POISON\n');
    assert.equal(c.base.text, 'new\n', 'what we read ourselves, for display');
    assert.match(c.base.uncertain ?? '', /already held the agent's new text/);
    const plan = review.planUndo(c.id, 'new\n');
    assert.equal(plan.action, 'conflict');
    assert.match((plan as { message: string }).message, /not known for certain/);
    assert.deepEqual(review.checkpoint('s', 1).map((e) => e.base.uncertain !== undefined), [true], 'a checkpoint skips it');
  });

  it('a call first seen finished: its oldText (or null, "created") is never the base', async () => {
    const { put, review, b } = setup();
    put('/w/a.txt', 'new\n', 0);
    put('/w/c.txt', 'person\'s file\n', 0);
    b.toolCall('s', 1, '/w', call({ status: 'completed', locations: [], content: [diff('/w/a.txt', 'POISON\n', 'new\n'), diff('/w/c.txt', null, 'person\'s file\n')] }));
    await b.settled();
    for (const p of ['/w/a.txt', '/w/c.txt']) {
      const c = review.get(`s#1#${p}`)!;
      assert.ok(c.base.uncertain, p);
      assert.notEqual(c.base.text, 'POISON\n');
      assert.notEqual(c.base.text, null, 'Undo must never delete the person\'s file on the agent\'s word');
      assert.equal(review.planUndo(c.id, c.after).action, 'conflict');
    }
  });

  for (const status of ['rejected', 'failed', 'cancelled'] as const) {
    it(`a ${status} call that left the file unchanged records nothing, whatever its diff says`, async () => {
      const { put, review, b } = setup();
      put('/w/a.txt', 'new\n', 0);
      put('/w/b.txt', 'b\n', 0);
      b.toolCall('s', 1, '/w', call({ content: [diff('/w/a.txt', 'POISON\n', 'new\n')] }));
      b.toolCall('s', 1, '/w', call({ status }));
      b.toolCall('s', 1, '/w', call({ toolCallId: 'late', status, locations: [{ path: '/w/b.txt' }], content: [diff('/w/b.txt', null, 'b\n')] }));
      b.turnEnded('s');
      await b.settled();
      assert.deepEqual(review.turns(), []);
    });
  }
});

describe('baselines are contained in the workspace folders', () => {
  it('a path outside the workspace is never read nor recorded', async () => {
    const { put, reads, review, b } = setup();
    put('/etc/passwd', 'root\n', 0);
    put('/w2/x.txt', 'sibling\n', 0);
    b.toolCall('s', 1, '/w', call({ locations: [{ path: '/etc/passwd' }, { path: '../w2/x.txt' }, { path: '/w/../etc/passwd' }], content: [diff('/etc/passwd', 'POISON\n', 'root\n')] }));
    put('/etc/passwd', 'changed\n');
    b.fileChanged('/etc/passwd');
    b.toolCall('s', 1, '/w', call({ status: 'completed', locations: [{ path: '/etc/passwd' }] }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'late', status: 'completed', locations: [], content: [diff('/etc/passwd', 'POISON\n', 'changed\n')] }));
    await b.settled();
    assert.deepEqual(reads, []);
    assert.deepEqual(review.turns(), []);
  });

  it('a path that leaves the workspace through a symlink is not read', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baselines-'));
    try {
      const ws = path.join(tmp, 'ws');
      const outside = path.join(tmp, 'outside');
      fs.mkdirSync(ws);
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
      fs.symlinkSync(outside, path.join(ws, 'link'));
      const reads: string[] = [];
      const review = new ReviewModel();
      const b = new DiskBaselines({ review, roots: () => [ws], read: (p, max) => (reads.push(p), readForBaseline(p, max, (x) => Buffer.from(x).toString('utf8'))) });
      b.toolCall('s', 1, ws, call({ locations: [{ path: 'link/secret.txt' }] }));
      await b.settled();
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'changed\n');
      b.toolCall('s', 1, ws, call({ status: 'completed', locations: [{ path: 'link/secret.txt' }] }));
      await b.settled();
      assert.deepEqual(reads, []);
      assert.deepEqual(review.turns(), []);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('baselines that are not known for certain (issue 18: Undo emptied the file)', () => {
  it('a snapshot of a file the agent already began to write (changed after the call arrived) is uncertain; Undo refuses', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'the person\'s text\n', 0);
    // The agent truncates the file before our snapshot is read.
    clock.t += 1;
    put('/w/a.txt', '');
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'agent text\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.equal(c.base.text, '');
    assert.match(c.base.uncertain ?? '', /empty when it was read/);
    const plan = review.planUndo(c.id, 'agent text\n');
    assert.equal(plan.action, 'conflict', 'never writes an empty file over the original');
  });

  it('a read during which the file changed is uncertain', async () => {
    const { put, files, review, b, clock } = setup();
    put('/w/a.txt', 'half', 0);
    files.get('/w/a.txt')!.stable = false;
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'whole\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    assert.match(review.get('s#1#/w/a.txt')!.base.uncertain ?? '', /changed while it was read/);
  });

  it('a missing file whose folder just changed may have been removed by the agent: Undo does not delete', async () => {
    const { put, rm, review, b, clock } = setup();
    put('/w/a.txt', 'original\n', 0);
    clock.t += 1;
    rm('/w/a.txt'); // delete-then-write save, caught in between
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 50;
    put('/w/a.txt', 'rewritten\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.ok(c.base.uncertain);
    assert.equal(review.planUndo(c.id, 'rewritten\n').action, 'conflict');
  });

  it('a further call on a file whose change we know extends it from the first, certain base', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'one\n', 0);
    b.toolCall('s', 1, '/w', call({ toolCallId: 'x' }));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'two\n');
    b.toolCall('s', 1, '/w', call({ toolCallId: 'x', status: 'completed' }));
    b.toolCall('s', 1, '/w', call({ toolCallId: 'y' }));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'three\n');
    b.toolCall('s', 1, '/w', call({ toolCallId: 'y', status: 'completed' }));
    await b.settled();
    const [c] = review.turns()[0].files;
    assert.deepEqual([c.base.text, c.base.uncertain, c.after, c.toolCallIds], ['one\n', undefined, 'three\n', ['x', 'y']]);
  });
});

describe('baselines and the person saving during an agent call', () => {
  it('a save by the person while the call runs is not the agent\'s change', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'line one\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'LINE ONE\n'); // the person formats and saves
    b.savedByOthers('/w/a.txt', 'LINE ONE\n');
    b.toolCall('s', 1, '/w', call({ status: 'failed' }));
    await b.settled();
    assert.equal(review.turns().length, 0);
  });

  it('the agent\'s write after the person\'s save is recorded on the saved text', async () => {
    const { put, review, b, clock } = setup();
    put('/w/a.txt', 'line one\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'LINE ONE\n');
    b.savedByOthers('/w/a.txt', 'LINE ONE\n');
    await b.settled();
    put('/w/a.txt', 'LINE ONE\nagent\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.deepEqual([c.base.text, c.base.uncertain], ['LINE ONE\n', undefined]);
  });
});

describe('baselines and the order in which the editor reports a save', () => {
  // The watcher may report the person's save before the editor does (the two arrive by different
  // ways), and a comparison's read may span the save: either way the save is not the agent's.
  it('a watcher event of the person\'s save that arrives before the editor reports it records nothing', async () => {
    const saving = new Set<string>();
    const { put, review, b, clock } = setup({ saving: (p) => saving.has(p) });
    put('/w/a.txt', 'line one\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    saving.add('/w/a.txt'); // will-save
    put('/w/a.txt', 'LINE ONE\n'); // the editor writes the formatted text
    assert.equal(b.fileChanged('/w/a.txt'), true, 'the call names the file');
    await b.settled();
    assert.equal(review.turns().length, 0, 'not recorded while the save is under way');
    saving.delete('/w/a.txt'); // did-save
    b.savedByOthers('/w/a.txt', 'LINE ONE\n');
    b.toolCall('s', 1, '/w', call({ status: 'failed' }));
    await b.settled();
    assert.equal(review.turns().length, 0);
  });

  it('a save reported while a comparison reads the file re-bases the call; that comparison records nothing', async () => {
    const { put, read, review, b, clock } = setup({ read: (p, max) => slowRead(p, max) });
    let hold: Promise<void> | undefined;
    const slowRead: BaselineDeps['read'] = async (p) => {
      const r = await read(p);
      if (hold) await hold;
      return r;
    };
    put('/w/a.txt', 'line one\n', 0);
    b.toolCall('s', 1, '/w', call({}));
    await b.settled();
    clock.t += 100;
    put('/w/a.txt', 'LINE ONE\n'); // the person's save, on disk
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    b.fileChanged('/w/a.txt'); // its comparison reads the saved text, slowly
    await new Promise((r) => setImmediate(r));
    hold = undefined;
    b.savedByOthers('/w/a.txt', 'LINE ONE\n'); // the editor reports the save meanwhile
    release();
    await b.settled();
    assert.equal(review.turns().length, 0, 'the read that spanned the save is not the agent\'s change');
    put('/w/a.txt', 'LINE ONE\nagent\n'); // the agent writes after it
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = review.get('s#1#/w/a.txt')!;
    assert.deepEqual([c.base.text, c.after], ['LINE ONE\n', 'LINE ONE\nagent\n'], 'the agent\'s write is recorded on the saved text');
  });
});

describe('baselines are bounded and asynchronous', () => {
  it('5,000 locations in one call (sent 20 times): 64 reads, 4 at a time, one notice naming the rest, in little time', async () => {
    const { reads, state, notices, b } = setup();
    const locations = Array.from({ length: 5000 }, (_, i) => ({ path: `/w/f${i}.txt` }));
    const heapBefore = process.memoryUsage().heapUsed;
    const t = Date.now();
    for (let i = 0; i < 20; i++) b.toolCall('s', 1, '/w', call({ status: i ? 'in_progress' : 'pending', locations }));
    const syncMs = Date.now() - t;
    await b.settled();
    b.toolCall('s', 1, '/w', call({ status: 'completed', locations }));
    await b.settled();
    assert.ok(syncMs < 1000, `the extension host was blocked ${syncMs} ms`);
    assert.equal(new Set(reads).size, MAX_PATHS_PER_CALL);
    assert.ok(reads.length <= 2 * MAX_PATHS_PER_CALL, 'a snapshot and a comparison per file at most');
    assert.ok(state.maxInFlight <= READ_CONCURRENCY, `${state.maxInFlight} reads at once`);
    assert.equal(notices.length, 1);
    assert.equal(notices[0].paths.length, 5000 - MAX_PATHS_PER_CALL);
    assert.ok(!/f\d+\.txt/.test(notices[0].message), 'the notice itself names no agent-given path');
    assert.ok(process.memoryUsage().heapUsed - heapBefore < 100 * 1024 * 1024);
  });

  it('the snapshots one session holds stay within its byte budget', async () => {
    const maxAsked: number[] = [];
    const review = new ReviewModel();
    const big = 6 * 1024 * 1024;
    const notices: string[] = [];
    const b = new DiskBaselines({
      review,
      roots: () => ['/w'],
      now: () => 100_000,
      notice: (m) => notices.push(m),
      read: async (_p, max) => {
        maxAsked.push(max);
        return big > max ? { kind: 'unreadable', reason: 'too large' } : { kind: 'file', bytes: Buffer.alloc(big, 97), text: 'a'.repeat(big), stable: true, changedAtMs: 0 };
      },
    });
    for (let i = 0; i < 40; i++) b.toolCall('s', 1, '/w', call({ toolCallId: `c${i}`, locations: [{ path: `/w/f${i}.txt` }] }));
    await b.settled();
    const snapshots = maxAsked.filter((m) => m >= big).length;
    assert.ok(snapshots * big <= MAX_SESSION_BYTES, `${snapshots} snapshots of ${big} bytes held`);
    assert.ok(maxAsked.every((m) => m <= MAX_SNAPSHOT_BYTES));
    assert.equal(notices.length, 1, 'the person is told once');
    // Ending the calls releases their snapshots: the next turn has its budget again.
    b.turnEnded('s');
    await b.settled();
    maxAsked.length = 0;
    b.toolCall('s', 2, '/w', call({ toolCallId: 'next', locations: [{ path: '/w/next.txt' }] }));
    await b.settled();
    assert.ok(maxAsked[0] >= big);
  });

  it('a call that ends before its snapshot was read never gets a certain base from after the agent\'s write', async () => {
    const { put, files, review, clock } = setup();
    put('/w/a.txt', 'original\n', 0);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = new DiskBaselines({
      review,
      roots: () => ['/w'],
      now: () => clock.t,
      read: async (p) => {
        await gate;
        const f = files.get(p)!;
        return { kind: 'file', bytes: Buffer.from(f.text), text: f.text, stable: true, changedAtMs: f.at };
      },
    });
    b.toolCall('s', 1, '/w', call({}));
    clock.t += 10;
    put('/w/a.txt', 'agent\n');
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    release();
    await b.settled();
    for (const c of review.turns().flatMap((t) => t.files)) {
      assert.ok(c.base.uncertain, 'recorded, if at all, as uncertain');
      assert.equal(review.planUndo(c.id, 'agent\n').action, 'conflict');
    }
  });
});

describe('the disk reader of baselines', () => {
  it('reads a regular file with its stamp, a missing file with its folder\'s, and refuses a FIFO without blocking', async function () {
    if (process.platform === 'win32') this.skip();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'diskread-'));
    try {
      const f = path.join(tmp, 'a.txt');
      fs.writeFileSync(f, 'hello\n');
      const utf8 = (x: Uint8Array) => Buffer.from(x).toString('utf8');
      const r = await readForBaseline(f, 1024, utf8);
      assert.equal(r.kind, 'file');
      assert.ok(r.kind === 'file' && r.stable && r.text === 'hello\n' && r.changedAtMs >= Date.now() - 60_000);
      const m = await readForBaseline(path.join(tmp, 'none.txt'), 1024, utf8);
      assert.ok(m.kind === 'missing' && m.parentChangedAtMs !== undefined);
      assert.equal((await readForBaseline(f, 3, utf8)).kind, 'unreadable', 'over the cap');
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [path.join(tmp, 'fifo')]);
      assert.equal((await readForBaseline(path.join(tmp, 'fifo'), 1024, utf8)).kind, 'unreadable');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

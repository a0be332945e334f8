/**
 * Issue 18, holdout: Undo emptied a file an agent wrote to disk itself, because the snapshot that
 * became the review base was read while the agent was already writing. Each way a base can be
 * uncertain is one test here: the base is marked, and Undo plans no write (`conflict`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiskBaselines, RECENT_MS, type BaselineDeps, type DiskRead } from '../../../src/edits/baselines';
import { readForBaseline } from '../../../src/edits/diskRead';
import { ReviewModel } from '../../../src/edits/review';
import type { ToolCallView } from '../../../src/acp/session/types';

interface FakeFile {
  text: string | null;
  at: number;
  stable?: boolean;
  /** Reads as unreadable with this reason (too large, not regular). */
  unreadable?: string;
}

/** An in-memory disk with a clock (fixtures at time 0, the turn at 100 s). */
function setup(over: Partial<BaselineDeps> = {}) {
  const clock = { t: 100_000 };
  const files = new Map<string, FakeFile>();
  const folders = new Map<string, number>();
  const put = (p: string, text: string | null, at = clock.t, extra: Partial<FakeFile> = {}) => {
    files.set(p, { text, at, ...extra });
    folders.set(path.dirname(p), at);
  };
  const read = async (p: string): Promise<DiskRead> => {
    await new Promise((r) => setImmediate(r));
    const f = files.get(p);
    if (!f) return { kind: 'missing', parentChangedAtMs: folders.get(path.dirname(p)) ?? 0 };
    if (f.unreadable) return { kind: 'unreadable', reason: f.unreadable };
    return { kind: 'file', bytes: Buffer.from(f.text ?? '\xff\xfe\x00'), text: f.text, stable: f.stable ?? true, changedAtMs: f.at };
  };
  const review = new ReviewModel();
  const b = new DiskBaselines({ review, read, roots: () => ['/w'], now: () => clock.t, ...over });
  return { clock, files, put, review, b };
}

const call = (over: Partial<ToolCallView> = {}): ToolCallView => ({
  toolCallId: 't1',
  title: 'Write a.txt',
  kind: 'edit',
  status: 'in_progress',
  content: [],
  locations: [{ path: '/w/a.txt' }],
  placeholder: false,
  ...over,
});
const diff = (p: string, oldText: string | null, newText: string) => ({ type: 'diff' as const, path: p, oldText, newText, added: 1, removed: 1 });
const ORIGINAL = 'the person\'s first line\nthe person\'s second line\n';
const AGENT = 'the agent\'s text\n';

/** Runs one call: announce (snapshot), the agent's write, completion; returns the recorded change. */
async function run(s: ReturnType<typeof setup>, opts: { content?: ToolCallView['content']; write?: () => void } = {}) {
  s.b.toolCall('s', 1, '/w', call({ content: opts.content ?? [] }));
  await s.b.settled();
  s.clock.t += 100;
  (opts.write ?? (() => s.put('/w/a.txt', AGENT)))();
  s.b.toolCall('s', 1, '/w', call({ status: 'completed', content: opts.content ?? [] }));
  await s.b.settled();
  return s.review.turns().flatMap((t) => t.files).find((f) => f.path === '/w/a.txt');
}

function assertRefused(s: ReturnType<typeof setup>, id: string, reason: RegExp, current: string | null = AGENT) {
  const c = s.review.get(id)!;
  assert.match(c.base.uncertain ?? '(certain)', reason);
  const plan = s.review.planUndo(id, current);
  assert.equal(plan.action, 'conflict', 'Undo plans no write');
  assert.match(plan.action === 'conflict' ? plan.message : '', /not known for certain.*nothing was written/);
  assert.equal(s.review.planUndo(id, current, 0).action, 'conflict', 'nor for one hunk');
}

describe('review bases that are not known for certain (issue 18 holdout: Undo emptied the file)', () => {
  it('a file the agent began to write after its turn began, seconds before its call was announced, is uncertain', async () => {
    // Old code measured "recent" from the call's announcement only: this partial file was certain.
    const s = setup();
    s.put('/w/a.txt', ORIGINAL, 0);
    s.b.turnStarted('s', s.clock.t);
    s.clock.t += 1000;
    s.put('/w/a.txt', 'the agent\'s te'); // half written
    s.clock.t += RECENT_MS + 3000; // the announcement arrives late
    const c = (await run(s))!;
    assert.equal(c.base.text, 'the agent\'s te');
    assertRefused(s, c.id, /after the agent's turn began/);
  });

  it('an empty read is uncertain even with an old stamp (truncated, then written); an empty file the agent confirms is certain', async () => {
    const s = setup();
    s.put('/w/a.txt', '', 0); // a stamp from before the turn, e.g. a clock that lags
    s.b.turnStarted('s');
    const c = (await run(s))!;
    assert.equal(c.base.text, '');
    assertRefused(s, c.id, /empty when it was read/);

    const t = setup();
    t.put('/w/a.txt', '', 0);
    t.b.turnStarted('s');
    const d = (await run(t, { content: [diff('/w/a.txt', '', AGENT)] }))!;
    assert.equal(d.base.uncertain, undefined, 'the agent says it replaced an empty file, and we read one');
    assert.equal(t.review.planUndo(d.id, AGENT).action, 'restoreBase');
  });

  it('a file that changed after the turn began stays uncertain when the agent\'s diff shows what it holds (the agent cannot vouch for its own write)', async () => {
    // Review finding F3a: an agent writes X' itself, then announces the diff X' -> X''. Its oldText
    // agrees with our read, and the old rule took that agreement as proof: Undo restored the agent's
    // own X' as "the original".
    const s = setup();
    s.put('/w/a.txt', ORIGINAL, 0);
    s.b.turnStarted('s', s.clock.t);
    s.clock.t += 500;
    const agentsFirst = 'the agent\'s own first write\n';
    s.put('/w/a.txt', agentsFirst);
    s.clock.t += RECENT_MS + 3000;
    const c = (await run(s, { content: [diff('/w/a.txt', agentsFirst, AGENT)] }))!;
    assert.equal(c.base.text, agentsFirst);
    assertRefused(s, c.id, /after the agent's turn began/);

    // Changed just before the turn (the person saved, then prompted): the agent's agreeing diff still
    // lifts the doubt of coarse timestamps.
    const t = setup();
    t.put('/w/a.txt', ORIGINAL, t.clock.t - 500);
    t.b.turnStarted('s', t.clock.t);
    t.clock.t += RECENT_MS + 3000;
    const d = (await run(t, { content: [diff('/w/a.txt', ORIGINAL, AGENT)] }))!;
    assert.equal(d.base.uncertain, undefined);
  });

  it('a second new file in a folder the agent already changed this turn is certainly new when the agent says it creates it', async () => {
    const s = setup();
    s.b.turnStarted('s', s.clock.t);
    s.clock.t += 500;
    s.put('/w/other.txt', 'made earlier in the turn\n'); // the folder changed after the turn began
    s.clock.t += RECENT_MS + 1000;
    const c = (await run(s, { content: [diff('/w/a.txt', null, AGENT)] }))!;
    assert.equal(c.base.text, null);
    assert.equal(c.base.uncertain, undefined, 'its Undo removes only what the agent wrote');
  });

  it('a read during which the file changed (a write into it, a rename over it) is uncertain', async () => {
    const s = setup();
    s.put('/w/a.txt', ORIGINAL.slice(0, 10), 0, { stable: false });
    const c = (await run(s))!;
    assertRefused(s, c.id, /changed while it was read/);
  });

  it('a change event before the snapshot was read makes it uncertain', async () => {
    const s = setup();
    s.put('/w/a.txt', ORIGINAL, 0);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const b = new DiskBaselines({
      review: s.review,
      roots: () => ['/w'],
      now: () => s.clock.t,
      read: async (p) => {
        await gate;
        const f = s.files.get(p)!;
        return { kind: 'file', bytes: Buffer.from(f.text!), text: f.text, stable: true, changedAtMs: 0 };
      },
    });
    b.toolCall('s', 1, '/w', call());
    // The watcher reports a change while the snapshot is still being read.
    b.fileChanged('/w/a.txt');
    release();
    await b.settled();
    s.put('/w/a.txt', AGENT);
    b.toolCall('s', 1, '/w', call({ status: 'completed' }));
    await b.settled();
    const c = s.review.turns()[0].files[0];
    assertRefused(s, c.id, /changed on disk before its snapshot was read/);
  });

  it('a file the agent shows as existing but that was missing when read (removed, then rewritten) is uncertain: Undo does not delete it', async () => {
    const s = setup();
    s.put('/w/a.txt', ORIGINAL, 0);
    s.files.delete('/w/a.txt'); // the folder's stamp stays old (time 0): only the diff tells
    const c = (await run(s, { content: [diff('/w/a.txt', ORIGINAL, AGENT)] }))!;
    assert.equal(c.base.text, null);
    assertRefused(s, c.id, /missing when it was read/);
  });

  it('"created" (no file) and "empty" are different: a diff saying "created" over a file that was there is uncertain', async () => {
    const s = setup();
    s.put('/w/a.txt', 'x\n', 0);
    const c = (await run(s, { content: [diff('/w/a.txt', null, AGENT)] }))!;
    assertRefused(s, c.id, /said it creates the file, but a file was there/);

    const t = setup();
    const d = (await run(t, { content: [diff('/w/a.txt', null, AGENT)] }))!;
    assert.deepEqual([d.base.text, d.base.uncertain], [null, undefined], 'created, as the agent says and the disk showed');
    assert.equal(t.review.planUndo(d.id, AGENT).action, 'delete');
  });

  it('a file that was not text in its encoding is listed as "before unknown", and Undo refuses', async () => {
    const s = setup();
    s.put('/w/a.txt', null, 0); // bytes that do not decode
    const c = (await run(s, { content: [diff('/w/a.txt', 'x', AGENT)] }))!;
    assert.ok(c, 'listed, so the person sees the agent changed it');
    assert.equal(c.after, AGENT);
    assertRefused(s, c.id, /not text in its encoding/);
  });

  it('a file over the size limit is listed as "before unknown", and Undo refuses; unchanged, it is not listed', async () => {
    const s = setup();
    s.put('/w/a.txt', 'big', 0, { unreadable: 'it is larger than Agent Switchboard snapshots (8 MiB at most)' });
    const c = (await run(s, { content: [diff('/w/a.txt', 'x', AGENT)] }))!;
    assertRefused(s, c.id, /larger than/);

    const t = setup();
    t.put('/w/a.txt', 'big', 0, { unreadable: 'too large' });
    const d = await run(t, { write: () => t.put('/w/a.txt', 'big', 0, { unreadable: 'too large' }) });
    assert.equal(d, undefined, 'no diff, no change event, still too large: nothing to list');
  });

  it('a diff whose oldText contradicts the read (a torn read) is uncertain; one that matches it makes a recent file certain', async () => {
    const s = setup();
    s.put('/w/a.txt', ORIGINAL.slice(0, 12), 0); // old stamp: only the diff tells
    const c = (await run(s, { content: [diff('/w/a.txt', ORIGINAL, AGENT)] }))!;
    assertRefused(s, c.id, /diff shows text the file did not hold/);

    // Saved by the person a moment before the prompt: recent, but the agent saw the same text
    // (with LF where the file has CRLF, as agents render it).
    const t = setup();
    t.b.turnStarted('s');
    t.put('/w/a.txt', ORIGINAL.replace(/\n/g, '\r\n'), t.clock.t - 500);
    const d = (await run(t, { content: [diff('/w/a.txt', ORIGINAL, AGENT)] }))!;
    assert.equal(d.base.uncertain, undefined);
    assert.equal(t.review.planUndo(d.id, AGENT).action, 'restoreBase');
  });

  it('a fragment diff (the agent\'s old_string) found in the read is no contradiction', async () => {
    const s = setup();
    s.put('/w/a.txt', ORIGINAL, 0);
    s.b.turnStarted('s');
    const c = (await run(s, { content: [diff('/w/a.txt', 'second line', 'other line')] }))!;
    assert.equal(c.base.uncertain, undefined);
    assert.equal(s.review.planUndo(c.id, AGENT).action, 'restoreBase');
  });
});

describe('the disk reader against a writer racing it (real files)', () => {
  let tmp: string;
  const utf8 = (x: Uint8Array) => Buffer.from(x).toString('utf8');
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'race-'))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a truncation between the stat and the read is not a stable read', async () => {
    const f = path.join(tmp, 'a.txt');
    fs.writeFileSync(f, ORIGINAL);
    const r = await readForBaseline(f, 1024, utf8, { beforeRead: () => fs.truncateSync(f, 0) });
    assert.ok(r.kind === 'file' && r.text === '' && !r.stable, JSON.stringify(r));
  });

  it('a rename over the file between the stat and the read is not a stable read', async () => {
    const f = path.join(tmp, 'a.txt');
    fs.writeFileSync(f, ORIGINAL);
    const r = await readForBaseline(f, 1024, utf8, {
      beforeRead: () => {
        fs.writeFileSync(path.join(tmp, 'a.txt.tmp'), ORIGINAL.length.toString().padEnd(ORIGINAL.length, 'x'));
        fs.renameSync(path.join(tmp, 'a.txt.tmp'), f);
      },
    });
    assert.ok(r.kind === 'file' && !r.stable, 'a new inode under the name');
  });

  it('a file over the cap and one that is not text are unreadable or text null, with reasons that name no path', async () => {
    const f = path.join(tmp, 'a.txt');
    fs.writeFileSync(f, ORIGINAL);
    const r = await readForBaseline(f, 8, utf8);
    assert.ok(r.kind === 'unreadable' && /larger than/.test(r.reason) && !r.reason.includes(tmp), JSON.stringify(r));
    const n = await readForBaseline(f, 1024, () => null);
    assert.ok(n.kind === 'file' && n.text === null);
  });
});

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DemoSessionStore, type DemoSessionRecord } from '../../../src/demo/demoSessions';

const id = (n: number) => `demo-${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
const record = (n: number, cwd: string, updatedAt: string, chunks = 1): DemoSessionRecord => ({
  sessionId: id(n),
  cwd,
  title: `session ${n}`,
  updatedAt,
  history: Array.from({ length: chunks }, (_, i) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${i}` } })),
});

describe('demo agent: its remembered sessions (session/list)', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-sessions-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists from each session\'s list entry, never from its history', () => {
    const store = new DemoSessionStore(dir);
    store.save(record(1, '/a', '2026-12-01T00:00:00.000Z', 1000));
    store.save(record(2, '/b', '2026-12-02T00:00:00.000Z'));
    store.save(record(3, '/a', '2026-12-03T00:00:00.000Z'));
    // Histories that cannot be parsed: a list that read them would lose these sessions.
    for (const n of [1, 2, 3]) fs.writeFileSync(path.join(dir, `${id(n)}.json`), '{"history": [');
    assert.deepEqual(store.list().map((s) => s.sessionId), [id(3), id(2), id(1)]);
    assert.deepEqual(store.list('/a'), [
      { sessionId: id(3), cwd: '/a', title: 'session 3', updatedAt: '2026-12-03T00:00:00.000Z' },
      { sessionId: id(1), cwd: '/a', title: 'session 1', updatedAt: '2026-12-01T00:00:00.000Z' },
    ]);
  });

  it('takes a record saved before list entries existed, and writes its entry for the next list', () => {
    fs.writeFileSync(path.join(dir, `${id(7)}.json`), JSON.stringify(record(7, '/a', '2026-12-04T00:00:00.000Z')));
    const store = new DemoSessionStore(dir);
    assert.deepEqual(store.list().map((s) => s.title), ['session 7']);
    assert.ok(fs.existsSync(path.join(dir, `${id(7)}.info.json`)));
    fs.writeFileSync(path.join(dir, `${id(7)}.json`), 'not json');
    assert.deepEqual(store.list().map((s) => s.title), ['session 7']);
  });

  it('does not trust an entry that names another session, or one that is not JSON', () => {
    const store = new DemoSessionStore(dir);
    store.save(record(1, '/a', '2026-12-01T00:00:00.000Z'));
    store.save(record(2, '/a', '2026-12-02T00:00:00.000Z'));
    fs.writeFileSync(path.join(dir, `${id(1)}.info.json`), JSON.stringify({ sessionId: id(9), cwd: '/elsewhere', title: 'forged' }));
    fs.writeFileSync(path.join(dir, `${id(2)}.info.json`), '{');
    assert.deepEqual(store.list().map((s) => [s.sessionId, s.title]), [[id(2), 'session 2'], [id(1), 'session 1']]);
  });

  it('ignores files that are not records: entries without a record, leftovers and other names', () => {
    const store = new DemoSessionStore(dir);
    store.save(record(1, '/a', '2026-12-01T00:00:00.000Z'));
    fs.writeFileSync(path.join(dir, `${id(5)}.info.json`), JSON.stringify({ sessionId: id(5), cwd: '/a' }));
    fs.writeFileSync(path.join(dir, `${id(6)}.json.tmp`), '{}');
    fs.writeFileSync(path.join(dir, 'notes.json'), '{}');
    assert.deepEqual(store.list().map((s) => s.sessionId), [id(1)]);
    assert.deepEqual(new DemoSessionStore(path.join(dir, 'missing')).list(), []);
  });
});

/**
 * Issue 16, finding 4 (reads before containment) and finding 17 (hard links) in the pure gate: the
 * gate and the declare step never read a path before it is contained, never read a special file,
 * and treat a hard-linked file as a protected target.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolCallView, ToolContentView } from '../../../src/acp/session/types';
import { UNMATCHABLE } from '../../../src/policy/declare';
import { EffectPolicy, type Actor } from '../../../src/policy/effectPolicy';
import type { PolicyDefaults } from '../../../src/policy/gate';
import { sha256, type WriteEffect } from '../../../src/policy/intent';

const posix = process.platform !== 'win32';
const tc = (content: ToolContentView[], over: Partial<ToolCallView> = {}): ToolCallView => ({ toolCallId: 't1', title: 'Edit', kind: 'edit', status: 'pending', content, locations: [], placeholder: false, ...over });
const diff = (p: string, oldText: string | null, newText: string): ToolContentView => ({ type: 'diff', path: p, oldText, newText, added: 0, removed: 0 });

/** Fails (rather than hangs) when a gate call blocks: the old code opened FIFOs for reading. */
function bounded<T>(work: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([work, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

describe('the gate contains a path before it reads it; special and hard-linked files', () => {
  let ws: string;
  let outside: string;
  let reads: string[];
  let defaults: PolicyDefaults;
  let policy: EffectPolicy;
  let who: Actor;

  before(function () {
    if (!posix) this.skip();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-contain-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    fs.mkdirSync(ws);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'inside\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'escape'));
    fs.symlinkSync('/dev/zero', path.join(ws, 'zero'));
    // Four FIFOs at once once starved libuv's threadpool.
    for (const n of [1, 2, 3, 4, 5]) execFileSync('mkfifo', [path.join(ws, `fifo${n}`)]);
    fs.writeFileSync(path.join(outside, 'shared.txt'), 'shared\n');
    fs.linkSync(path.join(outside, 'shared.txt'), path.join(ws, 'hard.txt'));
  });
  after(() => ws && fs.rmSync(path.dirname(ws), { recursive: true, force: true }));

  beforeEach(() => {
    reads = [];
    defaults = { write: 'ask', command: 'ask', dryRun: false };
    // The spy records every path it is asked for and reads only regular files inside the
    // workspace (so that on the old code this test fails rather than hangs); it must never be asked
    // for anything else.
    policy = new EffectPolicy({
      defaults: () => defaults,
      roots: () => [ws],
      readCurrent: async (p) => {
        reads.push(p);
        const real = fs.realpathSync(p);
        return real.startsWith(ws + path.sep) && fs.statSync(real).isFile() ? fs.promises.readFile(real, 'utf8') : null;
      },
    });
    who = { sessionId: 's', agentId: 'agent', cwd: ws };
  });

  it('checkWrite never reads a path outside the workspace, through a symlink to outside, /dev/zero or a FIFO', async () => {
    const named = ['/etc/hostname', path.join(outside, 'secret.txt'), path.join(ws, 'escape'), '/dev/zero', path.join(ws, 'zero'), ...[1, 2, 3, 4, 5].map((n) => path.join(ws, `fifo${n}`))];
    const checks = await bounded(Promise.all(named.map((p) => policy.checkWrite(who, p, 'x'))), 'checkWrite');
    assert.deepEqual(reads, [], 'readCurrent was called for a path it must not read');
    assert.ok(checks.every((c) => !c.allowed), 'none of them is allowed');
    // The special files inside the workspace are named, and the write port will refuse them.
    const fifo = checks[5];
    assert.equal((fifo.effect as WriteEffect).path, 'fifo1');
    assert.equal(fifo.target?.regular, false);
    assert.equal(fifo.target?.kind, 'a FIFO');
  });

  it('a regular file inside is read once for the base, with the resolved roots', async () => {
    const c = await policy.checkWrite(who, path.join(ws, 'a.txt'), 'new\n');
    assert.deepEqual(reads, [path.join(ws, 'a.txt')]);
    assert.equal((c.effect as WriteEffect).baseSha256, sha256('inside\n'));
    assert.equal(c.target?.regular, true);
  });

  it('the declare step names outside and special paths without reading them; their writes become unmatchable', async () => {
    const named = [path.join(outside, 'secret.txt'), path.join(ws, 'escape'), '/dev/zero', path.join(ws, 'fifo1'), path.join(ws, 'fifo2'), path.join(ws, 'fifo3'), path.join(ws, 'fifo4')];
    const d = await bounded(policy.declare(tc(named.map((p) => diff(p, 'a', 'b'))), who), 'declare');
    assert.deepEqual(reads, []);
    const writes = d.intent.effects as WriteEffect[];
    assert.equal(writes.length, named.length);
    for (const w of writes) assert.deepEqual(w.contentSha256, [UNMATCHABLE], w.path);
    assert.ok(d.undeclared.some((n) => /outside the workspace folders: the client did not read it/.test(n)), d.undeclared.join('\n'));
    assert.ok(d.undeclared.some((n) => /fifo1 is a FIFO, not a regular file/.test(n)), d.undeclared.join('\n'));
    // An edit tool naming its target in rawInput is examined the same way.
    const e = await bounded(policy.declare(tc([], { rawInput: { file_path: '/dev/zero', content: 'x' } }), who), 'declare');
    assert.deepEqual(reads, []);
    assert.deepEqual((e.intent.effects[0] as WriteEffect).contentSha256, [UNMATCHABLE]);
  });

  it('a hard-linked file is a protected target: an allow default, a grant or a plain approval do not let it through', async () => {
    const hard = path.join(ws, 'hard.txt');
    defaults = { write: 'allow', command: 'ask', dryRun: false };
    const c = await policy.checkWrite(who, hard, 'changed\n');
    assert.equal((c.effect as WriteEffect).hardLinked, true);
    assert.ok(!c.allowed && c.reason === 'protected_target', JSON.stringify(c));
    assert.match(c.allowed ? '' : c.message, /more than one hard link/);

    // A grant covering every workspace file does not count either, and it does not answer the card.
    defaults = { write: 'ask', command: 'ask', dryRun: false };
    const d = await policy.declare(tc([diff(hard, null, 'changed\n')]), who);
    assert.equal((d.intent.effects[0] as WriteEffect).hardLinked, true);
    assert.ok(d.undeclared.some((n) => /hard links/.test(n)));
    policy.grants.add({ scope: 'session', sessionKey: 's', pattern: { kind: 'write', pathGlob: '**' }, source: 'person', description: 'all' }, Date.now());
    assert.equal(policy.grantFor(who, d.intent), undefined, 'a grant never answers for a hard-linked file');
    assert.ok(!(await policy.checkWrite(who, hard, 'changed\n')).allowed, 'a grant does not cover it');

    // The person's approval of exactly this write, shown as hard-linked, does.
    policy.recordDecision(who, d.intent, { kind: 'allow_once', optionId: 'allow' }, { kind: 'person' });
    const ok = await policy.checkWrite(who, hard, 'changed\n');
    assert.ok(ok.allowed && ok.source === 'approval', JSON.stringify(ok));
  });

  it('a file hard-linked after the person approved it is not covered by that approval', async () => {
    const late = path.join(ws, 'late.txt');
    fs.writeFileSync(late, 'before\n');
    const d = await policy.declare(tc([diff(late, null, 'after\n')]), who);
    assert.equal((d.intent.effects[0] as WriteEffect).hardLinked, undefined);
    policy.recordDecision(who, d.intent, { kind: 'allow_once', optionId: 'allow' }, { kind: 'person' });
    // The agent (another local process) links a file outside to the approved name.
    fs.rmSync(late);
    fs.linkSync(path.join(outside, 'secret.txt'), late);
    const c = await policy.checkWrite(who, late, 'after\n');
    assert.ok(!c.allowed && c.reason === 'protected_target', JSON.stringify(c));
  });
});

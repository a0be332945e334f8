import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditLog, AuditNotOpenError, recordHash, type AuditRecord } from '../../../src/policy/audit';
import type { AuditKeyStore } from '../../../src/policy/auditKey';
import { canonicalJson } from '../../../src/policy/intent';
import { EffectPolicy } from '../../../src/policy/effectPolicy';

/** A secret storage in memory; `fail` makes it throw like an unavailable keychain. */
function secrets(initial?: string, fail = false): AuditKeyStore & { value: () => string | undefined } {
  let v = initial;
  return {
    get: async () => {
      if (fail) throw new Error('no keychain');
      return v;
    },
    store: async (x) => void (v = x),
    value: () => v,
  };
}

function headStore() {
  let h: { seq: number; hash: string } | undefined;
  return { get: () => h, set: (x: { seq: number; hash: string }) => void (h = x) };
}

describe('audit log tail and signatures', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-audit-tail-'));
    file = path.join(dir, 'audit.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const entry = (n: number) => ({ sessionId: 's', agentId: 'a', event: 'effect' as const, intentHash: `h${n}`, decision: 'allowed', decidedBy: 'person' });
  const read = () => fs.readFileSync(file, 'utf8').trim().split('\n');
  const records = () => read().map((l) => JSON.parse(l) as AuditRecord);

  async function written(n: number, keys = secrets(), head = headStore()) {
    const log = new AuditLog(file, undefined, head, keys);
    await log.open();
    for (let i = 1; i <= n; i++) log.append(entry(i));
    return { log, keys, head };
  }

  it('signs every record with a key from the secret storage that never reaches the file', async () => {
    const { log, keys } = await written(3);
    assert.deepEqual(await log.verify(), { ok: true, records: 3 });
    const key = keys.value()!;
    assert.ok(key && !fs.readFileSync(file, 'utf8').includes(key), 'the key is not in the log');
    assert.ok(records().every((r) => /^[0-9a-f]{64}$/.test(r.mac ?? '') && r.key), 'each record carries a key id and a MAC');
    // Reopened with the same secret storage (the next start): still verified, nothing recorded.
    const again = new AuditLog(file, undefined, undefined, keys);
    assert.deepEqual((await again.open()).problems, []);
    again.append(entry(4));
    assert.deepEqual(await again.verify(), { ok: true, records: 4 });
  });

  it('records cut from the end while closed are found on start, recorded as a record of their own and keep showing', async () => {
    const { keys, head } = await written(4);
    fs.writeFileSync(file, read().slice(0, 2).join('\n') + '\n');
    const log = new AuditLog(file, undefined, head, keys);
    const opened = await log.open();
    assert.equal(opened.problems.length, 1);
    assert.match(opened.problems[0], /records 3–4 were removed from the end/);
    const gap = records()[2];
    assert.equal(gap.event, 'integrity');
    assert.equal(gap.decision, 'records_missing');
    log.append(entry(5));
    const v = await log.verify();
    assert.equal(v.ok, false, 'never healed');
    assert.equal(!v.ok && v.line, 3, 'Verify names the gap');
    assert.match(!v.ok ? v.reason : '', /removed from the end/);
    assert.equal(!v.ok && v.more, undefined, 'the records after the gap are fine');
  });

  it('forged records appended after the head (a correct hash chain, no or a wrong MAC) do not verify, and are recorded on start', async () => {
    const { keys, head } = await written(2);
    const last = records().at(-1)!;
    // Someone who can write the file but not read the secret storage appends a consistent record.
    const body = { ...entry(3), decision: 'allowed', seq: 3, time: new Date().toISOString(), prev: last.hash, key: last.key };
    const unsigned = { ...body, hash: recordHash(body) };
    fs.appendFileSync(file, JSON.stringify(unsigned) + '\n');
    const log = new AuditLog(file, undefined, head, keys);
    const opened = await log.open();
    assert.match(opened.problems.join('\n'), /record 3 was added after the last record the editor wrote/);
    const v = await log.verify();
    assert.equal(!v.ok && v.line, 3);
    assert.match(!v.ok ? v.reason : '', /is not signed/);

    // The same with a MAC by a key of the forger's own, under our key's id.
    fs.writeFileSync(file, read().slice(0, 2).join('\n') + '\n');
    const mac = createHmac('sha256', Buffer.alloc(32, 7)).update(canonicalJson(unsigned)).digest('hex');
    fs.appendFileSync(file, JSON.stringify({ ...unsigned, mac }) + '\n');
    const v2 = await new AuditLog(file, undefined, undefined, keys).verify();
    assert.equal(!v2.ok && v2.line, 3);
    assert.match(!v2.ok ? v2.reason : '', /signature does not match/);
    // Without any MAC field at all.
    const { key: _k, ...noKey } = body;
    fs.writeFileSync(file, read().slice(0, 2).join('\n') + '\n' + JSON.stringify({ ...noKey, hash: recordHash(noKey) }) + '\n');
    const v3 = await new AuditLog(file, undefined, undefined, keys).verify();
    assert.equal(!v3.ok && v3.line, 3);
    assert.match(!v3.ok ? v3.reason : '', /not signed/);
  });

  it('a record edited in the middle fails, even with every later hash recomputed', async () => {
    const { keys } = await written(4);
    const rs = records();
    rs[1] = { ...rs[1], decision: 'refused' };
    let prev = rs[0].hash;
    for (const r of rs.slice(1)) {
      const { hash: _h, mac: _m, ...body } = { ...r, prev };
      r.prev = prev;
      r.hash = recordHash(body);
      prev = r.hash;
    }
    fs.writeFileSync(file, rs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const v = await new AuditLog(file, undefined, undefined, keys).verify();
    assert.equal(!v.ok && v.line, 2, 'the first bad record is named');
    assert.equal(!v.ok && v.to, 4, 'and the records signed over it');
  });

  it('with the key gone (a new machine, cleared secret storage) the old records are never called valid; a new signed segment starts', async () => {
    await written(3, secrets('A'.repeat(43) + '='));
    const fresh = secrets();
    const log = new AuditLog(file, undefined, undefined, fresh);
    const opened = await log.open();
    assert.match(opened.problems.join('\n'), /a new signed segment starts here/);
    assert.ok(fresh.value(), 'a new key was made and stored');
    const seg = records()[3];
    assert.equal(seg.decision, 'new_signed_segment');
    log.append(entry(4));
    const v = await log.verify();
    assert.equal(v.ok, false);
    assert.deepEqual(!v.ok && [v.line, v.to], [1, 3]);
    assert.match(!v.ok ? v.reason : '', /signed with a key this editor does not have/);
    assert.deepEqual(!v.ok && v.more?.map((p) => p.line), [4], 'the segment record; the record after it verifies');
  });

  it('a log written before signing (no MACs) is not called valid once a key exists', async () => {
    const old = new AuditLog(file);
    old.append(entry(1));
    old.append(entry(2));
    const log = new AuditLog(file, undefined, undefined, secrets());
    await log.open();
    const v = await log.verify();
    assert.deepEqual(!v.ok && [v.line, v.to], [1, 2]);
    assert.match(!v.ok ? v.reason : '', /is not signed/);
  });

  it('a secret storage that fails: the start says so and nothing verifies', async () => {
    const log = new AuditLog(file, undefined, undefined, secrets(undefined, true));
    const opened = await log.open();
    assert.match(opened.problems[0], /signing key could not be read/);
    log.append(entry(1));
    const v = await log.verify();
    assert.equal(v.ok, false);
    assert.match(!v.ok ? v.reason : '', /cannot be verified/);
  });

  it('a head whose update was lost in a crash (the file one record ahead, signed) is not a problem', async () => {
    const keys = secrets();
    const head = headStore();
    const { log } = await written(2, keys, head);
    const saved = head.get()!;
    log.append(entry(3));
    head.set(saved);
    const again = new AuditLog(file, undefined, head, keys);
    assert.deepEqual((await again.open()).problems, []);
    assert.deepEqual(await again.verify(), { ok: true, records: 3 });
  });

  it('an effect is refused while the signed log is not open yet (nothing happens unrecorded)', async () => {
    const log = new AuditLog(file, undefined, undefined, secrets());
    assert.throws(() => log.append(entry(1)), AuditNotOpenError);
    const policy = new EffectPolicy({ defaults: () => ({ write: 'allow', command: 'ask', dryRun: false }), roots: () => [dir], readCurrent: async () => null, audit: log });
    const check = await policy.checkWrite({ sessionId: 's', agentId: 'a', cwd: dir }, path.join(dir, 'a.txt'), 'x');
    assert.equal(check.allowed, false);
    await log.open();
    assert.equal((await policy.checkWrite({ sessionId: 's', agentId: 'a', cwd: dir }, path.join(dir, 'a.txt'), 'x')).allowed, true);
  });
});

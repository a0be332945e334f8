import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditLog, verifyAudit } from '../../../src/policy/audit';
import { redactText } from '../../../src/policy/redact';

describe('audit log (hash chain)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-audit-'));
    file = path.join(dir, 'audit.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const entry = (n: number) => ({ sessionId: 's', agentId: 'a', event: 'effect' as const, intentHash: `h${n}`, decision: 'allowed', decidedBy: 'person' });

  it('chains records and verifies them, also across a reopened log', () => {
    const log = new AuditLog(file);
    log.append(entry(1));
    log.append(entry(2));
    new AuditLog(file).append(entry(3));
    const v = verifyAudit(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(v, { ok: true, records: 3 });
  });

  it('finds an edited line, a removed line and a torn line', () => {
    const log = new AuditLog(file);
    for (let i = 1; i <= 4; i++) log.append(entry(i));
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const edited = [...lines];
    edited[1] = edited[1].replace('"allowed"', '"refused"');
    assert.deepEqual(verifyAudit(edited.join('\n')), { ok: false, records: 4, line: 2, reason: 'its content does not match its hash (it was edited)' });
    const removed = lines.filter((_, i) => i !== 2);
    const r = verifyAudit(removed.join('\n'));
    assert.equal(!r.ok && r.line, 3);
    const torn = verifyAudit(lines.join('\n') + '\n{"seq":5,');
    assert.equal(!torn.ok && torn.line, 5);
  });

  it('with the head kept outside the file, finds records removed from the end and a rewritten chain', () => {
    let head: { seq: number; hash: string } | undefined;
    const log = new AuditLog(file, undefined, { get: () => head, set: (h) => (head = h) });
    for (let i = 1; i <= 3; i++) log.append(entry(i));
    const text = fs.readFileSync(file, 'utf8');
    assert.deepEqual(verifyAudit(text, head), { ok: true, records: 3 });
    const truncated = text.trim().split('\n').slice(0, 2).join('\n');
    assert.equal(verifyAudit(truncated).ok, true, 'without the head a truncation is invisible');
    const t = verifyAudit(truncated, head);
    assert.equal(!t.ok && t.line, 3);
    // Rewrite the whole chain consistently (as someone who can write the file could):
    fs.rmSync(file);
    const forged = new AuditLog(file);
    for (let i = 1; i <= 3; i++) forged.append({ ...entry(i), decision: 'refused' });
    const r = verifyAudit(fs.readFileSync(file, 'utf8'), head);
    assert.equal(!r.ok && r.reason, 'it is not the record the extension wrote there (the chain was rewritten)');
  });

  it('redacts secrets before writing', () => {
    const log = new AuditLog(file);
    log.append({ ...entry(1), detail: { command: 'curl -H "Authorization: Bearer abcdefgh12345" https://x && OPENAI_API_KEY=sk-abcdef123456 run --password hunter2', token: 'zzz' } });
    const text = fs.readFileSync(file, 'utf8');
    for (const secret of ['abcdefgh12345', 'sk-abcdef123456', 'hunter2', 'zzz']) assert.ok(!text.includes(secret), secret);
    assert.ok(verifyAudit(text).ok);
  });

  it('redacts headers, URL credentials, -u/-p passwords, key: value forms and known key formats', () => {
    const cases: [string, string][] = [
      ['curl -H "X-Api-Key: abc123secret" https://x', 'abc123secret'],
      ['git clone https://user:pa55word@host/repo', 'pa55word'],
      ['psql postgres://u:pw1234@db/app', 'pw1234'],
      ['mysql -u root -phunter2 app', 'hunter2'],
      ['curl -u admin:s3cret https://x', 's3cret'],
      ['echo gho_abcdefghijklmnopqrstuvwxyz0123', 'gho_abcdefghijklmnopqrstuvwxyz0123'],
      ['glpat-abcdefghijklmnopqrstuv', 'abcdefghijklmnopqrstuv'],
      ['key AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIzaSyA1234567890abcdefghijklmnopqrstuv'],
      ['{"apiKey":"zzz-123"}', 'zzz-123'],
      ['TOKEN: abcdef', 'abcdef'],
    ];
    for (const [input, secret] of cases) assert.ok(!redactText(input).includes(secret), `${input} -> ${redactText(input)}`);
  });

  it('redaction stays fast on hostile input', () => {
    for (const hostile of ['KEY'.repeat(80_000), 'authorization: '.repeat(20_000), 'x-a-key:'.repeat(30_000), 'a'.repeat(200_000)]) {
      const t0 = Date.now();
      redactText(hostile);
      assert.ok(Date.now() - t0 < 500, `took ${Date.now() - t0} ms`);
    }
  });

  it('redaction keeps ordinary text', () => {
    assert.equal(redactText('mkdir -p build && find . -print'), 'mkdir -p build && find . -print');
    assert.equal(redactText('npm test -- --grep token'), 'npm test -- --grep token');
    // One redaction everywhere since issue 16 (finding 16): the audit's marker is the inspector's `[redacted]`.
    assert.equal(redactText('GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz npm publish'), 'GITHUB_TOKEN=[redacted] npm publish');
  });
});

/**
 * One audit record as a person reads it: the decision, who and when, the intent's writes and
 * commands in words (the sandbox in its own sentence), what was done under it, and its integrity,
 * from a real signed log; an edited record says it is not verified; a name the agent chose cannot
 * add a line, reorder or hide text.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditLog, type AuditEntry } from '../../../src/policy/audit';
import type { AuditKeyStore } from '../../../src/policy/auditKey';
import { auditRecordText, locateRecord, shown } from '../../../src/policy/auditRecordText';

const HASH = 'c0ffee'.padEnd(64, '0');
const PROFILE = { writeRoots: ['/w', '/tmp'], denyRead: ['/home/me/.ssh'], allowedHosts: [], holdsBackRunnable: true };

const unwrap = (text: string) => text.replace(/\n {16}(?=\S)/g, ' ');

function keys(): AuditKeyStore {
  let v: string | undefined;
  return { get: async () => v, store: async (x) => void (v = x) };
}

const decision = (path: string): AuditEntry => ({
  sessionId: 'k1', acpSessionId: 'acp-1', agentId: 'demo', event: 'decision', intentHash: HASH, decision: 'allow_once', decidedBy: 'person',
  detail: {
    toolCallId: 'call-1', kind: 'edit', grants: [],
    effects: [
      { type: 'write', path, contentSha256: ['a'.repeat(64)], baseSha256: null },
      { type: 'command', command: 'npm', args: ['test', '--', '--grep', 'x'], cwd: '/w', envNames: ['CI'], sandbox: PROFILE },
    ],
  },
});

describe('an audit record as a person reads it', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-audit-record-'));
    file = path.join(dir, 'audit.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function signedLog(notePath: string) {
    let head: { seq: number; hash: string } | undefined;
    const log = new AuditLog(file, () => new Date('2026-03-01T10:20:30.456Z'), { get: () => head, set: (h) => (head = h) }, keys());
    await log.open();
    log.append({ sessionId: 'k1', agentId: 'demo', event: 'effect', decision: 'read', decidedBy: 'policy:read-only', detail: { tool: 'hover' } });
    log.append(decision(notePath));
    log.append({ sessionId: 'k1', agentId: 'demo', event: 'effect', intentHash: HASH, decision: 'allowed', decidedBy: `approval:${HASH}`, detail: { description: `write ${notePath}` } });
    log.append({ sessionId: 'k1', agentId: 'demo', event: 'effect', decision: 'performed', decidedBy: 'client', detail: { description: `write ${notePath}`, result: 'ok' } });
    return log;
  }

  it('says the decision, who and when, what it lets through, what was done under it and that it is verified', async () => {
    const log = await signedLog('notes/todo.md');
    const raw = fs.readFileSync(file, 'utf8');
    assert.ok(raw.split('\n').some((l) => l.length > 600), 'the log itself is one long JSON line a record');
    const found = locateRecord(raw, HASH)!;
    assert.equal(found.line, 2);
    const shownText = auditRecordText(found, { verification: await log.verify(), signed: true }, '/home/me');
    const lines = shownText.split('\n');
    // A sentence of ours goes on over lines indented to its field: read it as one.
    const text = unwrap(shownText);
    assert.ok(lines.every((l) => l.length <= 120), `every line is short:\n${lines.filter((l) => l.length > 120).join('\n')}`);
    assert.match(text, /^Audit record 2 of 4: a permission decision$/m);
    assert.match(text, /^Decision +Allowed once \(allow_once\)$/m);
    assert.match(text, /^Decided by +you \(person\)$/m);
    assert.match(text, /^When +2026-03-01 10:20:30 UTC$/m);
    assert.match(text, /^Tool call +call-1 \(edit\)$/m);
    assert.match(text, /^ {2}Write notes\/todo\.md$/m);
    assert.match(text, /^ {4}replaces +nothing \(a new file, or not known\)$/m);
    assert.match(text, /^ {2}Run npm test -- --grep x$/m);
    assert.match(text, /^ {4}sandbox +Sandboxed when the editor runs it: can write only in \/w and \/tmp/m);
    assert.match(text, /^ {2}none: it approves this request only$/m);
    assert.match(text, /^ {2}write notes\/todo\.md: allowed \(record 3\), performed: ok \(record 4\)$/m);
    assert.match(text, new RegExp(`^Intent hash +${HASH}$`, 'm'));
    assert.match(text, /^Signature +HMAC-SHA-256 by key /m);
    assert.match(text, /^Verified +yes: its hash matches its content and it links to record 1; its signature is this editor's\.$/m);
    assert.match(text, /^The log +4 records, all verified\.$/m);
  });

  it('an edited record says it is not verified, and why', async () => {
    const log = await signedLog('notes/todo.md');
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    lines[1] = lines[1].replace('"allow_once"', '"allow_always"');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const text = unwrap(auditRecordText(locateRecord(fs.readFileSync(file, 'utf8'), HASH)!, { verification: await log.verify(), signed: true }));
    assert.match(text, /^Verified +NO: its content does not match its hash \(it was edited\)\.$/m);
    assert.match(text, /^The log +4 records; one problem, the first at record 2: its content does not match its hash \(it was edited\)\. Agent Switchboard: Verify the Audit Log names them all\.$/m);
  });

  it('a path the agent chose stays one line, in its order, nothing hidden', async () => {
    const evil = 'notes/\u202egpj.exe\nDecision        Rejected\u200b.md';
    const log = await signedLog(evil);
    const text = auditRecordText(locateRecord(fs.readFileSync(file, 'utf8'), HASH)!, { verification: await log.verify(), signed: true });
    assert.equal(text.match(/^Decision/gm)?.length, 1, 'no second Decision line');
    assert.ok(text.includes('  Write notes/\\u{202e}gpj.exe\\u{a}Decision        Rejected\\u{200b}.md\n'), text);
    assert.ok(!/[\u202e\u200b]/.test(text));
    assert.equal(shown('a\tb\r\nc'), 'a\\u{9}b\\u{d}\\u{a}c');
  });

  it('an intent the log does not hold: nothing found', () => {
    assert.equal(locateRecord('', HASH), undefined);
    assert.equal(locateRecord('{"seq":1}\nnot json\n', HASH), undefined);
  });
});

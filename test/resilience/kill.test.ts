/**
 * Resilience: the extension host is killed (SIGKILL) in the middle of a turn — the session core of
 * the extension running in its own Node process with the demo agent, one permission answered and the
 * next one waiting. Started again from the same storage: the session is listed, its transcript is
 * intact up to the last update, the interrupted turn is shown as ended, and the audit chain is valid.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionJournal } from '../../src/acp/session/journal';
import { verifyAudit } from '../../src/policy/audit';

describe('resilience: the extension host killed mid-turn', function () {
  this.timeout(60_000);
  it('lists the session after a restart, with its transcript up to the last update and a valid audit chain', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-kill-')));
    const [journalDir, auditFile, workspace] = ['journal', 'audit.jsonl', 'ws'].map((p) => path.join(dir, p));
    fs.mkdirSync(workspace);
    const host = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, path.resolve(__dirname, '..', 'fakes', 'host-process.ts'), journalDir, auditFile, workspace], { stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = await new Promise<{ entries: number; sessionId: string }>((resolve, reject) => {
      let out = '';
      host.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /READY (\d+) (\S+)/.exec(out);
        if (m) resolve({ entries: Number(m[1]), sessionId: m[2] });
      });
      host.on('exit', (code) => reject(new Error(`the host ended before the turn was under way (exit ${code})`)));
    });
    host.kill('SIGKILL');
    await new Promise((r) => host.once('exit', r));

    const journal = new SessionJournal(journalDir);
    const [entry] = journal.list();
    assert.ok(entry, 'the session is listed');
    assert.equal(entry.open, true, 'it was open when the host died: it comes back');
    assert.equal(entry.sessionId, ready.sessionId);
    const { state, skipped } = journal.replay(entry.journalId, 'k');
    assert.equal(skipped, 0);
    // Everything shown before the kill is there, and the interrupted turn now reads as ended.
    assert.ok(state.entries.length >= ready.entries, `${state.entries.length} entries, ${ready.entries} before the kill`);
    assert.equal(state.entries.filter((e) => e.kind === 'user').length, 1);
    assert.ok(Object.values(state.permissions).some((p) => p.state === 'selected'), 'the answered request');
    assert.ok(Object.values(state.permissions).every((p) => p.state !== 'waiting'), 'nothing waits any more');
    assert.match((state.entries.at(-1) as { text?: string }).text ?? '', /window ended during this turn/);
    const audit = fs.readFileSync(auditFile, 'utf8');
    const v = verifyAudit(audit);
    assert.ok(v.ok, JSON.stringify(v));
    assert.ok(v.records >= 2, `the decision and its effect are recorded (${v.records} records)`);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

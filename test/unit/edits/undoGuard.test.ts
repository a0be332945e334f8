import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditEntry } from '../../../src/policy/audit';
import { checkUndoWrite, recordUndoResult, UndoRefusedError, type UndoGuardDeps, type UndoWrite } from '../../../src/edits/undoGuard';

describe('Undo and Restore writes pass containment, protected paths and the audit', () => {
  let tmp: string;
  let ws: string;
  let outside: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'undo-guard-')));
    ws = path.join(tmp, 'ws');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(outside);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function deps(over: Partial<UndoGuardDeps> = {}) {
    const audit: AuditEntry[] = [];
    const asked: string[] = [];
    const d: UndoGuardDeps = {
      roots: () => [ws],
      protectedTargets: () => 'ask',
      confirm: async (_w, rel) => (asked.push(rel), false),
      audit: (e) => void audit.push(e),
      ...over,
    };
    return { d, audit, asked };
  }
  const write = (p: string, over: Partial<UndoWrite> = {}): UndoWrite => ({ path: p, action: 'write', via: 'undo', sessionKey: 's', agentId: 'agent', changeIds: ['s#1#' + p], ...over });

  it('an ordinary workspace file: allowed without a question, audited as the person\'s effect', async () => {
    const { d, audit, asked } = deps();
    const file = path.join(ws, 'src', 'a.txt');
    assert.equal(await checkUndoWrite(write(file), d), 'src/a.txt');
    recordUndoResult(write(file), 'src/a.txt', 'ok', d);
    assert.deepEqual(asked, []);
    assert.deepEqual(audit.map((e) => [e.event, e.decision, e.decidedBy]), [['effect', 'allowed', 'person'], ['effect', 'performed', 'person']]);
    assert.deepEqual((audit[0].detail as { effect: unknown }).effect, { type: 'write', path: 'src/a.txt' });
  });

  it('outside the workspace, or through a symlink out of it: refused, never asked, audited', async () => {
    fs.symlinkSync(outside, path.join(ws, 'link'));
    for (const p of [path.join(outside, 'x.txt'), path.join(ws, 'link', 'x.txt'), path.join(ws, '..', 'outside', 'x.txt')]) {
      const { d, audit, asked } = deps({ confirm: async () => true });
      await assert.rejects(checkUndoWrite(write(p), d), (e: unknown) => e instanceof UndoRefusedError && /outside the workspace/.test(e.message), p);
      await assert.rejects(checkUndoWrite(write(p, { action: 'delete', via: 'restore_checkpoint' }), d), UndoRefusedError);
      assert.deepEqual(asked, []);
      assert.deepEqual(audit.map((e) => e.decision), ['refused', 'refused']);
    }
  });

  it('a protected path is written only after the person confirms exactly that write', async () => {
    for (const rel of ['.git/hooks/pre-commit', '.vscode/settings.json', 'sub/.git/config']) {
      const file = path.join(ws, rel);
      const no = deps();
      await assert.rejects(checkUndoWrite(write(file), no.d), (e: unknown) => e instanceof UndoRefusedError && /protected path/.test(e.message));
      assert.deepEqual(no.asked, [rel], 'the person was asked about that very file');
      assert.deepEqual(no.audit.map((e) => [e.decision, e.decidedBy]), [['refused', 'not_confirmed']]);
      const yes = deps({ confirm: async () => true });
      assert.equal(await checkUndoWrite(write(file, { action: 'delete' }), yes.d), rel);
      assert.deepEqual(yes.audit.map((e) => [e.decision, e.decidedBy]), [['allowed', 'person:confirmed_protected']]);
    }
  });

  it('a confirmation dialog that fails counts as no', async () => {
    const { d, audit } = deps({ confirm: () => Promise.reject(new Error('refused to show dialog in tests')) });
    await assert.rejects(checkUndoWrite(write(path.join(ws, '.git', 'config')), d), (e: unknown) => e instanceof UndoRefusedError && /only when you confirm/.test(e.message));
    assert.deepEqual(audit.map((e) => e.decidedBy), ['not_confirmed']);
  });

  it('a symlink inside the workspace to a protected folder is protected too', async () => {
    fs.symlinkSync(path.join(ws, '.git'), path.join(ws, 'innocent'));
    const { d, asked } = deps();
    await assert.rejects(checkUndoWrite(write(path.join(ws, 'innocent', 'hooks', 'pre-commit')), d), UndoRefusedError);
    assert.deepEqual(asked, ['.git/hooks/pre-commit']);
  });

  it('a file with another hard link is treated as protected', async () => {
    const file = path.join(ws, 'a.txt');
    fs.writeFileSync(file, 'x');
    fs.linkSync(file, path.join(outside, 'same.txt'));
    const { d, asked } = deps();
    await assert.rejects(checkUndoWrite(write(file), d), (e: unknown) => e instanceof UndoRefusedError && /hard links/.test(e.message));
    assert.deepEqual(asked, ['a.txt']);
  });

  it('policy protectedTargets "deny": refused without asking', async () => {
    const { d, asked, audit } = deps({ protectedTargets: () => 'deny', confirm: async () => true });
    await assert.rejects(checkUndoWrite(write(path.join(ws, '.vscode', 'tasks.json')), d), /denies writes to protected paths/);
    assert.deepEqual(asked, []);
    assert.deepEqual(audit.map((e) => e.decidedBy), ['protected_target']);
  });

  it('no write when the audit log cannot be written', async () => {
    const { d } = deps({
      audit: () => {
        throw new Error('disk full');
      },
    });
    await assert.rejects(checkUndoWrite(write(path.join(ws, 'a.txt')), d), /audit log could not be written/);
  });
});

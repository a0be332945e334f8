/**
 * The person's way back from an agent's changes (Undo of a hunk, Restore Checkpoint), carried out
 * by the Changes view on real files (a stand-in `vscode`, as the app constructs the view): an Undo
 * writes back exactly what the agent's lines replaced and not one other byte of the file, line
 * endings included; a restore puts back the file as it was, line endings included; and nothing is
 * restored while the agent is still working in that session.
 */
import '../../fakes/vscodeHost';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSessionState } from '../../../src/acp/session/types';
import { ReviewCenter } from '../../../src/views/review';

const lines = (n: number, eol: (i: number) => string) => Array.from({ length: n }, (_, i) => `line ${i + 1}${eol(i + 1)}`).join('');

describe('the way back from an agent\'s changes, on disk', function () {
  this.timeout(30_000);
  let root: string;
  let review: ReviewCenter;
  let file: string;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-wayback-')));
    file = path.join(root, 'a.txt');
    review = new ReviewCenter({ agentName: () => 'Demo', agentId: () => 'demo', roots: () => [root], protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
    review.model.turnStarted('s1', 1, 'edit a.txt');
  });
  afterEach(() => {
    review.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('Undo of one hunk of a file with mixed line endings changes only that hunk\'s bytes', async () => {
    // Mostly CRLF; lines 12 and 30 end in LF (pasted from elsewhere, or written so on purpose).
    const base = lines(40, (i) => (i === 12 || i === 30 ? '\n' : '\r\n'));
    const after = base.replace('line 3\r\n', 'line 3 (agent)\r\n').replace('line 35\r\n', 'line 35 (agent)\r\n');
    fs.writeFileSync(file, after);
    const c = review.model.record('s1', 1, file, 'agent', { text: base, bytes: Buffer.from(base) }, after)!;
    assert.equal(c.hunks.length, 2);
    assert.deepEqual(await review.undo({ type: 'hunk', changeId: c.id, hunk: 1 }), []);
    assert.equal(fs.readFileSync(file, 'utf8'), after.replace('line 35 (agent)\r\n', 'line 35\r\n'));
  });

  it('Restore Checkpoint puts the line endings back too when the agent changed them (base read from the document, no bytes)', async () => {
    const base = lines(10, () => '\r\n');
    const after = base.replace(/\r\n/g, '\n').replace('line 5\n', 'line 5 (agent)\n');
    fs.writeFileSync(file, after);
    review.model.record('s1', 1, file, 'client', { text: base }, after);
    const r = await review.restoreCheckpoint({ type: 'turn', sessionKey: 's1', turn: 1, confirmed: true }, { quiet: true });
    assert.deepEqual(r, { restored: [file], skipped: [] });
    assert.equal(fs.readFileSync(file, 'utf8'), base);
  });

  it('Restore Checkpoint leaves every file alone while the agent is still working in that session', async () => {
    const base = lines(10, () => '\n');
    const after = base.replace('line 5\n', 'line 5 (agent)\n');
    fs.writeFileSync(file, after);
    review.model.record('s1', 1, file, 'agent', { text: base, bytes: Buffer.from(base) }, after);
    const s = createSessionState({ key: 's1', agentId: 'demo', agentName: 'Demo', cwd: root });
    s.status = 'prompting';
    review.onSessionPatches(s, []);
    const reasons = new Map<string, string>();
    const r = await review.restoreCheckpoint({ type: 'turn', sessionKey: 's1', turn: 1, confirmed: true }, { quiet: true, reasons });
    assert.deepEqual(r, { restored: [], skipped: [file] });
    assert.match(reasons.get(file) ?? '', /still working/);
    assert.equal(fs.readFileSync(file, 'utf8'), after);
    // Once its turn has ended, the same restore goes ahead.
    s.status = 'ready';
    review.onSessionPatches(s, []);
    assert.deepEqual(await review.restoreCheckpoint({ type: 'turn', sessionKey: 's1', turn: 1, confirmed: true }, { quiet: true }), { restored: [file], skipped: [] });
    assert.equal(fs.readFileSync(file, 'utf8'), base);
  });

  it('Undo in a worktree whose session has closed (its folder kept, its changes still listed) writes there, as while it ran', async () => {
    // The app's roots: the workspace folders and the worktrees of the sessions still open; this one closed.
    const wt = path.join(root, '..', `${path.basename(root)}-wt`);
    fs.mkdirSync(wt);
    try {
      const s = createSessionState({ key: 's1', agentId: 'demo', agentName: 'Demo', cwd: wt });
      s.worktree = { id: 'w1', dir: wt, branch: 'switchboard/demo-w1', repo: root };
      review.sessions.note(s);
      const f = path.join(wt, 'b.txt');
      const base = lines(10, () => '\n');
      const after = base.replace('line 5\n', 'line 5 (agent)\n');
      fs.writeFileSync(f, after);
      const c = review.model.record('s1', 1, f, 'agent', { text: base, bytes: Buffer.from(base) }, after)!;
      assert.deepEqual(await review.undo({ type: 'file', changeId: c.id }), []);
      assert.equal(fs.readFileSync(f, 'utf8'), base);
      // Nowhere else outside the workspace: a sibling of the worktree is still refused.
      const other = path.join(root, '..', `${path.basename(root)}-other.txt`);
      fs.writeFileSync(other, after);
      const o = review.model.record('s1', 1, other, 'agent', { text: base, bytes: Buffer.from(base) }, after)!;
      assert.match((await review.undo({ type: 'file', changeId: o.id }))[0] ?? '', /outside the workspace folders/);
      assert.equal(fs.readFileSync(other, 'utf8'), after);
      fs.rmSync(other);
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });

  it('a file an Undo deleted in a worktree is not written back once the worktree is discarded', async () => {
    const wt = path.join(root, '..', `${path.basename(root)}-wt2`);
    fs.mkdirSync(wt);
    try {
      const s = createSessionState({ key: 's1', agentId: 'demo', agentName: 'Demo', cwd: wt });
      s.worktree = { id: 'w2', dir: wt, branch: 'switchboard/demo-w2', repo: root };
      review.sessions.note(s);
      const f = path.join(wt, 'new.txt');
      fs.writeFileSync(f, 'new\n');
      const c = review.model.record('s1', 1, f, 'agent', { text: null }, 'new\n')!;
      assert.deepEqual(await review.undo({ type: 'file', changeId: c.id }), []);
      assert.ok(!fs.existsSync(f));
      fs.rmSync(wt, { recursive: true });
      review.model.forgetUnder(wt);
      assert.deepEqual(await review.restoreDeleted(), { restored: [], skipped: [f] });
      assert.ok(!fs.existsSync(wt), 'the discarded worktree\'s folder is not made again');
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });

  it('Undo of a whole session (or turn) undoes its changes newest first: a later turn built on an earlier one is taken out before it', async () => {
    const base = lines(40, () => '\n');
    const a1 = base.replace('line 10\n', 'line 10 (turn 1)\n');
    // Turn 2 changes a line next to turn 1's: turn 1's hunk can only be undone once turn 2's is.
    const a2 = a1.replace('line 12\n', 'line 12 (turn 2)\n');
    fs.writeFileSync(file, a2);
    review.model.turnStarted('s1', 2, 'again');
    review.model.record('s1', 1, file, 'agent', { text: base, bytes: Buffer.from(base) }, a1, undefined, 1);
    review.model.record('s1', 2, file, 'agent', { text: a1, bytes: Buffer.from(a1) }, a2, undefined, 2);
    assert.deepEqual(await review.undo({ type: 'session', sessionKey: 's1' }), []);
    assert.equal(fs.readFileSync(file, 'utf8'), base);
  });
});

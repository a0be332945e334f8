/**
 * The pure parts of comparisons and the board (issue 20): a file's diff for the compare view
 * (bounded), the test command run in its own process group with its exit code and output tail, and
 * the board's words for a session.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { compareFile, duration, MAX_DIFF_LINES } from '../../../src/worktrees/compare';
import { runTestCommand } from '../../../src/worktrees/testRun';
import { boardLine } from '../../../src/acp/session/board';
import { createSessionState } from '../../../src/acp/session/types';

describe('comparisons and the board (issue 20)', function () {
  this.timeout(20_000);

  it('a file\'s diff: added, deleted, modified, binary; cut with a count past the bound', () => {
    assert.deepEqual(compareFile('a.txt', null, 'x\ny\n'), { rel: 'a.txt', kind: 'added', added: 2, removed: 0, lines: ['@@ Lines 1–2', '+x', '+y'], more: 0 });
    assert.equal(compareFile('a.txt', 'x\n', null).kind, 'deleted');
    assert.equal(compareFile('a.bin', undefined, 'x').kind, 'binary');
    const m = compareFile('a.txt', 'a\nb\nc\n', 'a\nB\nc\n');
    assert.deepEqual([m.kind, m.added, m.removed], ['modified', 1, 1]);
    const big = compareFile('big.txt', '', Array.from({ length: 1000 }, (_, i) => `l${i}`).join('\n') + '\n');
    assert.equal(big.lines.length, MAX_DIFF_LINES);
    assert.equal(big.more, 1001 - MAX_DIFF_LINES);
    assert.equal(duration(840), '840 ms');
    assert.equal(duration(125_000), '2 min 5 s');
  });

  it('the test command: its exit code and output tail; a time limit ends its whole process group', async function () {
    if (process.platform === 'win32') this.skip();
    const ok = await runTestCommand('echo one; echo two >&2; exit 3', os.tmpdir());
    assert.equal(ok.exitCode, 3);
    assert.match(ok.output, /one\n/);
    assert.match(ok.output, /two\n/);
    const started = Date.now();
    const slow = await runTestCommand('sleep 30 & sleep 30; echo never', os.tmpdir(), { timeoutMs: 300 });
    assert.equal(slow.stopped, 'timeout');
    assert.ok(Date.now() - started < 5000, 'ended at the limit, the background child too');
    assert.doesNotMatch(slow.output, /never/);
  });

  it('the board says what a session is doing, where, what it changed and what it cost', () => {
    const s = createSessionState({ key: 'k', agentId: 'demo', agentName: 'Demo', cwd: '/w/project' });
    s.status = 'prompting';
    assert.equal(boardLine(s).text, 'working · project');
    s.permissions.p = { permissionId: 'p', toolCallId: 't', options: [], state: 'waiting', requestedAt: 0 };
    s.permissions.q = { permissionId: 'q', toolCallId: 'u', options: [], state: 'waiting', requestedAt: 0 };
    assert.equal(boardLine(s).statusText, 'waiting for you (2)');
    // A question of the agent waits for the person as a permission request does.
    s.entries.push({ kind: 'elicitation', id: 'e', elicitation: { elicitationKey: 'k1', mode: 'form', message: 'Which?', state: 'waiting', requestedAt: 0 } });
    assert.equal(boardLine(s).statusText, 'waiting for you (3)');
    s.entries = [];
    s.permissions = {};
    s.status = 'ready';
    s.lastStopReason = 'end_turn';
    s.worktree = { id: '1a2b3c4d', dir: '/s/wt', branch: 'switchboard/demo-1a2b3c4d', repo: '/w/project' };
    s.usage = { used: 53_000, size: 200_000, cost: { amount: 0.42, currency: 'USD' } };
    assert.equal(boardLine(s, { files: 3, added: 12, removed: 4 }).text, 'done · ⎇ switchboard/demo-1a2b3c4d · 3 files to review +12 −4 · 53k tokens · 0.42 USD');
    s.status = 'error';
    assert.equal(boardLine(s).status, 'failed');
  });
});

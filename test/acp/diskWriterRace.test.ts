/**
 * Issue 18, holdout, end to end under Node: the scripted disk-writing agent (src/demo/diskWriter.ts,
 * over real stdio) empties a file, and only seconds later announces its edit and writes the new
 * text: the truncate-then-write race, made deterministic. The review is fed from the session's
 * patches as views/review.ts feeds it, with the real disk reader. Undo must refuse (old code:
 * the empty snapshot counted as certain, and Undo wrote an empty file over the person's text).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionManager } from '../../src/acp/sessionManager';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { DiskBaselines } from '../../src/edits/baselines';
import { readForBaseline } from '../../src/edits/diskRead';
import { ReviewModel } from '../../src/edits/review';
import { MemoryFiles } from '../fakes/memoryFiles';
import { testPolicy } from '../fakes/policy';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;
const utf8 = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('a disk-writing agent that empties the file seconds before announcing its edit (real stdio)', function () {
  this.timeout(60_000);
  let cwd: string;
  let manager: SessionManager;

  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-race-')));
    const files = new MemoryFiles();
    const agent: ResolvedAgent = { id: 'disk', name: 'Disk writer', command: process.execPath, resolvedCommand: process.execPath, args: ['--import', TSX, DEMO], env: { SWITCHBOARD_DEMO_SCENARIO: 'disk-writer', SWITCHBOARD_DEMO_DELAY_MS: '100' }, source: 'settings', available: true };
    manager = new SessionManager({
      policy: testPolicy({ roots: [cwd], readCurrent: async () => null }),
      agents: () => [agent],
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 20_000,
      clientInfo: { name: 'race-test', version: '0' },
      filesFor: () => files,
      terminalsFor: (_key, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 300 }),
    });
  });
  afterEach(async () => {
    await manager.dispose();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('the empty snapshot is "base unknown" and Undo plans no write: the file keeps the agent\'s text', async () => {
    const file = path.join(cwd, 'notes.txt');
    const original = Array.from({ length: 12 }, (_, i) => `the person's line ${i + 1}`).join('\n') + '\n';
    fs.writeFileSync(file, original);
    // Older than the 2 s margin: the fixture is the person's, from before the session.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const review = new ReviewModel();
    const baselines = new DiskBaselines({ review, read: (p, max) => readForBaseline(p, max, utf8), roots: () => [cwd] });
    const c = await manager.start('disk', cwd);
    // As views/review.ts follows a session: a user entry starts a turn, tool calls are seen, a turn ends.
    let status = c.state.status;
    let turn = 0;
    c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'entry' && p.entry.kind === 'user') {
          turn++;
          review.turnStarted(c.state.key, turn, p.entry.text);
          baselines.turnStarted(c.state.key);
        }
        if (p.op === 'toolCall') baselines.toolCall(c.state.key, turn, c.state.cwd, p.toolCall);
      }
      if ((status === 'prompting' || status === 'cancelling') && c.state.status !== 'prompting' && c.state.status !== 'cancelling') baselines.turnEnded(c.state.key);
      status = c.state.status;
    });
    const agentText = original.replace('line 4\n', 'line 4 (agent)\n');
    await c.prompt(JSON.stringify({ edits: [{ path: 'notes.txt', content: agentText, truncateFirst: true, announceAfterMs: 2600 }] }));
    await baselines.settled();
    assert.equal(fs.readFileSync(file, 'utf8'), agentText);
    const [change] = review.turns().flatMap((t) => t.files);
    assert.ok(change, 'the agent\'s change is listed');
    assert.equal(change.base.text, '', 'the snapshot caught the file emptied');
    const plan = review.planUndo(change.id, fs.readFileSync(file, 'utf8'));
    // What views/review.ts would write for each plan: an empty file for restoreBase with these bytes.
    if (plan.action === 'restoreBase') fs.writeFileSync(file, plan.bytes ?? plan.text);
    assert.equal(fs.readFileSync(file, 'utf8'), agentText, 'Undo never writes the empty snapshot over the file');
    assert.equal(plan.action, 'conflict');
    assert.match(plan.action === 'conflict' ? plan.message : '', /not known for certain \((the file was empty when it was read|the agent's diff shows text the file did not hold)/);
    assert.equal(review.planUndo(change.id, agentText, 0).action, 'conflict', 'nor one hunk');
  });
});

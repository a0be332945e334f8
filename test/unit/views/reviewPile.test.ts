/**
 * The Changes view after parallel work: sessions named by their agent and title, turns by what was
 * asked in words (a JSON script too), counts of what is still to review only, and a worktree's
 * changes gone from the review when the worktree is discarded (kept when it is applied; gone when
 * its session closes with its folder removed).
 */
import { EventEmitter } from '../../fakes/vscodeHost';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSessionState } from '../../../src/acp/session/types';
import { pendingCounts } from '../../../src/edits/reviewSessions';
import { ReviewCenter } from '../../../src/views/review';
import { ReviewTree, type ReviewNode } from '../../../src/views/reviewTree';
import { followWorktrees, reviewSessionClosed, type WorktreeEnd } from '../../../src/views/reviewWorktrees';

const SCRIPT = '{"edits": [{"path": "shared.txt", "content": "line 1\\nline 2\\n"}]}';

describe('the Changes view after parallel work', () => {
  let root: string;
  let storage: string;
  let review: ReviewCenter;
  let tree: ReviewTree;
  let at = 0;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-pile-')));
    storage = path.join(root, 'storage');
    review = new ReviewCenter({ agentName: () => 'closed session', agentId: () => 'demo', roots: () => [path.join(root, 'main')], protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
    tree = new ReviewTree(review.model, (k) => review.sessions.get(k) ?? { agentName: '?', title: '?' }, () => [path.join(root, 'main'), ...review.sessions.worktreeDirs()]);
  });
  afterEach(() => {
    tree.dispose();
    review.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** A session of `agentName` (in worktree `wt` when given) whose turn 1 changed `file`. */
  function session(key: string, agentName: string, prompt: string, file: string, wt?: string) {
    const s = createSessionState({ key, agentId: 'demo', agentName, cwd: wt ?? path.join(root, 'main') });
    s.entries.push({ kind: 'user', id: `u-${key}`, text: prompt });
    if (wt) s.worktree = { id: key, dir: wt, branch: `switchboard/demo-${key}`, repo: path.join(root, 'main') };
    review.sessions.note(s);
    review.model.turnStarted(key, 1, prompt);
    return review.model.record(key, 1, file, 'agent', { text: 'a\n' }, 'a\nb\nc\n', undefined, 1000 + ++at)!;
  }
  const labels = (nodes: ReviewNode[]) => nodes.map((n) => {
    const item = tree.getTreeItem(n);
    return `${item.label} — ${item.description}`;
  });

  it('names each session by agent and title, each turn by its prompt in words, and counts only what is to review', () => {
    const w1 = path.join(storage, 'worktrees', 'w1');
    const w2 = path.join(storage, 'worktrees', 'w2');
    const a = session('s1', 'Demo agent', SCRIPT, path.join(w1, 'shared.txt'), w1);
    session('s2', 'Demo agent', SCRIPT, path.join(w2, 'shared.txt'), w2);
    const main = session('s3', 'Claude Code', 'Fix the greeting\n\nso that it says hello', path.join(root, 'main', 'src', 'greet.ts'));
    const sessions = tree.getChildren();
    assert.deepEqual(labels(sessions), [
      'Claude Code · Fix the greeting so that it says hello — 1 to review',
      'Demo agent · edits shared.txt — 1 to review · ⎇ switchboard/demo-s2',
      'Demo agent · edits shared.txt — 1 to review · ⎇ switchboard/demo-s1',
    ]);
    const turns = sessions.flatMap((s) => tree.getChildren(s));
    assert.deepEqual(labels(turns), ['Turn 1 · Fix the greeting so that it says hello — 1 to review', 'Turn 1 · edits shared.txt — 1 to review', 'Turn 1 · edits shared.txt — 1 to review']);
    for (const t of labels([...sessions, ...turns])) assert.doesNotMatch(t, /[{}"]/);
    // A worktree's file is named within its worktree, not by the storage path.
    const files = turns.flatMap((t) => tree.getChildren(t));
    assert.deepEqual(labels(files).map((l) => l.replace(/ — .*/, '')), ['greet.ts', 'shared.txt', 'shared.txt']);
    assert.ok(labels(files).every((l) => !l.includes(storage)), labels(files).join('\n'));

    // Undone and kept changes are decided: only the one left is counted.
    review.model.undone(main.id);
    review.model.keep(a.id);
    assert.deepEqual(pendingCounts(review.model), { files: 1, added: 2, removed: 0 });
    assert.deepEqual(labels(tree.getChildren()), [
      'Claude Code · Fix the greeting so that it says hello — reviewed',
      'Demo agent · edits shared.txt — 1 to review · ⎇ switchboard/demo-s2',
      'Demo agent · edits shared.txt — reviewed · ⎇ switchboard/demo-s1',
    ]);
    assert.equal(tree.getTreeItem(tree.getChildren(tree.getChildren()[0])[0]).description, '1 file · reviewed');
  });

  it('a discarded worktree takes its changes out of the review; an applied one has them kept; a closed session with its folder gone too', () => {
    const w1 = path.join(storage, 'worktrees', 'w1');
    const w2 = path.join(storage, 'worktrees', 'w2');
    const w3 = path.join(storage, 'worktrees', 'w3');
    session('s1', 'Demo agent', SCRIPT, path.join(w1, 'shared.txt'), w1);
    session('s2', 'Demo agent', SCRIPT, path.join(w2, 'shared.txt'), w2);
    session('s3', 'Demo agent', SCRIPT, path.join(w3, 'shared.txt'), w3);
    const main = session('s4', 'Demo agent', 'edit notes', path.join(root, 'main', 'notes.md'));
    const ends = new EventEmitter<WorktreeEnd>();
    const sub = followWorktrees(review.model, ends.event);
    ends.fire({ dir: w2, how: 'discarded' });
    assert.deepEqual(review.model.turns().map((t) => t.sessionKey).sort(), ['s1', 's3', 's4']);
    ends.fire({ dir: w1, how: 'applied' });
    assert.equal(review.model.turns('s1')[0].files[0].fileDecision, 'kept');
    assert.equal(review.model.get(main.id)?.fileDecision, 'pending', 'the main folder\'s change is not the worktree\'s');
    // Its folder removed outside the editor, then its session closes.
    reviewSessionClosed(review.model, { worktree: { id: 's3', dir: w3, branch: 'b', repo: root } });
    assert.deepEqual(review.model.turns().map((t) => t.sessionKey).sort(), ['s1', 's4']);
    assert.equal(pendingCounts(review.model).files, 1);
    assert.ok(tree.getChildren().every((n) => n.type !== 'session' || n.sessionKey !== 's2'));
    sub.dispose();
  });
});

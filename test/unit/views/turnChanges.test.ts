/**
 * The extension's side of the end-of-turn row, on a stand-in `vscode`: the page gets the rows after
 * a snapshot and again only when they change; Keep all and Undo all are the Changes view's own (Undo
 * writes the base back on disk and the row says so); a click is answered even when nothing changed;
 * nothing acts on another session's turns or opens another session's change.
 */
import '../../fakes/vscodeHost';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter, recorded } from '../../fakes/vscodeHost';
import type { SessionState } from '../../../src/acp/session/types';
import type { HostMessage } from '../../../src/views/session/protocol';
import { ReviewCenter } from '../../../src/views/review';
import { reviewTurnChanges, TurnChangesFeed } from '../../../src/views/session/turnChanges';

type Rows = Extract<HostMessage, { type: 'turnChanges' }>;
const settle = () => new Promise((r) => setTimeout(r, 80));

describe('the end-of-turn rows, from the extension', function () {
  this.timeout(20_000);
  let root: string;
  let review: ReviewCenter;
  let feed: TurnChangesFeed;
  let posted: Rows[];
  let state: SessionState;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-turnrows-')));
    review = new ReviewCenter({ agentName: () => 'Demo', agentId: () => 'demo', roots: () => [root], protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
    state = {
      key: 's1', sessionId: 's1', agentId: 'demo', agentName: 'Demo', cwd: root, status: 'ready',
      entries: [{ kind: 'user', id: 'e0', text: 'edit', echo: 0 }, { kind: 'agent', id: 'e1', text: 'done', attachments: [] }],
      toolCalls: {}, permissions: {}, terminals: {}, plan: [], availableCommands: [], rev: 2, nextEntry: 2,
    };
    posted = [];
    const source = reviewTurnChanges({ review, worktrees: { listed: () => [], onDidChange: new EventEmitter<void>().event }, roots: () => [root] });
    feed = new TurnChangesFeed(source, () => state, (m) => posted.push(structuredClone(m)), () => true);
  });
  afterEach(() => {
    feed.dispose();
    review.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** A file the agent changed in turn 1: on disk as it left it, recorded with a certain base. */
  function changed(name: string, before: string, after: string): string {
    const p = path.join(root, name);
    fs.writeFileSync(p, after);
    return review.model.record('s1', 1, p, 'client', { text: before }, after, 't1')!.id;
  }

  it('after a snapshot, then only when the rows change; not while the turn runs', async () => {
    changed('a.txt', 'one\n', 'one\ntwo\n');
    state.status = 'prompting';
    feed.resend();
    await settle();
    assert.deepEqual(posted.at(-1)?.turns, [], 'the running turn has no row yet');
    state.status = 'ready';
    feed.sessionChanged([{ op: 'meta', meta: { status: 'ready' } }]);
    await settle();
    assert.deepEqual(posted.at(-1)?.turns.map((t) => [t.turn, t.promptEntryId, t.files.map((f) => [f.name, f.added, f.removed, f.state])]), [[1, 'e0', [['a.txt', 1, 0, 'pending']]]]);
    const n = posted.length;
    feed.sessionChanged([{ op: 'meta', meta: { status: 'ready' } }]);
    await settle();
    assert.equal(posted.length, n, 'the same rows are not sent twice');
  });

  it('Keep all and Undo all are the Changes view\'s: Undo writes the base back, the row follows, and every click is answered', async () => {
    const a = changed('a.txt', 'one\n', 'one\ntwo\n');
    changed('b.txt', 'x\n', 'y\n');
    feed.resend();
    await settle();
    await feed.handle({ type: 'turnAction', key: 's1', turn: 1, action: 'undo' });
    await settle();
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n');
    assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'x\n');
    assert.deepEqual(posted.at(-1)?.turns[0].files.map((f) => f.state), ['undone', 'undone']);
    assert.equal(review.model.get(a)?.fileDecision, 'undone');
    // Nothing left to do: the page is still answered, so its disabled buttons come back.
    const n = posted.length;
    await feed.handle({ type: 'turnAction', key: 's1', turn: 1, action: 'keep' });
    assert.equal(posted.length, n + 1);
  });

  it('another session\'s turn or change is not acted on from this page', async () => {
    const other = review.model.record('s2', 1, path.join(root, 'c.txt'), 'client', { text: 'c\n' }, 'd\n', 't9')!.id;
    await feed.handle({ type: 'turnAction', key: 's2', turn: 1, action: 'keep' });
    assert.equal(review.model.get(other)?.fileDecision, 'pending');
    recorded.executed.length = 0;
    await feed.handle({ type: 'openChange', key: 's1', changeId: other });
    assert.deepEqual(recorded.executed.map((c) => c.command), []);
    const mine = changed('a.txt', 'one\n', 'two\n');
    await feed.handle({ type: 'openChange', key: 's1', changeId: mine });
    assert.deepEqual(recorded.executed.map((c) => c.command), ['vscode.diff']);
  });
});

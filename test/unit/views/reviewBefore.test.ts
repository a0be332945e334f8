/**
 * The review's diff shows the file as it was before the turn, and the Changes view counts that
 * diff. The Changes view and the compare view are constructed as the app constructs them (the
 * review first), on a stand-in `vscode` that resolves read-only documents as the editor does (a
 * scheme's providers newest first, the first text wins); each test opens a change's diff as a click
 * in the tree does and reads both sides. Before the fix both views registered a provider for the
 * same scheme and the compare view's, the newer, answered the review's documents with '': an
 * edited file showed as entirely new.
 */
import '../../fakes/vscodeHost';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openVirtualDocument, recorded, type Uri } from '../../fakes/vscodeHost';
import type { ToolCallView } from '../../../src/acp/session/types';
import { RECENT_MS } from '../../../src/edits/baselines';
import { decodeFile } from '../../../src/edits/encoding';
import { hunksOf } from '../../../src/edits/model';
import { ReviewCenter } from '../../../src/views/review';
import { ReviewTree } from '../../../src/views/reviewTree';
import { CompareCenter, type CompareHost } from '../../../src/views/compare/panel';
import { gitRunner } from '../../../src/worktrees/gitCli';
import { Worktrees } from '../../../src/worktrees/worktrees';

const GREET = ['export function greet(name: string): string {', '  return `Hello, ${name}!`;', '}', '', 'console.log(greet("world"));'].join('\n') + '\n';
const ADDED = '\n// Written by the offline demo agent (a script, not a model) for the prompt:\n// Add a farewell function to src/greet.ts\n';
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

/** The file's text as the editor shows it on the right side (its BOM decides the encoding). */
const onDisk = (p: string) => (fs.existsSync(p) ? decodeFile(fs.readFileSync(p)).text : null);

/** "+a −r" of the diff between two texts, as a diff editor shows it line by line. */
function counts(before: string, after: string): string {
  const lines = hunksOf(before, after).flatMap((h) => h.lines);
  return `+${lines.filter((l) => l[0] === '+').length} −${lines.filter((l) => l[0] === '-').length}`;
}

describe('the review\'s diff: the file before the turn, as the Changes view counts it', function () {
  this.timeout(30_000);
  let root: string;
  let review: ReviewCenter;
  let compare: CompareCenter;
  let tree: ReviewTree;
  let worktrees: Worktrees;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-before-')));
    fs.mkdirSync(path.join(root, 'src'));
    worktrees = new Worktrees(gitRunner(), `${root}-storage`);
    review = new ReviewCenter({ agentName: () => 'Demo', agentId: () => 'demo', roots: () => [root], protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
    // After the review, as in the app: its provider is the newer one.
    compare = new CompareCenter({ worktrees: { worktrees: async () => worktrees } } as unknown as CompareHost);
    tree = new ReviewTree(review.model, () => ({ agentName: 'Demo', title: 'a session' }), () => [root]);
    review.model.turnStarted('s1', 1, 'Add a farewell function to src/greet.ts');
  });
  afterEach(() => {
    tree.dispose();
    compare.dispose();
    review.dispose();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(`${root}-storage`, { recursive: true, force: true });
  });

  /** Opens a change's diff as a click on its file in the tree does; what each side shows, and the title. */
  async function openDiff(changeId: string): Promise<{ left: string | undefined; right: string | null | undefined; title: string }> {
    recorded.executed.length = 0;
    await review.openDiff({ type: 'file', changeId });
    const call = recorded.executed.find((c) => c.command === 'vscode.diff');
    assert.ok(call, 'a diff editor was opened');
    const [left, right, title] = call.args as [Uri, Uri, string];
    return { left: await openVirtualDocument(left), right: right.scheme === 'file' ? onDisk(right.fsPath) : await openVirtualDocument(right), title };
  }

  /** What the Changes view says of a file: its description (e.g. "src · +3 −0 · to review"). */
  const treeSays = (changeId: string) => String(tree.getTreeItem({ type: 'file', changeId }).description);

  /** A file in the workspace (see {@link turnStarts}). */
  function fixture(rel: string, bytes: string | Buffer): string {
    const p = path.join(root, rel);
    fs.writeFileSync(p, bytes);
    return p;
  }

  /**
   * The agent's turn starts once the fixtures are older than the margin within which a change may
   * be the agent's own (their snapshots are then certain, as for a person's files from before).
   */
  async function turnStarts(): Promise<void> {
    await new Promise((r) => setTimeout(r, RECENT_MS + 100));
    review.baselines.turnStarted('s1');
  }

  /** An agent's own tool call that changes files on disk: announced, performed by `act`, completed. */
  async function agentCall(id: string, kind: string, paths: string[], act: () => void): Promise<void> {
    const tc = (status: string): ToolCallView => ({ toolCallId: id, title: `${kind} ${paths.join(' ')}`, kind, status, content: [], locations: paths.map((p) => ({ path: p })), placeholder: false }) as ToolCallView;
    review.baselines.toolCall('s1', 1, root, tc('pending'));
    await review.settled();
    act();
    review.baselines.toolCall('s1', 1, root, tc('completed'));
    await review.settled();
  }

  it('an edited file written for the agent (src/greet.ts, 5 lines, 3 added): the left side is the 5 lines, the tree and the diff say +3 −0', async () => {
    const file = fixture('src/greet.ts', GREET);
    fs.writeFileSync(file, GREET + ADDED);
    const c = review.model.record('s1', 1, file, 'client', { text: GREET, bytes: Buffer.from(GREET) }, GREET + ADDED, 't1')!;
    const d = await openDiff(c.id);
    assert.equal(d.left, GREET, 'the left side is the file before the turn, not empty');
    assert.equal(d.right, GREET + ADDED);
    assert.equal(counts(d.left!, d.right!), '+3 −0');
    assert.match(treeSays(c.id), /\+3 −0/);
    assert.equal(d.title, 'greet.ts: before turn 1 ↔ now');
  });

  it('the same after Undo of the file, and after Undo of one hunk', async () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'line 2 (agent)\n').replace('line 28\n', 'line 28 (agent)\n');
    const file = fixture('src/lines.txt', after);
    const c = review.model.record('s1', 1, file, 'client', { text: before, bytes: Buffer.from(before) }, after, 't1')!;
    assert.equal(c.hunks.length, 2);
    assert.deepEqual(await review.undo({ type: 'hunk', changeId: c.id, hunk: 0 }), []);
    let d = await openDiff(c.id);
    assert.equal(d.left, before);
    assert.equal(counts(d.left!, d.right!), '+1 −1', 'the hunk kept');
    assert.deepEqual(await review.undo({ type: 'file', changeId: c.id }), []);
    d = await openDiff(c.id);
    assert.equal(d.left, before);
    assert.equal(d.right, before, 'undone: the file is as before');
    assert.match(treeSays(c.id), /\+2 −2 · undone/);
  });

  it('a created file: nothing on the left, the file on the right, "created"', async () => {
    const file = path.join(root, 'src', 'new.ts');
    fs.writeFileSync(file, 'export const x = 1;\n');
    const c = review.model.record('s1', 1, file, 'client', { text: null }, 'export const x = 1;\n', 't1')!;
    const d = await openDiff(c.id);
    assert.equal(d.left, '');
    assert.equal(d.right, 'export const x = 1;\n');
    assert.match(treeSays(c.id), /created/);
  });

  it('a file the agent deleted on disk: its text on the left, nothing on the right, "deleted"', async () => {
    const file = fixture('src/old.ts', GREET);
    await turnStarts();
    await agentCall('t1', 'delete', [file], () => fs.rmSync(file));
    const [c] = review.model.turns()[0].files;
    const d = await openDiff(c.id);
    assert.equal(d.left, GREET);
    assert.equal(d.right, '');
    assert.match(treeSays(c.id), /deleted/);
  });

  it('a CRLF file the agent edited on disk: the left side keeps its CRLF text; counts agree; a change of line endings is named', async () => {
    const crlf = GREET.replace(/\n/g, '\r\n');
    const file = fixture('src/greet.ts', crlf);
    const lf = fixture('src/lf.ts', crlf);
    await turnStarts();
    await agentCall('t1', 'edit', [file], () => fs.writeFileSync(file, crlf + ADDED.replace(/\n/g, '\r\n')));
    const [c] = review.model.turns()[0].files;
    const d = await openDiff(c.id);
    assert.equal(d.left, crlf);
    assert.equal(counts(d.left!, d.right!), '+3 −0');
    assert.match(treeSays(c.id), /\+3 −0 ·/);
    // Rewritten with LF: every line's ending changed, which the diff editor does not show; said so.
    await agentCall('t2', 'edit', [lf], () => fs.writeFileSync(lf, GREET + ADDED));
    const e = review.model.latest('s1', 1, lf)!;
    const d2 = await openDiff(e.id);
    assert.equal(d2.left, crlf);
    assert.equal(counts(d2.left!, d2.right!), '+8 −5');
    assert.match(treeSays(e.id), /\+8 −5 · CRLF → LF/);
  });

  it('UTF-16 and UTF-8-with-BOM files the agent edited on disk: the left side is their text (no BOM, not bytes read as UTF-8)', async () => {
    const files = [['src/wide.ts', utf16], ['src/bom.ts', (t: string) => Buffer.from('\ufeff' + t)]] as const;
    for (const [name, encode] of files) fixture(name, encode(GREET));
    await turnStarts();
    for (const [name, encode] of files) {
      const file = path.join(root, name);
      await agentCall(`t-${name}`, 'edit', [file], () => fs.writeFileSync(file, encode(GREET + ADDED)));
      const c = review.model.latest('s1', 1, file)!;
      assert.equal(c.base.uncertain, undefined, name);
      const d = await openDiff(c.id);
      assert.equal(d.left, GREET, name);
      assert.equal(d.right, GREET + ADDED, name);
      assert.match(treeSays(c.id), /\+3 −0/, name);
    }
  });

  it('a file the agent moved (and edited): the left side is its text at the old path, the tree says "moved from" with the diff\'s counts, Undo restores both paths', async () => {
    const from = fixture('src/greet.ts', GREET);
    const to = path.join(root, 'src', 'hello.ts');
    await turnStarts();
    await agentCall('t1', 'move', [from, to], () => {
      fs.renameSync(from, to);
      fs.writeFileSync(to, GREET + ADDED);
    });
    const moved = review.model.latest('s1', 1, to)!;
    const left = review.model.latest('s1', 1, from)!;
    for (const id of [moved.id, left.id]) {
      const d = await openDiff(id);
      assert.equal(d.left, GREET, 'the file before the turn, from its old path');
      assert.equal(d.right, GREET + ADDED);
      assert.equal(d.title, 'greet.ts → hello.ts: before turn 1 ↔ now');
    }
    assert.match(treeSays(moved.id), /moved from greet\.ts · \+3 −0/);
    assert.match(treeSays(left.id), /moved to hello\.ts · \+3 −0/);
    assert.deepEqual(tree.getChildren({ type: 'file', changeId: moved.id }), [], 'no hunks whose counts differ from the diff');
    assert.deepEqual(await review.undo({ type: 'file', changeId: moved.id }), []);
    assert.equal(onDisk(from), GREET);
    assert.equal(onDisk(to), null);
  });

  it('a file in a worktree session\'s folder (a second root) is shown the same way', async () => {
    const wt = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-before-wt-')));
    try {
      const roots = [root, wt];
      review.dispose();
      tree.dispose();
      compare.dispose();
      review = new ReviewCenter({ agentName: () => 'Demo', agentId: () => 'demo', roots: () => roots, protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
      compare = new CompareCenter({ worktrees: { worktrees: async () => worktrees } } as unknown as CompareHost);
      tree = new ReviewTree(review.model, () => ({ agentName: 'Demo', title: 'a session' }), () => roots);
      const file = path.join(wt, 'greet.ts');
      fs.writeFileSync(file, GREET);
      await turnStarts();
      await agentCall('t1', 'edit', [file], () => fs.writeFileSync(file, GREET + ADDED));
      const c = review.model.latest('s1', 1, file)!;
      const d = await openDiff(c.id);
      assert.equal(d.left, GREET);
      assert.match(treeSays(c.id), /\+3 −0/);
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });

  it('the compare view\'s "base" side of a worktree file is its text at the base commit, decoded as the editor decodes the file', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    fs.writeFileSync(path.join(root, 'src', 'bom.ts'), '\ufeff' + GREET);
    fs.writeFileSync(path.join(root, 'src', 'wide.ts'), utf16(GREET));
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const w = await worktrees.create(root, 'demo', 'head');
    for (const rel of ['src/bom.ts', 'src/wide.ts']) {
      recorded.executed.length = 0;
      const running = { view: { entries: [{ worktreeId: w.id, agentName: 'Demo', branch: w.branch, files: [{ rel }] }] } };
      await (compare as unknown as { openDiff(c: unknown, id: string, rel: string): Promise<void> }).openDiff(running, w.id, rel);
      const [left] = recorded.executed.find((c) => c.command === 'vscode.diff')!.args as [Uri];
      assert.equal(await openVirtualDocument(left), GREET, rel);
    }
  });
});

/**
 * The review's "before turn N ↔ now" diff, end to end under Node: the offline demo agent's turns
 * through the extension's client (SessionManager → SessionController), the Changes view fed from
 * the session as the app feeds it (views/review.ts on a stand-in `vscode`, with the compare view
 * constructed after it, as in the app), and the diff opened as a click in the tree opens it. The
 * left side must be the file before the turn and its diff with the right side must be what the tree
 * counts — for the demo's own edit through `fs/write_text_file` (the report: src/greet.ts, 5 lines,
 * 3 added, showed an empty left side and 9 green lines) and for an agent that writes to disk itself
 * (CRLF, UTF-16, created, deleted, moved).
 */
import '../fakes/vscodeHost';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { openVirtualDocument, recorded, type Uri } from '../fakes/vscodeHost';
import { SessionManager } from '../../src/acp/sessionManager';
import type { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ResolvedAgent } from '../../src/config/agents';
import { RECENT_MS } from '../../src/edits/baselines';
import { decodeFile } from '../../src/edits/encoding';
import { hunksOf } from '../../src/edits/model';
import { CompareCenter, type CompareHost } from '../../src/views/compare/panel';
import { ReviewCenter } from '../../src/views/review';
import { ReviewTree } from '../../src/views/reviewTree';
import { gitRunner } from '../../src/worktrees/gitCli';
import { Worktrees } from '../../src/worktrees/worktrees';
import { allowAll } from '../fakes/policy';
import { MemoryFiles } from '../fakes/memoryFiles';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO = path.join(ROOT, 'src', 'demo', 'demoAgent.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;
const GREET = ['export function greet(name: string): string {', '  return `Hello, ${name}!`;', '}', '', 'console.log(greet("world"));'].join('\n') + '\n';

/** The file's text as the editor shows it on the right side (its BOM decides the encoding). */
const onDisk = (p: string) => (fs.existsSync(p) ? decodeFile(fs.readFileSync(p)).text : null);

/** "+a −r" of the diff between two texts. */
function counts(before: string, after: string): string {
  const lines = hunksOf(before, after).flatMap((h) => h.lines);
  return `+${lines.filter((l) => l[0] === '+').length} −${lines.filter((l) => l[0] === '-').length}`;
}

/**
 * The editor's documents as the session's file system, kept on disk too: each write is reported
 * to the review as EditorFiles reports it (what the document held, what it holds now).
 */
class ReviewedFiles extends MemoryFiles {
  onWritten?: (file: string, before: string | null, after: string) => void;

  override async write(params: acp.WriteTextFileRequest): Promise<void> {
    const before = this.docs.get(params.path)?.text ?? null;
    await super.write(params);
    fs.writeFileSync(params.path, params.content);
    this.onWritten?.(params.path, before, params.content);
  }
}

describe('the review\'s diff after a demo agent\'s turn: the file before the turn ↔ now', function () {
  this.timeout(60_000);
  let cwd: string;
  let files: ReviewedFiles;
  let manager: SessionManager;
  let review: ReviewCenter;
  let compare: CompareCenter;
  let tree: ReviewTree;

  beforeEach(() => {
    cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-review-before-')));
    fs.mkdirSync(path.join(cwd, 'src'));
    files = new ReviewedFiles();
    review = new ReviewCenter({ agentName: () => 'Demo', agentId: () => 'demo', roots: () => [cwd], protectedTargets: () => undefined, audit: () => undefined, log: () => undefined });
    // As in the app: the compare view, with the window's worktrees (none), after the review.
    const worktrees = new Worktrees(gitRunner(), `${cwd}-storage`);
    compare = new CompareCenter({ worktrees: { worktrees: async () => worktrees } } as unknown as CompareHost);
    tree = new ReviewTree(review.model, () => ({ agentName: 'Demo', title: 'a session' }), () => [cwd]);
    const scenario = (s: string): ResolvedAgent => ({ id: s, name: `Demo ${s}`, command: process.execPath, resolvedCommand: process.execPath, args: ['--import', TSX, DEMO], env: { SWITCHBOARD_DEMO_SCENARIO: s, SWITCHBOARD_DEMO_DELAY_MS: '50' }, source: 'settings', available: true });
    manager = new SessionManager({
      policy: allowAll({ readCurrent: async (p) => files.docs.get(p)?.text ?? null }),
      agents: () => [scenario('demo'), scenario('disk-writer')],
      baseEnv: () => process.env,
      initializeTimeoutMs: () => 20_000,
      clientInfo: { name: 'review-before-test', version: '0' },
      filesFor: () => files,
      terminalsFor: (_key, dir) => new SessionTerminals(dir, () => process.env, { killGraceMs: 300 }),
    });
  });
  afterEach(async () => {
    await manager.dispose();
    tree.dispose();
    compare.dispose();
    review.dispose();
    fs.rmSync(cwd, { recursive: true, force: true });
    fs.rmSync(`${cwd}-storage`, { recursive: true, force: true });
  });

  /** Starts `scenario`, follows it as the app does (review fed, every question allowed), runs one turn. */
  async function turn(scenario: string, prompt: string): Promise<SessionController> {
    const c = await manager.start(scenario, cwd);
    files.onWritten = (file, before, after) => review.clientWrote(c.state, file, { text: before }, after);
    c.onDidChange((ch) => {
      review.onSessionPatches(c.state, ch.patches);
      for (const p of ch.patches) {
        if (p.op !== 'permission' || p.permission.state !== 'waiting') continue;
        const { permissionId, options } = p.permission;
        setImmediate(() => c.answerPermission(permissionId, options.find((o) => o.kind === 'allow_once')!.optionId, 'api'));
      }
    });
    assert.equal((await c.prompt(prompt)).stopReason, 'end_turn');
    await review.settled();
    return c;
  }

  /** Opens the diff of the change of `file` as a click on it in the Changes view does. */
  async function diffOf(file: string): Promise<{ left: string | undefined; right: string | null | undefined; title: string; tree: string }> {
    const change = review.model.turns().flatMap((t) => t.files).find((f) => f.path === file);
    assert.ok(change, `${path.basename(file)} is in the review`);
    recorded.executed.length = 0;
    await review.openDiff({ type: 'file', changeId: change.id });
    const [l, r, title] = recorded.executed.find((x) => x.command === 'vscode.diff')!.args as [Uri, Uri, string];
    return { left: await openVirtualDocument(l), right: r.scheme === 'file' ? onDisk(r.fsPath) : await openVirtualDocument(r), title, tree: String(tree.getTreeItem({ type: 'file', changeId: change.id }).description) };
  }

  it('the demo edits src/greet.ts through fs/write_text_file: the left side is its 5 lines, the diff and the tree say +3 −0', async () => {
    const file = path.join(cwd, 'src', 'greet.ts');
    fs.writeFileSync(file, GREET);
    files.docs.set(file, { text: GREET, version: 1, dirty: false });
    await turn('demo', 'Add a farewell function to src/greet.ts');
    const d = await diffOf(file);
    assert.equal(d.left, GREET);
    assert.equal(d.right, onDisk(file));
    assert.equal(d.right!.split('\n').length - 1, 8, 'five lines and three added');
    assert.equal(counts(d.left!, d.right!), '+3 −0');
    assert.match(d.tree, /\+3 −0/);
    assert.equal(d.title, 'greet.ts: before turn 1 ↔ now');
  });

  it('an agent that writes to disk itself (CRLF, UTF-16, created, deleted, moved): each left side is the file before the turn, counted as the tree counts it', async () => {
    const crlf = GREET.replace(/\n/g, '\r\n');
    const p = (rel: string) => path.join(cwd, rel);
    fs.writeFileSync(p('src/crlf.ts'), crlf);
    fs.writeFileSync(p('src/wide.ts'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(GREET, 'utf16le')]));
    fs.writeFileSync(p('src/gone.ts'), GREET);
    fs.writeFileSync(p('src/greet.ts'), GREET);
    fs.writeFileSync(p('src/other.ts'), GREET);
    // Older than the margin in which a change may be the agent's own: the snapshots are certain.
    await new Promise((r) => setTimeout(r, RECENT_MS + 100));
    const added = '\n// farewell\n';
    await turn(
      'disk-writer',
      JSON.stringify({
        edits: [
          { path: 'src/hello.ts', from: 'src/greet.ts', content: GREET + added },
          { path: 'src/crlf.ts', content: crlf + added.replace(/\n/g, '\r\n') },
          { path: 'src/wide.ts', content: GREET + added, encoding: 'utf16le' },
          { path: 'src/new.ts', content: 'export const x = 1;\n' },
          { path: 'src/gone.ts', delete: true },
          // Into a folder the agent changed this turn: whether a file was there is not known for certain.
          { path: 'src/other2.ts', from: 'src/other.ts', content: GREET },
        ],
      }),
    );
    const expected: [string, string, string | null, RegExp][] = [
      ['src/crlf.ts', crlf, crlf + added.replace(/\n/g, '\r\n'), /\+2 −0/],
      ['src/wide.ts', GREET, GREET + added, /\+2 −0/],
      ['src/new.ts', '', 'export const x = 1;\n', /created/],
      ['src/gone.ts', GREET, '', /deleted/],
      ['src/hello.ts', GREET, GREET + added, /moved from greet\.ts · \+2 −0/],
      ['src/greet.ts', GREET, GREET + added, /moved to hello\.ts · \+2 −0/],
      ['src/other2.ts', GREET, GREET, /^base unknown · moved from other\.ts/],
    ];
    for (const [rel, left, right, says] of expected) {
      const d = await diffOf(p(rel));
      assert.equal(d.left, left, `${rel}: the left side`);
      assert.equal(d.right, right, `${rel}: the right side`);
      assert.match(d.tree, says, `${rel}: ${d.tree}`);
      if (!/created|deleted|unknown/.test(says.source)) assert.ok(d.tree.includes(counts(d.left!, d.right!)), `${rel}: the tree counts the diff (${d.tree})`);
    }
  });
});

/**
 * Issue 16, findings 4 and 17 in the real editor, driven by the demo agent's `fs-probe` scenario (a
 * hostile agent): `fs/read_text_file` / `fs/write_text_file` of FIFOs, `/dev/zero`, a hard-linked
 * file and a symlink swapped in between the gate's check and the write. Every request must be
 * refused at once with a reason, nothing outside the workspace may change, and the extension host
 * must stay responsive (its file and crypto work runs on libuv's four-thread pool, which four
 * blocked FIFO opens used to take).
 */
import * as assert from 'assert';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as vscode from 'vscode';
import { api, autoAnswer, scenarioAgent, setAgents, workspaceDir } from './util';

const FIFOS = [1, 2, 3, 4, 5].map((n) => `fifo${n}`);

/** Rejects when `work` takes longer than `ms`: the old code blocked here for ever. */
function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

describe('agent-named special files, hard links and symlink swaps in the editor', () => {
  let dir: string;
  let outside: string;

  before(async function () {
    if (process.platform === 'win32') this.skip();
    // Writes need no card here: what is checked is what the client does with the path. A write the
    // gate refuses (a protected target) is refused at once, not held for the person (issue 19).
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', { write: 'allow', command: 'ask', unrequestedEffects: 'refuse' }, vscode.ConfigurationTarget.Global);
    await setAgents([scenarioAgent('fsprobe', 'fs-probe')]);
    dir = path.join(workspaceDir(), 'special');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // Outside the workspace folder but on its file system, so that a hard link can join them.
    outside = fs.mkdtempSync(path.join(path.dirname(workspaceDir()), 'as-outside-'));
    for (const f of FIFOS) execFileSync('mkfifo', [path.join(dir, f)]);
  });

  after(async () => {
    if (!dir) return;
    // On the old code the FIFO opens are still blocked in the threadpool: a writer (opened
    // synchronously, off the pool) lets them finish, so the rest of the run is not starved.
    for (const f of FIFOS) {
      try {
        fs.closeSync(fs.openSync(path.join(dir, f), fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is waiting on it.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
    await setAgents([]);
    await vscode.workspace.getConfiguration('agentSwitchboard').update('policy', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Runs the probe's steps in a fresh session; the results by step name. */
  async function probe(steps: object[], opts: { answer?: 'reject_once' } = {}): Promise<Map<string, string>> {
    const a = await api();
    const key = await a.startSession({ agentId: 'fsprobe', cwd: dir });
    const sub = opts.answer ? autoAnswer(a, key, opts.answer) : undefined;
    try {
      await within(40_000, 'the probe turn', a.prompt(key, JSON.stringify({ steps })));
      const text = a.session(key)!.entries.filter((e) => e.kind === 'agent').map((e) => (e.kind === 'agent' ? e.text : '')).join('');
      const results = new Map<string, string>();
      for (const m of text.matchAll(/^- ([\w-]+): (.*)$/gm)) results.set(m[1], m[2]);
      assert.ok(results.size === steps.length, `the probe reported every step:\n${text}`);
      return results;
    } finally {
      sub?.dispose();
      await a.closeSession(key);
    }
  }

  it('fs/read_text_file and fs/write_text_file of five FIFOs are refused at once; the extension host stays responsive', async function () {
    this.timeout(90_000);
    const steps = [...FIFOS.map((f) => ({ name: `read-${f}`, op: 'read', path: path.join(dir, f) })), { name: 'write-fifo1', op: 'write', path: path.join(dir, 'fifo1'), content: 'x' }];
    const r = await probe(steps);
    for (const [name, result] of r) assert.match(result, /^refused .*not a regular file/, `${name}: ${result}`);
    // The pool is free: a file read and a key derivation (both on libuv's threadpool) finish.
    fs.writeFileSync(path.join(dir, 'plain.txt'), 'plain\n');
    await within(5_000, 'a file read in the extension host', Promise.all([1, 2, 3, 4, 5].map(() => fs.promises.readFile(path.join(dir, 'plain.txt'), 'utf8'))));
    await within(5_000, 'crypto work in the extension host', new Promise((resolve, reject) => crypto.pbkdf2('x', 'y', 1000, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key)))));
    await within(5_000, 'the editor\'s own file API', Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.file(path.join(dir, 'plain.txt')))));
  });

  it('/dev/zero named by a write, a read or a permission diff is refused without being read', async function () {
    this.timeout(90_000);
    const rss = process.memoryUsage().rss;
    const r = await probe(
      [
        { name: 'write-zero', op: 'write', path: '/dev/zero', content: 'x' },
        { name: 'read-zero', op: 'read', path: '/dev/zero' },
        { name: 'ask-zero', op: 'ask', path: '/dev/zero', newText: 'x' },
        { name: 'ask-fifo', op: 'ask', path: path.join(dir, 'fifo1'), newText: 'x' },
      ],
      { answer: 'reject_once' },
    );
    assert.match(r.get('write-zero')!, /^refused /);
    assert.match(r.get('read-zero')!, /^refused .*outside the workspace/);
    // The permission requests were declared (and answered) without reading the file.
    assert.match(r.get('ask-zero')!, /^ok reject/);
    assert.match(r.get('ask-fifo')!, /^ok reject/);
    assert.ok(process.memoryUsage().rss - rss < 512 * 1024 * 1024, 'the extension host did not load /dev/zero');
  });

  it('a write to a hard-linked file inside the workspace is refused as a protected target; the file outside keeps its bytes', async function () {
    this.timeout(90_000);
    const shared = path.join(outside, 'shared.txt');
    fs.writeFileSync(shared, 'shared\n');
    fs.linkSync(shared, path.join(dir, 'hard.txt'));
    const r = await probe([
      { name: 'read-hard', op: 'read', path: path.join(dir, 'hard.txt') },
      { name: 'write-hard', op: 'write', path: path.join(dir, 'hard.txt'), content: 'changed by the agent\n' },
    ]);
    assert.match(r.get('read-hard')!, /^ok /);
    assert.match(r.get('write-hard')!, /^refused .*hard link/);
    assert.strictEqual(fs.readFileSync(shared, 'utf8'), 'shared\n', 'the file outside is unchanged');
  });

  it('a symlink swapped in after the gate checked the path does not redirect the write', async function () {
    this.timeout(90_000);
    const file = path.join(dir, 'swap.txt');
    const target = path.join(outside, 'target.txt');
    fs.writeFileSync(file, 'inside-a\n');
    // Same size and time as the file it replaces, so that nothing but the path check can notice.
    fs.writeFileSync(target, 'outsid-b\n');
    const st = fs.statSync(file);
    fs.utimesSync(target, st.atime, st.mtime);
    let swapped = false;
    // The client opens the document after the gate's check: that is when another process swaps.
    const sub = vscode.workspace.onDidOpenTextDocument((d) => {
      if (d.uri.fsPath !== file || swapped) return;
      swapped = true;
      fs.rmSync(file);
      fs.symlinkSync(target, file);
    });
    try {
      const r = await probe([{ name: 'write-swap', op: 'write', path: file, content: 'agent!!!\n' }]);
      assert.ok(swapped, 'the swap happened between the check and the write');
      assert.match(r.get('write-swap')!, /^refused .*no longer names the file/);
      assert.strictEqual(fs.readFileSync(target, 'utf8'), 'outsid-b\n', 'the file outside is unchanged');
    } finally {
      sub.dispose();
    }
  });
});

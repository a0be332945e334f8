import assert from 'node:assert/strict';
import type { ToolCallView, ToolContentView } from '../../../src/acp/session/types';
import { declareIntent, relativePath } from '../../../src/policy/declare';
import { sha256, type CommandEffect, type WriteEffect } from '../../../src/policy/intent';

const files = new Map<string, string>();
const ctx = { sessionId: 's', agentId: 'a', cwd: '/w', roots: ['/w'], readCurrent: async (p: string) => files.get(p) ?? null };
const tc = (over: Partial<ToolCallView>): ToolCallView => ({ toolCallId: 't', title: 'T', kind: 'edit', status: 'pending', content: [], locations: [], placeholder: false, ...over });
const diff = (path: string, oldText: string | null, newText: string): ToolContentView => ({ type: 'diff', path, oldText, newText, added: 0, removed: 0 });

describe('declared intents from permission requests', () => {
  beforeEach(() => files.clear());

  it('a whole-file diff (claude Write, oldText null) declares the new content', async () => {
    const { intent, undeclared } = await declareIntent(tc({ content: [diff('/w/hello.txt', null, 'hi\n')] }), ctx);
    const e = intent.effects[0] as WriteEffect;
    assert.deepEqual(e, { type: 'write', path: 'hello.txt', contentSha256: [sha256('hi\n')], baseSha256: null });
    assert.deepEqual(undeclared, []);
  });

  it('claude Write over an existing file (oldText null) declares the new whole file', async () => {
    files.set('/w/old.txt', 'old content\n');
    const { intent } = await declareIntent(tc({ content: [diff('/w/old.txt', null, 'new content\n')] }), ctx);
    assert.deepEqual((intent.effects[0] as WriteEffect).contentSha256, [sha256('new content\n')]);
  });

  it('a fragment diff (claude Edit) declares the base with the fragment replaced', async () => {
    files.set('/w/a.ts', 'const a = 1;\nconst b = 1;\n');
    const { intent } = await declareIntent(tc({ content: [diff('/w/a.ts', '= 1', '= 2')] }), ctx);
    const e = intent.effects[0] as WriteEffect;
    assert.ok(e.contentSha256.includes(sha256('const a = 2;\nconst b = 1;\n')), 'first occurrence');
    assert.ok(e.contentSha256.includes(sha256('const a = 2;\nconst b = 2;\n')), 'replace all');
    assert.equal(e.baseSha256, sha256('const a = 1;\nconst b = 1;\n'));
  });

  it('opencode\'s oldText "" for a new file and sequential diffs on one file', async () => {
    const { intent } = await declareIntent(tc({ content: [diff('/w/n.txt', '', 'x\n'), diff('/w/n.txt', 'x', 'y')] }), ctx);
    assert.deepEqual((intent.effects[0] as WriteEffect).contentSha256, [sha256('y\n')]);
  });

  it('fails closed: a fragment not in the file, too many edits, and edits that explode', async () => {
    files.set('/w/f.ts', 'line1\nline2\nimportant();\n');
    const missing = await declareIntent(tc({ content: [diff('/w/f.ts', 'typo', 'fixed')] }), ctx);
    assert.deepEqual((missing.intent.effects[0] as WriteEffect).contentSha256, ['diff-does-not-apply']);
    assert.match(missing.undeclared[0], /does not apply to the current text/);
    const many = await declareIntent(tc({ content: Array.from({ length: 17 }, (_, i) => diff('/w/f.ts', `line${i}`, 'x')) }), ctx);
    assert.deepEqual((many.intent.effects[0] as WriteEffect).contentSha256, ['diff-does-not-apply']);
    files.set('/w/g.txt', 'a a a a a a a a\n');
    const t0 = Date.now();
    const boom = await declareIntent(tc({ content: Array.from({ length: 12 }, () => diff('/w/g.txt', 'a', 'a a')) }), ctx);
    assert.ok(Date.now() - t0 < 1000, 'bounded');
    assert.ok((boom.intent.effects[0] as WriteEffect).contentSha256.length <= 64);
    const twoSpellings = await declareIntent(tc({ content: [diff('/w/h.txt', null, 'x'), diff('/w//h.txt', 'x', 'y')] }), ctx);
    assert.equal(twoSpellings.intent.effects.length, 1, 'one target');
  });

  it('an edit without content is declared at path level and the card says so', async () => {
    const { intent, undeclared } = await declareIntent(tc({ rawInput: { file_path: '/w/src/x.ts' } }), ctx);
    assert.deepEqual((intent.effects[0] as WriteEffect).contentSha256, []);
    assert.match(undeclared[0], /did not show what it will write to src\/x\.ts/);
  });

  it('a shell command from rawInput.command (string or argv) with its cwd', async () => {
    const s = await declareIntent(tc({ kind: 'execute', rawInput: { command: 'npm test' } }), ctx);
    assert.deepEqual(s.intent.effects[0], { type: 'command', command: 'npm test', args: [], cwd: '/w', envNames: [] } satisfies CommandEffect);
    const a = await declareIntent(tc({ kind: 'execute', rawInput: { command: ['bash', '-lc', 'ls'], workdir: 'sub' } }), ctx);
    assert.deepEqual(a.intent.effects[0], { type: 'command', command: 'bash', args: ['-lc', 'ls'], cwd: '/w/sub', envNames: [] });
    const none = await declareIntent(tc({ kind: 'execute', rawInput: {} }), ctx);
    assert.equal((none.intent.effects[0] as CommandEffect).command, null);
    assert.match(none.undeclared[0], /did not show the command/);
  });

  it('tools the client does not host are declared by title', async () => {
    const { intent } = await declareIntent(tc({ kind: 'fetch', title: 'Fetch https://x' }), ctx);
    assert.deepEqual(intent.effects, [{ type: 'tool', title: 'Fetch https://x' }]);
  });

  it('a fetch address or a plan longer than the card shows is marked cut, and the card says so: never cut silently', async () => {
    const url = `https://docs.example/${'a'.repeat(5000)}?then=evil.example`;
    const fetch = await declareIntent(tc({ kind: 'fetch', title: 'Fetch', rawInput: { url } }), ctx);
    assert.deepEqual(fetch.display?.map((d) => d.type === 'tool' && d.cut), [true]);
    assert.match(fetch.undeclared.join(' '), /address is longer than the card shows; open the whole request/);
    const plan = await declareIntent(tc({ kind: 'switch_mode', title: 'Plan', rawInput: { plan: 'x'.repeat(30_000) } }), ctx);
    assert.match(plan.undeclared.join(' '), /plan is longer than the card shows/);
    const short = await declareIntent(tc({ kind: 'fetch', title: 'Fetch', rawInput: { url: 'https://docs.example/a' } }), ctx);
    assert.deepEqual([short.display?.[0], short.undeclared], [{ type: 'tool', title: 'Fetch', url: 'https://docs.example/a' }, []]);
  });

  it('paths are workspace-relative with / separators, absolute outside', () => {
    assert.equal(relativePath('/w/a/b.txt', ['/w']), 'a/b.txt');
    assert.equal(relativePath('/etc/passwd', ['/w']), '/etc/passwd');
    // Multi-root: the folder is part of the target, and the innermost folder wins.
    assert.equal(relativePath('/a/projA/package.json', ['/a/projA', '/a/projB']), 'projA/package.json');
    assert.equal(relativePath('/a/projB/package.json', ['/a/projA', '/a/projB']), 'projB/package.json');
    assert.equal(relativePath('/w/pkg/.vscode/tasks.json', ['/w', '/w/pkg']), 'pkg/.vscode/tasks.json');
    assert.equal(relativePath('/x/app/a.ts', ['/x/app', '/y/app']), 'app#1/a.ts');
  });
});

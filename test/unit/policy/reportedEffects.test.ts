import * as assert from 'node:assert/strict';
import type { ToolCallView } from '../../../src/acp/session/types';
import { EffectLedger, reportedEffects } from '../../../src/policy/reportedEffects';
import { sha256 } from '../../../src/policy/intent';

const view = (v: Partial<ToolCallView> & { toolCallId?: string }): ToolCallView => ({ toolCallId: 't', title: 'T', kind: 'other', status: 'completed', content: [], locations: [], placeholder: false, ...v });
const diff = (path: string, newText: string, oldText: string | null = null) => ({ type: 'diff' as const, path, oldText, newText, added: 1, removed: 0 });

describe('reportedEffects: what a tool call says it did, by what it does', () => {
  it('a diff is a write of its path, over its old text, of its new text, whatever the kind; paths are taken in the session folder', () => {
    const w = { type: 'write', path: '/w/a.txt', baseSha256: sha256('x'), contentSha256: sha256('y') };
    assert.deepEqual(reportedEffects(view({ kind: 'edit', content: [diff('/w/a.txt', 'y', 'x')] }), '/w'), [w]);
    assert.deepEqual(reportedEffects(view({ kind: 'other', content: [diff('a.txt', 'y', 'x')] }), '/w'), [w]);
    assert.deepEqual(reportedEffects(view({ kind: 'read', content: [diff('/w/sub/../a.txt', 'y', 'x')] }), '/w'), [w]);
    assert.notDeepEqual(reportedEffects(view({ kind: 'edit', content: [diff('/w/a.txt', 'y', null)] }), '/w'), [w], 'over nothing is another write');
  });

  it('a command is its line and folder: a string, an argv or a program with args are one line; no folder, "." and the session folder are one folder', () => {
    const forms = [{ command: 'npm test' }, { command: ['npm', 'test'] }, { command: 'npm', args: ['test'] }, { cmd: 'npm test', cwd: '.' }, { command: 'npm test', cwd: '/w' }];
    for (const rawInput of forms) assert.deepEqual(reportedEffects(view({ kind: 'execute', rawInput }), '/w'), [{ type: 'command', line: 'npm test', cwd: '/w' }], JSON.stringify(rawInput));
    assert.deepEqual(reportedEffects(view({ kind: 'execute', rawInput: { command: 'npm test', cwd: 'sub' } }), '/w'), [{ type: 'command', line: 'npm test', cwd: '/w/sub' }]);
    const unshown = reportedEffects(view({ kind: 'execute', title: 'Run', rawInput: { description: 'x' } }), '/w');
    assert.deepEqual(unshown, [{ type: 'command', line: null, cwd: '/w', title: 'Run', inputSha256: unshown[0].type === 'command' ? unshown[0].inputSha256 : '' }]);
  });

  it('an edit, delete or move without a diff changes its target; without one it is the call itself; other kinds without a diff did nothing', () => {
    const del = reportedEffects(view({ kind: 'delete', rawInput: { file_path: '/w/a.txt' } }), '/w');
    assert.equal(del.length, 1);
    assert.deepEqual({ ...del[0], inputSha256: undefined }, { type: 'change', kind: 'delete', path: '/w/a.txt', contentSha256: null, inputSha256: undefined });
    const located = reportedEffects(view({ kind: 'edit', locations: [{ path: '/w/b.txt' }], rawInput: { content: 'z' } }), '/w');
    assert.equal(located[0].type === 'change' && located[0].path, '/w/b.txt');
    assert.equal(located[0].type === 'change' && located[0].contentSha256, sha256('z'));
    assert.equal(reportedEffects(view({ kind: 'move' }), '/w')[0].type, 'tool');
    for (const kind of ['read', 'search', 'fetch', 'think', 'other'] as const) assert.deepEqual(reportedEffects(view({ kind, rawInput: { url: 'https://x' } }), '/w'), []);
  });
});

describe('EffectLedger: each effect once, whatever its id', () => {
  const ledger = () => new EffectLedger(() => '/w');
  const a = view({ toolCallId: 'x', kind: 'edit', content: [diff('/w/a.txt', 'one')] });
  const b = view({ toolCallId: 'x', kind: 'edit', content: [diff('/w/b.txt', 'two')] });

  it('returns a live effect the first time a report shows it done, under any id, and never again', () => {
    const l = ledger();
    assert.deepEqual(l.reported({ ...a, status: 'in_progress' }), [], 'not done yet');
    assert.equal(l.reported(a).length, 1);
    assert.deepEqual(l.reported(a), []);
    assert.deepEqual(l.reported({ ...a, toolCallId: 'y' }), [], 'the same effect under another id');
    assert.equal(l.reported(b).length, 1, 'another effect under the same id');
    const both = view({ toolCallId: 'z', kind: 'edit', content: [diff('/w/a.txt', 'one'), diff('/w/c.txt', 'three')] });
    assert.deepEqual(l.reported(both), [{ type: 'write', path: '/w/c.txt', baseSha256: null, contentSha256: sha256('three') }], 'only what is new in a report');
  });

  it('knows what history shows done, not what it shows running', () => {
    const l = ledger();
    l.shownDone(a);
    l.shownDone({ ...b, status: 'in_progress' });
    assert.deepEqual(l.reported({ ...a, toolCallId: 'live' }), []);
    assert.equal(l.reported(b).length, 1);
  });

  it('knows what the client performed, and only what it shows of that effect', () => {
    const l = ledger();
    const fragment = view({ toolCallId: 'w', kind: 'edit', content: [diff('/w/a.txt', 'a = 10', 'a = 1'), diff('/w/.git/config', 'evil')] });
    l.performedByClient(fragment, { type: 'write', path: '/w/a.txt', content: 'const a = 10;\n', base: 'const a = 1;\n' });
    assert.deepEqual(l.reported(fragment).map((e) => e.type === 'write' && e.path), ['/w/.git/config'], 'the other file the call shows is the agent\'s');
    for (const base of [null, '', 'const a = 1;\n']) assert.deepEqual(l.reported(view({ toolCallId: 'v', kind: 'edit', content: [diff('/w/a.txt', 'const a = 10;\n', base)] })), [], `the full write over ${JSON.stringify(base)}`);

    const unshown = view({ toolCallId: 'r', kind: 'execute', title: 'Run', rawInput: { description: 'build' } });
    l.performedByClient(unshown, { type: 'command', command: 'make', args: [], cwd: '/w/sub', envNames: [] });
    assert.deepEqual(l.reported(unshown), [], 'a call that did not show its command ran the client\'s');
    assert.deepEqual(l.reported(view({ toolCallId: 'q', kind: 'execute', rawInput: { command: 'make', cwd: 'sub' } })), []);
    const other = view({ toolCallId: 'r', kind: 'execute', rawInput: { command: 'make install' } });
    l.performedByClient(other, { type: 'command', command: 'make', args: [], cwd: '/w', envNames: [] });
    assert.equal(l.reported(other).length, 1, 'a call showing another command than the one run');
  });
});

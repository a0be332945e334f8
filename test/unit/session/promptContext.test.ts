import assert from 'node:assert/strict';
import { buildPromptContext, ContextItemSchema, type ContextPort } from '../../../src/acp/promptContext';
import { configOptionsView, reduce } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';

const files: Record<string, string> = { '/w/src/a.ts': 'const a = 1;\n', '/w/big.txt': 'x'.repeat(300 * 1024) };
const port: ContextPort = {
  contained: async (p) => {
    if (!p.startsWith('/w/') || p.includes('link-out')) throw new Error(`${p} is outside`);
    return p;
  },
  readText: async (p, max) => (files[p] !== undefined && files[p].length <= max ? files[p] : undefined),
  relative: (p) => p.replace(/^\/w\//, ''),
};
const all = { image: true, audio: false, embeddedContext: true };
const none = { image: false, audio: false, embeddedContext: false };

describe('prompt context', () => {
  it('embeds files and selections when the agent takes embedded context, links them otherwise', async () => {
    const items = ContextItemSchema.array().parse([
      { kind: 'file', path: '/w/src/a.ts' },
      { kind: 'file', path: '/w/big.txt' },
      { kind: 'selection', path: '/w/src/a.ts', startLine: 1, endLine: 1, text: 'const a = ```1```;' },
      { kind: 'symbol', path: '/w/src/a.ts', name: 'a', startLine: 1, endLine: 1 },
      { kind: 'diagnostics', path: '/w/src/a.ts', count: 2, text: 'Problems in src/a.ts' },
    ]);
    const embedded = await buildPromptContext(items, all, port);
    assert.deepEqual(embedded.labels, ['src/a.ts', 'big.txt', 'src/a.ts:1', 'a (src/a.ts:1)', '2 problems in src/a.ts']);
    assert.deepEqual(embedded.blocks[0], { type: 'resource', resource: { uri: 'file:///w/src/a.ts', text: 'const a = 1;\n' } });
    assert.equal(embedded.blocks[1].type, 'resource_link', 'a file over the limit goes as a link');
    assert.deepEqual(embedded.blocks[2], { type: 'resource', resource: { uri: 'file:///w/src/a.ts#L1-1', text: 'const a = ```1```;' } });
    assert.equal(embedded.blocks[3].type, 'resource_link');
    assert.deepEqual(embedded.blocks[4], { type: 'text', text: 'Problems in src/a.ts' });

    const plain = await buildPromptContext(items, none, port);
    assert.deepEqual(plain.blocks[0], { type: 'resource_link', uri: 'file:///w/src/a.ts', name: 'a.ts' });
    // Without embedded context the selection is text, fenced longer than the backticks inside it.
    assert.deepEqual(plain.blocks[2], { type: 'text', text: 'src/a.ts:1:\n````\nconst a = ```1```;\n````' });
  });

  it('refuses paths outside the workspace and images for agents that take none', async () => {
    await assert.rejects(buildPromptContext([{ kind: 'file', path: '/etc/passwd' }], all, port), /outside the workspace/);
    await assert.rejects(buildPromptContext([{ kind: 'file', path: 'relative.ts' }], all, port), /outside the workspace/);
    await assert.rejects(buildPromptContext([{ kind: 'selection', path: '/w/link-out/x', startLine: 1, endLine: 1, text: 'x' }], all, port), /outside the workspace/, 'a symlink out is refused');
    const image = ContextItemSchema.parse({ kind: 'image', name: 'shot.png', mimeType: 'image/png', data: 'iVBORw0KGgo=' });
    await assert.rejects(buildPromptContext([image], none, port), /does not take images/);
    assert.deepEqual((await buildPromptContext([image], all, port)).blocks, [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    assert.equal(ContextItemSchema.safeParse({ kind: 'image', name: 'x', mimeType: 'image/svg+xml', data: '' }).success, false, 'SVG is not an image we send');
  });

  it('flattens config option groups and follows config_option_update', () => {
    const view = configOptionsView([
      { id: 'model', name: 'Model', type: 'select', currentValue: 'b', options: [{ group: 'fast', name: 'Fast', options: [{ value: 'a', name: 'A' }] }, { group: 'slow', name: 'Slow', options: [{ value: 'b', name: 'B', description: 'best' }] }] },
      { id: 'x', name: 'X', type: 'boolean', currentValue: true },
    ]);
    assert.deepEqual(view[0], { id: 'model', name: 'Model', type: 'select', currentValue: 'b', options: [{ value: 'a', name: 'A', group: 'Fast' }, { value: 'b', name: 'B', description: 'best', group: 'Slow' }] });
    const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
    reduce(s, { type: 'update', update: { sessionUpdate: 'config_option_update', configOptions: [{ id: 'x', name: 'X', type: 'boolean', currentValue: false }] } });
    assert.deepEqual(s.configOptions, [{ id: 'x', name: 'X', type: 'boolean', currentValue: false }]);
    reduce(s, { type: 'promptSent', text: 'hi', context: ['src/a.ts'] });
    assert.deepEqual(s.entries.at(-1), { kind: 'user', id: 'e0', text: 'hi', context: ['src/a.ts'], echo: 0 });
  });
});

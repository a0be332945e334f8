/**
 * The deferred start's reading of the manifest (issue 22, PF6): every contributed command gets a
 * stand-in and every view its provider before the extension is loaded.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { contributedIds, TREE_VIEWS_WITH_COLLAPSE_ALL } from '../../../src/activation/views';

describe('activation: the manifest read at activation', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));

  it('takes every contributed command and splits the views into webview and tree views', () => {
    const ids = contributedIds(manifest.contributes);
    assert.strictEqual(ids.commands.length, new Set(manifest.contributes.commands.map((c: { command: string }) => c.command)).size);
    assert.deepStrictEqual(ids.webviewViews, ['agentSwitchboard.session']);
    assert.ok(ids.treeViews.includes('agentSwitchboard.sessions') && ids.treeViews.includes('agentSwitchboard.changes'));
    for (const id of TREE_VIEWS_WITH_COLLAPSE_ALL) assert.ok(ids.treeViews.includes(id), `${id} is a contributed tree view`);
  });

  it('skips entries without a string id and tolerates a manifest without contributions', () => {
    assert.deepStrictEqual(contributedIds(undefined), { commands: [], webviewViews: [], treeViews: [] });
    const ids = contributedIds({ commands: [{ command: 'a' }, { command: 1 }, {}, { command: 'a' }], views: { c: [{ id: 'w', type: 'webview' }, { id: 't' }, { type: 'tree' }] } });
    assert.deepStrictEqual(ids, { commands: ['a'], webviewViews: ['w'], treeViews: ['t'] });
  });

  it('leaves no contributed command without a handler in the extension', () => {
    // Each contributed command must be registered somewhere in src/ (through the registry): a stand-in
    // whose handler never arrives would fail at its first use.
    const src = path.join(__dirname, '..', '..', '..', 'src');
    const files = (fs.readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => fs.readFileSync(path.join(src, f), 'utf8')).join('\n');
    const missing = contributedIds(manifest.contributes).commands.filter((id) => !files.includes(`'${id}'`) && !files.includes(`'${id.replace(/^agentSwitchboard\./, '')}'`));
    assert.deepStrictEqual(missing, []);
  });
});

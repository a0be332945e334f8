import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceConfinement } from '../../../src/mcp/editorConfine';

describe("the editor MCP server's workspace confinement", () => {
  let root: string;
  let second: string;
  let outside: string;
  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-confine-root-')));
    second = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-confine-second-')));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'as-confine-out-')));
    fs.writeFileSync(path.join(root, 'a.ts'), '');
    fs.writeFileSync(path.join(outside, 'secret.ts'), '');
    // A file and a folder inside the workspace that lead outside it.
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'link.ts'));
    fs.symlinkSync(outside, path.join(root, 'escape'));
  });
  after(() => {
    for (const d of [root, second, outside]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('keeps files inside any workspace folder, existing or not', async () => {
    const c = new WorkspaceConfinement([root, second]);
    assert.equal(await c.allows({ scheme: 'file', path: path.join(root, 'a.ts') }), true);
    assert.equal(await c.allows({ scheme: 'file', path: path.join(second, 'new.ts') }), true);
  });

  it('leaves out files outside the folders, also through a symlinked file or folder and through ..', async () => {
    const c = new WorkspaceConfinement([root]);
    for (const p of [path.join(outside, 'secret.ts'), path.join(root, 'link.ts'), path.join(root, 'escape', 'secret.ts'), path.join(root, '..', path.basename(outside), 'secret.ts'), 'relative.ts']) {
      assert.equal(await c.allows({ scheme: 'file', path: p }), false, p);
    }
  });

  it('leaves out untitled documents and every scheme other than file', async () => {
    const c = new WorkspaceConfinement([root]);
    for (const scheme of ['untitled', 'vscode-userdata', 'git', 'output', 'vscode-remote', 'FILE']) {
      assert.equal(await c.allows({ scheme, path: path.join(root, 'a.ts') }), false, scheme);
    }
  });

  it('leaves out everything when there is no workspace folder', async () => {
    assert.equal(await new WorkspaceConfinement([]).allows({ scheme: 'file', path: path.join(root, 'a.ts') }), false);
  });

  it('filters a list of places (references, symbols, diagnostics) in order', async () => {
    const c = new WorkspaceConfinement([root]);
    const places = [
      { uri: { scheme: 'file', path: path.join(root, 'a.ts') }, n: 1 },
      { uri: { scheme: 'file', path: path.join(outside, 'secret.ts') }, n: 2 },
      { uri: { scheme: 'untitled', path: 'Untitled-1' }, n: 3 },
      { uri: { scheme: 'file', path: path.join(root, 'link.ts') }, n: 4 },
      { uri: { scheme: 'file', path: path.join(root, 'a.ts') }, n: 5 },
    ];
    assert.deepEqual((await c.filter(places, (p) => p.uri)).map((p) => p.n), [1, 5]);
  });
});

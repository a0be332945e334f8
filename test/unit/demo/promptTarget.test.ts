import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { promptTarget, targetContent } from '../../../src/demo/promptTarget';

const cwd = path.resolve('/work/space');

describe('demo agent: the file a prompt names', () => {
  it('finds a workspace-relative path or a bare file name, without quotes or trailing punctuation', () => {
    assert.deepEqual(promptTarget('create notes/todo.md with a list', cwd), { kind: 'file', relative: 'notes/todo.md', absolute: path.join(cwd, 'notes/todo.md') });
    assert.deepEqual(promptTarget('Please write `README.txt`.', cwd), { kind: 'file', relative: 'README.txt', absolute: path.join(cwd, 'README.txt') });
    assert.equal((promptTarget(`edit ${path.join(cwd, 'src/a.ts')}`, cwd) as { relative: string }).relative, 'src/a.ts');
  });

  it('names nothing for prose, abbreviations, versions and URLs', () => {
    for (const p of ['Show me what you can do.', 'e.g. something, i.e. anything', 'use version 1.2.3', 'see https://example.com/page.html']) {
      assert.deepEqual(promptTarget(p, cwd), { kind: 'none' }, p);
    }
  });

  it('refuses paths that leave the folder', () => {
    for (const p of ['create ../escape.md', 'write /etc/passwd.txt', 'touch ~/.bashrc.sh', 'make a/../../out.md']) {
      assert.equal(promptTarget(p, cwd).kind, 'outside', p);
    }
  });

  it('writes a list in Markdown, comments in code, and appends to an existing file', () => {
    const md = targetContent('notes/todo.md', 'create notes/todo.md with a list', null);
    assert.match(md, /^# todo\n/);
    assert.match(md, /> create notes\/todo\.md with a list/);
    assert.match(md, /- \[ \] First item/);
    assert.match(targetContent('x.py', 'create x.py', null), /^# Written by the offline demo agent/);
    assert.ok(targetContent('a.md', 'p', 'old\n').startsWith('old\n\n# a'));
  });
});

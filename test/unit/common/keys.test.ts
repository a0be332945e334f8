import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { APPROVE_KEY, keyLabel, REJECT_KEY } from '../../../src/common/keys';

describe('the keys a card names are the keys package.json binds', () => {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { keybindings: { command: string; key: string; mac?: string }[] } };
  for (const k of [APPROVE_KEY, REJECT_KEY]) {
    it(`${k.command}: ${k.key} / ${k.mac}`, () => {
      const bound = pkg.contributes.keybindings.find((b) => b.command === k.command);
      assert.ok(bound, `package.json binds ${k.command}`);
      assert.deepStrictEqual({ key: bound.key, mac: bound.mac }, { key: k.key, mac: k.mac });
    });
  }
  it('reads as a person writes a key', () => {
    assert.strictEqual(keyLabel(APPROVE_KEY, false), 'Ctrl+Shift+Alt+Y');
    assert.strictEqual(keyLabel(REJECT_KEY, true), 'Cmd+Shift+Alt+D');
  });
});

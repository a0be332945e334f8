/**
 * Issue 17, item 4: VS Code renders a `viewsWelcome` line through `parseLinkedText` (viewPane.ts's
 * WelcomeView): a line that is one link becomes a button, other text is shown as plain text. No
 * Markdown besides links is rendered, so backticks or emphasis would show as raw characters.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { viewsWelcome: { view: string; contents: string }[] };
};

// package.json holds `%key%` references into package.nls.json (VS Code's package localisation).
const nls = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.nls.json'), 'utf8')) as Record<string, string>;
const resolve = (s: string): string => s.replace(/^%([^%]+)%$/, (m, k: string) => nls[k] ?? m);

describe('viewsWelcome texts', () => {
  it('use no Markdown that VS Code would show raw (code spans, emphasis, headings)', () => {
    for (const { view, contents: raw } of pkg.contributes.viewsWelcome) {
      const contents = resolve(raw);
      assert.ok(!/^%.*%$/.test(contents), `${view}: ${raw} has no entry in package.nls.json`);
      // Links ([label](target)) are what VS Code renders; what is left is shown as written.
      const plain = contents.replace(/\[[^\]]*\]\([^)]*\)/g, '');
      assert.doesNotMatch(plain, /`|\*\*|__|^#|^\s*[-*] /m, `${view}: ${JSON.stringify(plain)}`);
    }
  });
});

/**
 * A prompt that approves something shows all of it, exactly, or refuses (approvalText), and an
 * untrusted address goes through the one check (urlTarget), which refuses what a prompt could not
 * show whole: the long list of protected files whose fourth name is `.vscode/tasks.json`, and the
 * open-link address whose host comes after 500 characters of user name.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { approvalText, MAX_APPROVAL_CHARS } from '../../../src/common/approvalText';
import { inert, text } from '../../../src/common/untrustedText';
import { urlTarget } from '../../../src/elicitation/url';

describe('a prompt that approves something shows all of it, or refuses', () => {
  it('three long dull names sorted first do not push .vscode/tasks.json out of the detail', () => {
    const dull = ['a', 'b', 'c'].map((x) => `${x}${'-really-long-but-dull-generated-name'.repeat(6)}/fixture.json`);
    const names = [...dull, '.vscode/tasks.json'];
    // What a `text` template would have made of the list: cut, the fourth name gone.
    assert.ok(!text`${names.join(', ')}`.includes('.vscode/tasks.json'), 'the old way cut it');
    const shown = approvalText(names);
    assert.ok(shown.ok);
    assert.deepEqual(shown.text.split('\n'), names, 'every name, whole, one a line');
  });

  it('refuses, never cuts: too long, a line break, invisible or direction-changing characters, link or icon syntax, edge spaces, nothing', () => {
    const refusals: [string[], RegExp][] = [
      [Array.from({ length: 400 }, (_, i) => `src/generated/file-${i}.json`), /characters, more than the 8,192/],
      [['ok.txt', 'a\nb'], /the 2nd of 2 holds a line break/],
      [['a\u2028b'], /line break/],
      [['.vscode/set\u200btings.json'], /cannot be shown as it is/],
      [['evil\u202etxt.exe'], /cannot be shown as it is/],
      [['a\tb'], /cannot be shown as it is/],
      [['[x](command:y)'], /cannot be shown as it is/],
      [['$(check) fine'], /cannot be shown as it is/],
      [['tasks.json '], /begins or ends with a space/],
      [[''], /is empty/],
      [[], /nothing to show/],
    ];
    for (const [items, why] of refusals) {
      const r = approvalText(items, { what: 'Their names' });
      assert.equal(r.ok, false, JSON.stringify(items).slice(0, 80));
      assert.match((r as { reason: string }).reason, why);
      assert.match((r as { reason: string }).reason, /^Their names cannot be shown whole|^Their names: nothing/);
    }
    assert.ok(approvalText(['line one\n\nline three'], { multiline: true }).ok, 'our own paragraphs may break lines');
    assert.equal(approvalText(['a\r\nb'], { multiline: true }).ok, false);
  });

  it('whatever the items, the text shown is exactly the items (inert leaves it unchanged), or there is none', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 60 }), fc.stringMatching(/^[a-z./_-]{1,40}$/)), { maxLength: 20 }), (items) => {
        const r = approvalText(items);
        if (!r.ok) return;
        assert.equal(r.text, items.join('\n'));
        assert.ok(r.text.length <= MAX_APPROVAL_CHARS);
        // A modal's detail keeps runs of spaces: the item is compared as such a surface shows it.
        for (const item of items) assert.equal(inert(item, { max: item.length + 1, multiline: true }), item, 'shown as itself on any surface inert text is shown on');
      }),
      { numRuns: 2000 },
    );
  });

  it('an app\'s, agent\'s or server\'s address: https (or http here), no user name, shown whole, or refused', () => {
    const userInfo = `https://accounts.example${'&'.repeat(520)}@evil.example/`;
    const t = urlTarget(userInfo);
    assert.equal(t.openable, false);
    assert.match((t as { reason: string }).reason, /user name or password/);
    assert.equal(t.host, 'evil.example', 'the refusal names where it would have gone');
    // Long but plain: opened only as shown, whole, in the prompt's detail.
    const long = `https://docs.example/${'p/'.repeat(1500)}end`;
    const ok = urlTarget(long);
    assert.ok(ok.openable && ok.href === long && approvalText([ok.href]).ok);
    for (const bad of [`https://x.example/${'a'.repeat(9000)}`, 'https://x.example/a](command:y)', `https://${'a'.repeat(300)}.example/`, 'http://evil.example/', 'file:///etc/passwd']) assert.equal(urlTarget(bad).openable, false, bad.slice(0, 60));
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withUserInfo: true, withPort: true } }), (url) => {
        const r = urlTarget(url);
        if (!r.openable) return;
        assert.ok(!new URL(r.href).username && !new URL(r.href).password, url);
        assert.ok(approvalText([r.href], { max: 8192 }).ok, url);
        assert.equal(new URL(r.href).host, r.host);
      }),
      { numRuns: 2000 },
    );
  });
});

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { errorText, inert, INERT_MAX, markdown, markdownText, setMessageTranslator, text } from '../../../src/common/untrustedText';

// The parsers of VS Code that read markup in "plain" strings, as VS Code writes them:
// src/vs/base/common/linkedText.ts (notifications, quick input prompts) and the codicon expression of
// src/vs/base/browser/ui/iconLabel/iconLabels.ts (quick picks, status bar, labels). A link or an icon
// that either finds in inert output would be shown as one.
const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const ICON = /(\\)?\$\(([a-z0-9-]+?(?:~[a-z0-9-]*?)?)\)/gi;
// What Markdown (marked, GFM) would take as a link, autolink, image, HTML or code.
const MARKDOWN_ACTIVE = /(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)<[a-z/!?]|https?:\/\/|www\.|(?<!\\)`|[a-z0-9]@[a-z0-9]/i;

function links(s: string): string[] {
  return [...s.matchAll(LINK)].map((m) => m[0]);
}

const ATTACKS = [
  '[Allow](command:agentSwitchboard.answerPermission?%5B%22s1%22%2C%22p1%22%2C%22allow%22%5D)',
  '[Allow](command:agentSwitchboard.answerPermission?["s1","p1","allow"])',
  '[ok](https://evil.example/x "Allow")',
  "[ok](https://evil.example/x 'Allow')",
  '[ok](HTTPS://EVIL.EXAMPLE)',
  '[ok](file:///etc/passwd)',
  '[ok](Command:workbench.action.terminal.sendSequence?{"text":"rm -rf ~\\n"})',
  '[[nested]](command:x)',
  '[a [b] c](command:x)',
  '[\\]](command:x)',
  'pre \\[x\\](command:x) post',
  '[x]\u0000(command:x)',
  '[x]\u200b(command:x)',
  '[x]\u0007(command:x)',
  '[x](\u0000command:x)',
  '[line\nbreak](command:x)',
  '[x]\r\n(command:x)',
  '[x](command:x)[y](https://e.example)',
  '$(check) Approved by you',
  '$(shield~spin) verified',
  '\\$(check) escaped',
  '$\u0000(check)',
  '<https://evil.example>',
  '<command:x>',
];

describe('untrusted text (issue 16, finding 1)', () => {
  it('leaves no link that the notification parser finds, for every link form it accepts', () => {
    for (const attack of ATTACKS) {
      const out = inert(attack);
      assert.deepEqual(links(out), [], `${JSON.stringify(attack)} → ${JSON.stringify(out)}`);
      assert.deepEqual(links(text`Agent says: ${attack}`), []);
    }
    // The oracle itself finds the plain attack (a test that cannot fail is a defect).
    assert.equal(links(ATTACKS[0]).length, 1);
  });

  it('leaves no codicon, escaped or not', () => {
    for (const attack of ATTACKS) assert.equal(ICON.test(inert(attack)), false, attack);
    assert.equal(inert('$(check) ok'), '$ (check) ok');
  });

  it('keeps ordinary text readable', () => {
    assert.equal(inert('Create hello.md (2 files) [draft]'), 'Create hello.md (2 files) [draft]');
    assert.equal(inert('[Allow](command:x)'), '[Allow] (command:x)');
    assert.equal(text`${'demo'} asks permission: ${'Write a.txt'}`, 'demo asks permission: Write a.txt');
  });

  it('folds line breaks, tabs and controls, shows bidi overrides, drops invisible characters', () => {
    assert.equal(inert('a\nb\r\nc\u2028d\u2029e\u0085f\tg'), 'a b c d e f g');
    assert.equal(inert('a\nb', { multiline: true }), 'a\nb');
    assert.equal(inert('x\u0000\u001b[31my\u007f\u009b'), 'x[31my');
    assert.equal(inert('abc\u202edcba'), 'abc\ufffddcba');
    assert.equal(inert('\u2066evil\u2069'), '\ufffdevil\ufffd');
    assert.equal(inert('ap\u200bprove\ufeff'), 'approve');
    assert.equal(inert('👩\u200d💻'), '👩\u200d💻', 'a zero-width joiner in an emoji stays');
  });

  it('caps length in code points without splitting a surrogate pair', () => {
    const long = 'x'.repeat(10_000);
    assert.equal(inert(long).length, INERT_MAX);
    assert.ok(inert(long).endsWith('…'));
    const emoji = '😀'.repeat(20);
    const capped = inert(emoji, { max: 5 });
    assert.equal(Array.from(capped).length, 5);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(capped), 'no lone high surrogate');
    assert.ok(inert('y'.repeat(10_000_000)).length <= INERT_MAX, 'huge input is bounded quickly');
  });

  it('takes any value: undefined, null, numbers, errors, objects', () => {
    assert.equal(inert(undefined), '');
    assert.equal(inert(null), '');
    assert.equal(inert(42), '42');
    assert.equal(inert(new Error('[x](command:y)')), '[x] (command:y)');
    assert.equal(errorText(new Error('boom\n[x](command:y)')), 'boom [x] (command:y)');
    assert.equal(errorText('plain'), 'plain');
  });

  it('makes every interpolated value of a text template inert, and only those', () => {
    const out = text`[Open Settings](command:workbench.action.openSettings) ${'[x](command:evil)'}`;
    assert.deepEqual(links(out), ['[Open Settings](command:workbench.action.openSettings)'], 'the literal is ours');
  });

  it('escapes Markdown so that no link, autolink, HTML, code or icon renders', () => {
    for (const attack of [...ATTACKS, '**bold** _it_ `code`', '<img src=x onerror=alert(1)>', 'see www.evil.example or a@b.example', '![i](https://e.example/i.png)']) {
      const md = markdownText(attack);
      assert.equal(MARKDOWN_ACTIVE.test(md), false, `${attack} → ${md}`);
      assert.equal(MARKDOWN_ACTIVE.test(markdown`**Server** ${attack}`), false);
    }
    assert.equal(markdownText('a\nb', { multiline: true }), 'a  \nb');
  });

  it('holds for any string (property)', () => {
    const piece = fc.constantFrom('[', ']', '(', ')', '$', '\\', ' ', '\n', '\u0000', '\u200b', '\u202e', 'command:x', 'https://e', 'file:/', '"t"', "'", 'check', '~spin', '<', 'www.', 'a', '@');
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        const out = inert(s);
        assert.deepEqual(links(out), []);
        assert.equal(new RegExp(ICON.source, 'i').test(out), false);
        assert.equal(/[\n\r\u0000-\u001f\u202a-\u202e\u2066-\u2069]/.test(out), false);
        assert.equal(MARKDOWN_ACTIVE.test(markdownText(s)), false);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('text`…` and markdown`…` go through the message translator (vscode.l10n)', () => {
  it('hands the translator the literal parts with {n} placeholders and the inert values', () => {
    const seen: [string, string[]][] = [];
    const restore = setMessageTranslator((message, args) => {
      seen.push([message, args]);
      return `T:${message}`;
    });
    try {
      assert.strictEqual(text`Agent ${'[x](command:evil)'} asks about ${'$(check) file'}`, 'T:Agent {0} asks about {1}');
      assert.strictEqual(seen[0][0], 'Agent {0} asks about {1}');
      assert.ok(!seen[0][1][0].includes('](command:'), 'values are inert before the translator sees them');
      assert.strictEqual(markdown`**Server** ${'*x*'}`, 'T:**Server** {0}');
      assert.strictEqual(seen[1][1][0], '\\*x\\*');
    } finally {
      restore();
    }
    assert.strictEqual(text`plain ${'v'}`, 'plain v', 'restored: the default substitutes in place');
  });

  it('substitutes each value once: a value that looks like a placeholder stays as it is', () => {
    assert.strictEqual(text`a ${'{1}'} b ${'{0}'}`, 'a {1} b {0}');
  });

  it('a translator that throws falls back to the untranslated message', () => {
    const restore = setMessageTranslator(() => { throw new Error('no bundle'); });
    try {
      assert.strictEqual(text`x ${'y'}`, 'x y');
    } finally {
      restore();
    }
  });
});

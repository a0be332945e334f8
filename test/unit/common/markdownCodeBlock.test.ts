/**
 * Untrusted lines shown as a Markdown code block (the inline review's hover, the Changes view's
 * hunk tooltip) stay one code block holding exactly those lines, whatever fences, links or HTML
 * they carry. Parsed with markdown-it (CommonMark, as VS Code's renderer reads fences).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { markdownCodeBlock } from '../../../src/common/untrustedText';
import { hunkHoverCode, hunkHoverIntro } from '../../../src/edits/inlineHunks';

const md = new MarkdownIt({ html: true, linkify: true });

/** The block tokens of `source` other than our own paragraph before the block. */
function blocks(source: string): { type: string; content: string; info: string }[] {
  return md.parse(source, {}).filter((t) => t.level === 0 && !t.type.endsWith('_close')).map((t) => ({ type: t.type, content: t.content, info: t.info }));
}

// What an agent's hunk of a Markdown file (a README with code fences) can hold.
const BREAKERS = [
  ' ```',
  '   ```',
  '+```',
  '-````',
  ' ``````',
  ' ~~~',
  '```',
  '+[click](https://evil.example/x)',
  ' <img src=x onerror=alert(1)>',
  ' <script>alert(1)</script>',
  '+$(check) approved',
  ' [ok](command:agentSwitchboard.answerPermission?["s","p","allow"])',
];

describe('markdownCodeBlock: untrusted lines as one code block they cannot leave', () => {
  it('a diff context line with three backticks does not close the block, nor does any other fence', () => {
    const code = ['+added', ...BREAKERS, ' after'].join('\n');
    const out = blocks(markdownCodeBlock(code, 'diff'));
    assert.deepEqual(out.map((b) => b.type), ['fence'], JSON.stringify(out));
    assert.equal(out[0].content, code + '\n');
    assert.equal(out[0].info, 'diff');
  });

  it('the hover of a hunk is our sentence and the hunk, whatever its lines hold', () => {
    const lines = [' ```', '+[x](https://evil.example)', ' ```', '-<b>old</b>', '\\ No newline at end of file', '+new\r'];
    // As the inline review builds it: appendText(intro) (VS Code escapes it), then the block.
    const out = blocks(hunkHoverIntro('intact').replace(/[\\`*_{}[\]()#+\-.!']/g, '\\$&') + markdownCodeBlock(hunkHoverCode(lines), 'diff'));
    assert.deepEqual(out.map((b) => b.type), ['paragraph_open', 'fence'], JSON.stringify(out));
    assert.equal(out[1].content, [' ```', '+[x](https://evil.example)', ' ```', '-<b>old</b>', '+new'].join('\n') + '\n');
  });

  it('any text: exactly one fence token with the text (line breaks as \\n, controls dropped, bidi shown)', () => {
    const piece = fc.constantFrom('`', '```', '~~~', ' ', '\n', '\r\n', 'a', '<', '>', '[', ']', '(', ')', '\u202e', '\u0007', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }).map((a) => a.join('')), (s) => {
        const out = blocks(markdownCodeBlock(s, 'diff'));
        assert.deepEqual(out.map((b) => b.type), ['fence']);
        const expected = s.replace(/\r\n|\r/g, '\n').replace(/\u0007/g, '').replace(/\u202e/g, '\ufffd');
        assert.equal(out[0].content, expected + '\n');
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps only a language id in the info string, and caps the length', () => {
    assert.deepEqual(blocks(markdownCodeBlock('x', 'diff` onerror=1')).map((b) => b.info), ['diffonerror1']);
    const long = markdownCodeBlock('y'.repeat(50), '', 10);
    assert.equal(blocks(long)[0].content, 'y'.repeat(9) + '…\n');
  });
});

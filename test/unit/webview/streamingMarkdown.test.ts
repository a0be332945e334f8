import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import type { Ctx } from '../../../webview/session/context';
import { makeH } from '../../../webview/session/dom';
import { createMarkdownRenderer } from '../../../webview/session/markdown';
import { MAX_LIVE_CHARS, MarkdownView, SETTLE_MAX_CHARS, stableBoundary } from '../../../webview/session/streamingMarkdown';

describe('webview streaming markdown', () => {
  describe('stableBoundary', () => {
    it('stops at the last blank line followed by an unindented line', () => {
      const t = 'para one\n\npara two\n\npara thr';
      assert.equal(stableBoundary(t, 0), t.indexOf('para thr'));
      assert.equal(stableBoundary('para one\n\n', 0), 0, 'the next line has not started');
      assert.equal(stableBoundary('para one\n\n  ', 0), 0, 'an indented line may continue the block');
    });
    it('never splits inside a code fence', () => {
      const t = '```\ncode\n\nmore code\n```\n\nafter\n';
      assert.equal(stableBoundary(t, 0), t.indexOf('after'));
      const open = 'intro\n\n```\ncode\n\nmore code\n';
      assert.equal(stableBoundary(open, 0), open.indexOf('```'));
    });
    it('keeps indented continuations (list items, nested code) with their block', () => {
      const t = '- item\n\n    nested code\n\nnext\n';
      assert.equal(stableBoundary(t, 0), t.indexOf('next'));
    });
  });

  describe('MarkdownView', () => {
    let dom: JSDOM;
    let ctx: Ctx;
    const pending: (() => void)[] = [];
    beforeEach(() => {
      dom = new JSDOM('<!DOCTYPE html><body></body>');
      const doc = dom.window.document;
      pending.length = 0;
      ctx = {
        doc, h: makeH(doc), md: createMarkdownRenderer(dom.window as unknown as Window), post: () => {}, state: () => null,
        later: (fn) => {
          pending.push(fn);
          return () => pending.splice(pending.indexOf(fn), 1);
        },
        afterPaint: (fn) => {
          pending.push(fn);
          return () => pending.splice(pending.indexOf(fn), 1);
        },
      };
    });
    afterEach(() => dom.window.close());

    it('renders finished blocks once and only re-renders the tail, then settles to a full render', () => {
      const v = new MarkdownView(ctx);
      v.set('First **para**.');
      v.set('First **para**.\n\nSecond');
      const first = v.el.querySelector('p');
      assert.equal(v.el.querySelector('strong')?.textContent, 'para');
      v.set('First **para**.\n\nSecond para.\n\nThird');
      assert.equal(v.el.querySelector('p'), first, 'the frozen paragraph was not re-rendered');
      assert.deepEqual(Array.from(v.el.querySelectorAll('p')).map((p) => p.textContent), ['First para.', 'Second para.', 'Third']);
      assert.equal(pending.length, 1, 'one settle pending');
      pending[0]();
      assert.deepEqual(Array.from(v.el.querySelectorAll('p')).map((p) => p.textContent), ['First para.', 'Second para.', 'Third']);
      assert.notEqual(v.el.querySelector('p'), first, 'settled by a full render');
    });

    it('renders a long text without blank lines in linear time: the tail is frozen at a line start (PF8)', () => {
      const md = ctx.md;
      let rendered = 0;
      let largest = 0;
      ctx.md = (t: string) => ((rendered += t.length), (largest = Math.max(largest, t.length)), md(t));
      const v = new MarkdownView(ctx);
      let text = '';
      for (let i = 1; i <= 30_000; i++) {
        text += `${String(i).padStart(9, '0')}\n`;
        if (i % 100 === 0) v.set(text);
      }
      v.set(text);
      assert.ok(rendered < 10 * text.length, `rendered ${rendered} characters for a text of ${text.length} in 300 frames (the whole text each frame: 45 million)`);
      assert.ok(largest <= MAX_LIVE_CHARS + 1000, `no render larger than the live limit and one frame's growth (largest ${largest})`);
      assert.ok(v.el.textContent!.includes('000030000') && v.el.textContent!.includes('000000001'), 'first and last lines shown');
      assert.equal(pending.length, 0, 'a text over SETTLE_MAX_CHARS is not rendered whole again');
      assert.ok(text.length > SETTLE_MAX_CHARS);
    });

    it('freezes a long code block at a line, closing and reopening the fence: every line stays code', () => {
      const v = new MarkdownView(ctx);
      const lines = Array.from({ length: 3000 }, (_, i) => `const x${i} = ${i}; // **not bold**`);
      let text = 'Intro\n\n```ts\n';
      for (let i = 0; i < lines.length; i++) {
        text += `${lines[i]}\n`;
        if (i % 100 === 0) v.set(text);
      }
      text += '```\n\nAfter the code.';
      v.set(text);
      assert.ok(v.el.querySelectorAll('pre').length > 1, 'split into several code blocks while streaming');
      assert.equal(v.el.querySelector('strong'), null, 'no line inside the fence was rendered as markdown');
      const code = Array.from(v.el.querySelectorAll('pre code')).map((c) => c.textContent).join('');
      assert.equal(code, lines.map((l) => `${l}\n`).join(''), 'every line once, in order');
      assert.equal(v.el.querySelector('p:last-child')?.textContent, 'After the code.');
      // Under SETTLE_MAX_CHARS the quiet stream is rendered whole again: one code block.
      assert.equal(pending.length, 1);
      pending[0]();
      assert.equal(v.el.querySelectorAll('pre').length, 1);
    });

    it('shown from what was appended, gives the same page as shown from the whole text', function () {
      this.timeout(30_000);
      // A seeded mix of what agents stream: paragraphs, lists, fences opened and closed, long lines.
      let seed = 7;
      const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
      const pieces = ['word ', '**bold** ', '\n', '\n\n', '- item\n', '```js\n', '```\n', '    indented\n', '# Head\n', 'x'.repeat(900), '`code` ', '> quote\n'];
      const byDelta = new MarkdownView(ctx);
      const whole = new MarkdownView(ctx);
      let text = '';
      for (let frame = 0; frame < 240; frame++) {
        let added = '';
        for (let k = Math.floor(rand() * 12); k >= 0; k--) added += pieces[Math.floor(rand() * pieces.length)];
        text += added;
        byDelta.set(text, added);
        whole.set(text);
        if (frame % 4 === 0 || frame > 230) assert.equal(byDelta.el.innerHTML, whole.el.innerHTML, `frame ${frame}`);
      }
      assert.ok(text.length > MAX_LIVE_CHARS * 5, `long enough to freeze many times (${text.length})`);
    });

    it('reads nothing of the text but its length when told what was appended (PF8: no copy of a long message per frame)', () => {
      const v = new MarkdownView(ctx);
      let shown = 'start\n';
      v.set(shown);
      for (let i = 0; i < 50; i++) {
        const added = `line ${i}\n`;
        shown += added;
        // A text that throws on any read but its length: comparing or slicing it would.
        const opaque = new Proxy(Object.create(null), { get: (_t, k) => (k === 'length' ? shown.length : assert.fail(`read ${String(k)}`)) }) as unknown as string;
        v.set(opaque, added);
      }
      assert.ok(v.el.textContent!.includes('line 49'));
    });

    it('takes a text whose length does not add up as a new text', () => {
      const v = new MarkdownView(ctx);
      v.set('a\n\nb');
      v.set('x\n\nyz and more', ' and more');
      assert.equal(v.el.textContent?.replace(/\s+/g, ' ').trim(), 'x yz and more');
    });

    it('renders in full when the text is replaced rather than extended', () => {
      const v = new MarkdownView(ctx);
      v.set('a\n\nb\n\nc');
      v.set('x');
      assert.equal(v.el.textContent?.trim(), 'x');
    });
  });
});

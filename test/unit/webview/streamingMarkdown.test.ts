import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import type { Ctx } from '../../../webview/session/context';
import { makeH } from '../../../webview/session/dom';
import { createMarkdownRenderer } from '../../../webview/session/markdown';
import { MarkdownView, stableBoundary } from '../../../webview/session/streamingMarkdown';

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

    it('renders in full when the text is replaced rather than extended', () => {
      const v = new MarkdownView(ctx);
      v.set('a\n\nb\n\nc');
      v.set('x');
      assert.equal(v.el.textContent?.trim(), 'x');
    });
  });
});

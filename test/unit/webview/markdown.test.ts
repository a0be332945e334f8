import assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { createMarkdownRenderer } from '../../../webview/session/markdown';

describe('webview markdown', () => {
  const dom = new JSDOM('<!DOCTYPE html><div id="out"></div>');
  const md = createMarkdownRenderer(dom.window as unknown as Window);
  const out = dom.window.document.getElementById('out')!;
  after(() => dom.window.close());

  function render(text: string): HTMLElement {
    out.innerHTML = md(text);
    return out;
  }

  it('renders markdown and linkifies bare URLs without an href', () => {
    const el = render('Some **bold** and `code`, see https://example.com/x');
    assert.ok(el.querySelector('strong'));
    assert.ok(el.querySelector('code'));
    const a = el.querySelector('a')!;
    assert.equal(a.textContent, 'https://example.com/x');
    assert.equal(a.getAttribute('title'), 'https://example.com/x');
    assert.equal(a.hasAttribute('href'), false);
  });

  it('neutralises <script>, <img onerror> and javascript: links', () => {
    const el = render([
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(2)">',
      '[click](javascript:alert(3))',
      '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)',
      '![pic](https://evil.example/p.png)',
      '<a href="javascript:alert(5)">raw</a>',
    ].join('\n\n'));
    assert.equal(el.querySelector('script'), null);
    assert.equal(el.querySelector('img'), null);
    for (const node of Array.from(el.querySelectorAll('*'))) {
      for (const attr of Array.from(node.attributes)) {
        assert.ok(!attr.name.startsWith('on'), `no event handler attribute (${attr.name})`);
        assert.doesNotMatch(attr.value, /^\s*javascript:/i, `no javascript: URL in ${attr.name}`);
      }
      assert.equal(node.hasAttribute('href'), false, 'no href survives');
    }
    // Raw HTML is shown as text, not interpreted.
    assert.match(el.textContent ?? '', /<script>alert\(1\)<\/script>/);
    assert.match(el.textContent ?? '', /pic/);
  });
});

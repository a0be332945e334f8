/**
 * Markdown for agent text, rendered safely.
 *
 * Agent output is untrusted: markdown-it runs with `html: false` (raw HTML is shown as text) and
 * its own link validation (no `javascript:`/`vbscript:`/`file:`/most `data:` URLs), and DOMPurify
 * sanitises the result again, forbidding images, forms, styles and event attributes. Links keep
 * their text and show the address as a tooltip, but lose `href`, so clicking them opens nothing.
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/** Renders markdown to sanitised HTML. */
export type MarkdownRenderer = (text: string) => string;

const FORBID_TAGS = ['img', 'picture', 'video', 'audio', 'source', 'iframe', 'object', 'embed', 'form', 'input',
  'button', 'textarea', 'select', 'style', 'link', 'meta', 'base', 'svg', 'math'];

/**
 * Creates a renderer for `win` (the webview's window, or a test DOM's). One markdown-it instance
 * and one DOMPurify instance are reused for every call.
 */
export function createMarkdownRenderer(win: Window): MarkdownRenderer {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
  // Images would be blocked by the CSP anyway; show their alt text instead of a broken icon.
  md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(String(tokens[idx].content || tokens[idx].attrGet('alt') || ''));
  const purify = DOMPurify(win as unknown as Parameters<typeof DOMPurify>[0]);
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      // Keep the address readable as a tooltip but drop `href`: with no href, neither the webview
      // nor VS Code's own link handler in the webview frame has anything to open.
      const href = node.getAttribute('href') ?? '';
      if (href) node.setAttribute('title', href);
      node.removeAttribute('href');
      node.removeAttribute('target');
      node.classList.add('md-link');
    }
  });
  return (text: string) =>
    purify.sanitize(md.render(text), {
      USE_PROFILES: { html: true },
      FORBID_TAGS,
      FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
      ALLOW_DATA_ATTR: false,
    }) as unknown as string;
}

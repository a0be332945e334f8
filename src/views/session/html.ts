/**
 * The HTML page of the session sidebar webview. Pure (no `vscode` import): the view passes in the
 * webview's `cspSource` and the URIs it built with `asWebviewUri`.
 *
 * Content Security Policy: nothing loads by default; scripts only with the per-load nonce; styles,
 * fonts and images only from the extension's own resources. The app's stylesheet is adopted as a
 * constructable stylesheet and the vscode-elements components (Lit) adopt theirs into shadow roots,
 * and neither is governed by `style-src`, so no `'unsafe-inline'` is needed. Inline `style`
 * attributes would be blocked; the UI only sets styles through the CSSOM, which CSP allows.
 */
import { randomBytes } from 'node:crypto';

export interface SessionHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** From {@link makeNonce}, new for every page load. */
  nonce: string;
  /** Webview URI of `dist/webview/session.js`. */
  scriptUri: string;
  /** Webview URI of `dist/webview/codicon.css` (the font file sits next to it). */
  codiconCssUri: string;
  title?: string;
}

/** A fresh nonce for one page load: 128 random bits, base64. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Builds the page. Every interpolated value is escaped for its attribute or text context. */
export function renderSessionHtml(opts: SessionHtmlOptions): string {
  const nonce = attr(opts.nonce);
  const csp = [
    `default-src 'none'`,
    `img-src ${opts.cspSource} data:`,
    `font-src ${opts.cspSource}`,
    `style-src ${opts.cspSource} 'nonce-${opts.nonce}'`,
    `script-src 'nonce-${opts.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link id="vscode-codicon-stylesheet" rel="stylesheet" href="${attr(opts.codiconCssUri)}" nonce="${nonce}">
<title>${text(opts.title ?? 'Agent sessions')}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${attr(opts.scriptUri)}"></script>
</body>
</html>
`;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

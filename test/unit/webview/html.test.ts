import assert from 'node:assert/strict';
import { makeNonce, renderSessionHtml } from '../../../src/views/session/html';

describe('session webview html', () => {
  const opts = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'abc+/=',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/session.js',
    codiconCssUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/codicon.css',
  };

  it('sets a strict CSP with the nonce and no unsafe sources', () => {
    const html = renderSessionHtml(opts);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.equal(
      csp,
      `default-src 'none'; img-src ${opts.cspSource} data:; font-src ${opts.cspSource}; ` +
        `style-src ${opts.cspSource} 'nonce-abc+/='; script-src 'nonce-abc+/='`,
    );
    assert.doesNotMatch(html, /unsafe-(inline|eval)/);
  });

  it('loads the script with the nonce, the codicons with the id vscode-elements look for, and has #app', () => {
    const html = renderSessionHtml({ ...opts, title: 'A <b> title' });
    assert.match(html, /<script nonce="abc\+\/=" src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\/session\.js"><\/script>/);
    assert.match(html, /<link id="vscode-codicon-stylesheet" rel="stylesheet" href="[^"]+codicon\.css"/);
    assert.match(html, /<div id="app"><\/div>/);
    assert.match(html, /<title>A &lt;b&gt; title<\/title>/);
  });

  it('makes a fresh 128-bit nonce each time', () => {
    const a = makeNonce();
    assert.equal(Buffer.from(a, 'base64').length, 16);
    assert.notEqual(makeNonce(), a);
  });
});

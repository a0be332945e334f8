/**
 * MCP Apps without the editor: tools with views and their visibility, the view resource read from
 * the project's fake app server (ext-apps server helpers), the policies a view runs under, and the
 * transport to the view.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import { appCsp, appResourceFrom, appResourceOf, callableFromApp, cleanDomains, createAppBridge, hostCsp, prepareAppHtml, RESOURCE_MIME_TYPE, ViewTransport, visibleToModel } from '../../../src/mcp/apps';
import { McpServerConnection } from '../../../src/mcp/connection';

const APP = path.join(__dirname, '..', '..', 'fakes', 'mcp-app-server.mjs');
const tool = (meta?: Record<string, unknown>): Tool => ({ name: 't', inputSchema: { type: 'object' }, ...(meta ? { _meta: meta } : {}) }) as Tool;

describe('MCP Apps', () => {
  it('names the view MIME type exactly as the Apps SDK does (ours only so that naming it loads nothing)', async () => {
    const sdk = await import('@modelcontextprotocol/ext-apps/app-bridge');
    assert.equal(RESOURCE_MIME_TYPE, sdk.RESOURCE_MIME_TYPE);
  });

  it('finds a tool\'s view in the nested and the deprecated flat form; a URI that is not ui:// is a problem, not a crash', () => {
    assert.deepEqual(appResourceOf(tool({ ui: { resourceUri: 'ui://s/v.html' } })), { uri: 'ui://s/v.html' });
    assert.deepEqual(appResourceOf(tool({ 'ui/resourceUri': 'ui://s/old.html' })), { uri: 'ui://s/old.html' });
    assert.deepEqual(appResourceOf(tool()), {});
    assert.match(appResourceOf(tool({ ui: { resourceUri: 'https://evil.example/x' } })).problem ?? '', /not a ui:\/\/ resource/);
  });

  it('visibility: apps may call only tools that include "app"; agents see only tools that include "model"', () => {
    assert.ok(callableFromApp(tool()) && visibleToModel(tool()), 'both by default');
    assert.ok(callableFromApp(tool({ ui: { visibility: ['app'] } })) && !visibleToModel(tool({ ui: { visibility: ['app'] } })));
    assert.ok(!callableFromApp(tool({ ui: { visibility: ['model'] } })));
    assert.ok(!callableFromApp(undefined), 'a tool the server does not have');
  });

  it('the view\'s policy: the spec default without csp; only declared, well-formed domains with it; never a smuggled directive', () => {
    assert.equal(appCsp(undefined), "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'");
    const p = appCsp({ connectDomains: ['https://api.example.com', "https://x.example; script-src 'unsafe-eval'"], resourceDomains: ['https://*.cdn.example'] });
    assert.match(p, /connect-src https:\/\/api\.example\.com;/);
    assert.match(p, /script-src 'self' 'unsafe-inline' https:\/\/\*\.cdn\.example;/);
    assert.match(p, /frame-src 'none'/);
    assert.ok(!p.includes('unsafe-eval'), p);
    assert.deepEqual(cleanDomains(['https://a.example:8443', 'javascript:alert(1)', '*', "'unsafe-inline'", 42]), ['https://a.example:8443']);
    const h = hostCsp('N0nce', 'vscode-resource:', { resourceDomains: ['https://cdn.example'] });
    assert.match(h, /script-src 'nonce-N0nce' https:\/\/cdn\.example;/);
    assert.match(h, /connect-src 'none'/);
    const scripts = h.split('; ').find((d) => d.startsWith('script-src')) ?? '';
    assert.ok(!scripts.includes('unsafe-inline'), `the webview runs no script without its nonce: ${scripts}`);
  });

  it('prepares the view: the policy first in <head>, the nonce on each script, quotes escaped', () => {
    const out = prepareAppHtml('<html><head><title>x</title></head><body><script>go()</script><script type="module" src="https://cdn.example/a.js"></script></body></html>', 'N', `default-src 'none'; x "y"`);
    assert.match(out, /^<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; x &quot;y&quot;"><title>/);
    assert.equal(out.match(/<script nonce="N"/g)?.length, 2);
    assert.match(prepareAppHtml('<p>bare</p>', 'N', 'p'), /^<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="p"><\/head><body><p>bare<\/p>/);
  });

  it('reads the view from a real server (ext-apps server helpers); a resource of another type is refused', async function () {
    this.timeout(20_000);
    const c = new McpServerConnection('app', 'app', { type: 'stdio', command: process.execPath, args: [APP], env: {} }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env });
    try {
      await c.start();
      const show = c.catalog.tools.find((t) => t.name === 'show-sum')!;
      const uri = appResourceOf(show).uri!;
      const view = appResourceFrom(uri, (await c.readResource(uri)) as never);
      assert.match(view.html, /<button id="add">/);
      assert.ok(!visibleToModel(c.catalog.tools.find((t) => t.name === 'add')!));
      assert.throws(() => appResourceFrom('ui://x', { contents: [{ uri: 'ui://x', mimeType: 'text/html', text: '<p>' }] }), /not an MCP App/);
      assert.equal(appResourceFrom('ui://x', { contents: [{ uri: 'ui://x', mimeType: RESOURCE_MIME_TYPE, blob: Buffer.from('<p>b</p>').toString('base64') }] }).html, '<p>b</p>');
    } finally {
      await c.stop();
    }
  });

  it('the policy comes from the _meta.ui.csp that resources/read returns, also for a view missing from resources/list', async function () {
    this.timeout(20_000);
    const c = new McpServerConnection('app', 'app', { type: 'stdio', command: process.execPath, args: [APP], env: {} }, { clientInfo: { name: 't', version: '0' }, startupBudgetMs: 10_000, baseEnv: process.env });
    try {
      await c.start();
      const uri = 'ui://fake/unlisted/7';
      assert.ok(!c.catalog.resources.some((r) => r.uri.startsWith('ui://fake/unlisted')), 'the view is not listed');
      const view = appResourceFrom(uri, (await c.readResource(uri)) as never, c.catalog.resources.find((r) => r.uri === uri));
      assert.deepEqual(view.csp, { connectDomains: ['https://api.example.com'] });
      assert.equal(view.prefersBorder, true);
      assert.match(appCsp(view.csp), /connect-src https:\/\/api\.example\.com;/);
      assert.match(hostCsp('N', 'vscode-resource:', view.csp), /connect-src https:\/\/api\.example\.com;/);
    } finally {
      await c.stop();
    }
  });

  it('read and listed _meta.ui: each field from the read content first, else from the list entry', () => {
    const listed = { uri: 'ui://x', name: 'x', _meta: { ui: { csp: { connectDomains: ['https://listed.example'] }, permissions: { camera: {} }, prefersBorder: true } } };
    const read = (ui?: Record<string, unknown>) => ({ contents: [{ uri: 'ui://x', mimeType: RESOURCE_MIME_TYPE, text: '<p>', ...(ui ? { _meta: { ui } } : {}) }] });
    assert.deepEqual(appResourceFrom('ui://x', read({ csp: { connectDomains: ['https://read.example'] } }), listed as never).csp, { connectDomains: ['https://read.example'] });
    // The read content names only its border: the list's policy still applies (a view must not lose its declared domains, nor gain any).
    const mixed = appResourceFrom('ui://x', read({ prefersBorder: false }), listed as never);
    assert.deepEqual([mixed.csp, mixed.permissions, mixed.prefersBorder], [{ connectDomains: ['https://listed.example'] }, { camera: {} }, false]);
    assert.equal(appResourceFrom('ui://x', read(), undefined).csp, undefined, 'neither declares: the spec default policy');
  });

  it('the view gets no host context before its ui/initialize, and the tool input and result only after ui/notifications/initialized', async () => {
    const toView: { method?: string; id?: unknown; result?: { hostContext?: { theme?: string; toolInfo?: { tool?: { name?: string } } } } }[] = [];
    const transport = new ViewTransport((m) => toView.push(m as never));
    const errors: string[] = [];
    const bridge = createAppBridge({ toolName: 'show-sum', tool: { name: 'show-sum', inputSchema: { type: 'object' } } as Tool, args: { a: 1, b: 2 }, result: { content: [{ type: 'text', text: '1+2=3' }] }, hostVersion: '0', look: { theme: 'dark', styles: {}, locale: 'en' }, onError: (m) => errors.push(m) });
    await bridge.connect(transport);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(toView.length, 0, 'nothing reaches the view before it initializes');
    transport.receive({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { appInfo: { name: 'v', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } });
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => toView.length > 0);
    assert.equal(toView.length, 1);
    assert.equal(toView[0].id, 1);
    assert.equal(toView[0].result?.hostContext?.theme, 'dark');
    assert.equal(toView[0].result?.hostContext?.toolInfo?.tool?.name, 'show-sum');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(toView.length, 1, 'no tool input before the view says it is initialized');
    transport.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
    await until(() => toView.length >= 3);
    assert.deepEqual(toView.slice(1).map((m) => m.method), ['ui/notifications/tool-input', 'ui/notifications/tool-result']);
    assert.deepEqual(errors, []);
    await bridge.close();
  });

  it('the view transport passes JSON-RPC both ways and drops anything else with an error', async () => {
    const sent: unknown[] = [];
    const errors: string[] = [];
    const got: unknown[] = [];
    const t = new ViewTransport((m) => sent.push(m));
    t.onerror = (e) => errors.push(e.message);
    t.onmessage = (m) => got.push(m);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    t.receive({ jsonrpc: '2.0', id: 1, result: {} });
    t.receive({ hello: 'world' });
    t.receive('<script>');
    assert.equal(sent.length, 1);
    assert.equal(got.length, 1);
    assert.equal(errors.length, 2);
    await t.close();
    await assert.rejects(t.send({ jsonrpc: '2.0', method: 'x' }), /closed/);
  });
});

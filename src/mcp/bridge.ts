/**
 * The stdio bridge to the editor's MCP server, for agents that take only stdio MCP servers (no
 * `mcpCapabilities.http`): the agent starts this script (`dist/mcp-bridge.js`) as an ordinary stdio
 * server; it relays `tools/list` and `tools/call` to the editor's HTTP server on loopback with the
 * session's token. Both come from the environment the client gave in `session/new`:
 * `AGENT_SWITCHBOARD_MCP_URL` and `AGENT_SWITCHBOARD_MCP_TOKEN`.
 *
 * Built on the SDK's low-level `Server` (stdio, both eras via `serveStdio`) and `Client`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const url = process.env.AGENT_SWITCHBOARD_MCP_URL;
const token = process.env.AGENT_SWITCHBOARD_MCP_TOKEN;
if (!url || !token) {
  process.stderr.write('mcp-bridge: AGENT_SWITCHBOARD_MCP_URL and AGENT_SWITCHBOARD_MCP_TOKEN must be set (Agent Switchboard sets them when it gives this server to an agent).\n');
  process.exit(2);
}

let upstream: Promise<Client> | undefined;
/** One connection to the editor's server, opened on first use and reused. */
function editor(): Promise<Client> {
  upstream ??= (async () => {
    const client = new Client({ name: 'agent-switchboard-mcp-bridge', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
  })();
  return upstream;
}

serveStdio(
  () => {
    const server = new Server({ name: 'agent-switchboard-editor-bridge', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async (req) => (await editor()).listTools(req.params));
    server.setRequestHandler('tools/call', async (req, ctx) => (await editor()).callTool(req.params, { signal: ctx.mcpReq.signal }));
    return server;
  },
  { legacy: 'serve' },
);

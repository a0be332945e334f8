/**
 * A command-line MCP client built on the host's own connection module (src/mcp/connection.ts), for
 * the MCP conformance suite's client scenarios: `tsx scripts/mcp-conformance-client.ts <url>`
 * connects in `auto` negotiation, lists the tools and calls each with arguments made from its
 * input schema, then disconnects. Exit code 0 when every step worked.
 */
import { McpServerConnection } from '../src/mcp/connection';
import { schemaSkeleton } from '../src/mcp/render';

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write('usage: mcp-conformance-client <server url>\n');
    return 2;
  }
  const c = new McpServerConnection('conformance', 'conformance', { type: 'http', url, headers: {} }, { clientInfo: { name: 'agent-switchboard', version: '0.1.0' }, startupBudgetMs: 20_000, baseEnv: {} });
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
  await c.stop();
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

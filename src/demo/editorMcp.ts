/**
 * The `editor-mcp` scenario: an agent that uses the MCP servers the client gave it in `session/new`
 * — the editor's own server over HTTP, or any stdio server, which it starts as ACP agents commonly
 * do: in its own folder, with its own environment plus the server's entries — with
 * `@modelcontextprotocol/client`, the way real agents call MCP tools. The prompt is the script: JSON `{"server": "editor", "calls": [{"tool": "...",
 * "args": {...}}]}`; the answer is one JSON line per call: `{"tool", "result"}` or `{"tool", "error"}`.
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import type { DemoTurn } from './turn';

/** Runs the prompt's MCP calls; returns `end_turn`. */
export async function editorMcpTurn(turn: DemoTurn): Promise<StopReason> {
  let script: { server?: string; calls: { tool: string; args?: Record<string, unknown> }[] };
  try {
    script = JSON.parse(turn.promptText());
  } catch (err) {
    await turn.say([`The editor-mcp script needs a JSON prompt: ${(err as Error).message}`], 0);
    return 'end_turn';
  }
  const name = script.server ?? 'editor';
  const server = turn.memory.mcpServers.find((s) => s.name === name);
  if (!server || ('type' in server && server.type === 'sse')) {
    await turn.say([`No MCP server "${name}" was given to me; I got: ${turn.memory.mcpServers.map((s) => s.name).join(', ') || 'none'}.`], 0);
    return 'end_turn';
  }
  // Loaded on use: the other scenarios (and the demo's start-up) do not pay for the MCP client.
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'agent-switchboard-demo-agent', version: '0' }, { versionNegotiation: { mode: 'auto' } });
  const lines: string[] = [];
  try {
    if ('url' in server) {
      const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
    } else {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      const env = { ...(process.env as Record<string, string>), ...Object.fromEntries(server.env.map((e) => [e.name, e.value])) };
      await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env, stderr: 'ignore' }));
    }
    for (const call of script.calls) {
      const toolCallId = turn.toolCallId(`mcp-${lines.length}`);
      await turn.update({ sessionUpdate: 'tool_call', toolCallId, title: `${name}: ${call.tool}`, kind: 'search', status: 'in_progress', rawInput: call.args ?? {} });
      try {
        const r = await client.callTool({ name: call.tool, arguments: call.args ?? {} });
        const result = (r.structuredContent as { result?: unknown } | undefined)?.result ?? r.content;
        lines.push(JSON.stringify(r.isError ? { tool: call.tool, error: r.content } : { tool: call.tool, result }));
        await turn.toolUpdate({ toolCallId, status: r.isError ? 'failed' : 'completed' });
      } catch (err) {
        lines.push(JSON.stringify({ tool: call.tool, error: (err as Error).message }));
        await turn.toolUpdate({ toolCallId, status: 'failed' });
      }
    }
  } catch (err) {
    lines.push(JSON.stringify({ error: `could not reach ${name}: ${(err as Error).message}` }));
  } finally {
    await client.close().catch(() => undefined);
  }
  await turn.say([lines.join('\n')], 0);
  return 'end_turn';
}

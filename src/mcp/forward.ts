/**
 * Which MCP servers an agent receives in `session/new` (ACP `mcpServers`): every enabled server the
 * person approved, with its inputs resolved at that moment — stdio always (all ACP agents take
 * it), HTTP only when the agent's `initialize` answer says `mcpCapabilities.http`. Each server
 * not sent is reported with the reason, for the session to show. Pure.
 * Spec: ACP `session/new` (https://agentclientprotocol.com/protocol/session-setup), PROTOCOLS.md §1.
 */
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { McpServerDefinition, McpTransportSpec } from './config';

/** A server as the host sees it when a session starts. */
export interface ForwardCandidate {
  definition: McpServerDefinition;
  /** The resolved transport; undefined when the server is held back (`held` says why). */
  transport?: McpTransportSpec;
  held?: string;
}

/** The `mcpServers` to send and a line per server for the session. */
export interface ForwardResult {
  servers: McpServer[];
  report: { name: string; sent: boolean; reason?: string }[];
}

/**
 * Chooses the servers for one `session/new`.
 * @param caps the agent's `agentCapabilities.mcpCapabilities` from `initialize`.
 */
export function forwardServers(candidates: ForwardCandidate[], caps: McpCapabilities | null | undefined): ForwardResult {
  const out: ForwardResult = { servers: [], report: [] };
  const names = new Set<string>();
  for (const c of candidates) {
    // ACP names the servers; two sources may use one name, so the later one gets a suffix.
    let name = c.definition.name;
    for (let n = 2; names.has(name); n++) name = `${c.definition.name}-${n}`;
    if (!c.transport) {
      out.report.push({ name, sent: false, reason: c.held ?? 'not available' });
      continue;
    }
    const t = c.transport;
    if (t.type === 'http') {
      if (!caps?.http) {
        out.report.push({ name, sent: false, reason: 'the agent does not take HTTP MCP servers (mcpCapabilities.http)' });
        continue;
      }
      out.servers.push({ type: 'http', name, url: t.url, headers: Object.entries(t.headers).map(([k, v]) => ({ name: k, value: v })) });
    } else {
      // ACP's stdio server has no cwd and no way to remove a variable: the agent starts it in the
      // session folder with its own environment plus these entries.
      const env = Object.entries(t.env).flatMap(([k, v]) => (v === null ? [] : [{ name: k, value: v }]));
      out.servers.push({ name, command: t.command, args: t.args, env });
    }
    names.add(name);
    out.report.push({ name, sent: true });
  }
  return out;
}

/** One sentence for the session thread: what the agent received and what it did not, and why. */
export function forwardNotice(report: ForwardResult['report']): string | undefined {
  if (!report.length) return undefined;
  const sent = report.filter((r) => r.sent).map((r) => r.name);
  const skipped = report.filter((r) => !r.sent).map((r) => `${r.name} (${r.reason})`);
  return [sent.length ? `MCP servers given to the agent: ${sent.join(', ')}.` : 'No MCP server was given to the agent.', skipped.length ? `Not given: ${skipped.join('; ')}.` : ''].filter(Boolean).join(' ');
}

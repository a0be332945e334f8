/**
 * Which MCP servers an agent receives in `session/new` (ACP `mcpServers`): every enabled server the
 * person approved, with its inputs resolved at that moment — stdio always (all ACP agents take
 * it), HTTP only when the agent's `initialize` answer says `mcpCapabilities.http`. Each server
 * not sent is reported with the reason, for the session to show. A stdio server is forwarded only
 * as approved: ACP's `McpServerStdio` has no `cwd` and cannot remove a variable, so a server with
 * an approved folder or removals goes through our launcher ({@link LaunchSpec}), or is not
 * forwarded when there is none. Pure.
 * Spec: ACP `session/new` (https://agentclientprotocol.com/protocol/session-setup), PROTOCOLS.md §1.
 */
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { McpServerDefinition, McpTransportSpec } from './config';
import type { LaunchSpec } from './launchSpec';

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
  /** Each server, given or not and why; `builtin`: the editor's own server (always given unless turned off). */
  report: { name: string; sent: boolean; reason?: string; builtin?: boolean }[];
}

/**
 * How the agent runs our launcher (`dist/mcp-launch.js`): the runtime and the script, and the
 * variables the runtime needs (`ELECTRON_RUN_AS_NODE=1` for VS Code's Electron). The launch spec
 * is appended as the last argument.
 */
export interface Launcher {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Chooses the servers for one `session/new`.
 * @param caps the agent's `agentCapabilities.mcpCapabilities` from `initialize`.
 * @param launcher our launcher; without it a stdio server with a folder or removals is not sent.
 */
export function forwardServers(candidates: ForwardCandidate[], caps: McpCapabilities | null | undefined, launcher?: Launcher): ForwardResult {
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
      const sent = stdioAsApproved(name, t, launcher);
      if ('refused' in sent) {
        out.report.push({ name, sent: false, reason: sent.refused });
        continue;
      }
      out.servers.push(sent);
    }
    names.add(name);
    out.report.push({ name, sent: true });
  }
  return out;
}

/**
 * The ACP stdio server that starts `t` exactly as approved. ACP's stdio server has no cwd and no
 * way to remove a variable (the agent starts it wherever it likes, with its own environment plus
 * the entries): without a folder or removals the command goes as it is; with either, it goes
 * through the launcher, which sets the folder and removes the variables before it starts it.
 * @returns the server, or `refused` with the reason when it cannot be run as approved.
 */
export function stdioAsApproved(name: string, t: Extract<McpTransportSpec, { type: 'stdio' }>, launcher?: Launcher): Extract<McpServer, { command: string }> | { refused: string } {
  const set = Object.entries(t.env).flatMap(([k, v]) => (v === null ? [] : [{ name: k, value: v }]));
  const removed = Object.entries(t.env).flatMap(([k, v]) => (v === null ? [k] : []));
  if (t.cwd === undefined && !removed.length) return { name, command: t.command, args: t.args, env: set };
  if (!launcher) {
    const what = [t.cwd !== undefined ? `its folder ${t.cwd}` : '', removed.length ? `the removal of ${removed.join(', ')}` : ''].filter(Boolean).join(' and ');
    return { refused: `ACP cannot tell the agent ${what}, so the agent would not run it as you approved it` };
  }
  // The launcher's own variables are set for it, not for the server: removed again unless approved.
  const own = Object.keys(launcher.env).filter((k) => !set.some((e) => e.name === k));
  const spec: LaunchSpec = { command: t.command, args: t.args, ...(t.cwd !== undefined ? { cwd: t.cwd } : {}), unset: [...new Set([...removed, ...own])] };
  const env = [...Object.entries(launcher.env).filter(([k]) => own.includes(k)).map(([k, v]) => ({ name: k, value: v })), ...set];
  return { name, command: launcher.command, args: [...launcher.args, JSON.stringify(spec)], env };
}

/** One sentence for the session thread: what the agent received and what it did not, and why. */
export function forwardNotice(report: ForwardResult['report']): string | undefined {
  // The editor's own server alone, given as every session gets it, is not news: no line for it.
  if (!report.length || report.every((r) => r.builtin && r.sent)) return undefined;
  const sent = report.filter((r) => r.sent).map((r) => r.name);
  const skipped = report.filter((r) => !r.sent).map((r) => `${r.name} (${r.reason})`);
  return [sent.length ? `MCP servers given to the agent: ${sent.join(', ')}.` : 'No MCP server was given to the agent.', skipped.length ? `Not given: ${skipped.join('; ')}.` : ''].filter(Boolean).join(' ');
}

/**
 * The person's MCP servers, running: one {@link McpServerConnection} per enabled definition,
 * reconciled whenever the definitions change (new ones start, removed or disabled ones stop,
 * changed ones restart). No `vscode`: definitions arrive resolved (inputs and secrets filled in).
 */
import { Emitter, type Event } from '../common/lifecycle';
import type { McpServerDefinition, McpTransportSpec } from './config';
import { McpServerConnection, type McpConnectionOptions } from './connection';

/** The setting's default, and its bounds (seconds). */
const STARTUP_DEFAULT_S = 30;

/**
 * The startup budget of `agentSwitchboard.mcpStartupTimeoutSeconds`, read from `config()` each time
 * a server starts (so a changed setting applies to the next start without a reload), in
 * milliseconds. A value that is not a number from 1 to 600 counts as the default, 30 s.
 */
export function startupBudgetFrom(config: () => { get(key: string): unknown }): () => number {
  return () => {
    const v = config().get('mcpStartupTimeoutSeconds');
    return (typeof v === 'number' && v >= 1 && v <= 600 ? v : STARTUP_DEFAULT_S) * 1000;
  };
}

/** A definition with its `${input:…}` / `${env:…}` references resolved, ready to start. */
export interface ResolvedServer {
  definition: McpServerDefinition;
  transport: McpTransportSpec;
}

/** One server as the explorer shows it. */
export interface HostedServer {
  definition: McpServerDefinition;
  /** Undefined while the server is disabled, unapproved or not started yet. */
  connection?: McpServerConnection;
  /** Why it is not running, when that is not an error of the server itself. */
  held?: string;
}

/** All MCP servers of the window. */
export class McpHost {
  private readonly servers = new Map<string, { definition: McpServerDefinition; key: string; connection?: McpServerConnection; held?: string }>();
  private readonly emitter = new Emitter<void>();
  /** Fires when a server is added, removed, or changes state or catalog. */
  readonly onDidChange: Event<void> = this.emitter.event;

  constructor(private readonly options: McpConnectionOptions) {}

  /**
   * Brings the running servers in line with `wanted`: starts servers that are new, stops those no
   * longer wanted, restarts those whose resolved transport changed. `held` lists definitions shown
   * but not started, with the reason (disabled, awaiting approval, missing input).
   */
  reconcile(wanted: ResolvedServer[], held: { definition: McpServerDefinition; reason: string }[] = []): void {
    const next = new Set([...wanted.map((w) => w.definition.id), ...held.map((h) => h.definition.id)]);
    for (const [id, s] of this.servers) {
      if (!next.has(id)) {
        void s.connection?.stop();
        s.connection?.dispose();
        this.servers.delete(id);
      }
    }
    for (const h of held) {
      const s = this.servers.get(h.definition.id);
      if (s?.connection) {
        void s.connection.stop();
        s.connection.dispose();
      }
      this.servers.set(h.definition.id, { definition: h.definition, key: '', held: h.reason });
    }
    for (const w of wanted) {
      const key = JSON.stringify(w.transport);
      const s = this.servers.get(w.definition.id);
      if (s?.connection && s.key === key) {
        s.definition = w.definition;
        continue;
      }
      if (s?.connection) {
        void s.connection.stop();
        s.connection.dispose();
      }
      const connection = new McpServerConnection(w.definition.id, w.definition.name, w.transport, this.options);
      connection.onDidChange(() => this.emitter.fire());
      this.servers.set(w.definition.id, { definition: w.definition, key, connection });
      void connection.start();
    }
    this.emitter.fire();
  }

  /** Every server, in definition order. */
  list(): HostedServer[] {
    return [...this.servers.values()].map((s) => ({ definition: s.definition, connection: s.connection, held: s.held }));
  }

  /**
   * The connection of server `id` when it runs exactly `transport` (the resolved one), else
   * undefined: what the editor checked about a server (its catalog) holds only for that transport.
   */
  connectionAs(id: string, transport: McpTransportSpec): McpServerConnection | undefined {
    const s = this.servers.get(id);
    return s?.connection && s.key === JSON.stringify(transport) ? s.connection : undefined;
  }

  /** The connection of a server. @throws Error naming why there is none. */
  connection(id: string): McpServerConnection {
    const s = this.servers.get(id);
    if (!s) throw new Error(`No MCP server "${id}".`);
    if (!s.connection) throw new Error(`The MCP server "${s.definition.name}" is not started: ${s.held ?? 'not started'}.`);
    return s.connection;
  }

  dispose(): void {
    for (const s of this.servers.values()) s.connection?.dispose();
    this.servers.clear();
    this.emitter.dispose();
  }
}

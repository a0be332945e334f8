/**
 * Spans of the MCP requests the editor itself sends (the person's Run Tool, an MCP App's calls,
 * resource reads, prompts): a CLIENT span `{method} {target}` (MCP semantic conventions) whose W3C
 * trace context goes in the request's `params._meta`, so a server that traces continues our trace.
 * Each server has its own trace, keyed `mcp:<server id>`, rooted in a span that lives as long as the
 * server runs; that root is also the `TRACEPARENT` a stdio server we launch is given. No `vscode`.
 * Spec: PROTOCOLS.md §5.2–5.3 (MCP spans, `_meta.traceparent`).
 */
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { GEN_AI, MCP, SWITCHBOARD } from './semconv';
import { traceContextOf, under, type Tracing } from './tracing';
import { sandboxAttributes } from './sandboxSpans';
import type { SandboxProfile } from '../sandbox/profile';

/** One traced MCP request: the `_meta` entries to send, and the function that ends its span. */
export interface McpCallTrace {
  meta: { traceparent: string; tracestate?: string };
  end(error?: string): void;
}

/** What a connection asks of tracing; absent means untraced. */
export interface McpTracer {
  /** A span for the server's life (started when it starts); @returns its W3C context for `TRACEPARENT`. */
  serverStarted(serverId: string, serverName: string): { traceparent: string };
  serverStopped(serverId: string, error?: string): void;
  /** A stdio server's process is about to start: in the sandbox `profile`, or unsandboxed (`undefined`). */
  serverLaunched?(serverId: string, profile: SandboxProfile | undefined): void;
  /** Starts the span of one request, e.g. `('tools/call', 'add')`. */
  call(serverId: string, method: string, target: string, protocolVersion?: string): McpCallTrace;
}

/** The trace key of a server's own trace in the store. */
export function mcpTraceKey(serverId: string): string {
  return `mcp:${serverId}`;
}

/** MCP request spans written through `tracing`. */
export class McpSpans implements McpTracer {
  private readonly servers = new Map<string, { span: Span; name: string }>();

  constructor(private readonly tracing: Tracing) {}

  serverStarted(serverId: string, serverName: string): { traceparent: string } {
    this.serverStopped(serverId);
    const span = this.tracing.tracer.startSpan(`mcp server ${serverName}`, { kind: SpanKind.INTERNAL, attributes: { [SWITCHBOARD.spanKind]: 'mcp', 'server.address': serverName } });
    this.tracing.store.claim(mcpTraceKey(serverId), span.spanContext().traceId);
    this.servers.set(serverId, { span, name: serverName });
    return { traceparent: traceContextOf(span).traceparent };
  }

  serverLaunched(serverId: string, profile: SandboxProfile | undefined): void {
    const s = this.servers.get(serverId);
    if (!s) return;
    s.span.setAttributes(sandboxAttributes(profile));
    this.tracing.touch(s.span);
  }

  serverStopped(serverId: string, error?: string): void {
    const s = this.servers.get(serverId);
    if (!s) return;
    if (error) s.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    s.span.end();
    this.servers.delete(serverId);
  }

  call(serverId: string, method: string, target: string, protocolVersion?: string): McpCallTrace {
    let server = this.servers.get(serverId);
    // Connections open the server's span when they start; a tracer used on its own opens one here.
    if (!server) {
      this.serverStarted(serverId, serverId);
      server = this.servers.get(serverId)!;
    }
    const span = this.tracing.tracer.startSpan(
      `${method} ${target}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [SWITCHBOARD.spanKind]: 'mcp',
          [MCP.methodName]: method,
          'server.address': server.name,
          ...(method === 'tools/call' ? { [GEN_AI.toolName]: target, [GEN_AI.operationName]: 'execute_tool' } : {}),
          ...(method === 'resources/read' ? { [MCP.resourceUri]: target } : {}),
          ...(protocolVersion ? { [MCP.protocolVersion]: protocolVersion } : {}),
        },
      },
      under(server.span),
    );
    return {
      meta: traceContextOf(span),
      end: (error) => {
        if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        span.end();
      },
    };
  }

  dispose(): void {
    for (const id of [...this.servers.keys()]) this.serverStopped(id);
  }
}

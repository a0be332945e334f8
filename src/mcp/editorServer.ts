/**
 * The editor's own MCP server: tools backed by the language features the person already runs
 * (diagnostics, definition, references, document and workspace symbols, hover, open documents with
 * their versions, the selection), so agents can ask the editor instead of grepping. Served over
 * Streamable HTTP on 127.0.0.1 at a random port, both MCP eras (`createMcpHandler`, stateless
 * legacy fallback); every request needs a bearer token issued to one session, checked in constant
 * time, and Host/Origin must be loopback (DNS-rebinding protection).
 *
 * No `vscode`: the language features arrive through {@link EditorLanguagePort}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/server';
import { mcpSdk } from './sdk';
import * as z from 'zod';

/** A place in a file: absolute path, 1-based line and column. */
export interface EditorLocation {
  path: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
}

/** The editor's language features, as the tools need them. Paths are absolute or workspace-relative. */
export interface EditorLanguagePort {
  diagnostics(path?: string): Promise<{ path: string; line: number; column: number; severity: string; message: string; source?: string; code?: string }[]>;
  definition(path: string, line: number, column: number): Promise<EditorLocation[]>;
  references(path: string, line: number, column: number): Promise<EditorLocation[]>;
  documentSymbols(path: string): Promise<{ name: string; kind: string; line: number; column: number; container?: string }[]>;
  workspaceSymbols(query: string): Promise<{ name: string; kind: string; location: EditorLocation; container?: string }[]>;
  hover(path: string, line: number, column: number): Promise<string[]>;
  openDocuments(): Promise<{ path: string; version: number; dirty: boolean; languageId: string }[]>;
  selection(): Promise<{ path: string; version: number; start: { line: number; column: number }; end: { line: number; column: number }; text: string } | null>;
}

/** Who called a tool, for the audit: the session the token was issued to. */
export type ToolCallRecorder = (
  sessionKey: string,
  tool: string,
  args: Record<string, unknown>,
  outcome: string,
  /** When the call ran (ms since the epoch) and the caller's W3C trace context from `_meta`, if any. */
  call?: { startMs: number; endMs: number; traceparent?: string },
) => void;

/**
 * Remote (A2A) agents the person added, offered to the session's agent: it may list them and ask
 * to delegate to one; every delegation is put to the person first (the port does that).
 */
export interface RemoteAgentsPort {
  /** The agents with their skills and whether their card is verified. */
  list(): Promise<unknown>;
  /**
   * Delegates `message` to the agent `agentId` for the session, or replies on its task `taskId`.
   * @returns the task as the agent left it (state, status message, artifacts).
   * @throws Error when the person refuses or the agent cannot be reached.
   */
  delegate(sessionKey: string, args: { agentId: string; message: string; taskId?: string }, signal: AbortSignal): Promise<unknown>;
}

const Position = { path: z.string().min(1).describe('File path, absolute or relative to the workspace folder'), line: z.number().int().min(1).describe('1-based line'), column: z.number().int().min(1).describe('1-based column') };

/** The MCP server instance for one request, with the editor tools (read-only). */
export function buildEditorServer(port: EditorLanguagePort, sessionKey: string, record: ToolCallRecorder, version: string, remote?: RemoteAgentsPort): McpServer {
  const server = new (mcpSdk().McpServer)({ name: 'agent-switchboard-editor', title: 'Editor (Agent Switchboard)', version }, { capabilities: { tools: {} } });
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  const tool = <S extends z.ZodRawShape>(name: string, description: string, shape: S, run: (args: z.infer<z.ZodObject<S>>, signal: AbortSignal) => Promise<unknown>, annotations: Record<string, boolean> = readOnly) =>
    server.registerTool(name, { description, inputSchema: z.object(shape), annotations }, async (args: z.infer<z.ZodObject<S>>, ctx) => {
      const startMs = Date.now();
      const tp = (ctx?.mcpReq?._meta as { traceparent?: unknown } | undefined)?.traceparent;
      const call = () => ({ startMs, endMs: Date.now(), ...(typeof tp === 'string' ? { traceparent: tp } : {}) });
      try {
        const value = await run(args, ctx?.mcpReq?.signal ?? new AbortController().signal);
        record(sessionKey, name, args as Record<string, unknown>, 'ok', call());
        return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], structuredContent: { result: value } };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        record(sessionKey, name, args as Record<string, unknown>, message, call());
        return { content: [{ type: 'text' as const, text: message }], isError: true };
      }
    });
  tool('diagnostics', "The editor's problems (errors, warnings) for one file, or for every file when no path is given — what the person's language servers report right now, unsaved changes included.", { path: z.string().optional().describe('File path; omit for all files') }, (a) => port.diagnostics(a.path));
  tool('definition', 'Where the symbol at a position is defined, from the language server.', Position, (a) => port.definition(a.path, a.line, a.column));
  tool('references', 'Every reference to the symbol at a position, from the language server.', Position, (a) => port.references(a.path, a.line, a.column));
  tool('document_symbols', 'The symbols (classes, functions, variables…) declared in a file.', { path: Position.path }, (a) => port.documentSymbols(a.path));
  tool('workspace_symbols', 'Symbols in the whole workspace whose name matches a query.', { query: z.string().describe('Part of a symbol name') }, (a) => port.workspaceSymbols(a.query));
  tool('hover', 'The hover information (types, documentation) at a position.', Position, (a) => port.hover(a.path, a.line, a.column));
  tool('open_documents', 'The documents open in the editor, with their version and whether they have unsaved changes.', {}, () => port.openDocuments());
  tool('selection', "The person's current selection in the active editor (file, version, range, text), or null.", {}, () => port.selection());
  if (remote) {
    tool('remote_agents', 'The remote (A2A) agents the person added to the editor: id, name, version, skills, and whether their card is verified.', {}, () => remote.list());
    tool(
      'delegate_to_remote_agent',
      'Hands a task to one of the remote agents (A2A). The person is asked to approve each delegation first. Give taskId to reply to a task that waits for input. Returns the task: its state, status message and artifacts.',
      { agentId: z.string().min(1).describe('The id from remote_agents'), message: z.string().min(1).max(100_000).describe('Exactly what the remote agent receives'), taskId: z.string().optional().describe('A taskId returned earlier, to reply to a task that waits for input') },
      (a, signal) => remote.delegate(sessionKey, a, signal),
      { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    );
  }
  return server;
}

/** A running editor MCP server. */
export class EditorMcpServer {
  private server: Server | undefined;
  private readonly tokens = new Map<string, string>();
  private url: string | undefined;

  constructor(
    private readonly port: EditorLanguagePort,
    private readonly record: ToolCallRecorder,
    private readonly version: string,
    private readonly remote?: RemoteAgentsPort,
  ) {}

  /**
   * Listens on 127.0.0.1 at a random port.
   * @returns the endpoint URL (`http://127.0.0.1:<port>/mcp`).
   */
  async start(): Promise<string> {
    if (this.url) return this.url;
    const { localhostHostValidation, localhostOriginValidation, toNodeHandler } = mcpSdk();
    const { createMcpHandler } = mcpSdk();
    const checkHost = localhostHostValidation();
    const checkOrigin = localhostOriginValidation();
    const handle = (sessionKey: string) => toNodeHandler(createMcpHandler(() => buildEditorServer(this.port, sessionKey, this.record, this.version, this.remote), { legacy: 'stateless' }));
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!checkHost(req, res) || !checkOrigin(req, res)) return;
      const sessionKey = this.sessionOf(req.headers.authorization);
      if (!sessionKey) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'a valid bearer token is required' }));
        return;
      }
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      void handle(sessionKey)(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('The editor MCP server did not get a port.');
    this.url = `http://127.0.0.1:${address.port}/mcp`;
    return this.url;
  }

  /** A bearer token for one session (the same token while the session lives). */
  tokenFor(sessionKey: string): string {
    for (const [token, key] of this.tokens) if (key === sessionKey) return token;
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, sessionKey);
    return token;
  }

  /** Revokes a session's token (the session ended). */
  revoke(sessionKey: string): void {
    for (const [token, key] of this.tokens) if (key === sessionKey) this.tokens.delete(token);
  }

  private sessionOf(header: string | undefined): string | undefined {
    const m = /^Bearer (\S+)$/.exec(header ?? '');
    if (!m) return undefined;
    const given = Buffer.from(m[1]);
    for (const [token, key] of this.tokens) {
      const t = Buffer.from(token);
      if (t.length === given.length && timingSafeEqual(t, given)) return key;
    }
    return undefined;
  }

  async dispose(): Promise<void> {
    this.tokens.clear();
    const s = this.server;
    this.server = undefined;
    this.url = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

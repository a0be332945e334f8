/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26, SEP-1865), the parts that need
 * no editor: which tools have a view and who may call them, reading the view's `ui://` resource,
 * and the Content Security Policies it runs under. The view itself runs in a sandboxed iframe
 * (opaque origin, `allow-scripts` only) inside a webview (src/views/mcpApp.ts).
 *
 * CSP: the view's own policy is built from the resource's `_meta.ui.csp` exactly as the spec says
 * (defaults when absent, `object-src 'none'` always, never a domain that was not declared). The
 * iframe also inherits the webview's policy, so the webview allows the same declared domains and
 * nothing else, and runs scripts only with its per-load nonce, which the host adds to the view's
 * own `<script>` elements. Domains that are not plain origins are dropped (a `;` or a quote in a
 * declared domain must not write a directive of its own). No `vscode`. Spec: PROTOCOLS.md §3.
 */
import type { AppBridge, McpUiResourceCsp, McpUiResourceMeta } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult, JSONRPCMessage, Resource, Tool, Transport } from '@modelcontextprotocol/client';
import { mcpApps, mcpSdk } from './sdk';

/**
 * The MIME type of an MCP App's view (MCP Apps, `RESOURCE_MIME_TYPE` of `@modelcontextprotocol/ext-apps`;
 * a unit test keeps the two equal). Ours so that naming it does not load the Apps SDK.
 */
export const RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';

/** The `ui://` resource of a tool's view, or undefined; a malformed URI is reported, not thrown. */
export function appResourceOf(tool: Tool): { uri?: string; problem?: string } {
  // A tool without either key names no view (the SDK says so too): the tools tree stays cheap,
  // without loading the Apps SDK for every server's list (see ./sdk.ts).
  const meta = tool._meta as Record<string, unknown> | undefined;
  if ((meta?.ui as { resourceUri?: unknown } | undefined)?.resourceUri === undefined && meta?.['ui/resourceUri'] === undefined) return {};
  try {
    const uri = mcpApps().getToolUiResourceUri(tool);
    return uri ? { uri } : {};
  } catch (err) {
    return { problem: `The tool "${tool.name}" names a view that is not a ui:// resource: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function visibility(tool: Tool): string[] {
  const v = (tool._meta as { ui?: { visibility?: unknown } } | undefined)?.ui?.visibility;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : ['model', 'app'];
}

/** A tool a view may call: it belongs to the view's server and its visibility includes "app". */
export function callableFromApp(tool: Tool | undefined): boolean {
  return !!tool && visibility(tool).includes('app');
}

/** A tool meant for agents (visibility includes "model"); app-only tools are not. */
export function visibleToModel(tool: Tool): boolean {
  return visibility(tool).includes('model');
}

/** A view's HTML and what it asks of its host. */
export interface AppResource {
  uri: string;
  html: string;
  csp?: McpUiResourceCsp;
  permissions?: McpUiResourceMeta['permissions'];
  prefersBorder?: boolean;
}

/** What `resources/read` returns, reduced to what a view needs. */
export interface ReadResult {
  contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> }>;
}

/**
 * The view's HTML from a `resources/read` result. Each of `_meta.ui`'s `csp`, `permissions` and
 * `prefersBorder` is taken from the content that was read, else from the `resources/list` entry
 * (the spec's fallback); a view that is not listed at all (a template's, or one the server does
 * not list) still gets the policy its content declares.
 * @throws Error when the resource holds no `text/html;profile=mcp-app` content.
 */
export function appResourceFrom(uri: string, read: ReadResult, listed?: Resource): AppResource {
  const c = read.contents.find((x) => x.mimeType === RESOURCE_MIME_TYPE) ?? read.contents[0];
  if (!c || c.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`The view ${uri} is not an MCP App (its type is ${c?.mimeType ?? 'missing'}, expected ${RESOURCE_MIME_TYPE}).`);
  const html = c.text ?? (c.blob !== undefined ? Buffer.from(c.blob, 'base64').toString('utf8') : undefined);
  if (html === undefined) throw new Error(`The view ${uri} has no content.`);
  type Ui = McpUiResourceMeta & { prefersBorder?: boolean };
  const own = ((c._meta as { ui?: Ui } | undefined)?.ui ?? {}) as Ui;
  const list = ((listed?._meta as { ui?: Ui } | undefined)?.ui ?? {}) as Ui;
  return { uri, html, csp: own.csp ?? list.csp, permissions: own.permissions ?? list.permissions, prefersBorder: own.prefersBorder ?? list.prefersBorder };
}

/** What a view is opened for, and how the editor looks (its host context). */
export interface AppOpening {
  toolName: string;
  /** The tool as the server listed it, when it did. */
  tool: Tool | undefined;
  args: Record<string, unknown>;
  result: CallToolResult;
  hostVersion: string;
  look: { theme: 'light' | 'dark'; styles: Record<string, string>; locale: string };
  onError: (message: string) => void;
}

/**
 * The MCP Apps host for one view (`AppBridge`), before its handlers are set. The host context
 * (tool, theme, styles, locale) goes to the view only in the answer to its `ui/initialize`, and
 * the tool's input and result only after its `ui/notifications/initialized`: nothing reaches a
 * view before it has said who it is. Spec: MCP Apps 2026-01-26 §Lifecycle.
 */
export function createAppBridge(o: AppOpening): AppBridge {
  const bridge = new (mcpApps().AppBridge)(
    null,
    { name: 'agent-switchboard', version: o.hostVersion },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        toolInfo: { tool: o.tool ?? { name: o.toolName, inputSchema: { type: 'object' } } },
        theme: o.look.theme,
        styles: { variables: o.look.styles as never },
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        locale: o.look.locale,
        platform: 'desktop',
      },
    },
  );
  bridge.oninitialized = () => {
    void bridge
      .sendToolInput({ arguments: o.args })
      .then(() => bridge.sendToolResult(o.result as never))
      .catch((err: unknown) => o.onError(err instanceof Error ? err.message : String(err)));
  };
  return bridge;
}

/** Only plain origins (scheme://host[:port], `*.` subdomains) survive; anything else could inject CSP. */
export function cleanDomains(list: readonly unknown[] | undefined): string[] {
  return (list ?? []).filter((d): d is string => typeof d === 'string' && /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/.test(d));
}

/** The view's own policy (spec §CSP): defaults without `csp`, only declared domains with it. */
export function appCsp(csp: McpUiResourceCsp | undefined): string {
  if (!csp) return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'";
  const res = cleanDomains(csp.resourceDomains).join(' ');
  const connect = cleanDomains(csp.connectDomains).join(' ') || "'none'";
  const frames = cleanDomains(csp.frameDomains).join(' ') || "'none'";
  const base = cleanDomains(csp.baseUriDomains).join(' ') || "'self'";
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`.trim(),
    `style-src 'self' 'unsafe-inline' ${res}`.trim(),
    `img-src 'self' data: ${res}`.trim(),
    `font-src 'self' ${res}`.trim(),
    `media-src 'self' data: ${res}`.trim(),
    `connect-src ${connect}`,
    `frame-src ${frames}`,
    `base-uri ${base}`,
    "object-src 'none'",
  ].join('; ');
}

/**
 * The webview's policy around a view: its own relay script (from `cspSource`, with the nonce), the
 * view's scripts with the same nonce, and the view's declared domains; nothing else.
 */
export function hostCsp(nonce: string, cspSource: string, csp: McpUiResourceCsp | undefined): string {
  const res = cleanDomains(csp?.resourceDomains).join(' ');
  const connect = cleanDomains(csp?.connectDomains).join(' ') || "'none'";
  const frames = cleanDomains(csp?.frameDomains).join(' ');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${res}`.trim(),
    `style-src ${cspSource} 'unsafe-inline' ${res}`.trim(),
    `img-src ${cspSource} data: ${res}`.trim(),
    `font-src ${cspSource} ${res}`.trim(),
    `media-src data: ${res}`.trim(),
    `connect-src ${connect}`,
    `frame-src ${frames || "'none'"}`,
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * The view's HTML as the iframe loads it: its policy as the first element of `<head>` and the
 * nonce on each of its `<script>` elements (inline or from a declared domain).
 */
export function prepareAppHtml(html: string, nonce: string, csp: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp.replace(/"/g, '&quot;')}">`;
  const withNonce = html.replace(/<script\b(?![^>]*\bnonce=)/gi, `<script nonce="${nonce}"`);
  if (/<head[^>]*>/i.test(withNonce)) return withNonce.replace(/<head[^>]*>/i, (h) => `${h}${meta}`);
  if (/<html[^>]*>/i.test(withNonce)) return withNonce.replace(/<html[^>]*>/i, (h) => `${h}<head>${meta}</head>`);
  return `<!doctype html><html><head>${meta}</head><body>${withNonce}</body></html>`;
}

/**
 * An MCP `Transport` whose other end is a view behind a relay (a webview's `postMessage`): what the
 * host sends goes to `post`; what arrives is handed to {@link ViewTransport.receive}, which accepts
 * only JSON-RPC messages (anything else is reported through `onerror` and dropped).
 */
export class ViewTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(private readonly post: (message: JSONRPCMessage) => void) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('The view is closed.');
    this.post(message);
  }

  /** A message from the view. */
  receive(raw: unknown): void {
    if (this.closed) return;
    let message: JSONRPCMessage;
    try {
      message = mcpSdk().parseJSONRPCMessage(raw);
    } catch (err) {
      this.onerror?.(new Error(`The view sent something that is not JSON-RPC: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

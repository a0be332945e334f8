/**
 * Typed messages between an MCP App panel's relay page and the extension. The relay holds the view
 * in a sandboxed iframe and passes JSON-RPC both ways; it holds no authority. The webview imports
 * this file with `import type` only.
 */

/** Extension → relay. */
export type AppHostMessage =
  /** Load the view: its HTML (policy and nonces already in place) and the iframe's `allow`. */
  | { type: 'load'; html: string; allow: string; border: boolean; title: string }
  /** A JSON-RPC message for the view. */
  | { type: 'app'; message: unknown }
  /** The view is gone (torn down or the server stopped): say so in place of it. */
  | { type: 'ended'; reason: string };

/** Relay → extension. */
export type AppRelayMessage =
  /** The relay is up; the editor's theme as the view's standard style variables (MCP Apps `hostContext.styles`). */
  | { type: 'ready'; theme: 'light' | 'dark'; styles: Record<string, string> }
  /** A JSON-RPC message from the view. */
  | { type: 'app'; message: unknown };

/**
 * Typed messages between the protocol inspector (a webview listing one agent connection's JSON-RPC
 * messages) and the extension: a snapshot when the page is ready, then the entries added since, at
 * most every 100 ms. Each entry carries its message as pretty JSON already cut to a size the page
 * can hold. The webview imports this file with `import type` only.
 */

import type { EntrySummary } from '../../acp/inspector';

/** One message as the page shows it: its summary, a word more, and the message as JSON. */
export interface InspectorEntry extends EntrySummary {
  /** A word more: a session update's kind, an error's message. */
  detail?: string;
  /** The message as pretty JSON (cut past 64 KB, with a note). */
  json: string;
}

import type { CapabilityRow } from '../../acp/capabilities';

export type { CapabilityRow };

/** Extension → webview. `capabilities`: the agent's matrix as of these messages. */
export type InspectorHostMessage =
  | { type: 'snapshot'; title: string; agent: string; entries: InspectorEntry[]; dropped: number; capabilities: CapabilityRow[] }
  | { type: 'entries'; entries: InspectorEntry[]; dropped: number; capabilities: CapabilityRow[] };

/** Webview → extension. */
export type InspectorWebviewMessage =
  | { type: 'ready' }
  /** Export the log as JSON Lines, redacted; file contents only when asked. */
  | { type: 'export'; fileContents: boolean };

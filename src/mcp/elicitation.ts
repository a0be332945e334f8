/**
 * Form-mode elicitation (MCP `elicitation/create`, 2025-06-18 and later; in the 2026-07-28 era the
 * same request arrives as an `input_required` result, which the SDK fulfils through the same
 * handler): a server asks the person for a few values described by a flat JSON Schema of
 * primitives. The SDK validates the request and applies the schema's defaults to omitted fields
 * (SEP-1034, `elicitation.form.applyDefaults`); this module checks what the person accepted against
 * the requested schema before it leaves, so a server never receives values its schema refuses.
 * URL mode is not offered: an MCP server must not send the person's browser to an arbitrary page
 * through us. The checks themselves are shared with ACP agents' elicitation (`src/elicitation/`).
 * No `vscode`.
 */
import type { ElicitationValue } from '../elicitation/schema';

/** What a server asked for, as the person sees it. */
export interface ElicitationRequest {
  /** The server's definition id and display name. */
  serverId: string;
  serverName: string;
  /** The server's sentence explaining what it needs. */
  message: string;
  /** A JSON Schema object whose properties are primitives (string, number, integer, boolean, enums). */
  requestedSchema: Record<string, unknown>;
}

/** The person's answer (MCP `ElicitResult` without `_meta`). */
export type ElicitationAnswer = { action: 'accept'; content: Record<string, ElicitationValue> } | { action: 'decline' } | { action: 'cancel' };

/** Asks the person; aborting `signal` (the server cancelled, or the server stopped) closes the question as cancelled. */
export type Elicitor = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** The shared checks (`src/elicitation/schema.ts`), kept importable from here. */
export { checkedSchema, elicitationProblems, withDefaults } from '../elicitation/schema';

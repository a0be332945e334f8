/**
 * Typed messages between the Run Tool panel (a webview with a form generated from the tool's input
 * schema) and the extension. The webview imports this file with `import type` only.
 */

/** The tool as the form needs it. */
export interface ToolForm {
  server: string;
  name: string;
  title?: string;
  description?: string;
  /** The tool's JSON Schema for its arguments (`inputSchema`). */
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

/** One content block of a result, reduced to what the panel shows. */
export type ResultBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'link'; uri: string; name: string }
  | { type: 'json'; label: string; value: string };

/** A server's form-mode elicitation, as the panel shows it. */
export interface ElicitationForm {
  server: string;
  message: string;
  /** The requested schema: an object of primitive properties. */
  requestedSchema: unknown;
}

/** Extension → webview. */
export type ToolRunHostMessage =
  | { type: 'tool'; tool: ToolForm }
  | { type: 'elicit'; request: ElicitationForm }
  /** The question is over without an answer from this panel (the server cancelled or stopped). */
  | { type: 'withdrawn'; message: string }
  /** The answer was refused on the extension side (it did not match the schema). */
  | { type: 'problems'; problems: string[] }
  | { type: 'running' }
  /** The call runs as a task on the server (MCP Tasks extension): its latest status. */
  | { type: 'task'; taskId: string; status: string; statusMessage?: string }
  | { type: 'result'; isError: boolean; blocks: ResultBlock[] }
  | { type: 'failed'; message: string };

/** Webview → extension. */
export type ToolRunWebviewMessage =
  | { type: 'ready' }
  | { type: 'run'; args: Record<string, unknown> }
  | { type: 'cancel' }
  | { type: 'answer'; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/**
 * What the person approves when a workspace brings an MCP server, and what that approval binds:
 * the definition's hash (as written, before variables resolve), the plain-text question that shows
 * every value and every variable it pulls in, and the SecretStorage key of each `${input:…}` value,
 * which belongs to one workspace, one server and one definition. Pure: no `vscode`.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describeDefinition, describeVariables, type McpInputSpec, type McpServerDefinition } from './config';

/**
 * SHA-256 (hex) of a definition as written (before inputs are resolved): what the person approved.
 * Covers the name and the whole transport (command, args, env with removals, cwd; url, headers, OAuth).
 */
export function definitionHash(d: McpServerDefinition): string {
  return createHash('sha256').update(canonicalize({ name: d.name, transport: d.transport }) ?? '').digest('hex');
}

/**
 * The question put to the person before a workspace-defined server may start, as plain text (no
 * markup; the caller neutralises it for the surface that shows it): where it comes from, every
 * value as written, every variable those values pull in, and that a change needs approval again.
 * @param inputs the inputs declared beside the definition, for their descriptions.
 */
export function approvalText(d: McpServerDefinition, inputs: readonly McpInputSpec[] = []): string {
  return `Start the MCP server "${d.name}" from ${d.file ?? 'the workspace'}? It ${describeDefinition(d)}. ${describeVariables(d, inputs)} Any later change to it needs your approval again.`;
}

/**
 * The same question split for a modal dialog, whose detail is shown whole: the question names the
 * server and its file; the detail puts every variable the values pull in (where secrets go) and
 * the warnings FIRST, then every value as written, so that a long URL or argument list cannot push
 * them out of sight. Plain text; the caller neutralises it.
 */
export function approvalDialog(d: McpServerDefinition, inputs: readonly McpInputSpec[] = []): { question: string; detail: string } {
  return {
    question: `Start the MCP server "${d.name}" from ${d.file ?? 'the workspace'}?`,
    detail: `${describeVariables(d, inputs)}\n\nIt ${describeDefinition(d)}.\n\nAny later change to it needs your approval again.`,
  };
}

/** Where a definition's inputs are kept: the person's own settings, or one workspace. */
export type InputScope = { kind: 'user' } | { kind: 'workspace'; identity: string };

/**
 * The SecretStorage key of one `${input:id}` value: a hash of the scope (the workspace's identity,
 * unless the server comes from the person's user settings), the server's id and file, its
 * {@link definitionHash} and the input id. Another workspace, another server or a changed definition
 * naming the same id gets another key, so it never receives this value. (Keys of the first format,
 * `mcp.input.<id>`, are not read: those values are asked for again.)
 */
export function inputSecretKey(scope: InputScope, d: McpServerDefinition, inputId: string): string {
  const material = canonicalize({ scope, server: d.id, file: d.file ?? null, definition: definitionHash(d), input: inputId }) ?? '';
  return `mcp.input.v2.${createHash('sha256').update(material).digest('hex')}`;
}

/**
 * What the person approves when a workspace brings an MCP server, and what that approval binds:
 * the definition's hash (as written, before variables resolve) and, for a stdio server, the sandbox
 * it will run in (what its profile lets it reach: a changed profile asks again), the plain-text question that
 * shows every value, every variable it pulls in and the sandbox profile in words, and the
 * SecretStorage key of each `${input:…}` value, which belongs to one workspace, one server and one
 * definition. Pure: no `vscode`.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describeDefinition, describeVariables, type McpInputSpec, type McpServerDefinition } from './config';
import { describeProfile, type SandboxProfile } from '../sandbox/profile';
import { reachHash } from '../sandbox/reach';

/**
 * How a stdio server will run, as part of what is approved: not sandboxed; in a profile; sandboxed
 * with a profile not known yet (its folder takes an input not given yet); or to run sandboxed where
 * the sandbox cannot run (it does not start). HTTP servers run nothing here: always `none`.
 */
export type McpSandbox =
  | { kind: 'none' }
  | { kind: 'profile'; profile: SandboxProfile }
  | { kind: 'pending'; why: string }
  | { kind: 'unavailable'; reason: string };

const NONE: McpSandbox = { kind: 'none' };

/**
 * What an approval stores and is checked against: the {@link definitionHash} alone for a server
 * that runs unsandboxed (approvals made before the sandbox was part of them stay valid for those),
 * else that hash and the sandbox's — the hash of what the profile lets it reach ({@link reachHash}:
 * write roots, read denials, hosts), or the word for a profile not known or not available —, so that
 * any change of either asks again.
 */
export function approvalHash(d: McpServerDefinition, sandbox: McpSandbox = NONE): string {
  const def = definitionHash(d);
  if (sandbox.kind === 'none') return def;
  return `${def}+sandbox:${sandbox.kind === 'profile' ? reachHash(sandbox.profile) : sandbox.kind}`;
}

/** Where an approval stands: `approved`, never given (`new`), given to another definition (`changed`), or to this definition in another sandbox (`sandbox-changed`). */
export type ApprovalStanding = 'approved' | 'new' | 'changed' | 'sandbox-changed';

/** The standing of the `stored` approval ({@link approvalHash}) for `d` running in `sandbox`. */
export function approvalStanding(stored: string | undefined, d: McpServerDefinition, sandbox: McpSandbox = NONE): ApprovalStanding {
  if (!stored) return 'new';
  if (stored === approvalHash(d, sandbox)) return 'approved';
  return approvesDefinition(stored, d) ? 'sandbox-changed' : 'changed';
}

/** Whether `stored` was given to this definition as it is now, whatever sandbox it was given for. */
export function approvesDefinition(stored: string | undefined, d: McpServerDefinition): boolean {
  const def = definitionHash(d);
  return stored === def || (stored?.startsWith(`${def}+sandbox:`) ?? false);
}

/** How the server will run, in words (plain text): its sandbox profile whole, or that it is not sandboxed, or why it cannot start. Empty for an HTTP server. */
export function describeMcpSandbox(d: McpServerDefinition, sandbox: McpSandbox = NONE, home?: string): string {
  if (d.transport.type !== 'stdio') return '';
  switch (sandbox.kind) {
    case 'none':
      return 'It runs unsandboxed: it can read, write and reach what you can.';
    case 'profile':
      return `It runs in the sandbox. ${describeProfile(sandbox.profile, home)} This approval covers where it may write, what it may not read and the hosts it may reach: a change of any asks again.`;
    case 'pending':
      return `It runs in the sandbox, in a profile not known yet (${sandbox.why}): you are asked again with it before it starts.`;
    case 'unavailable':
      return `It is to run in the sandbox, and the sandbox is not available (${sandbox.reason}): it does not start until it is, and you are asked again with its profile then.`;
  }
}

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
export function approvalText(d: McpServerDefinition, inputs: readonly McpInputSpec[] = [], sandbox: McpSandbox = NONE, home?: string): string {
  const boxed = describeMcpSandbox(d, sandbox, home);
  return `Start the MCP server "${d.name}" from ${d.file ?? 'the workspace'}? It ${describeDefinition(d)}. ${describeVariables(d, inputs)}${boxed ? ` ${boxed}` : ''} ${AGAIN}`;
}

const AGAIN = 'Any later change to it, or to the sandbox it runs in, needs your approval again.';

/**
 * The same question split for a modal dialog, whose detail is shown whole: the question names the
 * server and its file; the detail puts every variable the values pull in (where secrets go) and
 * how it runs (its sandbox profile in words, or that it is not sandboxed) FIRST, then every value as
 * written, so that a long URL or argument list cannot push them out of sight. Plain text; the
 * caller neutralises it.
 */
export function approvalDialog(d: McpServerDefinition, inputs: readonly McpInputSpec[] = [], sandbox: McpSandbox = NONE, home?: string): { question: string; detail: string } {
  const boxed = describeMcpSandbox(d, sandbox, home);
  return {
    question: `Start the MCP server "${d.name}" from ${d.file ?? 'the workspace'}?`,
    detail: `${describeVariables(d, inputs)}${boxed ? `\n\n${boxed}` : ''}\n\nIt ${describeDefinition(d)}.\n\n${AGAIN}`,
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

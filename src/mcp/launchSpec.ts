/**
 * The launch spec of a forwarded stdio MCP server: what `dist/mcp-launch.js` (src/mcp/launch.ts)
 * starts when an agent runs it, so that the agent starts the server exactly as the person approved
 * it — in the approved folder, without the variables the definition removes (`"env": {"X": null}`),
 * which ACP's `McpServerStdio` cannot express (it has neither `cwd` nor removals). The approved
 * variables that are set travel as the forwarded server's own `env` entries. Pure.
 */
import * as z from 'zod';

/** The environment variable that makes the editor's runtime (Electron) run as plain Node. */
export const RUN_AS_NODE = 'ELECTRON_RUN_AS_NODE';

/** What the launcher starts. */
export const LaunchSpec = z.object({
  /** The approved command, resolved; run without a shell. */
  command: z.string().min(1),
  args: z.array(z.string()),
  /** The approved working folder; without it, the folder the agent started the launcher in. */
  cwd: z.string().min(1).optional(),
  /** Variables the definition removes, plus the launcher's own when the definition does not set it. */
  unset: z.array(z.string()),
});
export type LaunchSpec = z.infer<typeof LaunchSpec>;

/**
 * Parses the launcher's one argument (JSON).
 * @throws Error saying what is wrong, for the launcher's stderr.
 */
export function parseLaunchSpec(arg: string | undefined): LaunchSpec {
  if (!arg) throw new Error('mcp-launch: missing the launch spec argument (Agent Switchboard passes it when it gives a server to an agent).');
  let raw: unknown;
  try {
    raw = JSON.parse(arg);
  } catch {
    throw new Error('mcp-launch: the launch spec is not JSON.');
  }
  const r = LaunchSpec.safeParse(raw);
  if (!r.success) throw new Error(`mcp-launch: the launch spec is malformed: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

/** The server's environment: the agent's (with the forwarded entries) without the removed variables. */
export function launchEnv(env: NodeJS.ProcessEnv, spec: LaunchSpec): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of spec.unset) delete out[k];
  return out;
}

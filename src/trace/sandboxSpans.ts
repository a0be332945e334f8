/**
 * The sandbox a process we started ran in, as span attributes (see `semconv.ts`): on the effect
 * span of an agent's command and on the span of a stdio MCP server's life, so a trace says which
 * processes were confined, in which profile, and what the overlay held back. No `vscode`.
 */
import type { Attributes } from '@opentelemetry/api';
import { profileHash, type SandboxProfile } from '../sandbox/profile';
import { SWITCHBOARD } from './semconv';

/**
 * The attributes of a process that ran in `profile`, or ran unsandboxed (`undefined`): whether it
 * was sandboxed, the profile's hash (what its approval covered), the hosts it may reach and whether
 * its folders were seen through the overlay that holds back files that run.
 */
export function sandboxAttributes(profile: SandboxProfile | undefined): Attributes {
  if (!profile) return { [SWITCHBOARD.sandboxed]: false };
  return {
    [SWITCHBOARD.sandboxed]: true,
    [SWITCHBOARD.sandboxProfileHash]: profileHash(profile),
    [SWITCHBOARD.sandboxAllowedHosts]: [...profile.allowedHosts],
    [SWITCHBOARD.sandboxOverlay]: profile.holdsBackRunnable === true,
  };
}

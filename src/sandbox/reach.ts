/**
 * What a sandbox profile lets a process reach: where it may write, what it may not read, which hosts
 * it may connect to. The part of a profile that an approval of a long-running process (a sandboxed
 * MCP server) binds. The names kept read-only inside the write roots (`denyWrite`) are not part of
 * it: they follow from the write roots by one fixed rule (`protectedInRoot`), listed from what exists
 * when the process starts — the empty placeholders the sandbox mounts over absent names while any
 * sandboxed process runs included —, so their list changes under a running server without anything
 * it may reach changing. Pure.
 */
import { profileHash, type SandboxProfile } from './profile';

/** SHA-256 (hex) of the profile's write roots, read denials and hosts (see the module comment). */
export function reachHash(profile: SandboxProfile): string {
  return profileHash({ writeRoots: profile.writeRoots, denyRead: profile.denyRead, allowedHosts: profile.allowedHosts });
}

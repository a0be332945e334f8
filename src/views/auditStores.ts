/**
 * Where the audit log keeps what must not live in its own file (thin vscode adapter): the head (last
 * sequence number and hash) in the workspace's state, or the profile's without a workspace, and the
 * signing key in SecretStorage (the operating system's keychain on the desktop). The key is one per
 * profile: a workspace's log is verified with the key of the person who wrote it.
 */
import type * as vscode from 'vscode';
import type { AuditHeadStore } from '../policy/audit';
import type { AuditKeyStore } from '../policy/auditKey';

const HEAD = 'agentSwitchboard.auditHead';
const KEY = 'agentSwitchboard.auditKey';

/** The head store and the key store of the audit log of `context`'s workspace. */
export function auditStores(context: vscode.ExtensionContext): { head: AuditHeadStore; keys: AuditKeyStore } {
  const state = context.storageUri ? context.workspaceState : context.globalState;
  return {
    head: {
      get: () => state.get<{ seq: number; hash: string }>(HEAD),
      set: (h) => void state.update(HEAD, h),
    },
    keys: {
      get: () => context.secrets.get(KEY),
      store: (value) => context.secrets.store(KEY, value),
    },
  };
}

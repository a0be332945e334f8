/**
 * Every protocol extension Agent Switchboard sends or accepts on ACP, in one place
 * (ARCHITECTURE.md: one file per protocol). ACP reserves `_`-prefixed methods and `_meta` keys for
 * extensions; JSON-RPC reserves -32000..-32099 for implementation-defined server errors.
 */

/**
 * JSON-RPC error codes we answer with, beyond ACP's own (-32002 resource not found, -32800
 * cancelled). Each error also carries `data.reason`, a stable machine-readable word.
 */
export const ErrorCodes = {
  /** `fs/write_text_file` refused: the file changed since the agent's view of it. */
  writeConflict: -32010,
  /** A path outside the workspace folders, or escaping them through a symlink. */
  pathNotAllowed: -32011,
  /** A file that is not valid UTF-8 text. */
  notText: -32012,
  /** An effect (`fs/write_text_file`, `terminal/create`) that matches no approved intent, or that policy denies. */
  notApproved: -32013,
  /**
   * A path the client does not open: not a regular file (a FIFO, socket, device or directory), larger
   * than the client reads, or turned into a symlink while it was opened. `data.reason`: `not_regular`,
   * `too_large`, `symlink` or `error`.
   */
  notReadable: -32014,
} as const;

/** `_meta` keys we put on what we send. */
export const MetaKeys = {
  /**
   * On an answer that a compatibility rule changed from the spec answer (src/acp/compat.ts): the
   * rule's id, so the inspector and the capability matrix show where it was applied.
   */
  compatibilityRule: 'agentSwitchboard/compatibilityRule',
} as const;

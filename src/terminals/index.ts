/**
 * Client-hosted terminals (ACP v1 "Terminals"): the public surface of this room.
 * Pure Node; the VS Code adapter imports from here.
 */

export {
  TerminalManager,
  TerminalNotFoundError,
  DEFAULT_CHANGE_THROTTLE_MS,
  DEFAULT_EXIT_DRAIN_MS,
  DEFAULT_MAX_OUTPUT_BYTE_LIMIT,
} from './manager';
export type {
  CreateTerminalParams,
  TerminalCreateContext,
  TerminalEnvVariable,
  TerminalExitStatus,
  TerminalManagerOptions,
  TerminalOutput,
  TerminalSnapshot,
} from './types';
export { DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer } from './outputBuffer';
export { DEFAULT_KILL_GRACE_MS } from './processGroup';
export { truncateUtf8Front, type Utf8TruncateResult } from './utf8';

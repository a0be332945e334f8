/**
 * Typed messages between the compare view (`webview/compare`) and the extension. The webview imports
 * this file with `import type` only. The host sends the whole comparison on `ready` and on every
 * change (it is small: a few agents, bounded diffs); the page holds no authority.
 */
import type { CompareView } from '../../worktrees/compare';

/** Extension → webview. */
export type CompareHostMessage = { type: 'snapshot'; compare: CompareView };

/** Webview → extension. */
export type CompareWebviewMessage =
  | { type: 'ready' }
  /** Keep This One: apply that worktree to the main folder, then offer to discard the others. */
  | { type: 'keep'; worktreeId: string }
  /** Open a file's whole diff (base ↔ the worktree) in the diff editor. */
  | { type: 'openDiff'; worktreeId: string; rel: string }
  /** Show that agent's session in the sidebar. */
  | { type: 'showSession'; sessionKey: string };

/**
 * What every view of the session UI shares: the document to build in, the markdown renderer, the
 * host port, and read access to the current state.
 */
import type { SessionState } from '../../src/acp/session/types';
import type { WebviewMessage } from '../../src/views/session/protocol';
import type { H } from './dom';
import type { MarkdownRenderer } from './markdown';

export interface Ctx {
  doc: Document;
  h: H;
  md: MarkdownRenderer;
  post(msg: WebviewMessage): void;
  /** The shown session, or null. Views read it while rendering; they never mutate it. */
  state(): SessionState | null;
  /** Runs `fn` after `ms` unless cancelled; the app cancels every pending call when disposed. */
  later(fn: () => void, ms: number): () => void;
  /**
   * Runs `fn` once the next frame has been painted (a frame callback, then a task after it), unless
   * cancelled: work that must not hold back what is already built, such as the rest of a page.
   */
  afterPaint(fn: () => void): () => void;
  /** The extension host's clock (ms since the epoch) as of its last `clock` message; undefined before one. */
  hostNow?(): number | undefined;
  /** Puts the caret in the prompt box (where the focus goes when nothing else waits for it). */
  focusPrompt?(): void;
}

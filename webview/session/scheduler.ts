/**
 * Batches DOM work into one animation frame.
 *
 * Patches arrive far faster than frames (a streaming agent sends thousands of chunks a second);
 * the app only records what became dirty and does the DOM work once per frame. While the webview is
 * hidden, browsers stop animation frames: the state keeps advancing and the DOM catches up once it
 * is visible again.
 */

export type FrameRequester = (cb: () => void) => void;

export class FrameScheduler {
  private pending = false;

  /**
   * @param run the frame's work.
   * @param requestFrame `requestAnimationFrame` in the webview; tests pass a manual one.
   */
  constructor(private readonly run: () => void, private readonly requestFrame: FrameRequester) {}

  /** Asks for one run in the next frame; calls while one is pending are free. */
  schedule(): void {
    if (this.pending) return;
    this.pending = true;
    this.requestFrame(() => this.flush());
  }

  /** Runs the pending work now (also used by tests and before saving state). */
  flush(): void {
    if (!this.pending) return;
    this.pending = false;
    this.run();
  }

  get isPending(): boolean {
    return this.pending;
  }
}

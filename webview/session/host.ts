/**
 * The port between the session UI and whatever hosts it (ARCHITECTURE.md habit 9).
 *
 * In VS Code the port wraps `acquireVsCodeApi()` and the window's `message` events; tests pass a
 * fake that records posted messages and lets them push {@link HostMessage}s in. The UI never calls
 * `acquireVsCodeApi` itself, so it runs in any plain DOM.
 */
import type { HostMessage, WebviewMessage } from '../../src/views/session/protocol';

/** What the UI needs from its host. */
export interface HostPort {
  /** Sends a command to the extension (which re-checks it: the webview holds no authority). */
  postMessage(msg: WebviewMessage): void;
  /** Subscribes to messages from the extension; returns the unsubscribe function. */
  onMessage(listener: (msg: HostMessage) => void): () => void;
  /** The state saved by {@link setState} before the webview was last reloaded, if any. */
  getState<T>(): T | undefined;
  /** Saves JSON-serialisable state that survives the webview being hidden and reloaded. */
  setState<T>(state: T): void;
}

/** The object VS Code injects into webviews; callable once per page. */
interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The real port, for `main.ts` only. Messages without a string `type` are dropped. */
export function createVsCodeHost(win: Window): HostPort {
  const api = acquireVsCodeApi();
  return {
    postMessage: (msg) => api.postMessage(msg),
    onMessage(listener) {
      const onMsg = (ev: MessageEvent): void => {
        const data: unknown = ev.data;
        if (data && typeof data === 'object' && typeof (data as { type?: unknown }).type === 'string') {
          listener(data as HostMessage);
        }
      };
      win.addEventListener('message', onMsg);
      return () => win.removeEventListener('message', onMsg);
    },
    getState: <T>() => (api.getState() ?? undefined) as T | undefined,
    setState: (state) => api.setState(state),
  };
}

/**
 * Runs the session app in jsdom with a fake host and manual animation frames. The vscode-elements
 * tags stay unregistered (plain elements): attributes, properties and events behave the same for the
 * app's logic, and no Lit code needs to run under jsdom.
 */
import { JSDOM } from 'jsdom';
import { SessionApp } from '../../../webview/session/app';
import type { HostPort } from '../../../webview/session/host';
import type { HostMessage, WebviewMessage } from '../../../src/views/session/protocol';

export class FakeHost implements HostPort {
  readonly posted: WebviewMessage[] = [];
  saved: unknown;
  private listeners: ((msg: HostMessage) => void)[] = [];

  postMessage(msg: WebviewMessage): void {
    this.posted.push(structuredClone(msg));
  }
  onMessage(listener: (msg: HostMessage) => void): () => void {
    this.listeners.push(listener);
    return () => (this.listeners = this.listeners.filter((l) => l !== listener));
  }
  getState<T>(): T | undefined {
    return this.saved === undefined ? undefined : (structuredClone(this.saved) as T);
  }
  setState<T>(state: T): void {
    // Like VS Code: serialised at once, later mutation of the object does not leak in.
    this.saved = JSON.parse(JSON.stringify(state));
  }
  /** Delivers a message as the extension would (structured clone, like postMessage). */
  send(msg: HostMessage): void {
    for (const l of this.listeners) l(structuredClone(msg));
  }
  ofType<K extends WebviewMessage['type']>(type: K): Extract<WebviewMessage, { type: K }>[] {
    return this.posted.filter((m) => m.type === type) as Extract<WebviewMessage, { type: K }>[];
  }
}

export interface Harness {
  dom: JSDOM;
  doc: Document;
  root: HTMLElement;
  host: FakeHost;
  app: SessionApp;
  /** Frames requested and not yet run. */
  frames: (() => void)[];
  /** Runs all requested frames (as the browser would at the next paint). */
  frame(): void;
  $(selector: string): HTMLElement | null;
  $$(selector: string): HTMLElement[];
  dispose(): void;
}

export function mount(host = new FakeHost()): Harness {
  const dom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>');
  const doc = dom.window.document;
  const root = doc.getElementById('app') as HTMLElement;
  const frames: (() => void)[] = [];
  const app = new SessionApp(root, host, { requestFrame: (cb) => frames.push(cb), persistDelayMs: 5 });
  app.start();
  return {
    dom, doc, root, host, app, frames,
    frame() {
      while (frames.length) frames.shift()!();
    },
    $: (s) => root.querySelector<HTMLElement>(s),
    $$: (s) => Array.from(root.querySelectorAll<HTMLElement>(s)),
    dispose() {
      app.dispose();
      dom.window.close();
    },
  };
}

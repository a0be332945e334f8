/**
 * PF2 of `npm run bench`: the session webview's first paint of a snapshot, in jsdom (the DOM the
 * webview unit tests use). Typechecked with the webview's DOM types (webview/tsconfig.json).
 */
import { performance } from 'node:perf_hooks';
import { JSDOM } from 'jsdom';
import { SessionApp } from '../webview/session/app';
import type { HostMessage } from '../src/views/session/protocol';
import { createSessionState, type SessionState } from '../src/acp/session/types';
import { windowState } from '../src/acp/session/window';

/** A session of `entries` entries: tool calls and agent messages, alternating. */
export function sessionOf(entries: number): SessionState {
  const s = createSessionState({ key: 's1', agentId: 'a', agentName: 'Agent', cwd: '/w' });
  s.status = 'ready';
  for (let i = 0; i < entries; i++) {
    if (i % 2) s.entries.push({ kind: 'agent', id: `e${i}`, text: `Answer ${i}: **done**, see \`f${i}.ts\`.`, attachments: [] });
    else {
      s.entries.push({ kind: 'tool_call', id: `e${i}`, toolCallId: `t${i}` });
      s.toolCalls[`t${i}`] = { toolCallId: `t${i}`, title: `Read f${i}.ts`, kind: 'read', status: 'completed', content: [{ type: 'text', text: `contents of f${i}` }], locations: [{ path: `/w/f${i}.ts` }], placeholder: false };
    }
  }
  s.nextEntry = entries;
  return s;
}

/** Milliseconds from a snapshot's arrival to the end of its first frame. */
export function firstPaint(state: SessionState): number {
  const dom = new JSDOM('<!DOCTYPE html><html><body><div id="app"></div></body></html>');
  let listener: ((m: HostMessage) => void) | undefined;
  const frames: (() => void)[] = [];
  const app = new SessionApp(dom.window.document.getElementById('app')!, { postMessage() {}, onMessage: (l) => ((listener = l), () => {}), getState: () => undefined, setState() {} }, { requestFrame: (cb) => frames.push(cb), persistDelayMs: 1e9 });
  app.start();
  const t0 = performance.now();
  // The snapshot as the extension builds and posts it (src/views/session/surface.ts): the newest
  // entries only, cloned as postMessage does.
  const { state: current, omitted } = windowState(state);
  const msg: HostMessage = { type: 'snapshot', agents: [], sessions: [], current, omittedEntries: omitted, workspaceTrusted: true, hasWorkspace: true };
  listener!(structuredClone(msg));
  while (frames.length) frames.shift()!();
  const ms = performance.now() - t0;
  app.dispose();
  dom.window.close();
  return ms;
}


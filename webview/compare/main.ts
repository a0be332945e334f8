/**
 * Entry point of the compare view (bundled to `dist/webview/compare.js`): one column per agent of a
 * comparison — its status, time, tokens and cost, the files it changed with their diffs, the test
 * command's exit code and output — and "Keep This One". Everything an agent wrote is drawn as text
 * (`textContent`, never markup). The extension applies and discards; this page holds no authority.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { CompareEntry, CompareFile, CompareView } from '../../src/worktrees/compare';
import { duration } from '../../src/worktrees/compare';
import type { CompareHostMessage, CompareWebviewMessage } from '../../src/views/compare/protocol';
import css from './styles.css';

declare function acquireVsCodeApi(): { postMessage(msg: CompareWebviewMessage): void };
const api = acquireVsCodeApi();
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string, ...children: (Node | null)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  for (const c of children) if (c) e.append(c);
  return e;
}

function icon(name: string): HTMLElement {
  const i = el('span', `codicon codicon-${name}`);
  i.setAttribute('aria-hidden', 'true');
  return i;
}

function render(c: CompareView): void {
  const head = el('header', 'head', undefined,
    el('h2', undefined, `Compare ${c.entries.length} agents`),
    el('div', 'prompt', undefined, el('span', 'muted', 'Prompt: '), el('span', 'prompt-text', c.prompt)),
    c.testCommand ? el('div', 'test-command', undefined, el('span', 'muted', 'Test command in each worktree: '), el('code', undefined, c.testCommand)) : null,
  );
  const columns = el('div', 'columns');
  columns.style.setProperty('--columns', String(Math.max(1, c.entries.length)));
  columns.append(...c.entries.map((e) => column(e)));
  root.replaceChildren(head, columns);
}

function column(e: CompareEntry): HTMLElement {
  const ended = e.endedAt !== undefined;
  const time = ended ? duration(e.endedAt! - e.startedAt) : 'running…';
  const added = e.files.reduce((n, f) => n + f.added, 0);
  const removed = e.files.reduce((n, f) => n + f.removed, 0);
  const keep = document.createElement('vscode-button');
  keep.className = 'keep';
  keep.textContent = e.outcome === 'kept' ? 'Kept' : 'Keep This One';
  if (!ended || e.outcome) keep.setAttribute('disabled', '');
  keep.setAttribute('icon', 'check');
  keep.setAttribute('aria-label', `Keep This One: ${e.agentName}`);
  keep.addEventListener('click', () => {
    if (!keep.hasAttribute('disabled')) api.postMessage({ type: 'keep', worktreeId: e.worktreeId });
  });
  const show = el('button', 'link show-session', `${e.agentName}`);
  show.type = 'button';
  show.title = 'Show this session';
  show.addEventListener('click', () => api.postMessage({ type: 'showSession', sessionKey: e.sessionKey }));
  // A request of this agent waits: answered on its card (which shows all of what it approves), one click away.
  let answer: HTMLElement | null = null;
  if (e.waiting && !e.outcome) {
    answer = document.createElement('vscode-button');
    answer.className = 'answer';
    answer.textContent = e.waiting === 1 ? 'Answer its request' : `Answer its ${e.waiting} requests`;
    answer.setAttribute('icon', 'bell-dot');
    answer.title = 'Show this session in the side bar, its waiting card in view: Allow or Reject there';
    answer.addEventListener('click', () => api.postMessage({ type: 'showSession', sessionKey: e.sessionKey }));
  }
  return el('section', `column${e.outcome ? ` ${e.outcome}` : ''}${answer ? ' waiting' : ''}`, undefined,
    el('div', 'agent', undefined, icon('hubot'), show),
    el('div', 'branch muted', undefined, icon('git-branch'), el('span', undefined, e.branch)),
    el('dl', 'facts', undefined,
      el('dt', undefined, 'Status'), el('dd', `status status-${e.status.split(' ')[0]}`, e.outcome === 'discarded' ? 'discarded' : e.status),
      el('dt', undefined, 'Time'), el('dd', undefined, time),
      el('dt', undefined, 'Tokens'), el('dd', undefined, e.usage || 'not sent by the agent'),
      el('dt', undefined, 'Files'), el('dd', undefined, e.files.length ? `${e.files.length} (+${added} −${removed})` : ended ? 'none' : '…'),
      e.test ? el('dt', undefined, 'Test') : null,
      e.test ? el('dd', `test test-${e.test.state}${e.test.exitCode === 0 ? ' passed' : e.test.state === 'done' ? ' failed' : ''}`, testWords(e.test)) : null,
      e.test?.sandbox ? el('dt', undefined, 'Runs') : null,
      e.test?.sandbox ? el('dd', `test-sandbox ${e.test.sandbox.sandboxed ? 'sandboxed' : 'unsandboxed'}`, e.test.sandbox.text) : null,
    ),
    e.error ? el('div', 'error', e.error) : null,
    answer,
    keep,
    el('div', 'files', undefined, ...e.files.map((f) => file(e, f))),
    e.test?.output ? el('details', 'test-output', undefined, el('summary', undefined, 'Test output'), el('pre', undefined, e.test.output)) : null,
  );
}

function testWords(t: NonNullable<CompareEntry['test']>): string {
  if (t.state === 'waiting') return 'waits for the turn to end';
  if (t.state === 'running') return 'running…';
  if (t.refused !== undefined) return 'not run';
  if (t.stopped) return `stopped (${t.stopped})`;
  return `exit code ${t.exitCode ?? 'none'}${t.ms !== undefined ? ` · ${duration(t.ms)}` : ''}`;
}

function file(e: CompareEntry, f: CompareFile): HTMLElement {
  const open = el('button', 'link file-name', f.rel);
  open.type = 'button';
  open.title = 'Open the whole diff';
  open.addEventListener('click', () => api.postMessage({ type: 'openDiff', worktreeId: e.worktreeId, rel: f.rel }));
  const lines = el('div', 'diff-lines', undefined, ...f.lines.map((l) => el('div', `dl ${l.startsWith('@@') ? 'hunk' : l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx'}`, l.startsWith('@@') ? l.slice(3) : `${l[0] === ' ' ? ' ' : l[0]} ${l.slice(1)}`)));
  lines.tabIndex = 0;
  lines.setAttribute('role', 'group');
  lines.setAttribute('aria-label', `Changes in ${f.rel}`);
  return el('div', 'file', undefined,
    el('div', 'file-head', undefined, icon(f.kind === 'added' ? 'new-file' : f.kind === 'deleted' ? 'trash' : 'diff'), open, el('span', 'stats', `+${f.added} −${f.removed}`)),
    f.kind === 'binary' ? el('div', 'muted', 'Not text: open it to compare.') : lines,
    f.more ? el('div', 'muted', `… ${f.more} more lines: open the file for the whole diff`) : null,
  );
}

window.addEventListener('message', (ev: MessageEvent<CompareHostMessage>) => {
  if (ev.data?.type === 'snapshot') render(ev.data.compare);
});
api.postMessage({ type: 'ready' });

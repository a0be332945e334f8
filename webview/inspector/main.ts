/**
 * Entry point of the protocol inspector (bundled to `dist/webview/inspector.js`): one agent
 * connection's JSON-RPC messages, newest at the bottom, with direction (→ to the agent, ← from it),
 * time, method, id; a search over methods and message text; the selected message as JSON; Export
 * (redacted JSON Lines, with file contents only when ticked). Entries arrive as a snapshot, then in
 * batches; the list shows the newest 2,000 matches and redraws at most once per animation frame.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { CapabilityRow, InspectorEntry, InspectorHostMessage, InspectorWebviewMessage } from '../../src/views/inspector/protocol';
import css from './styles.css';
import { el, perFrame, tabBar } from '../trace/el';

declare function acquireVsCodeApi(): { postMessage(msg: InspectorWebviewMessage): void };
const api = acquireVsCodeApi();
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const SHOWN = 2_000;
const MAX_KEPT = 50_000;
let entries: InspectorEntry[] = [];
let dropped = 0;
let title = '';
let query = '';
let selected: number | undefined;
let follow = true;
let tab: 'messages' | 'capabilities' = 'messages';
let capabilities: CapabilityRow[] = [];
let agent = '';

const root = document.getElementById('app') ?? document.body.appendChild(el('div'));
const top = el('div', 'top');
const heading = el('h2');
const summary = el('span', 'muted');
const search = el('input');
search.type = 'search';
search.placeholder = 'Search methods and message text';
search.addEventListener('input', () => {
  query = search.value.trim().toLowerCase();
  schedule();
});
const keepFiles = el('input');
keepFiles.type = 'checkbox';
const keepLabel = el('label');
keepLabel.append(keepFiles, document.createTextNode('file contents'));
keepLabel.title = 'Export the contents of files read and written (environment values and credentials are always removed)';
const exportButton = el('vscode-button');
exportButton.textContent = 'Export (redacted)';
exportButton.setAttribute('secondary', '');
exportButton.addEventListener('click', () => api.postMessage({ type: 'export', fileContents: keepFiles.checked }));
const tabs = tabBar([['messages', 'Messages'], ['capabilities', 'Capabilities']] as const, tab, (id) => {
  tab = id;
  main.style.display = id === 'messages' ? '' : 'none';
  matrixBox.style.display = id === 'capabilities' ? '' : 'none';
  search.style.display = keepLabel.style.display = id === 'messages' ? '' : 'none';
  schedule();
});
top.append(heading, summary, tabs, search, keepLabel, exportButton);
const main = el('div', 'main');
const rows = el('div', 'rows');
// The list scrolls on its own: focusable, so the keyboard reaches it (axe scrollable-region-focusable).
rows.tabIndex = 0;
rows.setAttribute('role', 'region');
rows.setAttribute('aria-label', 'Messages');
const details = el('div', 'details');
main.append(rows, details);
const matrixBox = el('div', 'matrix');
matrixBox.style.display = 'none';
root.append(top, main, matrixBox);
rows.addEventListener('scroll', () => {
  follow = rows.scrollTop + rows.clientHeight >= rows.scrollHeight - 4;
});

const schedule = perFrame(() => render());

function matches(e: InspectorEntry): boolean {
  return !query || e.method.toLowerCase().includes(query) || (e.detail ?? '').toLowerCase().includes(query) || e.json.toLowerCase().includes(query);
}

function time(at: number): string {
  const d = new Date(at);
  return `${d.toTimeString().slice(0, 8)}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function method(e: InspectorEntry): HTMLElement {
  const span = el('span', 'method', `${e.method}${e.kind === 'response' ? ' (result)' : e.kind === 'error' ? ' (error)' : ''}`);
  if (e.detail) span.append(el('span', 'muted', ` · ${e.detail}`));
  return span;
}

/** The capability matrix: declared at initialize, exercised on the wire, failed. */
function renderMatrix(): void {
  matrixBox.replaceChildren(el('div', 'muted agent', agent));
  const table = el('table');
  const head = el('tr');
  for (const h of ['', 'declared', 'exercised', 'failed', 'last error']) head.append(el('th', undefined, h));
  table.append(head);
  let group = '';
  for (const r of capabilities) {
    if (r.group !== group) {
      group = r.group;
      const tr = el('tr', 'group');
      const td = el('td', undefined, { declared: 'Declared at initialize', 'agent calls us': 'The agent calls the editor', 'agent sends': 'The agent sends (session updates)', 'we call the agent': 'The editor calls the agent' }[r.group]);
      td.colSpan = 5;
      tr.append(td);
      table.append(tr);
    }
    const tr = el('tr', r.failed ? 'failed' : r.exercised ? 'used' : r.declared ? 'unused' : 'none');
    tr.append(
      el('td', 'cap', r.capability),
      el('td', r.declared ? 'yes' : 'muted', r.declared === undefined ? '—' : r.declared ? 'yes' : 'no'),
      el('td', r.exercised ? 'yes' : 'muted', String(r.exercised)),
      el('td', r.failed ? 'no' : 'muted', String(r.failed)),
      el('td', 'muted err', r.lastError ?? ''),
    );
    table.append(tr);
  }
  matrixBox.append(table);
}

function render(): void {
  heading.textContent = title;
  if (tab === 'capabilities') return renderMatrix();
  const found = entries.filter(matches);
  const shown = found.slice(-SHOWN);
  summary.textContent = `${entries.length} message${entries.length === 1 ? '' : 's'}${query ? ` · ${found.length} match` : ''}${found.length > SHOWN ? ` · newest ${SHOWN} shown` : ''}${dropped ? ` · ${dropped} older dropped` : ''}`;
  rows.replaceChildren();
  if (!shown.length) rows.append(el('div', 'empty', entries.length ? 'No message matches.' : 'No messages yet.'));
  const frag = document.createDocumentFragment();
  for (const e of shown) {
    const row = el('div', `row kind-${e.kind}${e.seq === selected ? ' selected' : ''}`);
    row.dataset.seq = String(e.seq);
    row.append(el('span', 'muted', time(e.at)), el('span', `dir-${e.dir}`, e.dir === 'out' ? '→' : '←'), method(e), el('span', 'muted', e.id !== undefined ? `#${e.id}` : ''));
    row.title = e.dir === 'out' ? 'to the agent' : 'from the agent';
    row.addEventListener('click', () => {
      selected = e.seq;
      schedule();
    });
    frag.append(row);
  }
  rows.append(frag);
  if (follow) rows.scrollTop = rows.scrollHeight;
  const s = entries.find((x) => x.seq === selected);
  details.replaceChildren();
  if (!s) {
    details.append(el('div', 'empty', 'Select a message to see it whole.'));
    return;
  }
  details.append(el('h3', undefined, `${s.dir === 'out' ? 'To the agent' : 'From the agent'} · ${s.method} · ${new Date(s.at).toISOString()}`), el('pre', undefined, s.json));
}

window.addEventListener('message', (ev: MessageEvent<InspectorHostMessage>) => {
  const m = ev.data;
  if (m?.type === 'snapshot') {
    title = m.title;
    agent = m.agent;
    entries = m.entries;
  } else if (m?.type === 'entries') {
    entries.push(...m.entries);
  } else return;
  capabilities = m.capabilities;
  dropped = m.dropped;
  if (entries.length > MAX_KEPT) {
    dropped += entries.length - MAX_KEPT;
    entries = entries.slice(-MAX_KEPT);
  }
  schedule();
});
api.postMessage({ type: 'ready' });

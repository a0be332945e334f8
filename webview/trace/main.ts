/**
 * Entry point of the trace panel (bundled to `dist/webview/trace.js`): one session's trace as a
 * waterfall — the span tree with timing bars (live spans striped), status, a filter by kind, and the
 * selected span's attributes with a button to jump to what it stands for. Spans arrive as a snapshot,
 * then as changes; a redraw is coalesced per animation frame. The page holds no authority.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { SpanRecord, TraceHostMessage, TraceWebviewMessage } from '../../src/views/trace/protocol';
import css from './styles.css';
import { formatDuration, spanKey, waterfall, type Role } from './waterfall';
import { delegation, type Hop } from './delegation';
import { el, perFrame, tabBar } from './el';

declare function acquireVsCodeApi(): { postMessage(msg: TraceWebviewMessage): void };
const api = acquireVsCodeApi();
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const ROLES: { role: Role; label: string }[] = [
  { role: 'session', label: 'Session' },
  { role: 'turn', label: 'Turns' },
  { role: 'tool', label: 'Tool calls' },
  { role: 'permission', label: 'Permissions' },
  { role: 'effect', label: 'Effects' },
  { role: 'mcp', label: 'MCP' },
  { role: 'remote', label: 'Remote agents' },
  { role: 'agent', label: "Agent's own" },
  { role: 'other', label: 'Other' },
];
const spans = new Map<string, SpanRecord>();
const hidden = new Set<Role>();
let title = '';
let truncated = false;
let selected: string | undefined;
/** Which view of the trace: the span waterfall, or who acted for whom. */
let tab: 'waterfall' | 'delegation' = 'waterfall';

const root = document.getElementById('app') ?? document.body.appendChild(el('div'));
const top = el('div', 'top');
const heading = el('h2');
const summary = el('span', 'muted');
const filters = el('div', 'filters');
for (const { role, label } of ROLES) {
  const l = el('label');
  const box = el('input');
  box.type = 'checkbox';
  box.checked = true;
  box.dataset.role = role;
  box.addEventListener('change', () => {
    if (box.checked) hidden.delete(role);
    else hidden.add(role);
    schedule();
  });
  const dot = el('span', `dot role-${role}`);
  l.append(box, dot, document.createTextNode(label));
  filters.append(l);
}
const exportButton = el('vscode-button');
exportButton.textContent = 'Export OTLP JSON';
exportButton.setAttribute('secondary', '');
exportButton.addEventListener('click', () => api.postMessage({ type: 'export' }));
const tabs = tabBar([['waterfall', 'Waterfall'], ['delegation', 'Delegation']] as const, tab, (id) => {
  tab = id;
  filters.style.display = id === 'waterfall' ? '' : 'none';
  schedule();
});
top.append(heading, summary, tabs, filters, exportButton);
const main = el('div', 'main');
const rowsBox = el('div', 'rows');
const details = el('div', 'details');
main.append(rowsBox, details);
root.append(top, main);

const schedule = perFrame(() => render());

function render(): void {
  const now = Date.now();
  const all = waterfall([...spans.values()], now);
  const rows = all.filter((r) => !hidden.has(r.role));
  heading.textContent = title;
  const errors = all.filter((r) => r.span.status.code === 'error').length;
  summary.textContent = `${all.length} span${all.length === 1 ? '' : 's'}${errors ? ` · ${errors} failed` : ''}${truncated ? ' · oldest spans dropped' : ''}`;
  rowsBox.replaceChildren();
  if (tab === 'delegation') {
    rowsBox.append(renderHop(delegation([...spans.values()])));
    showDetails();
    return;
  }
  if (!rows.length) rowsBox.append(el('div', 'empty', all.length ? 'Every kind is filtered out.' : 'No spans yet. Send a prompt; the session, its turns, tool calls and permission waits appear here as they happen.'));
  const frag = document.createDocumentFragment();
  for (const r of rows) {
    const row = el('div', `row${r.span.status.code === 'error' ? ' error' : ''}${spanKey(r.span) === selected ? ' selected' : ''}`);
    row.dataset.spanId = spanKey(r.span);
    row.dataset.role = r.role;
    const name = el('div', 'name');
    name.style.paddingLeft = `${6 + r.depth * 14}px`;
    name.append(el('span', `dot role-${r.role}`), document.createTextNode(r.span.name));
    name.title = `${r.span.name} (${r.span.service})`;
    const lane = el('div', 'lane');
    const bar = el('div', `bar role-${r.role}${r.durationMs === undefined ? ' live' : ''}${r.span.status.code === 'error' ? ' error' : ''}`);
    bar.style.left = `${(r.offset * 100).toFixed(3)}%`;
    bar.style.width = `${(Math.min(r.width, 1 - r.offset) * 100).toFixed(3)}%`;
    lane.append(bar);
    row.append(name, lane, el('div', 'dur', r.durationMs === undefined ? 'running' : formatDuration(r.durationMs)));
    row.addEventListener('click', () => {
      selected = spanKey(r.span);
      schedule();
    });
    frag.append(row);
  }
  rowsBox.append(frag);
  showDetails();
}

/** One hop of the delegation chain and, indented under it, the hops it led to. */
function renderHop(hop: Hop): HTMLElement {
  const box = el('div', `hop hop-${hop.kind}${hop.spanId === selected ? ' selected' : ''}${hop.status === 'error' ? ' error' : ''}`);
  const head = el('div', 'hop-head');
  head.append(el('span', `dot hop-dot-${hop.kind}`), el('span', 'hop-label', hop.label));
  if (hop.detail) head.append(el('span', 'muted', hop.detail));
  if (hop.status === 'running') head.append(el('span', 'chip warn', hop.kind === 'agent' ? 'session open' : 'running'));
  if (hop.status === 'error') head.append(el('span', 'chip error', 'failed'));
  box.append(head);
  if (hop.notes.length) {
    const notes = el('div', 'notes');
    for (const n of hop.notes) {
      const chip = el('span', `chip${n.tone ? ` ${n.tone}` : ''}`);
      chip.append(el('span', 'chip-label', `${n.label}: `), document.createTextNode(n.value));
      notes.append(chip);
    }
    box.append(notes);
  }
  if (hop.spanId) {
    box.dataset.spanId = hop.spanId;
    head.addEventListener('click', () => {
      selected = hop.spanId;
      schedule();
    });
  }
  if (hop.children.length) {
    const kids = el('div', 'hop-children');
    for (const c of hop.children) kids.append(renderHop(c));
    box.append(kids);
  }
  return box;
}

function showDetails(): void {
  const s = selected ? spans.get(selected) : undefined;
  details.replaceChildren();
  if (!s) {
    details.append(el('div', 'empty', 'Select a span to see its attributes.'));
    return;
  }
  details.append(el('h3', undefined, s.name));
  const table = el('table');
  const line = (k: string, v: string) => {
    const tr = el('tr');
    const key = el('td', 'key', k);
    key.title = k;
    tr.append(key, el('td', 'value', v));
    table.append(tr);
  };
  line('service', s.service);
  line('kind', s.kind);
  line('status', s.status.code + (s.status.message ? `: ${s.status.message}` : ''));
  line('duration', s.endMs === undefined ? 'running' : formatDuration(s.endMs - s.startMs));
  line('started', new Date(s.startMs).toISOString());
  line('trace id', s.traceId);
  line('span id', s.spanId);
  for (const [k, v] of Object.entries(s.attributes)) line(k, typeof v === 'string' ? v : JSON.stringify(v));
  for (const e of s.events) line(`event ${e.name}`, new Date(e.timeMs).toISOString());
  details.append(table);
  const reveal = el('vscode-button');
  reveal.className = 'reveal';
  reveal.textContent = s.attributes['agent_switchboard.intent.hash'] ? 'Open audit record' : s.attributes['gen_ai.tool.call.id'] ? 'Show tool call' : 'Show session';
  reveal.addEventListener('click', () => api.postMessage({ type: 'reveal', traceId: s.traceId, spanId: s.spanId }));
  details.append(el('div'), reveal);
}

window.addEventListener('message', (ev: MessageEvent<TraceHostMessage>) => {
  const m = ev.data;
  if (m?.type === 'snapshot') {
    spans.clear();
    title = m.title;
  }
  if (m?.type === 'snapshot' || m?.type === 'spans') {
    for (const s of m.spans) spans.set(spanKey(s), s);
    truncated = m.truncated;
    schedule();
  }
});
// Live spans' bars grow while they run.
setInterval(() => [...spans.values()].some((s) => s.endMs === undefined) && schedule(), 1000);
api.postMessage({ type: 'ready' });

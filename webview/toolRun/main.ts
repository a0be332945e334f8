/**
 * Entry point of the Run Tool panel (bundled to `dist/webview/toolRun.js`): the tool's description
 * and hints, a form generated from its input schema, Run / Cancel, and the result (text, images,
 * links, structured content). The same page answers a server's form-mode elicitation: its message,
 * a form from the requested schema, and Accept / Decline / Not now. The extension runs the call and
 * sends the answer; this page holds no authority.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-multi-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { ElicitationForm, ResultBlock, ToolForm, ToolRunHostMessage, ToolRunWebviewMessage } from '../../src/views/toolRun/protocol';
import { buildFields, collect, type Field } from '../shared/schemaForm';
import css from './styles.css';

declare function acquireVsCodeApi(): { postMessage(msg: ToolRunWebviewMessage): void };
const api = acquireVsCodeApi();
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
let fields: Field[] = [];
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
};

const result = el('div', 'result');
const problems = el('div', 'problems');
const runButton = document.createElement('vscode-button');
runButton.className = 'run';
runButton.textContent = 'Run';
const cancelButton = document.createElement('vscode-button');
cancelButton.className = 'cancel';
cancelButton.setAttribute('secondary', '');
cancelButton.setAttribute('disabled', '');
cancelButton.textContent = 'Cancel';
runButton.addEventListener('click', () => {
  const c = collect(fields);
  problems.textContent = 'errors' in c ? c.errors.join(' ') : '';
  if ('args' in c) api.postMessage({ type: 'run', args: c.args });
});
cancelButton.addEventListener('click', () => api.postMessage({ type: 'cancel' }));

function showTool(t: ToolForm): void {
  root.replaceChildren();
  root.append(el('h2', undefined, `${t.title ?? t.name}`), el('div', 'server', `${t.name} on ${t.server}`));
  const hints = [t.annotations?.readOnlyHint ? 'read-only' : '', t.annotations?.destructiveHint ? 'destructive' : '', t.annotations?.openWorldHint ? 'open world' : ''].filter(Boolean);
  if (hints.length) root.append(el('div', `hints${t.annotations?.destructiveHint ? ' destructive' : ''}`, hints.join(' · ')));
  if (t.description) root.append(el('p', 'description', t.description));
  fields = buildFields(document, t.inputSchema);
  const form = el('div', 'form');
  form.append(...fields.map((f) => f.element));
  if (!fields.length) form.append(el('div', 'help', 'This tool takes no arguments.'));
  const actions = el('div', 'actions');
  actions.append(runButton, cancelButton);
  root.append(form, actions, problems, result);
}

function button(label: string, className: string, secondary: boolean, onClick: () => void): HTMLElement {
  const b = document.createElement('vscode-button');
  b.className = className;
  if (secondary) b.setAttribute('secondary', '');
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

function showElicitation(r: ElicitationForm): void {
  root.replaceChildren();
  root.append(el('h2', undefined, `${r.server} asks for information`), el('div', 'server', 'An MCP server you run is asking. Only what you accept is sent to it.'));
  root.append(el('p', 'description message', r.message));
  fields = buildFields(document, r.requestedSchema);
  const form = el('div', 'form');
  form.append(...fields.map((f) => f.element));
  const actions = el('div', 'actions');
  const answer = (m: ToolRunWebviewMessage) => {
    actions.querySelectorAll('vscode-button').forEach((b) => b.setAttribute('disabled', ''));
    api.postMessage(m);
  };
  actions.append(
    button('Accept', 'accept', false, () => {
      const c = collect(fields);
      problems.textContent = 'errors' in c ? c.errors.join(' ') : '';
      if ('args' in c) answer({ type: 'answer', action: 'accept', content: c.args });
    }),
    button('Decline', 'decline', true, () => answer({ type: 'answer', action: 'decline' })),
    button('Not now', 'not-now', true, () => answer({ type: 'answer', action: 'cancel' })),
  );
  root.append(form, actions, problems, result);
}

function block(b: ResultBlock): HTMLElement {
  if (b.type === 'text') return el('pre', 'result-text', b.text);
  if (b.type === 'image') {
    const img = el('img', 'result-image');
    img.src = `data:${b.mimeType};base64,${b.data}`;
    img.alt = `image (${b.mimeType})`;
    return img;
  }
  if (b.type === 'link') return el('div', 'result-link', `Resource link: ${b.name} (${b.uri})`);
  const wrap = el('div', 'result-json');
  wrap.append(el('div', 'label', b.label), el('pre', undefined, b.value));
  return wrap;
}

window.addEventListener('message', (ev: MessageEvent<ToolRunHostMessage>) => {
  const m = ev.data;
  if (m.type === 'tool') showTool(m.tool);
  else if (m.type === 'elicit') showElicitation(m.request);
  else if (m.type === 'task') result.replaceChildren(el('div', 'muted task', `Running as task ${m.taskId} — ${m.status}${m.statusMessage ? `: ${m.statusMessage}` : ''}`));
  else if (m.type === 'withdrawn') result.replaceChildren(el('div', 'muted', m.message));
  else if (m.type === 'problems') {
    problems.textContent = m.problems.join(' ');
    root.querySelectorAll('.actions vscode-button').forEach((b) => b.removeAttribute('disabled'));
  } else if (m.type === 'running') {
    runButton.setAttribute('disabled', '');
    cancelButton.removeAttribute('disabled');
    result.replaceChildren(el('div', 'muted', 'Running…'));
  } else {
    runButton.removeAttribute('disabled');
    cancelButton.setAttribute('disabled', '');
    result.replaceChildren();
    if (m.type === 'failed') result.append(el('div', 'error', m.message));
    else {
      if (m.isError) result.append(el('div', 'error', 'The tool reported an error:'));
      result.append(...m.blocks.map(block));
    }
  }
});
api.postMessage({ type: 'ready' });

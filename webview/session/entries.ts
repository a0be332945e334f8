/**
 * Thread entries other than tool calls: the person's prompts, agent messages (markdown), thoughts,
 * notices and turn ends. Each renderer returns an {@link EntryNode} whose `update` touches only that
 * entry's own DOM, so a streamed chunk costs one entry's markdown, not the thread's.
 */
import type { AgentErrorView, ThreadEntry } from '../../src/acp/session/types';
import { renderContent } from './content';
import type { Ctx } from './context';
import { icon } from './dom';
import { turnUsageText } from '../../src/acp/session/usage';
import { describeStopReason } from '../../src/acp/session/stopReason';
import { MarkdownView } from './streamingMarkdown';
import { elicitationEntry } from './elicitationCard';
import { messageActions } from './messageActions';
import { messageEditor } from './messageEditor';

/** The DOM of one thread entry, kept across patches. */
export interface EntryNode {
  el: HTMLElement;
  /**
   * Re-renders after the entry's text grew or the entry was replaced (same kind).
   * @param appended what was appended to its text since the last update, when that is all that
   *   changed (see MarkdownView.set)
   */
  update(entry: ThreadEntry, appended?: string): void;
  /** Cancels pending work (the node is being dropped). */
  dispose?(): void;
}

type TextEntry = Extract<ThreadEntry, { kind: 'user' | 'agent' | 'thought' }>;

/** How much of a thought's end its hover peek (the last 200 characters, spaces folded) is taken from. */
const PEEK_SOURCE_CHARS = 2000;

/** Renders a non-tool entry. Tool-call entries are handled by `toolCard.ts`. */
export function renderTextEntry(ctx: Ctx, entry: Exclude<ThreadEntry, { kind: 'tool_call' }>): EntryNode {
  switch (entry.kind) {
    case 'user':
      return userEntry(ctx, entry);
    case 'agent':
      return agentEntry(ctx, entry);
    case 'thought':
      return thoughtEntry(ctx, entry);
    case 'notice':
      return staticEntry(ctx, entry, noticeBody);
    case 'turn_end':
      return staticEntry(ctx, entry, turnEndBody);
    case 'elicitation':
      return elicitationEntry(ctx, entry);
  }
}

/**
 * The "after Stop" mark of a message the agent sent (or went on with) after the person stopped its
 * turn: it belongs to that turn, not to the next one. Shown once the entry is `late`.
 */
function lateBadge(ctx: Ctx): { el: HTMLElement; set(e: ThreadEntry): void } {
  const el = ctx.h('span', { className: 'late-badge', hidden: true, title: 'The agent sent this after you stopped its turn' }, 'after Stop');
  return { el, set: (e) => { el.hidden = !('late' in e && e.late); } };
}

function userEntry(ctx: Ctx, entry: TextEntry): EntryNode {
  const { h } = ctx;
  const text = h('div', { className: 'user-text' });
  const context = h('div', { className: 'user-context', hidden: true });
  const late = lateBadge(ctx);
  const el = h('div', { className: 'entry user', 'data-entry-id': entry.id });
  // Restore checkpoint and Edit and resend, on hover or focus; their panel under the message.
  const way = messageActions(ctx, el, entry.id);
  // Edit opens the message for editing in place (its words and attachments hidden meanwhile).
  let last: ThreadEntry = entry;
  const editor = messageEditor(ctx, el, entry.id, () => update(last));
  el.append(h('div', { className: 'entry-label' }, h('span', null, 'You'), late.el, way.actions), text, context, editor.panel, way.panel);
  function update(e: ThreadEntry): void {
    last = e;
    late.set(e);
    way.update(e);
    // While the message is edited in place, its box stands where its words were.
    const editing = el.classList.contains('editing');
    // Plain text: the person's own words, shown as typed.
    text.textContent = (e as TextEntry).text;
    text.hidden = editing;
    // What went with the prompt (files, a selection, problems, images), by name.
    const labels = e.kind === 'user' ? (e.context ?? []) : [];
    context.hidden = editing || !labels.length;
    context.replaceChildren(...labels.map((l) => h('span', { className: 'chip', title: l }, h('span', { className: 'chip-label' }, l))));
  }
  update(entry);
  return { el, update };
}

function agentEntry(ctx: Ctx, entry: Extract<ThreadEntry, { kind: 'agent' }>): EntryNode {
  const { h } = ctx;
  const body = new MarkdownView(ctx);
  const attachments = h('div', { className: 'attachments' });
  const late = lateBadge(ctx);
  const el = h('div', { className: 'entry agent', 'data-entry-id': entry.id }, late.el, body.el, attachments);
  let shownAttachments: unknown = null;
  const update = (e: ThreadEntry, appended?: string): void => {
    const a = e as Extract<ThreadEntry, { kind: 'agent' }>;
    late.set(e);
    body.set(a.text, appended);
    if (a.attachments !== shownAttachments) {
      attachments.replaceChildren(...(a.attachments ?? []).map((c, i) => renderContent(ctx, c, `${a.id}:${i}`)));
      shownAttachments = a.attachments;
    }
  };
  update(entry);
  return { el, update, dispose: () => body.dispose() };
}

function thoughtEntry(ctx: Ctx, entry: TextEntry): EntryNode {
  const { h } = ctx;
  const body = new MarkdownView(ctx, 'md thought-body');
  const collapsible = h('vscode-collapsible', { heading: 'Thinking', className: 'thought' }, body.el);
  const late = lateBadge(ctx);
  const el = h('div', { className: 'entry thought-entry', 'data-entry-id': entry.id }, late.el, collapsible);
  let shown: string | null = null;
  // The thought's last characters, kept as it grows (reading the end of a long streamed text
  // copies it whole).
  let last = '';
  const update = (e: ThreadEntry, appended?: string): void => {
    late.set(e);
    const t = (e as TextEntry).text;
    if (t === shown) return;
    const grew = appended !== undefined && shown !== null && t.length === shown.length + appended.length;
    shown = t;
    body.set(t, appended);
    last = grew ? (last + appended).slice(-PEEK_SOURCE_CHARS) : t.slice(-PEEK_SOURCE_CHARS);
    // A peek at the latest thought while collapsed, on hover: the collapsible's own description
    // is drawn at 60 % opacity in its shadow DOM, below the contrast text needs (axe color-contrast).
    const tail = last.replace(/\s+/g, ' ').trim();
    collapsible.setAttribute('title', tail.length > 200 ? '…' + tail.slice(-199) : tail);
  };
  update(entry);
  return { el, update, dispose: () => body.dispose() };
}

/** Entries that never stream: replaced wholesale when the entry patch repeats their id. */
function staticEntry<E extends ThreadEntry>(ctx: Ctx, entry: E, body: (ctx: Ctx, e: E) => HTMLElement): EntryNode {
  const el = ctx.h('div', { className: `entry ${entry.kind}-entry`, 'data-entry-id': entry.id }, body(ctx, entry));
  return { el, update: (e) => el.replaceChildren(body(ctx, e as E)) };
}

const SEVERITY_ICON = { info: 'info', warning: 'warning', error: 'error' } as const;

function noticeBody(ctx: Ctx, e: Extract<ThreadEntry, { kind: 'notice' }>): HTMLElement {
  const { h } = ctx;
  return h(
    'div',
    { className: `notice sev-${e.severity}`, role: e.severity === 'error' ? 'alert' : undefined },
    h('div', { className: 'notice-head' }, icon(h, SEVERITY_ICON[e.severity]), h('span', { className: 'notice-text' }, e.text)),
    e.error ? renderAgentError(ctx, e.error, e.text) : null,
    e.action === 'restartAgent' ? restartButton(ctx) : null,
  );
}

/** Restart Agent, on the notice that offers it (the agent did not answer Stop); the host re-checks it. */
function restartButton(ctx: Ctx): HTMLElement {
  const { h } = ctx;
  const button = h('vscode-button', {
    className: 'restart-agent', icon: 'debug-restart', title: 'End the agent’s process and start a new one for this session',
    onClick: (ev: Event) => {
      const key = ctx.state()?.key;
      const el = ev.currentTarget as HTMLElement;
      if (!key || el.hasAttribute('disabled')) return;
      // One click, one restart: the notice is replaced when the restart begins.
      el.setAttribute('disabled', '');
      ctx.post({ type: 'restartAgent', key });
    },
  }, 'Restart Agent');
  return h('div', { className: 'notice-actions' }, button);
}

/** The details a person needs to fix a launch or connection failure. */
export function renderAgentError(ctx: Ctx, err: AgentErrorView, alreadyShownMessage?: string): HTMLElement {
  const { h } = ctx;
  const rows: [string, string][] = [];
  if (err.commandLine) rows.push(['Command', err.commandLine]);
  if (err.pathUsed) rows.push(['PATH', err.pathUsed]);
  if (err.exitCode !== undefined && err.exitCode !== null) rows.push(['Exit code', String(err.exitCode)]);
  if (err.signal) rows.push(['Signal', err.signal]);
  return h(
    'div',
    { className: 'agent-error' },
    err.message !== alreadyShownMessage ? h('div', { className: 'agent-error-message' }, err.message) : null,
    rows.length
      ? h('dl', { className: 'kv' }, rows.map(([k, v]) => [h('dt', null, k), h('dd', null, h('code', null, v))]))
      : null,
    err.stderrTail?.length
      ? [h('div', { className: 'kv-title' }, 'stderr (last lines)'), h('pre', { className: 'stderr' }, err.stderrTail.join('\n'))]
      : null,
  );
}

function turnEndBody(ctx: Ctx, e: Extract<ThreadEntry, { kind: 'turn_end' }>): HTMLElement {
  const { h } = ctx;
  const d = describeStopReason(e.stopReason);
  // The turn's own tokens (the prompt answer's `usage`), said as such: not the context window.
  const usage = e.usage ? h('span', { className: 'turn-usage', title: 'Tokens this turn used (from the agent\'s answer to the prompt)' }, `· ${turnUsageText(e.usage)}`) : null;
  return h('div', { className: `turn-end tone-${d.tone}`, 'data-stop-reason': e.stopReason }, icon(h, d.icon), h('span', { className: 'turn-end-text' }, d.text), usage);
}

/**
 * The card of an agent's question (ACP `elicitation/create`): the agent's message as plain text,
 * then in form mode the form built from the requested schema (the same builder as the MCP
 * elicitation panel, `webview/shared/schemaForm.ts`) with Accept / Decline / Cancel; in URL mode the
 * whole address as text (never a link: the page cannot open it), the host it leads to, and
 * Open page… / Decline / Cancel — the extension asks the person, naming the host, before it opens
 * anything. The page holds no authority: the extension checks every answer again, and its
 * problems come back as `elicitationProblems` (the card stays, with what was typed).
 */
import type { ElicitationView, ThreadEntry } from '../../src/acp/session/types';
import { buildFields, collect, type Field } from '../shared/schemaForm';
import type { Ctx } from './context';
import type { EntryNode } from './entries';
import { icon } from './dom';

/** The event the app fires on a card's element when the extension refused its answer. */
export const PROBLEMS_EVENT = 'elicitation-problems';
/** After this long without an answer from the extension, the buttons come back. */
const REENABLE_MS = 5000;

type Entry = Extract<ThreadEntry, { kind: 'elicitation' }>;

/** Renders an elicitation entry; its form keeps what was typed until the question stops waiting. */
export function elicitationEntry(ctx: Ctx, entry: Entry): EntryNode {
  const el = ctx.h('div', { className: 'entry elicitation-entry', 'data-entry-id': entry.id });
  let shown: ElicitationView | null = null;
  const update = (e: ThreadEntry): void => {
    const v = (e as Entry).elicitation;
    // A waiting card is not rebuilt while it waits: the fields hold the person's typing.
    if (shown && shown.state === 'waiting' && v.state === 'waiting' && shown.elicitationKey === v.elicitationKey) return;
    shown = v;
    el.replaceChildren(card(ctx, v));
  };
  update(entry);
  return { el, update };
}

function card(ctx: Ctx, v: ElicitationView): HTMLElement {
  const { h } = ctx;
  const agent = ctx.state()?.agentName ?? 'The agent';
  const waiting = v.state === 'waiting';
  const el = h(
    'div',
    { className: `elicitation-card mode-${v.mode}${waiting ? ' waiting' : ' answered'}`, 'data-elicitation-key': v.elicitationKey, 'data-state': v.state, role: 'group', 'aria-label': `Question from ${agent}` },
    h('div', { className: 'elic-head' }, icon(h, v.mode === 'url' ? 'link-external' : 'question'), h('span', { className: 'elic-who' }, `${agent} asks`)),
    // Plain text, whatever the agent wrote: never markup, never a link.
    h('div', { className: 'elic-message' }, v.message),
  );
  if (v.mode === 'url') el.append(urlPart(ctx, v));
  if (waiting) el.append(...waitingPart(ctx, v, el));
  else el.append(resultLine(ctx, v));
  return el;
}

function urlPart(ctx: Ctx, v: ElicitationView): HTMLElement {
  const { h } = ctx;
  return h(
    'div',
    { className: 'elic-url-block' },
    h('div', { className: 'elic-url-label muted' }, 'The page it asks you to open:'),
    h('code', { className: 'elic-url' }, v.url ?? ''),
    v.host ? h('div', { className: 'elic-host' }, 'Leads to ', h('strong', null, v.host)) : null,
    v.refused ? h('div', { className: 'elic-refused' }, icon(h, 'warning'), h('span', null, `Not opened: ${v.refused}`)) : null,
  );
}

function waitingPart(ctx: Ctx, v: ElicitationView, cardEl: HTMLElement): HTMLElement[] {
  const { h } = ctx;
  const key = ctx.state()?.key;
  const fields: Field[] = v.mode === 'form' ? buildFields(ctx.doc, v.requestedSchema ?? {}) : [];
  const problems = h('div', { className: 'elic-problems', role: 'alert', hidden: true });
  const show = (list: string[]): void => {
    problems.hidden = !list.length;
    problems.replaceChildren(...list.map((p) => h('div', { className: 'elic-problem' }, icon(h, 'error'), h('span', null, p))));
  };
  let busy = false;
  const setBusy = (on: boolean): void => {
    busy = on;
    for (const b of Array.from(cardEl.querySelectorAll('.elic-button'))) {
      if (on) b.setAttribute('disabled', '');
      else b.removeAttribute('disabled');
    }
  };
  cardEl.addEventListener(PROBLEMS_EVENT, (ev) => {
    show((ev as CustomEvent<string[]>).detail);
    setBusy(false);
  });
  const send = (action: 'accept' | 'decline' | 'cancel'): void => {
    if (!key || busy) return;
    if (action === 'accept' && v.mode === 'url') {
      setBusy(true);
      ctx.post({ type: 'openElicitationUrl', key, elicitationKey: v.elicitationKey });
    } else if (action === 'accept') {
      const c = collect(fields);
      if ('errors' in c) return show(c.errors);
      show([]);
      setBusy(true);
      ctx.post({ type: 'answerElicitation', key, elicitationKey: v.elicitationKey, action, content: c.args });
    } else {
      setBusy(true);
      ctx.post({ type: 'answerElicitation', key, elicitationKey: v.elicitationKey, action });
    }
    // The extension answers with a patch (or problems); if nothing came, the person may try again.
    ctx.later(() => {
      if (busy) setBusy(false);
    }, REENABLE_MS);
  };
  const button = (action: 'accept' | 'decline' | 'cancel', label: string, secondary: boolean, iconName: string, disabled = false) =>
    h('vscode-button', { className: 'elic-button', 'data-action': action, secondary, icon: iconName, disabled, onClick: (ev: Event) => !(ev.currentTarget as HTMLElement).hasAttribute('disabled') && send(action) }, label);
  const form = v.mode === 'form' ? h('div', { className: 'elic-form' }, fields.map((f) => f.element), fields.length ? null : h('div', { className: 'muted' }, 'The agent asks for no values: Accept answers yes.')) : null;
  const accept = v.mode === 'url' ? button('accept', v.host ? `Open page on ${v.host}…` : 'Open page…', false, 'link-external', !!v.refused) : button('accept', 'Accept', false, 'check');
  return [
    ...(form ? [form] : []),
    problems,
    h('div', { className: 'elic-buttons' }, accept, button('decline', 'Decline', true, 'close'), button('cancel', 'Cancel', true, 'circle-slash')),
  ];
}

function resultLine(ctx: Ctx, v: ElicitationView): HTMLElement {
  const { h } = ctx;
  let text: string;
  let iconName = 'check';
  if (v.state === 'accept') {
    if (v.mode === 'url') text = v.completed ? 'Opened; the agent says it is done' : 'Opened in your browser; waiting for the agent to finish';
    else text = v.fields?.length ? `Answered (${v.fields.join(', ')})` : 'Accepted';
  } else if (v.state === 'decline') {
    text = 'Declined';
    iconName = 'close';
  } else {
    iconName = 'circle-slash';
    text = v.completed ? 'Finished elsewhere; no answer needed' : v.answeredBy === 'agent' ? 'Withdrawn by the agent' : v.answeredBy === 'person' ? 'Cancelled' : 'Cancelled (the turn stopped or the session ended)';
  }
  return h('div', { className: `elic-result state-${v.state}` }, icon(h, iconName), h('span', { className: 'elic-result-text' }, text));
}

/**
 * *Edit* on one of the person's messages opens it for editing where it is, as Cursor and Zed do:
 * its words in a box in place of the message, its attachments named under it, and — when the
 * agent changed files from that message on — "Restore N files first", ticked, so the edit goes out
 * over the files as they were before the message. Send (Enter) posts one `resendMessage`: the
 * extension restores first when asked and, if that is refused, sends nothing and says why; the
 * words then wait in the prompt box. Cancel (Escape) puts the message back as it was.
 *
 * ACP v1 cannot take turns out of an agent's context: the edited message goes out as a new turn at
 * the end of the thread, and the agent still remembers what came after the original — said on the
 * editor, in one line.
 */
import type { HostMessage } from '../../src/views/session/protocol';
import type { Ctx } from './context';
import { icon } from './dom';
import { files } from './messageActions';

type ForEdit = Extract<HostMessage, { type: 'messageForEdit' }>;

/** The event the app fires on a message's element with the extension's `messageForEdit` for it. */
export const MESSAGE_EDIT_EVENT = 'message-edit';

type ValueElement = HTMLElement & { value?: string };

/**
 * The in-place editor of message `entryId` shown in `el` (the message's element): `panel` goes
 * under the message's label; the message's own text and chips are hidden while it is edited (the
 * element's `editing` class) and drawn again by `redraw` when it closes.
 */
export function messageEditor(ctx: Ctx, el: HTMLElement, entryId: string, redraw: () => void): { panel: HTMLElement } {
  const { h } = ctx;
  const panel = h('div', { className: 'msg-editor', hidden: true, role: 'group', 'aria-label': 'Edit this message' });
  let restoreBox: HTMLInputElement | null = null;
  let input: ValueElement | null = null;
  let items: ForEdit['context'] = [];

  const close = (focusEdit = true): void => {
    if (panel.hidden) return;
    panel.hidden = true;
    panel.replaceChildren();
    el.classList.remove('editing');
    redraw();
    if (focusEdit) el.querySelector<HTMLElement>('.edit-message')?.focus();
  };
  const send = (): void => {
    const key = ctx.state()?.key;
    const text = (input?.value ?? '').trim();
    if (!key || !text) return;
    const restore = !!restoreBox?.checked;
    ctx.post({ type: 'resendMessage', key, entryId, text, restore, ...(items.length ? { context: items.map((c) => c.item) } : {}) });
    close(false);
    ctx.focusPrompt?.();
  };

  const open = (m: ForEdit): void => {
    items = m.context;
    el.classList.add('editing');
    redraw();
    input = h('vscode-textarea', { className: 'msg-edit-input', rows: '3', resize: 'vertical', 'aria-label': 'The message, edited', title: 'Enter sends; Shift+Enter starts a new line; Escape cancels' }) as ValueElement;
    input.value = m.text;
    input.setAttribute('value', m.text);
    input.addEventListener('keydown', (ev) => {
      const k = ev as KeyboardEvent;
      if (k.key === 'Escape') {
        k.preventDefault();
        close();
      } else if (k.key === 'Enter' && !k.shiftKey && !k.isComposing) {
        k.preventDefault();
        send();
      }
    });
    restoreBox = null;
    let restoreRow: HTMLElement | null = null;
    if (m.restorable) {
      restoreBox = h('input', { type: 'checkbox', className: 'msg-edit-restore', checked: true }) as HTMLInputElement;
      restoreBox.checked = true;
      restoreRow = h('label', { className: 'msg-edit-restore-row', title: 'Put the files back as they were before this message, then send (files changed since by you or another program are left alone)' },
        restoreBox, h('span', null, `Restore ${files(m.restorable)} to before this message first`));
    }
    panel.replaceChildren(...[
      input,
      m.context.length ? h('div', { className: 'user-context' }, m.context.map((c) => h('span', { className: 'chip', title: c.label }, h('span', { className: 'chip-label' }, c.label)))) : null,
      m.missing.length ? h('div', { className: 'muted' }, `Not attached again (no longer held): ${m.missing.join(', ')}.`) : null,
      restoreRow,
      h('div', { className: 'msg-edit-note muted' }, icon(h, 'info'), h('span', null, 'Sends as a new turn; the agent still remembers what came after this message.')),
      h('div', { className: 'msg-panel-actions' },
        h('vscode-button', { className: 'msg-edit-send', icon: 'send', title: 'Send the edited message (Enter)', onClick: () => send() }, 'Send'),
        h('vscode-button', { className: 'msg-edit-cancel', secondary: true, title: 'Put the message back as it was (Escape)', onClick: () => close() }, 'Cancel')),
    ].filter((x): x is HTMLElement => !!x));
    panel.hidden = false;
    panel.scrollIntoView?.({ block: 'nearest' });
    input.focus();
  };

  el.addEventListener(MESSAGE_EDIT_EVENT, (ev) => open((ev as CustomEvent<ForEdit>).detail));
  return { panel };
}

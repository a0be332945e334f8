/**
 * The way back from one of the person's messages, on the message itself: *Restore* (put the files
 * back as they were before it, undoing that turn's changes and every later turn's) and *Edit* (the
 * message opens for editing where it is, to send again as a new turn: messageEditor.ts). The two buttons sit in
 * the message's label row and show on hover or keyboard focus (messageActions.css), not as
 * permanent clutter.
 *
 * Restore asks first, in the thread: the extension says how many files go back and which are left
 * alone (someone changed them since), and nothing is written until the person confirms that
 * count. The answers arrive as {@link MESSAGE_ACTION_EVENT} on the entry's element.
 */
import { isPersonsPrompt } from '../../src/acp/session/turns';
import type { ThreadEntry } from '../../src/acp/session/types';
import type { HostMessage } from '../../src/views/session/protocol';
import type { Ctx } from './context';
import { icon } from './dom';

/** The event the app fires on a message's element with the extension's answer about its checkpoint. */
export const MESSAGE_ACTION_EVENT = 'message-action';

/** The extension's answers a message's panel shows. */
export type MessageActionAnswer = Extract<HostMessage, { type: 'checkpointPreview' | 'checkpointRestored' }>;

/** File names listed in a confirmation before "and N more". */
const LISTED = 4;

/** `n file(s)`. */
export function files(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`;
}

/** The buttons of a message (for its label row) and the panel under it that confirms and reports. */
export function messageActions(ctx: Ctx, el: HTMLElement, entryId: string): { actions: HTMLElement; panel: HTMLElement; update(e: ThreadEntry): void } {
  const { h } = ctx;
  const panel = h('div', { className: 'msg-panel', hidden: true, role: 'group', 'aria-label': 'Restore checkpoint' });
  const restore = h(
    'button',
    { type: 'button', className: 'msg-action restore-checkpoint', title: 'Restore checkpoint: put the files back as they were before this message', onClick: () => ask() },
    icon(h, 'discard'),
    h('span', null, 'Restore'),
  );
  const edit = h(
    'button',
    { type: 'button', className: 'msg-action edit-message', title: 'Edit this message where it is and send it again as a new turn (with its files restored to before it, if you like)', onClick: () => post('editMessage') },
    icon(h, 'edit'),
    h('span', null, 'Edit'),
  );
  const actions = h('span', { className: 'msg-actions', role: 'group', 'aria-label': 'Message actions' }, restore, edit);

  const post = (type: 'previewCheckpoint' | 'restoreCheckpoint' | 'editMessage'): void => {
    const key = ctx.state()?.key;
    if (key) ctx.post({ type, key, entryId });
  };
  const close = (): void => {
    panel.hidden = true;
    panel.replaceChildren();
    el.classList.remove('actions-open');
  };
  const show = (...children: (HTMLElement | null)[]): void => {
    panel.replaceChildren(...children.filter((c): c is HTMLElement => !!c));
    panel.hidden = false;
    el.classList.add('actions-open');
    // In view, also when the message is near the top of a long thread (a move up stops the thread following the bottom).
    panel.scrollIntoView?.({ block: 'nearest' });
  };
  const line = (text: string, className = 'muted'): HTMLElement => h('div', { className }, text);
  const closeButton = (label = 'Close'): HTMLElement => h('vscode-button', { className: 'msg-close', secondary: true, onClick: () => {
    close();
    restore.focus();
  } }, label);
  const ask = (): void => {
    show(line('Looking at the files changed since this message…'));
    post('previewCheckpoint');
  };
  const confirm = (m: Extract<MessageActionAnswer, { type: 'checkpointPreview' }>): void => {
    if (m.refused) return show(line(`Not restored: ${m.refused}`, 'msg-panel-title'), bar(closeButton()));
    const goBack = m.files.filter((f) => !f.leftAlone);
    const alone = m.files.filter((f) => f.leftAlone);
    const aloneLine = alone.length ? line(`Left alone: ${alone.map((f) => `${f.name} (${f.leftAlone})`).join('; ')}.`) : null;
    if (!goBack.length) {
      const why = m.files.length ? 'every file changed since then was changed again by someone else.' : 'no file the agent changed from this message on is still changed.';
      return show(line(`Nothing to restore: ${why}`, 'msg-panel-title'), aloneLine, bar(closeButton()));
    }
    const names = goBack.slice(0, LISTED).map((f) => f.name).join(', ') + (goBack.length > LISTED ? `, and ${goBack.length - LISTED} more` : '');
    const go = h('vscode-button', { className: 'msg-confirm', onClick: () => {
      show(line(`Restoring ${files(goBack.length)}…`));
      post('restoreCheckpoint');
    } }, `Restore ${files(goBack.length)}`);
    show(
      line(`Restore ${files(goBack.length)} to before this message?`, 'msg-panel-title'),
      line(names, 'msg-files'),
      line(`${m.laterTurns ? `Undoes this turn and ${m.laterTurns === 1 ? 'the one' : `the ${m.laterTurns}`} after it. ` : 'Undoes this turn\'s changes. '}Files only: the conversation stays, and the agent still remembers it.`),
      aloneLine,
      bar(go, closeButton('Cancel')),
    );
    go.focus();
  };
  const report = (m: Extract<MessageActionAnswer, { type: 'checkpointRestored' }>): void => {
    if (m.refused) return show(line(`Not restored: ${m.refused}`, 'msg-panel-title'), bar(closeButton()));
    show(
      h('div', { className: 'msg-panel-title', role: 'status' }, icon(h, 'check'), ` Restored ${files(m.restored.length)}${m.restored.length ? `: ${m.restored.join(', ')}` : ''}.`),
      m.skipped.length ? line(`Left alone: ${m.skipped.map((s) => `${s.name} (${s.why})`).join('; ')}.`, 'msg-left-alone') : null,
      bar(closeButton()),
    );
  };
  el.addEventListener(MESSAGE_ACTION_EVENT, (ev) => {
    const m = (ev as CustomEvent<MessageActionAnswer>).detail;
    if (m.type === 'checkpointPreview') confirm(m);
    else report(m);
  });
  panel.addEventListener('keydown', (ev) => {
    if ((ev as KeyboardEvent).key !== 'Escape') return;
    close();
    restore.focus();
  });
  const bar = (...buttons: HTMLElement[]): HTMLElement => h('div', { className: 'msg-panel-actions' }, ...buttons);
  return {
    actions,
    panel,
    // Only the person's own prompt started a turn whose files were followed: a replayed or
    // agent-sent message can be edited, not restored to.
    update: (e) => void (restore.hidden = !isPersonsPrompt(e)),
  };
}

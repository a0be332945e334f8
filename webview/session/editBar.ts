/**
 * The line above the prompt box while an earlier message is being edited (*Edit and resend*): it
 * says that sending starts a new turn and that the agent still remembers what came after the
 * message (ACP cannot take turns back out of an agent's context), offers to restore the files to
 * before that message first — the button names how many — and takes the edit back (×), which puts
 * back what the box held before.
 */
import type { HostMessage } from '../../src/views/session/protocol';
import type { Ctx } from './context';
import { icon } from './dom';
import { files } from './messageActions';

type ForEdit = Extract<HostMessage, { type: 'messageForEdit' }>;
type Restored = Extract<HostMessage, { type: 'checkpointRestored' }>;

export class EditBar {
  readonly el: HTMLElement;
  private readonly note: HTMLElement;
  private readonly extra: HTMLElement;
  /** The message being edited, or null. */
  private entryId: string | null = null;

  /** @param onCancel called when the person takes the edit back (×). */
  constructor(private readonly ctx: Ctx, onCancel: () => void) {
    const { h } = ctx;
    this.note = h('span', { className: 'edit-note' });
    this.extra = h('div', { className: 'edit-extra' });
    const cancel = h('button', { type: 'button', className: 'icon-button edit-cancel', title: 'Stop editing: put back what the box held before', 'aria-label': 'Stop editing', onClick: () => onCancel() }, icon(h, 'close'));
    this.el = h('div', { className: 'edit-bar', hidden: true, role: 'group', 'aria-label': 'Editing an earlier message' },
      h('div', { className: 'edit-head' }, icon(h, 'edit'), this.note, cancel), this.extra);
  }

  /** Shows the bar for message `m`. */
  show(m: ForEdit): void {
    const { h } = this.ctx;
    this.entryId = m.entryId;
    this.el.hidden = false;
    this.note.textContent = 'Editing an earlier message: sending starts a new turn, and the agent still remembers what came after it.';
    const restore = m.restorable
      ? h('vscode-button', { className: 'edit-restore', secondary: true, icon: 'discard', title: 'Put the files back as they were before that message (files changed since by you or another program are left alone)', onClick: (ev: Event) => {
        const key = this.ctx.state()?.key;
        const el = ev.currentTarget as HTMLElement;
        if (!key || el.hasAttribute('disabled')) return;
        el.setAttribute('disabled', '');
        this.ctx.post({ type: 'restoreCheckpoint', key, entryId: m.entryId });
      } }, `Restore ${files(m.restorable)} first`)
      : null;
    const missing = m.missing.length ? h('div', { className: 'muted' }, `Not attached again (no longer held): ${m.missing.join(', ')}. Attach again if needed.`) : null;
    this.extra.replaceChildren(...[restore, missing].filter((x): x is HTMLElement => !!x));
  }

  /** A restore finished: for the message being edited, says how it went in place of its button. */
  restored(m: Restored): void {
    if (m.entryId !== this.entryId) return;
    const { h } = this.ctx;
    const said = m.refused ? `Not restored: ${m.refused}` : `Restored ${files(m.restored.length)}.${m.skipped.length ? ` Left alone: ${m.skipped.map((s) => `${s.name} (${s.why})`).join('; ')}.` : ''}`;
    this.extra.replaceChildren(h('div', { className: 'edit-restored', role: 'status' }, said));
  }

  hide(): void {
    this.entryId = null;
    this.el.hidden = true;
    this.extra.replaceChildren();
  }

  /** True while a message is being edited. */
  get editing(): boolean {
    return this.entryId !== null;
  }
}

/**
 * Tells the extension which waiting permission card holds the focus, so the keyboard's approve and
 * reject answer that card and not another one (`src/views/permissionTarget.ts`). The page reports a
 * change only: when the focus moves into or out of a waiting card, when the card it is in stops
 * waiting or starts to, and when another session is shown. A card counts while the focus is on it
 * or on anything inside it (a button, a link, its details).
 */
import type { SessionState } from '../../src/acp/session/types';
import type { Ctx } from './context';

/** The waiting permission of the tool card that holds `active`, if any. */
export function focusedPermission(active: Element | null, state: SessionState | null): string | null {
  const entry = active?.closest?.('[data-tool-call-id]');
  const toolCallId = entry?.getAttribute('data-tool-call-id');
  const permissionId = toolCallId ? state?.toolCalls[toolCallId]?.permissionId : undefined;
  return permissionId && state?.permissions[permissionId]?.state === 'waiting' ? permissionId : null;
}

/** True when `el` or something inside it holds the focus of its document. */
export function holdsFocus(el: Element | null): boolean {
  const active = el?.ownerDocument.activeElement;
  return !!el && !!active && (el === active || el.contains(active));
}

/**
 * Gives `card` the focus again after it was rebuilt, when the card it replaces held it (`had`):
 * otherwise an update of the card the person pointed at would drop the focus to the page, and the
 * key would no longer answer it.
 */
export function keepFocus(card: HTMLElement | null, had: boolean): void {
  if (!had || !card || holdsFocus(card)) return;
  card.setAttribute('tabindex', '-1');
  card.focus({ preventScroll: true });
}

/** Watches the focus in the page's root and posts `cardFocus` when the focused waiting card changes. */
export class CardFocusReporter {
  /** What was last posted: session key and card (undefined before the first post). */
  private sent: { key: string; permissionId: string | null } | undefined;
  private cancel: (() => void) | undefined;

  constructor(private readonly ctx: Ctx, root: HTMLElement) {
    // `focusout` comes before the next `focusin`: look once the focus has landed.
    root.addEventListener('focusin', () => this.soon());
    root.addEventListener('focusout', () => this.soon());
  }

  /** Looks again once the current event or render is over (the cards may have been rebuilt). */
  soon(): void {
    this.cancel?.();
    this.cancel = this.ctx.later(() => this.check(), 0);
  }

  /** Posts the focused waiting card when it is not what was posted last. */
  check(): void {
    this.cancel = undefined;
    const state = this.ctx.state();
    if (!state) return;
    const permissionId = focusedPermission(this.ctx.doc.activeElement, state);
    if (this.sent?.key === state.key && this.sent.permissionId === permissionId) return;
    // Another session is shown: the card reported for the one before no longer holds the focus.
    if (this.sent && this.sent.key !== state.key && this.sent.permissionId !== null) this.ctx.post({ type: 'cardFocus', key: this.sent.key, permissionId: null });
    // Nothing to clear for a session this page never reported a card of.
    if (permissionId === null && this.sent?.key !== state.key) {
      this.sent = undefined;
      return;
    }
    this.sent = { key: state.key, permissionId };
    this.ctx.post({ type: 'cardFocus', key: state.key, permissionId });
  }
}

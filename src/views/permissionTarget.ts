/**
 * Which permission card the keyboard's approve / reject answers (`permissionKeys.ts`). Several
 * cards can wait at once, in one session or in several; the key must answer the one the person
 * means, and never one they cannot tell apart from another:
 *
 * 1. the card that has the focus in a session page that is in view (the page reports it, see
 *    `webview/session/cardFocus.ts`);
 * 2. else, when the session in view (or the one a Sessions board row names) has exactly one waiting
 *    card, that one: there is no other it could be taken for;
 * 3. else the key says which card it would answer (the oldest waiting one of that session, or of any
 *    session when none in view has one) and answers only after the person agrees.
 *
 * Pure: no `vscode`.
 */
import type { PermissionView } from '../acp/session/types';

/** What the picker needs of a session. */
export interface KeySession {
  readonly state: { readonly key: string; readonly permissions: Readonly<Record<string, PermissionView>> };
}

/** The card a session page reports as holding the focus. */
export interface FocusedCardRef {
  key: string;
  permissionId: string;
}

/** What the key does: answer a card at once, answer it once the person agreed (`why` says why it asks), or nothing. */
export type KeyTarget =
  | { kind: 'answer'; key: string; permissionId: string; by: 'focus' | 'only' }
  | { kind: 'confirm'; key: string; permissionId: string; why: string }
  | { kind: 'none' };

/** The waiting requests of `s`, oldest first. */
export function waitingOf(s: KeySession): PermissionView[] {
  return Object.values(s.state.permissions).filter((p) => p.state === 'waiting').sort((x, y) => x.requestedAt - y.requestedAt);
}

/**
 * The card the key answers (see the module's comment).
 * @param named the session a Sessions board row names (its inline button): only its cards count.
 * @param inView the sessions shown in a page that can be seen now (the sidebar, editor tabs).
 * @param focused the card the session pages last reported as holding the focus.
 */
export function keyTarget(sessions: readonly KeySession[], opts: { named?: string; inView: readonly string[]; focused?: FocusedCardRef }): KeyTarget {
  const { named, inView, focused } = opts;
  const byKey = (k: string | undefined) => (k === undefined ? undefined : sessions.find((s) => s.state.key === k));
  // A row names its session: that one only, never another session's request.
  const pool = named !== undefined ? [byKey(named)].filter((s): s is KeySession => !!s) : sessions;
  // The card the person had focused is gone (answered, withdrawn): the one now waiting is not the
  // one they were looking at, so the key asks rather than answering it.
  let focusGone = false;
  if (focused && (named === undefined ? inView.includes(focused.key) : named === focused.key)) {
    const p = byKey(focused.key)?.state.permissions[focused.permissionId];
    if (p?.state === 'waiting' && pool.some((s) => s.state.key === focused.key)) return { kind: 'answer', key: focused.key, permissionId: p.permissionId, by: 'focus' };
    focusGone = true;
  }
  const shown = named !== undefined ? pool : inView.map(byKey).filter((s): s is KeySession => !!s && waitingOf(s).length > 0);
  const session = shown.find((s) => waitingOf(s).length > 0) ?? pool.find((s) => waitingOf(s).length > 0);
  if (!session) return { kind: 'none' };
  const waiting = waitingOf(session);
  const visible = shown.includes(session);
  // Two pages in view with waiting cards: which one the person looks at is not known.
  const alone = named !== undefined || shown.length === 1;
  if (visible && alone && waiting.length === 1 && !focusGone) return { kind: 'answer', key: session.state.key, permissionId: waiting[0].permissionId, by: 'only' };
  const why = focusGone
    ? 'The card that had the focus is no longer waiting; this is another request.'
    : !visible
    ? 'The session of this request is not in view.'
    : !alone
      ? 'More than one session in view has a request waiting, and no card has the focus.'
      : `${waiting.length} requests wait in this session and no card has the focus (Next Card / Previous Card move it).`;
  return { kind: 'confirm', key: session.state.key, permissionId: waiting[0].permissionId, why };
}

/**
 * The card each session page reports as holding the focus; the key answers the last one reported.
 * A page that reports no card clears its own session's report (another session's page keeps its own).
 */
export class FocusedCards {
  private last: FocusedCardRef | undefined;

  /** Page of session `key` reports the card with the focus (`null`: none of its cards). */
  report(key: string, permissionId: string | null): void {
    if (permissionId !== null) this.last = { key, permissionId };
    else if (this.last?.key === key) this.last = undefined;
  }

  /** The card last reported as holding the focus, if any. */
  get(): FocusedCardRef | undefined {
    return this.last;
  }
}

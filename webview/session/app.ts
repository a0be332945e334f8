/**
 * The session sidebar app: receives the snapshot and patches from the extension, keeps the same
 * {@link SessionState} as the extension by applying patches with the shared `applyPatch`, and keeps
 * the DOM in step, batching DOM work into one animation frame.
 *
 * Lifecycle (ARCHITECTURE.md habit 6): post `ready` → `snapshot` → `patches`. A `patches` message
 * whose `rev` does not follow the local state's is ignored and a `requestSnapshot` is posted once.
 * The last applied state is saved with the host's `setState`, so a reloaded webview paints at once.
 *
 * No `acquireVsCodeApi`, no custom-element registration: both live in `main.ts`, so this class runs
 * in a plain test DOM with a fake {@link HostPort}.
 */
import { applyPatch } from '../../src/acp/session/patch';
import { mergeEarlier, windowState } from '../../src/acp/session/window';
import type { SessionPatch, SessionState } from '../../src/acp/session/types';
import type { AgentChoice, HostMessage, SessionSummary } from '../../src/views/session/protocol';
import { ComposerView } from './composer';
import type { Ctx } from './context';
import { icon, makeH } from './dom';
import { EmptyStateView } from './empty';
import { renderAgentError } from './entries';
import { HeaderView } from './header';
import type { HostPort } from './host';
import { createMarkdownRenderer } from './markdown';
import { PlanView } from './plan';
import { FrameScheduler, type FrameRequester } from './scheduler';
import { ThreadView } from './thread';
import { PROBLEMS_EVENT } from './elicitationCard';
import { CardFocusReporter } from './cardFocus';
import { MESSAGE_ACTION_EVENT } from './messageActions';
import { MESSAGE_EDIT_EVENT } from './messageEditor';
import { TurnChangesView } from './turnChanges';

type Snapshot = Extract<HostMessage, { type: 'snapshot' }>;

/** What the app saves in the webview state. */
export interface PersistedState {
  v: 1;
  snapshot?: Snapshot;
  draft?: string;
}

export interface AppOptions {
  /** Defaults to the window's `requestAnimationFrame`; tests pass a manual one. */
  requestFrame?: FrameRequester;
  /** Delay before saving state after patches (ms); the snapshot itself is saved at once. */
  persistDelayMs?: number;
}

export class SessionApp {
  private state: SessionState | null = null;
  private agents: AgentChoice[] = [];
  private sessions: SessionSummary[] = [];
  private workspaceTrusted = true;
  private hasWorkspace = true;
  private awaitingSnapshot = false;
  /** The extension host's clock as of its last `clock` message (see silence.ts). */
  private hostNow: number | undefined;
  private draft = '';
  private persistTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the first change not saved yet was made (ms since the epoch). */
  private unsavedSince = 0;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  /** Set once disposed: a frame callback that comes after schedules nothing. */
  private disposed = false;

  private readonly ctx: Ctx;
  private readonly win: Window;
  private readonly scheduler: FrameScheduler;
  private readonly header: HeaderView;
  private readonly thread: ThreadView;
  /** The end-of-turn rows ("3 files changed · Review · Keep all · Undo all"), placed in the thread. */
  private readonly turnChanges: TurnChangesView;
  private readonly empty: EmptyStateView;
  private readonly plan: PlanView;
  private readonly composer: ComposerView;
  private readonly banner: HTMLElement;
  private dirty = { header: false, composer: false, plan: false, banner: false };
  /** Tells the extension which waiting card holds the focus (the keyboard's approve answers it). */
  private readonly cardFocus: CardFocusReporter;
  /** A card or its permission changed since the last frame: the focused waiting card may have too. */
  private cardsChanged = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly root: HTMLElement, private readonly host: HostPort, private readonly opts: AppOptions = {}) {
    const doc = root.ownerDocument;
    this.win = doc.defaultView as Window;
    const requestFrame = opts.requestFrame ?? ((cb: () => void) => this.win.requestAnimationFrame(() => cb()));
    this.ctx = {
      doc,
      h: makeH(doc),
      md: createMarkdownRenderer(this.win),
      post: (msg) => this.host.postMessage(msg),
      state: () => this.state,
      hostNow: () => this.hostNow,
      focusPrompt: () => this.composer?.focus(),
      later: (fn, ms) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          fn();
        }, ms);
        this.timers.add(t);
        return () => {
          clearTimeout(t);
          this.timers.delete(t);
        };
      },
      afterPaint: (fn) => {
        // A frame callback runs before the frame is painted; a task queued from it runs after.
        let cancel: (() => void) | undefined;
        let cancelled = false;
        requestFrame(() => {
          if (!cancelled && !this.disposed) cancel = this.ctx.later(fn, 0);
        });
        return () => {
          cancelled = true;
          cancel?.();
        };
      },
    };
    const { h } = this.ctx;
    this.scheduler = new FrameScheduler(() => this.render(), requestFrame);
    this.header = new HeaderView(this.ctx, () => this.renderStart());
    this.thread = new ThreadView(this.ctx);
    this.turnChanges = new TurnChangesView(this.ctx, this.thread.listElement, (id) => this.thread.entryElement(id));
    this.thread.onLayout = () => this.turnChanges.place();
    this.empty = new EmptyStateView(this.ctx, () => this.header.start());
    this.plan = new PlanView(this.ctx);
    this.banner = h('div', { className: 'error-banner', hidden: true, role: 'alert' });
    this.composer = new ComposerView(this.ctx, (text) => {
      this.draft = text;
      // A sent (cleared) draft is saved at once, or a reload within the delay would bring it back.
      if (text === '') this.persist();
      else this.persistSoon();
    });
    // Before any session, the box is there to type into: Enter starts a session with the agent
    // picked above (in a folder, with an agent that can start).
    this.composer.starter = () => (this.hasWorkspace ? this.header.selectedAgent() : undefined);
    // The plan is part of the thread (its first child, pinned at the top): one scroller.
    this.thread.el.prepend(this.plan.el);
    root.classList.add('session-app');
    root.replaceChildren(
      this.header.el,
      h('main', { className: 'body' }, this.empty.el, this.thread.el, this.thread.jumpButton),
      this.banner,
      this.composer.el,
    );
    // Links in agent markdown must never navigate the webview (they carry no href; this is a backstop).
    root.addEventListener('click', (ev) => {
      const a = (ev.target as Element | null)?.closest?.('a');
      if (a) ev.preventDefault();
    });
    this.cardFocus = new CardFocusReporter(this.ctx, root);
    // The view taking focus (a click on its title, "Focus the Session", its keybinding) puts the
    // caret in the prompt box unless something inside the page already holds the focus.
    doc.defaultView?.addEventListener('focus', () => {
      const active = doc.activeElement;
      if (!active || active === doc.body) this.composer.focus();
    });
  }

  /** Paints the saved state, subscribes to the host and posts `ready`. */
  start(): void {
    const saved = this.host.getState<PersistedState>();
    if (saved?.v === 1) {
      this.draft = saved.draft ?? '';
      if (this.draft) this.composer.setDraft(this.draft);
      if (saved.snapshot) this.applySnapshot(saved.snapshot, false);
    }
    if (!saved?.snapshot) this.renderShell();
    this.unsubscribe = this.host.onMessage((msg) => this.handle(msg));
    this.host.postMessage({ type: 'ready' });
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe?.();
    if (this.persistTimer !== undefined) clearTimeout(this.persistTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.thread.disposeNodes();
  }

  /** Handles one message from the extension. */
  handle(msg: HostMessage): void {
    switch (msg.type) {
      case 'snapshot':
        this.applySnapshot(msg, true);
        break;
      case 'patches':
        this.applyPatches(msg.key, msg.fromRev ?? msg.rev - msg.patches.length, msg.rev, msg.patches);
        break;
      case 'sessions':
        this.sessions = msg.sessions;
        this.dirty.header = true;
        this.scheduler.schedule();
        break;
      case 'agents':
        this.agents = msg.agents;
        this.dirty.header = true;
        this.scheduler.schedule();
        break;
      case 'mentionResults':
        this.composer.mentionResults(msg.requestId, msg.items);
        break;
      case 'contextItem':
        this.composer.addAttachment(msg.item, msg.label);
        break;
      case 'promptRefused':
        this.composer.restore(msg.text, msg.reason);
        break;
      case 'keyCommand':
        if (msg.command === 'send') this.composer.sendFromKey();
        else this.moveCard(msg.command === 'nextCard' ? 1 : -1);
        break;
      case 'earlierEntries':
        this.applyEarlier(msg);
        break;
      case 'elicitationProblems': {
        // The card of that question says why its answer was not sent; it keeps what was typed.
        if (msg.key !== this.state?.key) break;
        const card = Array.from(this.root.querySelectorAll<HTMLElement>('.elicitation-card')).find((c) => c.getAttribute('data-elicitation-key') === msg.elicitationKey);
        // The document's own CustomEvent (the page runs in a webview, tests in a DOM of their own).
        const Custom = card?.ownerDocument.defaultView?.CustomEvent;
        if (card && Custom) card.dispatchEvent(new Custom(PROBLEMS_EVENT, { detail: msg.problems }));
        break;
      }
      case 'turnChanges':
        this.turnChanges.update(msg);
        break;
      case 'clock':
        this.hostNow = msg.now;
        this.thread.refreshSilence();
        break;
      case 'checkpointPreview':
      case 'checkpointRestored': {
        // The message it is about shows the answer under it.
        if (msg.key !== this.state?.key) break;
        const el = this.thread.entryElement(msg.entryId);
        const Custom = el?.ownerDocument.defaultView?.CustomEvent;
        if (el && Custom) el.dispatchEvent(new Custom(MESSAGE_ACTION_EVENT, { detail: msg }));
        break;
      }
      case 'messageForEdit': {
        // The message opens for editing where it is.
        if (msg.key !== this.state?.key) break;
        const el = this.thread.entryElement(msg.entryId);
        const Custom = el?.ownerDocument.defaultView?.CustomEvent;
        if (el && Custom) el.dispatchEvent(new Custom(MESSAGE_EDIT_EVENT, { detail: msg }));
        break;
      }
    }
  }

  /**
   * Moves the focus to the next (`1`) or previous (`-1`) tool or permission card of the thread,
   * from the card that holds the focus (or, with none, from the newest end), and scrolls it into view.
   */
  private lastCard: HTMLElement | null = null;

  private moveCard(step: 1 | -1): void {
    const cards = Array.from(this.root.querySelectorAll<HTMLElement>('.tool-card'));
    if (!cards.length) return;
    const active = this.root.ownerDocument.activeElement;
    let at = cards.findIndex((c) => c === active || (!!active && c.contains(active)));
    // Revealing the view for the key may have moved the focus to the prompt box: go on from the
    // card the last key focused.
    if (at < 0 && this.lastCard) at = cards.indexOf(this.lastCard);
    const next = at < 0 ? cards.length - 1 : Math.min(cards.length - 1, Math.max(0, at + step));
    const card = cards[next];
    if (!card.hasAttribute('tabindex')) card.setAttribute('tabindex', '-1');
    card.focus();
    this.lastCard = card;
    card.scrollIntoView?.({ block: 'nearest' });
  }

  /** Runs pending DOM work now instead of at the next frame (tests; before a snapshot). */
  flush(): void {
    this.scheduler.flush();
  }

  /** The state the UI shows (read-only use: tests, debugging). */
  get currentState(): SessionState | null {
    return this.state;
  }

  /** The DOM node of a thread entry, for tests. */
  entryElement(id: string): HTMLElement | undefined {
    return this.thread.entryElement(id);
  }

  private applySnapshot(msg: Snapshot, persist: boolean): void {
    // Saved first: `applyPatch` later mutates `msg.current` in place, and setState serialises now.
    if (persist) this.persist(msg);
    const sameSession = !!this.state && this.state.key === msg.current?.key;
    // Another session's rows name its entries: they go before its thread is built (the extension sends the new ones).
    if (!sameSession) this.turnChanges.clear();
    this.state = msg.current;
    this.agents = msg.agents;
    this.sessions = msg.sessions;
    this.workspaceTrusted = msg.workspaceTrusted;
    this.hasWorkspace = msg.hasWorkspace;
    this.awaitingSnapshot = false;
    // `reset` drops pending marks (the snapshot supersedes them). Paint synchronously so a reload is instant.
    this.thread.el.hidden = !this.state;
    if (!sameSession) this.thread.scrollToBottom();
    this.thread.reset(msg.omittedEntries ?? 0);
    this.renderShell();
    this.cardFocus.soon();
  }

  /** Puts a page of earlier entries in front of the thread; a page that no longer fits asks for a snapshot. */
  private applyEarlier(msg: Extract<HostMessage, { type: 'earlierEntries' }>): void {
    const state = this.state;
    if (!state || state.key !== msg.key) return;
    // The extension no longer has the entry the page was asked before: our view is stale.
    if (!msg.page) {
      this.awaitingSnapshot = true;
      this.host.postMessage({ type: 'requestSnapshot' });
      return;
    }
    // A reply to a request a snapshot has overtaken: the thread was rebuilt and asks again if needed.
    if (!mergeEarlier(state, msg.beforeEntryId, msg.page)) return;
    this.thread.earlierArrived(msg.page.entries.length, msg.page.omitted);
    this.persistSoon();
  }

  private applyPatches(key: string, fromRev: number, rev: number, patches: SessionPatch[]): void {
    const state = this.state;
    if (!state || state.key !== key || this.awaitingSnapshot) return;
    // The extension may merge a batch's patches (patchesForPage): it says where the batch starts.
    if (fromRev !== state.rev) {
      // A gap (or a replay): our state is not the extension's any more. Ask once, ignore until then.
      this.awaitingSnapshot = true;
      this.host.postMessage({ type: 'requestSnapshot' });
      return;
    }
    for (const p of patches) {
      applyPatch(state, p);
      this.mark(p);
    }
    state.rev = rev;
    this.scheduler.schedule();
    this.persistSoon();
  }

  private mark(p: SessionPatch): void {
    switch (p.op) {
      case 'entry':
        this.thread.markEntry(p.entry.id);
        break;
      case 'appendText':
        this.thread.markAppend(p.entryId, p.text);
        break;
      case 'toolCall':
        this.thread.markToolCall(p.toolCall.toolCallId);
        this.cardsChanged = true;
        break;
      case 'permission':
        this.thread.markToolCall(p.permission.toolCallId);
        this.dirty.header = this.dirty.composer = true;
        this.cardsChanged = true;
        break;
      case 'terminal':
        this.thread.markTerminal(p.terminal.terminalId);
        break;
      case 'plan':
        this.dirty.plan = true;
        break;
      case 'meta':
        this.dirty.header = this.dirty.composer = this.dirty.banner = true;
        break;
    }
  }

  /** The frame's work: only what was marked dirty. */
  private render(): void {
    this.thread.flush();
    if (this.cardsChanged) {
      this.cardsChanged = false;
      this.cardFocus.soon();
    }
    if (this.dirty.plan) this.plan.update();
    if (this.dirty.header) {
      this.header.update(this.agents, this.sessions);
      if (!this.state) this.renderEmpty();
    }
    if (this.dirty.composer) this.composer.update();
    if (this.dirty.banner) this.updateBanner();
    this.dirty = { header: false, composer: false, plan: false, banner: false };
  }

  /** Everything but the thread, after a snapshot or on start. */
  private renderShell(): void {
    this.header.update(this.agents, this.sessions);
    this.renderStart();
    this.thread.el.hidden = !this.state;
    this.plan.update();
    this.updateBanner();
    this.root.classList.toggle('has-session', !!this.state);
  }

  /** The empty state and the prompt box, which before any session starts one (the agent picked). */
  private renderStart(): void {
    this.renderEmpty();
    this.composer.update();
    this.composer.el.hidden = !this.state && !this.composer.starter?.();
  }

  private renderEmpty(): void {
    this.empty.el.hidden = !!this.state;
    if (this.state) return;
    this.empty.update({ hasWorkspace: this.hasWorkspace, workspaceTrusted: this.workspaceTrusted, agent: this.header.selectedAgent(), anyAgents: this.agents.length > 0 });
  }

  /** A launch error with no notice entry carrying it (the notice shows the details otherwise). */
  private updateBanner(): void {
    const s = this.state;
    const err = s?.status === 'error' ? s.error : undefined;
    const shownInThread = !!s && s.entries.some((e) => e.kind === 'notice' && e.error);
    this.banner.hidden = !err || shownInThread;
    if (err && !shownInThread) {
      const { h } = this.ctx;
      this.banner.replaceChildren(h('div', { className: 'notice-head' }, icon(h, 'error'), h('span', null, err.message)), renderAgentError(this.ctx, err, err.message));
    } else {
      this.banner.replaceChildren();
    }
  }

  /** The state as saved: a window again, however many earlier pages were fetched since. */
  private savedWindow(state: SessionState): { current: SessionState; omittedEntries: number } {
    const w = windowState(state);
    return { current: w.state, omittedEntries: w.omitted + this.thread.omitted };
  }

  private persist(snapshot?: Snapshot): void {
    const prev = this.host.getState<PersistedState>();
    const snap = snapshot ?? (prev?.snapshot && this.state
      ? { ...prev.snapshot, agents: this.agents, sessions: this.sessions, ...this.savedWindow(this.state) }
      : prev?.snapshot);
    this.host.setState<PersistedState>({ v: 1, snapshot: snap, draft: this.draft });
  }

  /**
   * Saves the state once patches have been quiet for the persist delay, and at the latest ten
   * delays after the first change not saved. Saving clones the whole window (a long streamed message
   * whole) for the host: once a second while 200,000 chunks streamed it was a twentieth of the page's
   * work, for a copy that is only read if the webview is reloaded (and then replaced by the
   * extension's snapshot).
   */
  private persistSoon(): void {
    const delay = this.opts.persistDelayMs ?? 1000;
    const now = Date.now();
    if (this.persistTimer !== undefined) {
      if (now - this.unsavedSince >= 9 * delay) return;
      clearTimeout(this.persistTimer);
    } else this.unsavedSince = now;
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      this.persist();
    }, delay);
  }
}

/**
 * The thread: one DOM node per entry, kept across patches and updated in place.
 *
 * Patches only mark entries, tool calls and terminals dirty; {@link ThreadView.flush} (once per
 * animation frame) re-renders exactly those. A streamed chunk therefore re-renders one message's
 * markdown per frame however many chunks arrived, and a tool-call upsert rebuilds one card.
 */
import { findEntryIndex } from '../../src/acp/session/patch';
import { SNAPSHOT_ENTRIES } from '../../src/acp/session/window';
import type { ThreadEntry } from '../../src/acp/session/types';
import type { Ctx } from './context';
import { icon } from './dom';
import { type EntryNode, renderTextEntry } from './entries';
import { ToolCardNode } from './toolCard';

type Node_ = { kind: ThreadEntry['kind']; node: EntryNode | ToolCardNode };

/** Distance from the bottom (px) within which the thread counts as "at the bottom". */
const STICK_SLACK = 32;
/** Keys that scroll the thread when it has the focus. */
const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End', 'ArrowUp', 'ArrowDown', ' ']);
/**
 * Entries a snapshot renders at first (the newest); earlier ones come in pages of this size when
 * asked for: from the page's own state, then from the extension, which sends only the newest
 * entries in a snapshot (acp/session/window.ts). A restored session of 20,000 entries paints as
 * fast as one of 300.
 */
export const PAGE_ENTRIES = SNAPSHOT_ENTRIES;
/**
 * Entries the first frame of a snapshot builds (more than a tall window shows); the rest of the
 * newest page is built after that frame is painted, {@link FILL_ENTRIES} per task, so the first
 * paint costs the same for any session (PF2 in bench/session.ts) and a replayed session shows its
 * end sooner (PF9).
 */
export const FIRST_PAINT_ENTRIES = 50;
/** Entries each task after the first paint adds in front, until the newest page is built. */
export const FILL_ENTRIES = 100;

export class ThreadView {
  /** The scroll container (`role=log`, `aria-live=polite`). */
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly jump: HTMLElement;
  private readonly nodes = new Map<string, Node_>();
  private readonly cards = new Map<string, Set<ToolCardNode>>();
  private readonly dirtyEntries = new Set<string>();
  /**
   * What was appended to each dirty entry's text since the last flush, in order; null once anything
   * else changed it (a replaced entry). A streamed message is then shown from its new part alone.
   */
  private readonly appended = new Map<string, string[] | null>();
  private readonly dirtyToolCalls = new Set<string>();
  private readonly dirtyTerminals = new Set<string>();
  /** Whether to follow new output: true while the person is at the bottom. */
  private stick = true;
  /** The waiting card the thread last stopped at (its entry id), so it stops there once. */
  private anchored: string | null = null;
  /** Where the thread stopped for that card (scrollTop, px). */
  private anchorTop = 0;
  /** The person moved the thread (wheel, touch, keys, a click) since the waiting card appeared. */
  private anchorLeft = false;
  /** The waiting card last seen (its entry id), so a new one is kept in view afresh. */
  private waitingSeen: string | null = null;
  /** Index of the first entry rendered; the ones before it wait behind the "earlier" button. */
  private firstShown = 0;
  /** Entries the extension holds before the page's first one (not sent in the snapshot). */
  omitted = 0;
  /** Whether a page of earlier entries has been asked for and not arrived yet. */
  private asking = false;
  /** Cancels the building of the rest of the newest page after a snapshot's first frame. */
  private cancelFill: (() => void) | undefined;
  private readonly earlier: HTMLElement;
  /**
   * The scroll position the last scroll event saw, moved with what {@link prepend} inserts above:
   * a move up the person makes while entries are put in front still reads as a move up.
   */
  private lastTop = 0;
  /** Runs after entries were put into the list: what sits between them (the end-of-turn rows) follows them. */
  onLayout: (() => void) | undefined;

  constructor(private readonly ctx: Ctx) {
    const { h } = ctx;
    this.list = h('div', { className: 'thread-list', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-label': 'Session thread' });
    this.earlier = h('button', { type: 'button', className: 'link show-earlier', hidden: true, onClick: () => this.showEarlier() });
    this.el = h('div', { className: 'thread', tabindex: '-1' }, this.earlier, this.list);
    this.jump = h(
      'button',
      { type: 'button', className: 'jump-bottom', hidden: true, 'aria-label': 'Scroll to the newest output', onClick: () => this.scrollToBottom() },
      icon(h, 'arrow-down'),
      ' Newest',
    );
    // Custom elements, fonts and collapsibles settle after the frame that inserted them; keep
    // following the bottom while their size changes (not available in test DOMs).
    const RO = (ctx.doc.defaultView as (Window & { ResizeObserver?: typeof ResizeObserver }) | null)?.ResizeObserver;
    if (RO) {
      const ro = new RO(() => {
        if (this.stick || this.releaseAnchor()) this.follow();
        this.keepWaitingInView();
      });
      ro.observe(this.list);
      ro.observe(this.el);
    }
    // What the person does to the thread lets go of the waiting card (see keepWaitingInView).
    // A wheel or a swipe anywhere in it; a scrolling key or a press on the thread itself (its
    // scroll bar), not on a control of a card (Tab, Enter on "Allow more…" move no thread).
    for (const type of ['wheel', 'touchmove']) this.el.addEventListener(type, () => (this.anchorLeft = true), { passive: true });
    this.el.addEventListener('pointerdown', (ev) => {
      if (ev.target === this.el) this.anchorLeft = true;
    });
    this.el.addEventListener('keydown', (ev) => {
      if (ev.target === this.el && SCROLL_KEYS.has(ev.key)) this.anchorLeft = true;
    });
    // Only a move up un-sticks: our own scrolls only go down, and content that grows after a
    // programmatic scroll leaves the view above the bottom without the person having scrolled.
    this.el.addEventListener('scroll', () => {
      const top = this.el.scrollTop;
      if (this.el.scrollHeight - top - this.el.clientHeight <= STICK_SLACK) {
        this.stick = true;
        this.jump.hidden = true;
      } else if (top < this.lastTop) {
        this.stick = false;
      }
      this.lastTop = top;
    });
  }

  /** The list of entries (`role=log`). */
  get listElement(): HTMLElement {
    return this.list;
  }

  /** The "scroll to newest" button; the app places it over the thread's bottom edge. */
  get jumpButton(): HTMLElement {
    return this.jump;
  }

  /**
   * Rebuilds every entry (snapshots only). Keeps the reading position unless it was at the bottom.
   * @param omitted - Entries the extension holds before the snapshot's first.
   */
  reset(omitted = 0): void {
    this.omitted = omitted;
    this.asking = false;
    const filling = this.cancelFill !== undefined;
    this.cancelFill?.();
    this.cancelFill = undefined;
    this.disposeNodes();
    this.nodes.clear();
    this.cards.clear();
    this.dirtyEntries.clear();
    this.appended.clear();
    this.dirtyToolCalls.clear();
    this.dirtyTerminals.clear();
    const state = this.ctx.state();
    const entries = state?.entries ?? [];
    // The newest entries are built now, the rest of the newest page right after; earlier ones
    // wait for the person to ask. Someone reading further up gets the whole page at once, so the
    // position they read at is measured against the same list it is put back into.
    const pageStart = Math.max(0, entries.length - PAGE_ENTRIES);
    this.firstShown = this.stick ? Math.max(0, entries.length - FIRST_PAINT_ENTRIES) : pageStart;
    const frag = this.ctx.doc.createDocumentFragment();
    for (let i = this.firstShown; i < entries.length; i++) frag.appendChild(this.create(entries[i]).el);
    const top = this.el.scrollTop;
    // A list whose newest page was still being built has fewer entries above the reading position
    // than the whole page put back now: the position is kept from the bottom instead.
    const fromBottom = filling ? this.el.scrollHeight - top : undefined;
    this.list.replaceChildren(frag);
    this.onLayout?.();
    this.updateEarlier();
    if (this.stick) this.follow();
    else this.el.scrollTop = fromBottom !== undefined ? this.el.scrollHeight - fromBottom : top;
    if (pageStart < this.firstShown) this.fillTo(pageStart);
  }

  /**
   * Builds the rest of the newest page, down to `pageStart`, after the first frame has been painted
   * and {@link FILL_ENTRIES} per task: the newest entries are on screen before any of it, and
   * the page answers input (and shows the patches that come in) between the parts.
   */
  private fillTo(pageStart: number): void {
    this.cancelFill = this.ctx.afterPaint(() => {
      this.cancelFill = undefined;
      this.prepend(Math.max(pageStart, this.firstShown - FILL_ENTRIES));
      if (pageStart < this.firstShown) this.fillTo(pageStart);
    });
  }

  /**
   * Builds the page of entries before the first one shown, keeping what is on screen in place; when
   * the page holds none, asks the extension for them ({@link earlierArrived} builds them).
   */
  showEarlier(): void {
    const state = this.ctx.state();
    const entries = state?.entries ?? [];
    if (this.firstShown === 0) {
      if (!state || !entries.length || this.omitted === 0 || this.asking) return;
      this.asking = true;
      this.ctx.post({ type: 'requestEarlier', key: state.key, beforeEntryId: entries[0].id });
      this.updateEarlier();
      return;
    }
    this.prepend(Math.max(0, this.firstShown - PAGE_ENTRIES));
  }

  /** Builds the entries from `from` up to the first one shown, keeping what is on screen in place. */
  private prepend(from: number): void {
    const entries = this.ctx.state()?.entries ?? [];
    if (from >= this.firstShown) return;
    const frag = this.ctx.doc.createDocumentFragment();
    for (let i = from; i < this.firstShown; i++) frag.appendChild(this.create(entries[i]).el);
    const before = this.el.scrollHeight;
    this.list.insertBefore(frag, this.list.firstChild);
    this.firstShown = from;
    this.onLayout?.();
    this.updateEarlier();
    const added = this.el.scrollHeight - before;
    this.el.scrollTop += added;
    this.lastTop += added;
  }

  /** `count` entries were put in front of the state (the answer to `requestEarlier`): builds them. */
  earlierArrived(count: number, omitted: number): void {
    this.asking = false;
    this.omitted = omitted;
    this.firstShown += count;
    this.showEarlier();
  }

  private updateEarlier(): void {
    const more = this.firstShown + this.omitted;
    this.earlier.hidden = more === 0;
    (this.earlier as HTMLButtonElement).disabled = this.asking;
    this.earlier.textContent = this.asking ? 'Loading earlier entries…' : `Show earlier entries (${more.toLocaleString('en')} more)`;
  }

  markEntry(id: string): void {
    this.dirtyEntries.add(id);
    this.appended.set(id, null);
  }

  /** `text` was appended to the entry's text (an `appendText` patch). */
  markAppend(id: string, text: string): void {
    this.dirtyEntries.add(id);
    const parts = this.appended.get(id);
    if (parts) parts.push(text);
    else if (parts === undefined) this.appended.set(id, [text]);
  }

  markToolCall(toolCallId: string): void {
    this.dirtyToolCalls.add(toolCallId);
  }

  markTerminal(terminalId: string): void {
    this.dirtyTerminals.add(terminalId);
  }

  /** The DOM node of an entry (for tests and focus handling). */
  entryElement(id: string): HTMLElement | undefined {
    return this.nodes.get(id)?.node.el;
  }

  /** Applies everything marked dirty since the last flush. */
  flush(): void {
    const state = this.ctx.state();
    if (!state) return;
    const grew = this.dirtyEntries.size > 0 || this.dirtyToolCalls.size > 0 || this.dirtyTerminals.size > 0;
    const fresh = new Set<ToolCardNode>();
    for (const id of this.dirtyEntries) {
      const i = findEntryIndex(state, id);
      if (i < 0) continue;
      // An entry behind the "earlier" button is built when the person asks for it, as it is then.
      if (i < this.firstShown) continue;
      const entry = state.entries[i];
      const known = this.nodes.get(id);
      if (known && known.kind === entry.kind && !(known.node instanceof ToolCardNode && entry.kind === 'tool_call' && known.node.toolCallId !== entry.toolCallId)) {
        if (known.node instanceof ToolCardNode) known.node.update();
        else known.node.update(entry, this.appended.get(id)?.join(''));
        continue;
      }
      const created = this.create(entry);
      if (created instanceof ToolCardNode) fresh.add(created);
      if (known) {
        if (known.node instanceof ToolCardNode) this.cards.get(known.node.toolCallId)?.delete(known.node);
        else known.node.dispose?.();
        known.node.el.replaceWith(created.el);
      }
      else this.insert(created.el, state.entries, i);
    }
    for (const toolCallId of this.dirtyToolCalls) {
      for (const card of this.cards.get(toolCallId) ?? []) if (!fresh.has(card)) card.update();
    }
    if (this.dirtyTerminals.size) {
      for (const set of this.cards.values()) {
        for (const card of set) {
          for (const t of card.terminalIds()) if (this.dirtyTerminals.has(t)) card.updateTerminal(t);
        }
      }
    }
    if (this.dirtyEntries.size) this.onLayout?.();
    this.dirtyEntries.clear();
    this.appended.clear();
    this.dirtyToolCalls.clear();
    this.dirtyTerminals.clear();
    if (grew) {
      if (this.stick || this.releaseAnchor()) this.follow();
      else this.jump.hidden = false;
    }
    this.keepWaitingInView();
  }

  /**
   * Follows new output to the bottom, except that a waiting permission card taller than what is
   * left of the view is shown from its top (its question, the intent and the buttons come first),
   * once per card: the thread then stops following, so reading down the card is not undone by
   * the next resize; "Newest" takes the person to the bottom.
   */
  private releaseAnchor(): boolean {
    // Once the card is answered the thread follows again, unless the person scrolled up from it.
    const id = this.anchored;
    if (id === null || this.list.querySelector(`[data-entry-id="${CSS.escape(id)}"] .tool-card.waiting`)) return false;
    this.anchored = null;
    return this.el.scrollTop >= this.anchorTop - STICK_SLACK;
  }

  /**
   * A waiting card stays in view — its change and its buttons — whatever moves the thread under it
   * (the side bar's width, the header's rows, text above it wrapping again, a page rebuilt), until
   * the person moves the thread themselves (wheel, touch, keys, a click in it) or answers it: taller
   * than the view, it shows from its top; else the least scroll that shows all of it.
   * @returns true when a waiting card holds the thread's position.
   */
  private keepWaitingInView(): boolean {
    if (this.el.clientHeight === 0) return false;
    const card = this.list.querySelector<HTMLElement>('.tool-card.waiting');
    const id = card?.closest('[data-entry-id]')?.getAttribute('data-entry-id') ?? null;
    if (id !== this.waitingSeen) {
      this.waitingSeen = id;
      this.anchorLeft = false;
    }
    if (!card || this.anchorLeft) return false;
    const view = this.el.getBoundingClientRect();
    const pinned = this.el.querySelector<HTMLElement>('.plan:not([hidden])')?.getBoundingClientRect().height ?? 0;
    const top = view.top + pinned;
    const r = card.getBoundingClientRect();
    const delta = r.height + 8 > view.bottom - top ? r.top - top - 4 : r.bottom > view.bottom ? r.bottom - view.bottom + 4 : r.top < top ? r.top - top - 4 : 0;
    if (Math.abs(delta) >= 1) this.el.scrollTop += delta;
    return true;
  }

  private follow(): void {
    const card = this.el.clientHeight > 0 ? this.list.querySelector<HTMLElement>('.tool-card.waiting') : null;
    const id = card?.closest('[data-entry-id]')?.getAttribute('data-entry-id') ?? null;
    if (card && id !== this.anchored) {
      const top = card.getBoundingClientRect().top - this.el.getBoundingClientRect().top + this.el.scrollTop - 4;
      if (top < this.el.scrollHeight - this.el.clientHeight) {
        this.anchored = id;
        this.anchorLeft = false;
        this.el.scrollTop = this.anchorTop = Math.max(0, top);
        this.stick = false;
        return;
      }
    }
    if (!card) this.anchored = null;
    this.el.scrollTop = this.el.scrollHeight;
    this.stick = true;
    this.jump.hidden = true;
  }

  /** The host's clock moved: running cards update their "silent for N min" label (text only). */
  refreshSilence(): void {
    for (const set of this.cards.values()) for (const card of set) card.refreshSilence();
  }

  /** Cancels the entries' pending work (settle timers). */
  disposeNodes(): void {
    for (const { node } of this.nodes.values()) if (!(node instanceof ToolCardNode)) node.dispose?.();
  }

  scrollToBottom(): void {
    this.el.scrollTop = this.el.scrollHeight;
    this.stick = true;
    this.jump.hidden = true;
  }

  private create(entry: ThreadEntry): EntryNode | ToolCardNode {
    let node: EntryNode | ToolCardNode;
    if (entry.kind === 'tool_call') {
      const card = new ToolCardNode(this.ctx, entry.id, entry.toolCallId, !!entry.late);
      let set = this.cards.get(entry.toolCallId);
      if (!set) this.cards.set(entry.toolCallId, (set = new Set()));
      set.add(card);
      node = card;
    } else {
      node = renderTextEntry(this.ctx, entry);
    }
    this.nodes.set(entry.id, { kind: entry.kind, node });
    return node;
  }

  /** Inserts a new entry's element before the next entry that already has one (normally: appends). */
  private insert(el: HTMLElement, entries: ThreadEntry[], index: number): void {
    for (let j = index + 1; j < entries.length; j++) {
      const next = this.nodes.get(entries[j].id);
      if (next && next.node.el.parentNode === this.list) {
        this.list.insertBefore(el, next.node.el);
        return;
      }
    }
    this.list.appendChild(el);
  }
}

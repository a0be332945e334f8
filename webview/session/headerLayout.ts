/**
 * The header's priority layout: every label in it shows whole, or the control moves into the one
 * "More" menu; nothing is cut to a few letters and nothing disappears.
 *
 * The header is made of groups (the agent row, the session line), each a wrapping flex row of
 * items. An item is one of:
 * - essential (no attribute): always in its row; a row wraps rather than cut it (the session, the
 *   agent, the mode and the model are named whole at every width);
 * - foldable (`data-fold="rank"`): in its row when it fits there without moving a foldable item
 *   placed before it to another row, growing any (a title or picker made to wrap) or taking the
 *   header past {@link ROW_BUDGET} rows, else in the menu, in its full form;
 * - with shorter forms (`data-expand="rank,rank…"`): starts at its shortest (`data-level="0"`,
 *   which the CSS draws) and takes each longer form, at its rank, under the same conditions and
 *   when that adds no row; the full form has no `data-level`.
 *
 * Ranks order the steps across the header (lower first), so the person keeps the most used controls
 * in view. Every step is measured in the page (rows and heights as laid out, not widths guessed from
 * constants), again whenever the header's width or an item's size changes (a ResizeObserver).
 * Without layout (a test DOM, a hidden view) every item stays in its row in its full form.
 */
import { icon, type H } from './dom';
import { fitPickers, pickersRendered } from './headerSelect';

/** Attribute of a foldable item: its rank. */
export const FOLD = 'data-fold';
/** Attribute of an item with shorter forms: the rank of each longer form, ascending. */
export const EXPAND = 'data-expand';
/** Attribute of a foldable picker: the words that name it in the menu (the header shows none). */
export const MENU_LABEL = 'data-menu-label';
/** Attribute of a text inside an item that wraps and may be clamped (its hidden lines count as growth). */
export const WRAPS = 'data-wraps';
const LEVEL = 'data-level';

interface Step {
  item: HTMLElement;
  group: number;
  /** 0: show a folded item; n > 0: take form n. */
  level: number;
  rank: number;
  order: number;
}

interface Shape {
  rows: number;
  heights: Map<Element, number>;
  /** The row each item is on. */
  row: Map<Element, number>;
  overflow: boolean;
}

/** Rows of `group` as laid out (children in order; one starts where the previous row ends), heights, overflow. */
function shape(group: HTMLElement): Shape {
  const heights = new Map<Element, number>();
  const row = new Map<Element, number>();
  const right = group.getBoundingClientRect().right + 0.5;
  let rows = 0;
  let bottom = -Infinity;
  let overflow = false;
  for (const child of Array.from(group.children)) {
    const r = child.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // A clamped text (the title past its lines) does not grow its box: count what it holds.
    const hidden = Array.from(child.querySelectorAll(`[${WRAPS}]`)).reduce((n, e) => n + Math.max(0, e.scrollHeight - e.clientHeight), 0);
    heights.set(child, r.height + hidden);
    if (r.right > right) overflow = true;
    if (r.top >= bottom - 1) {
      rows++;
      bottom = r.bottom;
    } else bottom = Math.max(bottom, r.bottom);
    row.set(child, rows);
  }
  return { rows, heights, row, overflow };
}

/**
 * True when `after` grows an item that was there (a title or a picker now wraps), moves a foldable
 * one placed before it to another row (what a higher rank placed keeps its place: a close button is
 * not pushed off its title's line; the essentials may reflow), or sticks out of the row.
 */
function squeezed(before: Shape, after: Shape): boolean {
  if (after.overflow) return true;
  for (const [el, h] of before.heights) if ((after.heights.get(el) ?? h) > h + 0.5) return true;
  for (const [el, r] of before.row) if (el.hasAttribute(FOLD) && after.row.get(el) !== r) return true;
  return false;
}

/**
 * Rows the header may take for what is not essential: a folded control may open a new row up to
 * this many in all (the essentials may need more at a narrow width; then none is added). A longer
 * form never adds a row.
 */
const ROW_BUDGET = 3;

function ranks(item: HTMLElement): number[] {
  return (item.getAttribute(EXPAND) ?? '').split(',').map((r) => Number(r.trim())).filter((r) => Number.isFinite(r) && r > 0);
}

/** Lays out the header's groups and owns its "More" button and menu. */
export class HeaderLayout {
  /**
   * The "…" button, last in the first group; shown while the menu holds something. A disclosure
   * (aria-expanded, aria-controls), not a menu button: what it opens holds pickers and switches.
   */
  readonly more: HTMLElement;
  /** The menu: the controls that do not fit, in their full form. */
  readonly menu: HTMLElement;
  private readonly items: HTMLElement[][];
  private readonly observer: ResizeObserver | undefined;
  private frame: number | undefined;
  private width = -1;
  private settling = 0;

  /**
   * @param header the element the menu is placed in (positioned, so the menu opens under "…").
   * @param groups the rows, in order; each is given its items with {@link set}.
   */
  constructor(private readonly header: HTMLElement, private readonly groups: HTMLElement[], h: H) {
    this.items = groups.map(() => []);
    this.more = h('button', {
      type: 'button', className: 'icon-button header-more', title: 'More', 'aria-label': 'More',
      'aria-expanded': 'false', 'aria-controls': 'header-menu', hidden: true, onClick: () => (this.menu.hidden ? this.open() : this.close(false)),
    }, icon(h, 'ellipsis'));
    this.menu = h('div', { className: 'header-menu', id: 'header-menu', role: 'group', 'aria-label': 'More', hidden: true,
      onKeydown: (ev: Event) => {
        if ((ev as KeyboardEvent).key !== 'Escape') return;
        ev.preventDefault();
        this.close(true);
      },
      // Tabbing out of it closes it (a picker's list keeps the focus in its picker, so in the menu).
      onFocusout: (ev: Event) => {
        const next = (ev as FocusEvent).relatedTarget as Node | null;
        if (next && !this.menu.contains(next) && next !== this.more) this.close(false);
      },
      // An action done from the menu closes it; a picker or a switch in it keeps it open.
      onClick: (ev: Event) => {
        const acted = ev.composedPath().some((t) => {
          const el = t as Element;
          return el !== this.menu && typeof el.matches === 'function' && this.menu.contains(el) && el.matches('button, vscode-button, [role="button"]');
        });
        if (acted) this.close(false);
      },
    });
    header.appendChild(this.menu);
    const win = header.ownerDocument.defaultView;
    header.ownerDocument.addEventListener('pointerdown', (ev) => {
      if (this.menu.hidden) return;
      const path = ev.composedPath();
      if (!path.includes(this.menu) && !path.includes(this.more)) this.close(false);
    }, true);
    this.observer = win && typeof win.ResizeObserver === 'function' ? new win.ResizeObserver(() => this.schedule()) : undefined;
    this.observer?.observe(header);
  }

  /** Gives group `index` its items, in order, and lays the header out again. */
  set(index: number, items: HTMLElement[]): void {
    for (const old of this.items[index]) if (!items.includes(old)) this.observer?.unobserve(old);
    this.items[index] = index === 0 ? [...items, this.more] : items;
    for (const item of items) this.observer?.observe(item);
    this.layout(true);
    // A picker's face is drawn after it is connected: lay out again once it shows its entry, before
    // the frame is painted (the ResizeObserver would do it one frame later).
    const settling = ++this.settling;
    void pickersRendered(items).then(() => {
      if (settling === this.settling) this.layout(true);
    });
  }

  /**
   * Lays the header out now (on resize, one frame later). An open menu is left as it is (with the
   * focus in it) unless the items changed (`changed`), and is closed by a new width.
   */
  layout(changed = false): void {
    const open = !this.menu.hidden;
    if (open && this.header.clientWidth !== this.width) this.close(false);
    else if (open && !changed) return;
    const doc = this.header.ownerDocument;
    // No globals: the layout also runs in a test DOM, whose classes are not the window's.
    const active = doc.activeElement as HTMLElement | null;
    const focused = active && active !== doc.body && this.header.contains(active) ? active : undefined;
    this.width = this.header.clientWidth;
    const measured = this.observer !== undefined && this.width > 0;
    const essential = (item: HTMLElement) => !item.hasAttribute(FOLD);
    this.groups.forEach((group, g) => this.place(group, measured ? this.items[g].filter(essential) : this.items[g]));
    for (const item of this.items.flat()) {
      if (measured && item.hasAttribute(EXPAND)) item.setAttribute(LEVEL, '0');
      else item.removeAttribute(LEVEL);
    }
    this.menu.replaceChildren();
    this.more.hidden = !measured;
    this.groups.forEach((group) => fitPickers(group));
    if (measured) this.fit();
    const folded = this.items.flat().filter((item) => !item.isConnected || item.parentElement === null || !this.groups.includes(item.parentElement));
    for (const item of folded) {
      item.removeAttribute(LEVEL);
      this.menu.appendChild(this.menuRow(item));
    }
    fitPickers(this.menu);
    this.more.hidden = folded.length === 0;
    if (!this.menu.hidden && !folded.length) this.close(false);
    if (focused && focused.isConnected && doc.activeElement !== focused) focused.focus({ preventScroll: true });
  }

  /** Takes every step that fits, in rank order. */
  private fit(): void {
    const steps: Step[] = [];
    let order = 0;
    this.items.forEach((items, group) => {
      for (const item of items) {
        const fold = Number(item.getAttribute(FOLD));
        if (item.hasAttribute(FOLD)) steps.push({ item, group, level: 0, rank: Number.isFinite(fold) ? fold : 99, order: order++ });
        ranks(item).forEach((rank, i) => steps.push({ item, group, level: i + 1, rank, order: order++ }));
      }
    });
    steps.sort((a, b) => a.rank - b.rank || a.order - b.order);
    const rows = () => this.groups.reduce((n, g) => n + shape(g).rows, 0);
    const budget = Math.max(ROW_BUDGET, rows());
    for (const step of steps) {
      const group = this.groups[step.group];
      const shown = step.item.parentElement === group;
      if (step.level > 0 && !shown) continue;
      if (step.level === 0 && shown) continue;
      const before = shape(group);
      const undo = step.level === 0 ? this.show(step) : this.expand(step);
      const after = shape(group);
      const newRow = after.rows > before.rows && (step.level > 0 || rows() > budget);
      if (newRow || squeezed(before, after)) undo();
    }
  }

  private show(step: Step): () => void {
    const group = this.groups[step.group];
    const items = this.items[step.group];
    const next = items.slice(items.indexOf(step.item) + 1).find((i) => i.parentElement === group) ?? null;
    group.insertBefore(step.item, next);
    return () => step.item.remove();
  }

  private expand(step: Step): () => void {
    const was = step.item.getAttribute(LEVEL);
    if (step.level >= ranks(step.item).length) step.item.removeAttribute(LEVEL);
    else step.item.setAttribute(LEVEL, String(step.level));
    return () => (was === null ? step.item.removeAttribute(LEVEL) : step.item.setAttribute(LEVEL, was));
  }

  /** Makes `group`'s children exactly `items`, moving only what has to move (a moved element loses focus). */
  private place(group: HTMLElement, items: HTMLElement[]): void {
    for (const child of Array.from(group.children)) if (!items.includes(child as HTMLElement)) child.remove();
    let at: Element | null = group.firstElementChild;
    for (const item of items) {
      if (item === at) at = at.nextElementSibling;
      else group.insertBefore(item, at);
    }
  }

  private menuRow(item: HTMLElement): HTMLElement {
    const doc = this.header.ownerDocument;
    const row = doc.createElement('div');
    row.className = 'header-menu-row';
    const label = item.getAttribute(MENU_LABEL);
    if (label) {
      const words = doc.createElement('span');
      words.className = 'header-menu-label';
      words.textContent = label;
      row.appendChild(words);
    }
    row.appendChild(item);
    return row;
  }

  private schedule(): void {
    const win = this.header.ownerDocument.defaultView;
    if (!win || this.frame !== undefined) return;
    this.frame = win.requestAnimationFrame(() => {
      this.frame = undefined;
      this.layout();
    });
  }

  private open(): void {
    if (!this.menu.childElementCount) return;
    this.menu.style.top = `${this.more.offsetTop + this.more.offsetHeight + 2}px`;
    this.menu.hidden = false;
    this.more.setAttribute('aria-expanded', 'true');
    this.menu.querySelector<HTMLElement>('button, input, vscode-single-select, vscode-button, [tabindex="0"]')?.focus();
  }

  private close(focusMore: boolean): void {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.more.setAttribute('aria-expanded', 'false');
    if (focusMore) this.more.focus();
    // What was held while it was open (a resize of its controls) is laid out now.
    this.schedule();
  }
}

/**
 * The agent's plan (ACP `plan` update), part of the thread: one line pinned at the top of the
 * thread's scroller, folded by default ("Plan 2/5 · the entry in progress"), that opens in place to
 * each entry with a status icon and its priority. Every plan update replaces the whole plan, so the view is rebuilt whole.
 */
import type { PlanEntryView, PlanStop } from '../../src/acp/session/types';
import type { Ctx } from './context';
import { icon } from './dom';

const STATUS_ICON: Record<PlanEntryView['status'], { name: string; label: string; spin?: boolean }> = {
  pending: { name: 'circle-large-outline', label: 'Pending' },
  in_progress: { name: 'loading', label: 'In progress', spin: true },
  completed: { name: 'pass-filled', label: 'Completed' },
};

/** How a stopped entry shows, by how its turn ended (`PlanEntryView.stopped`). */
const STOPPED: Record<PlanStop, { name: string; label: string; spin?: boolean }> = {
  cancelled: { name: 'debug-stop', label: 'Stopped: the turn was cancelled' },
  failed: { name: 'debug-stop', label: 'Stopped: the turn failed' },
  closed: { name: 'debug-stop', label: 'Stopped: the session was closed' },
  ended: { name: 'debug-stop', label: 'Not finished: the turn ended' },
};

export class PlanView {
  readonly el: HTMLElement;
  private shown: PlanEntryView[] | null = null;
  private open = false;

  constructor(private readonly ctx: Ctx) {
    this.el = ctx.h('section', { className: 'plan', hidden: true, 'aria-label': 'Plan' });
  }

  update(): void {
    const plan = this.ctx.state()?.plan ?? [];
    if (plan === this.shown) return;
    this.shown = plan;
    this.el.hidden = plan.length === 0;
    if (!plan.length) {
      this.el.replaceChildren();
      return;
    }
    const { h } = this.ctx;
    const done = plan.filter((p) => p.status === 'completed').length;
    const list = h(
      'ol',
      { className: 'plan-list' },
      plan.map((p) => {
        // An entry the turn left in progress runs no more: it shows as stopped, not spinning.
        const s = p.stopped ? STOPPED[p.stopped] : STATUS_ICON[p.status] ?? STATUS_ICON.pending;
        return h(
          'li',
          { className: `plan-entry plan-${p.status}${p.stopped ? ' plan-stopped' : ''} prio-${p.priority}`, ...(p.stopped ? { 'data-stopped': p.stopped } : {}) },
          icon(h, s.name, { spin: s.spin, label: s.label, className: 'plan-status' }),
          h('span', { className: 'plan-text' }, p.content),
          p.priority !== 'medium' ? h('span', { className: `prio prio-${p.priority}`, title: `${p.priority} priority` }, p.priority) : null,
        );
      }),
    );
    const current = plan.find((p) => p.status === 'in_progress') ?? plan.find((p) => p.status === 'pending');
    const description = `${done}/${plan.length} done${current ? ` · ${current.content}` : ''}`;
    // A native disclosure, not the toolkit's collapsible: its heading is upper case and cut to one
    // line in its shadow DOM. Here "Plan" and the count stay whole, and the entry in progress takes
    // up to two lines in the page's own words and case.
    const details = h(
      'details',
      { className: 'plan-details', open: this.open },
      h('summary', { className: 'plan-summary', title: description },
        icon(h, 'chevron-right', { className: 'plan-chevron' }),
        h('span', { className: 'plan-label' }, 'Plan'),
        h('span', { className: 'plan-count' }, `${done}/${plan.length} done`),
        current ? h('span', { className: 'plan-current' }, current.content) : null),
      list,
    );
    details.addEventListener('toggle', () => {
      this.open = (details as HTMLDetailsElement).open;
    });
    this.el.replaceChildren(details);
  }
}

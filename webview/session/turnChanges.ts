/**
 * The row at the end of each turn that changed files: "3 files changed · Review · Keep all · Undo
 * all", and the files, each with its +/− and a click that opens its review diff. The extension
 * sends the rows whole (`turnChanges`) whenever the review changes, so what the row says is the
 * review's own state; the page keeps nothing of it but the last message. The buttons ask the
 * extension, which carries them out as the Changes view does (with Undo's checks).
 *
 * Rows live in the thread's list between entries: each goes just before the person's next prompt
 * (or at the end for the newest turn), and is put back there whenever the thread builds entries.
 */
import { isPersonsPrompt } from '../../src/acp/session/turns';
import type { ThreadEntry } from '../../src/acp/session/types';
import type { TurnFileSummary, TurnSummary } from '../../src/edits/turnSummary';
import type { HostMessage } from '../../src/views/session/protocol';
import type { Ctx } from './context';
import { icon } from './dom';

type TurnChangesMessage = Extract<HostMessage, { type: 'turnChanges' }>;

/** Files a row lists before "N more" (the rest are one click away). */
export const LISTED_FILES = 5;

/** The words of a row's head for its files: what happened to them, in as few words as it takes. */
export function rowWords(files: readonly TurnFileSummary[], worktree?: { applied: boolean }): string {
  const n = files.length;
  const count = (k: number, word: string) => `${k} file${k === 1 ? '' : 's'} ${word}`;
  const pending = files.filter((f) => f.state === 'pending').length;
  const undone = files.filter((f) => f.state === 'undone').length;
  const kept = n - pending - undone;
  const where = worktree && !worktree.applied ? ' in the worktree' : '';
  if (pending === n) return count(n, `changed${where}`);
  const decided = [kept ? `${kept} kept` : '', undone ? `${undone} undone` : ''].filter(Boolean).join(', ');
  if (pending) return `${count(n, `changed${where}`)} · ${decided}`;
  if (undone === n) return count(n, 'undone');
  if (kept === n) return count(n, `kept${where}`) + (worktree?.applied ? ' · applied to the main folder' : '');
  return decided;
}

const STATE_ICON: Record<TurnFileSummary['state'], { name: string; label: string } | undefined> = {
  pending: undefined,
  kept: { name: 'check', label: 'kept' },
  partly: { name: 'check', label: 'partly undone' },
  undone: { name: 'discard', label: 'undone' },
};

/** The end-of-turn rows of the shown session. */
export class TurnChangesView {
  private msg: TurnChangesMessage | undefined;
  private readonly rows = new Map<number, HTMLElement>();
  /** Turns whose whole file list the person opened (this page only). */
  private readonly expanded = new Set<number>();

  constructor(
    private readonly ctx: Ctx,
    private readonly list: HTMLElement,
    private readonly entryElement: (id: string) => HTMLElement | undefined,
  ) {}

  /** Takes the extension's rows for the shown session (another session's are dropped). */
  update(msg: TurnChangesMessage): void {
    if (msg.key !== this.ctx.state()?.key) return;
    this.msg = msg;
    const focused = this.ctx.doc.activeElement?.closest<HTMLElement>('.turn-changes [data-action]');
    const refocus = focused && { turn: Number(focused.closest('.turn-changes')?.getAttribute('data-turn')), action: focused.getAttribute('data-action') };
    const keep = new Set(msg.turns.map((t) => t.turn));
    for (const [turn, row] of this.rows) {
      if (keep.has(turn)) continue;
      row.remove();
      this.rows.delete(turn);
    }
    for (const t of msg.turns) {
      const row = this.render(t);
      this.rows.get(t.turn)?.replaceWith(row);
      this.rows.set(t.turn, row);
    }
    this.place();
    // A rebuilt row keeps the keyboard where it was: on the same button, else on the row.
    if (refocus) {
      const row = this.rows.get(refocus.turn);
      const target = row?.querySelector<HTMLElement>(`[data-action="${refocus.action}"]`) ?? row?.querySelector<HTMLElement>('[data-action]') ?? row;
      target?.focus();
    }
  }

  /** The page shows another session (or none): its rows go until the extension sends them. */
  clear(): void {
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.expanded.clear();
    this.msg = undefined;
  }

  /**
   * Puts each row at the end of its turn: before the person's next prompt, or last in the list for
   * the newest turn. A row whose end is not built (behind "Show earlier entries") is left out.
   */
  place(): void {
    const state = this.ctx.state();
    if (!this.msg || !state) return;
    for (const t of this.msg.turns) {
      const row = this.rows.get(t.turn);
      if (!row) continue;
      const before = this.endOf(t, state.entries);
      if (before === undefined) row.remove();
      else if (before === null) {
        if (this.list.lastElementChild !== row) this.list.appendChild(row);
      } else if (row.nextElementSibling !== before) this.list.insertBefore(row, before);
    }
  }

  /** The element the row goes before: null for the end of the list, undefined when not built. */
  private endOf(t: TurnSummary, entries: readonly ThreadEntry[]): HTMLElement | null | undefined {
    let next = t.endsBefore;
    if (next === undefined) {
      // The next prompt may be in the page before the extension says so: the row stays at its turn's end.
      const from = t.promptEntryId === undefined ? -1 : entries.findIndex((e) => e.id === t.promptEntryId);
      for (let i = from + 1; i < entries.length && next === undefined; i++) if (isPersonsPrompt(entries[i])) next = entries[i].id;
      if (next === undefined) return null;
    }
    const el = this.entryElement(next);
    return el && el.parentNode === this.list ? el : undefined;
  }

  private render(t: TurnSummary): HTMLElement {
    const { h } = this.ctx;
    const msg = this.msg!;
    const key = msg.key;
    const n = t.files.length;
    const pending = t.files.some((f) => f.state === 'pending');
    const open = t.files.some((f) => f.state !== 'undone');
    const kept = t.files.some((f) => f.state === 'kept' || f.state === 'partly');
    // Apply brings the whole worktree back: offered once nothing in it waits for review.
    const newest = msg.turns.at(-1)?.turn === t.turn;
    const applicable = !!msg.worktree && !msg.worktree.applied && newest && kept && !msg.turns.some((x) => x.files.some((f) => f.state === 'pending'));
    const act = (action: 'keep' | 'undo' | 'review' | 'apply') => (ev: Event) => {
      const b = ev.currentTarget as HTMLElement;
      if (b.hasAttribute('disabled')) return;
      // Until the extension answers with the row as it is then (it always does).
      for (const x of Array.from(row.querySelectorAll('[data-action]'))) if (x.getAttribute('data-action') !== 'review') x.setAttribute('disabled', '');
      this.ctx.post({ type: 'turnAction', key, turn: t.turn, action });
    };
    const words = rowWords(t.files, msg.worktree);
    const where = msg.worktree ? ` in the worktree (${msg.worktree.branch})` : '';
    const actions = [
      open ? h('button', { type: 'button', className: 'link tc-review', 'data-action': 'review', title: `Open the first file still to review, with the agent's changes inline (Keep or Undo each), and this turn in the Changes view`, onClick: act('review') }, 'Review') : null,
      pending
        ? h('vscode-button', { className: 'tc-keep', 'data-action': 'keep', title: msg.worktree ? `Keep these changes in the worktree; Apply to main folder then brings them into your folder` : 'Keep every change of this turn still to review', onClick: act('keep') }, 'Keep all')
        : null,
      applicable ? h('vscode-button', { className: 'tc-apply', 'data-action': 'apply', title: `Apply everything the worktree ${msg.worktree!.branch} changed to the main folder`, onClick: act('apply') }, 'Apply to main folder') : null,
      open ? h('vscode-button', { className: 'tc-undo', 'data-action': 'undo', secondary: true, title: `Undo this turn's changes${where}; text changed since is left alone`, onClick: act('undo') }, 'Undo all') : null,
    ];
    const shown = this.expanded.has(t.turn) || n <= LISTED_FILES ? t.files : t.files.slice(0, LISTED_FILES - 1);
    const more = n - shown.length;
    const row: HTMLElement = h(
      'div',
      { className: `turn-changes${pending ? ' pending' : ''}`, 'data-turn': String(t.turn), role: 'group', 'aria-label': `Turn ${t.turn}: ${words}` },
      h('div', { className: 'tc-head' }, icon(h, 'diff-multiple', { className: 'tc-icon' }), h('span', { className: 'tc-count' }, words), h('span', { className: 'tc-actions' }, actions)),
      h('ul', { className: 'tc-files' }, shown.map((f) => this.file(key, t.turn, f))),
      more
        ? h('button', { type: 'button', className: 'link tc-more', onClick: () => (this.expanded.add(t.turn), this.update(msg)) }, `${more} more file${more === 1 ? '' : 's'}`)
        : null,
    );
    return row;
  }

  private file(key: string, turn: number, f: TurnFileSummary): HTMLElement {
    const { h } = this.ctx;
    const state = STATE_ICON[f.state];
    const name = f.movedFrom ? `${f.movedFrom} → ${f.name}` : f.name;
    const full = f.dir ? `${f.dir}/${f.name}` : f.name;
    const tag = f.what === 'base unknown' ? 'base unknown' : f.what === 'created' ? 'new' : f.what === 'deleted' ? 'deleted' : undefined;
    return h(
      'li',
      { className: `tc-file state-${f.state}` },
      h(
        'button',
        { type: 'button', className: 'tc-open', title: `${full}: open the diff (before turn ${turn} ↔ now)${state ? ` — ${state.label}` : ''}`, onClick: () => this.ctx.post({ type: 'openChange', key, changeId: f.changeId }) },
        h('span', { className: 'tc-name' }, name),
        f.dir ? h('span', { className: 'tc-dir' }, f.dir) : null,
      ),
      h('span', { className: 'tc-stats' }, h('span', { className: 'stat-add' }, `+${f.added}`), h('span', { className: 'stat-del' }, `−${f.removed}`)),
      tag ? h('span', { className: 'tc-tag' }, tag) : null,
      state ? icon(h, state.name, { label: state.label, className: 'tc-state' }) : null,
      f.laterTurn !== undefined ? h('span', { className: 'tc-later' }, `changed again in turn ${f.laterTurn}`) : null,
    );
  }
}

/**
 * A tool-call card: kind icon, title, status, locations, content (text, diff preview, terminal),
 * the permission prompt while the agent waits for the person, and the raw input.
 *
 * The card's wrapper element is kept for the entry's life; an upsert of the tool call or its
 * permission rebuilds only this card's inside, and a terminal update replaces only that terminal's
 * block. Open/closed state of the card's collapsibles survives rebuilds.
 */
import type { ToolKind } from '@agentclientprotocol/sdk';
import type { PermissionView, ToolCallStatusView, ToolCallView } from '../../src/acp/session/types';
import { locationLink, renderContent, renderTerminal, shownText } from './content';
import type { Ctx } from './context';
import { breakable, icon, prettyJson } from './dom';
import { silentLabel, silentMinutes } from './silence';
import { holdsFocus, keepFocus } from './cardFocus';
import { answeredCovers, leadIndices, leadSection, warnings } from './permissionLead';
import { PermissionPrompt } from './permissionPrompt';

/** Codicon per ACP `ToolKind`. */
export const KIND_ICON: Record<ToolKind, string> = {
  read: 'eye',
  edit: 'edit',
  delete: 'trash',
  move: 'arrow-swap',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'settings',
  other: 'tools',
};

export const STATUS_LABEL: Record<ToolCallStatusView, string> = {
  pending: 'Pending',
  awaiting_approval: 'Needs approval',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
};

export class ToolCardNode {
  readonly el: HTMLElement;
  private readonly open = new Set<string>();
  /** The permission's answer controls, and what they remember across rebuilds. */
  private readonly prompt: PermissionPrompt;

  /**
   * The content block the card shows and what it was built from, kept while the call's content is
   * texts that show the same (see {@link keptContent}).
   */
  private content: { el: HTMLElement; texts: string[]; notices: (Text | undefined)[] } | undefined;

  /** The "silent for N min" label of the current card, and the minutes it shows. */
  private silence: { el: HTMLElement; minutes: number | undefined } | undefined;

  /** @param late the agent announced this call after the person stopped its turn */
  constructor(private readonly ctx: Ctx, readonly entryId: string, readonly toolCallId: string, private readonly late = false) {
    this.el = ctx.h('div', { className: `entry tool-entry${late ? ' late' : ''}`, 'data-entry-id': entryId, 'data-tool-call-id': toolCallId });
    this.prompt = new PermissionPrompt(ctx, this);
    this.update();
  }

  /**
   * Brings the "silent for N min" label up to the host's clock: only the label's text changes,
   * and only when its minute count does (a clock tick costs nothing for the other cards).
   */
  refreshSilence(): void {
    const tc = this.ctx.state()?.toolCalls[this.toolCallId];
    if (!tc || !this.silence) return;
    const minutes = silentMinutes(tc, this.ctx.hostNow?.());
    if (minutes === this.silence.minutes) return;
    this.silence.minutes = minutes;
    this.silence.el.hidden = minutes === undefined;
    this.silence.el.textContent = minutes === undefined ? '' : silentLabel(minutes);
  }

  /** Rebuilds the card from the current tool call and permission. */
  update(): void {
    const state = this.ctx.state();
    const tc = state?.toolCalls[this.toolCallId];
    const perm = tc?.permissionId ? state?.permissions[tc.permissionId] : undefined;
    this.prompt.settle(perm);
    const old = this.el.firstElementChild as HTMLElement | null;
    const kept = tc ? this.keptContent(tc) : undefined;
    if (!tc) this.content = undefined;
    // A card whose content block stays is brought up to date around it: moved into a new card, the
    // block (100,000 characters of a tool's output) would be laid out again on every update. The
    // new card is built with a stand-in where the block goes.
    const slot = kept && old && kept.parentElement === old ? this.ctx.doc.createComment('content') : undefined;
    const fresh = tc ? this.card(tc, perm, slot) : this.missing();
    const focused = holdsFocus(old);
    const wasWaiting = !!old?.classList.contains('waiting');
    if (slot) morphInto(old!, fresh, slot, kept!);
    else this.el.replaceChildren(fresh);
    const now = this.el.firstElementChild as HTMLElement | null;
    // Answered while it held the focus (a key, a click): the caret goes to the prompt box, so the
    // next prompt can be typed at once — not to another waiting card, which a second key press
    // would then answer unseen (with several waiting and none focused, the key asks first).
    if (focused && wasWaiting && now && !now.classList.contains('waiting')) this.ctx.focusPrompt?.();
    else keepFocus(now, focused);
  }

  /**
   * The content block shown now, its long texts' counts brought up to date, when the call's content
   * is still texts showing what the block shows (a tool re-sending its growing output: the first
   * 100,000 characters (`MAX_SHOWN_CHARS`) stay, only the count of the rest changes); else undefined.
   */
  private keptContent(tc: ToolCallView): HTMLElement | undefined {
    const had = this.content;
    if (!had || tc.content.length !== had.texts.length) return undefined;
    const now = tc.content.map((c) => (c.type === 'text' ? shownText(c) : undefined));
    if (now.some((t, i) => t === undefined || t.shown !== had.texts[i] || (t.rest !== undefined) !== (had.notices[i] !== undefined))) return undefined;
    now.forEach((t, i) => {
      const notice = had.notices[i];
      if (notice && notice.data !== t!.rest) notice.data = t!.rest!;
    });
    return had.el;
  }

  /** Builds the content block and remembers what it shows (see {@link keptContent}). */
  private contentBlock(tc: ToolCallView): HTMLElement {
    const el = this.ctx.h('div', { className: 'tool-content' }, tc.content.map((c, i) => renderContent(this.ctx, c, `${tc.toolCallId}:${i}`, { toolCallId: tc.toolCallId, index: i })));
    // Only all-text content is kept (a diff or a terminal block has state of its own); a long text's
    // count is the text node of its `.not-shown` block (`longTextBlock`).
    this.content = tc.content.every((c) => c.type === 'text')
      ? {
          el,
          texts: tc.content.map((c) => shownText(c as { text: string; totalChars?: number }).shown),
          notices: Array.from(el.children, (b) => (b.querySelector('.not-shown')?.firstChild as Text | null) ?? undefined),
        }
      : undefined;
    return el;
  }

  /** Replaces the block of one terminal, leaving the rest of the card alone. */
  updateTerminal(terminalId: string): void {
    for (const old of Array.from(this.el.querySelectorAll(`[data-terminal-id="${cssEscape(terminalId)}"]`))) {
      old.replaceWith(renderTerminal(this.ctx, terminalId));
    }
  }

  /** Terminal ids this card shows (to route terminal patches). */
  terminalIds(): string[] {
    const tc = this.ctx.state()?.toolCalls[this.toolCallId];
    return (tc?.content ?? []).flatMap((c) => (c.type === 'terminal' ? [c.terminalId] : []));
  }

  private missing(): HTMLElement {
    return this.ctx.h('div', { className: 'tool-card' }, this.ctx.h('div', { className: 'muted' }, 'Tool call (no details yet)'));
  }

  /** @param kept where the content block shown now goes again, as it is (see {@link keptContent}) */
  private card(tc: ToolCallView, perm: PermissionView | undefined, kept?: Node): HTMLElement {
    const { h } = this.ctx;
    const waiting = perm?.state === 'waiting';
    const running = tc.status === 'in_progress';
    const minutes = silentMinutes(tc, this.ctx.hostNow?.());
    const silence = h('span', { className: 'tool-silence', hidden: minutes === undefined, title: 'No update from the agent about this call for this long' }, minutes === undefined ? '' : silentLabel(minutes));
    this.silence = { el: silence, minutes };
    const head = h(
      'div',
      { className: 'tool-head' },
      icon(h, KIND_ICON[tc.kind] ?? 'tools', { className: 'kind-icon', label: tc.kind.replace('_', ' ') }),
      h('span', { className: 'tool-title', title: tc.title }, breakable(this.ctx.doc, tc.title || tc.kind)),
      this.late ? h('span', { className: 'late-badge', title: 'The agent sent this after you stopped its turn' }, 'after Stop') : null,
      silence,
      // A waiting card's status says, on hover, the hash of exactly what it approves.
      h('span', { className: `tool-status status-${tc.status}`, title: waiting && perm.intentHash ? `Intent SHA-256 ${perm.intentHash}: only effects matching it will be performed.` : undefined },
        running ? icon(h, 'loading', { spin: true }) : null,
        h('vscode-badge', { className: 'status-badge' }, STATUS_LABEL[tc.status] ?? tc.status)),
    );
    // A waiting card shows what will happen first (the diff, the command), then the warnings that
    // apply and its buttons; what else the agent sent follows them, labelled as the agent's.
    const lead = waiting ? leadIndices(tc) : [];
    const leadDiffs = new Set(lead.map((i) => (tc.content[i] as { path: string }).path));
    // A location the lead's diff already names (and links) is not said twice above it.
    const locations = tc.locations.filter((l) => !leadDiffs.has(l.path));
    const rest = waiting ? tc.content.flatMap((_, i) => (lead.includes(i) ? [] : [i])) : [];
    const restBlock = !waiting || !rest.length ? null : lead.length ? this.blocksOf(tc, rest) : (kept ?? this.contentBlock(tc));
    return h(
      'div',
      {
        className: `tool-card kind-${tc.kind} status-${tc.status}${waiting ? ' waiting' : ''}`,
        // A click anywhere on a waiting card gives it the focus, so the keyboard's approve answers it.
        tabindex: waiting ? '-1' : undefined,
        // Enter on the card itself (reached with the next/previous card keys) moves to its Allow:
        // a second Enter allows, Tab reaches Reject — never one key from the card to an approval.
        onKeydown: waiting ? (ev: Event) => focusAnswer(ev as KeyboardEvent) : undefined,
        role: 'group',
        'aria-label': `${tc.kind} tool call: ${tc.title}, ${STATUS_LABEL[tc.status] ?? tc.status}`,
      },
      head,
      tc.placeholder ? h('div', { className: 'placeholder-note muted' }, '(not announced by the agent)') : null,
      locations.length ? h('div', { className: 'locations' }, locations.map((l) => locationLink(this.ctx, l.path, l.line))) : null,
      waiting
        ? [
            leadSection(this.ctx, tc, perm, lead, (i) => renderContent(this.ctx, tc.content[i], `${tc.toolCallId}:${i}`)),
            warnings(this.ctx, tc, perm),
            this.prompt.waiting(tc, perm),
            restBlock && perm.display ? h('div', { className: 'agent-shown muted' }, icon(h, 'comment'), h('span', null, 'Shown by the agent:')) : null,
            restBlock,
          ]
        : [
            perm ? answeredCovers(this.ctx, tc, perm) : null,
            tc.content.length ? (kept ?? this.contentBlock(tc)) : null,
            // The outcome and "Review change" share one line: an answered card is its change and a line.
            perm ? withReview(this.prompt.answered(perm, tc.verification === 'client'), this.reviewLink(tc)) : null,
          ],
      tc.verification === 'agent'
        ? h('div', { className: 'verification unverified', title: 'The agent performed this itself; Agent Switchboard could not check it against what you approved.' },
            icon(h, 'warning'), h('span', null, 'Performed by the agent itself — not verified by the client.'))
        : tc.verification === 'client' && (!perm || perm.state === 'waiting')
          ? h('div', { className: 'verification verified muted', title: 'Performed by Agent Switchboard after matching the approved intent.' }, icon(h, 'verified'), h('span', null, 'Verified against the approved intent'))
          : null,
      perm && !waiting ? null : this.reviewLink(tc),
      this.rawSection(tc),
    );
  }

  /** The content items at `indices` in one block (a waiting card's other items, after its diffs); not kept. */
  private blocksOf(tc: ToolCallView, indices: number[]): HTMLElement {
    this.content = undefined;
    return this.ctx.h('div', { className: 'tool-content' }, indices.map((i) => renderContent(this.ctx, tc.content[i], `${tc.toolCallId}:${i}`, { toolCallId: tc.toolCallId, index: i })));
  }

  /** "Review change" on a finished edit, delete or move: the Changes view and the diff editor. */
  private reviewLink(tc: ToolCallView): HTMLElement | null {
    const key = this.ctx.state()?.key;
    if (!key || tc.status !== 'completed' || !['edit', 'delete', 'move'].includes(tc.kind)) return null;
    const { h } = this.ctx;
    return h(
      'button',
      { type: 'button', className: 'link review-change', title: 'Keep or undo this change, hunk by hunk', onClick: () => this.ctx.post({ type: 'reviewToolCall', key, toolCallId: tc.toolCallId }) },
      icon(h, 'diff'),
      ' Review change',
    );
  }

  /** What the agent sent as the call's input and output, verbatim, under one closed heading. */
  private rawSection(tc: ToolCallView): HTMLElement | null {
    const { h } = this.ctx;
    const parts: HTMLElement[] = [];
    const both = tc.rawInput !== undefined && tc.rawOutput !== undefined;
    if (tc.rawInput !== undefined) parts.push(h('div', { className: 'raw-part' }, both ? h('div', { className: 'raw-label muted' }, 'Input') : null, h('pre', { className: 'raw raw-input' }, prettyJson(tc.rawInput))));
    if (tc.rawOutput !== undefined) parts.push(h('div', { className: 'raw-part' }, both ? h('div', { className: 'raw-label muted' }, 'Output') : null, h('pre', { className: 'raw raw-output' }, prettyJson(tc.rawOutput))));
    if (!parts.length) return null;
    const heading = both ? 'Raw input and output' : tc.rawInput !== undefined ? 'Raw input' : 'Raw output';
    return this.collapsible('raw', heading, h('div', { className: 'raw-parts' }, parts));
  }

  private collapsible(section: string, heading: string, body: HTMLElement): HTMLElement {
    const el = this.ctx.h('vscode-collapsible', { heading, className: 'raw-section', open: this.open.has(section) }, body);
    // The toggle event does not bubble; remember the choice so a rebuild keeps the section open.
    el.addEventListener('vsc-collapsible-toggle', (ev) => {
      if ((ev as CustomEvent<{ open: boolean }>).detail?.open) this.open.add(section);
      else this.open.delete(section);
    });
    return el;
  }
}

/**
 * Makes `old` what `fresh` is, with `kept` (a child of `old`) where `fresh` has `slot`, left in
 * place (not removed and inserted again, which would lay it out again): `old` takes `fresh`'s
 * attributes and, in order, its children.
 */
function morphInto(old: HTMLElement, fresh: HTMLElement, slot: Node, kept: Node): void {
  for (const a of Array.from(old.attributes)) if (!fresh.hasAttribute(a.name)) old.removeAttribute(a.name);
  for (const a of Array.from(fresh.attributes)) if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
  const want = Array.from(fresh.childNodes, (c) => (c === slot ? kept : c));
  const keep = new Set(want);
  for (const c of Array.from(old.childNodes)) if (!keep.has(c)) c.remove();
  let at = old.firstChild;
  for (const c of want) {
    if (c === at) at = at.nextSibling;
    else old.insertBefore(c, at);
  }
}

function cssEscape(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}

/** `line` with `link` (when there is one) as its last item. */
function withReview(line: HTMLElement, link: HTMLElement | null): HTMLElement {
  if (link) line.append(' ', link);
  return line;
}

/** Enter on a waiting card (not on a control inside it): the focus goes to its first answer button. */
function focusAnswer(ev: KeyboardEvent): void {
  const card = ev.currentTarget as HTMLElement;
  if (ev.key !== 'Enter' || ev.target !== card || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const first = card.querySelector<HTMLElement>('.perm-main .perm-option:not([disabled])');
  if (!first) return;
  ev.preventDefault();
  first.focus();
}

/**
 * A tool-call card: kind icon, title, status, locations, content (text, diff preview, terminal),
 * the permission prompt while the agent waits for the person, and the raw input.
 *
 * The card's wrapper element is kept for the entry's life; an upsert of the tool call or its
 * permission rebuilds only this card's inside, and a terminal update replaces only that terminal's
 * block. Open/closed state of the card's collapsibles survives rebuilds.
 */
import type { PermissionOptionKind, ToolKind } from '@agentclientprotocol/sdk';
import type { IntentDisplayView, PermissionView, ToolCallStatusView, ToolCallView } from '../../src/acp/session/types';
import { locationLink, openFullDiffButton, openWholeInputButton, previewCut, renderContent, renderTerminal, shownText } from './content';
import type { Ctx } from './context';
import { icon, prettyJson } from './dom';
import { hasInvisible, visibleText } from './visibleText';
import { silentLabel, silentMinutes } from './silence';
import { holdsFocus, keepFocus } from './cardFocus';

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

/**
 * The buttons' labels, by the option's kind and in our words: the agent names its options, and a
 * hostile one could call its `allow_always` "Reject". The agent's name is shown beside, smaller.
 */
export const OPTION_LABEL: Record<PermissionOptionKind, string> = {
  allow_once: 'Allow once',
  allow_always: 'Allow as the agent offers',
  reject_once: 'Reject',
  reject_always: 'Reject always',
};

const OPTION_TITLE: Record<PermissionOptionKind, string> = {
  allow_once: 'Allow this one request.',
  allow_always:
    "The agent's own \"always\": it stops asking for this kind of action in this session. Agent Switchboard keeps a session grant for it (exactly this command, or edits of any workspace file but protected ones), revocable in the Grants view.",
  reject_once: 'Refuse this request.',
  reject_always: 'Refuse this request; the agent may stop asking for this kind of action.',
};

const ANSWER_LABEL: Record<PermissionOptionKind, string> = {
  allow_once: 'Allowed once',
  allow_always: 'Allowed as the agent offered (this session)',
  reject_once: 'Rejected',
  reject_always: 'Always rejected',
};

/** Order of the agent's options on the card: by reach, allow once first. */
const KIND_ORDER: Record<PermissionOptionKind, number> = { allow_once: 0, allow_always: 1, reject_once: 2, reject_always: 3 };

/** Agents' option names are shown, secondary, up to this many characters. */
const MAX_AGENT_NAME = 80;

/** After this long without an answer from the extension, the option buttons work again. */
const REENABLE_MS = 5000;

const ANSWERED_BY = { person: 'by you', api: 'via the API', cancel: 'because the turn was cancelled', grant: 'by a grant' } as const;
const GRANT_LABEL = { session: 'Allowed for this session', workspace: 'Allowed for this workspace', always: 'Allowed in every workspace' } as const;
/** Our own grant buttons say what they grant, in words; the broadest is named for its reach and never looks like the default. */
const GRANT_BUTTON = { session: 'Allow for this session', workspace: 'Allow in this workspace', always: 'Always allow everywhere' } as const;

export class ToolCardNode {
  readonly el: HTMLElement;
  private readonly open = new Set<string>();
  /** Set after a click so a double click cannot answer twice before the extension's patch lands. */
  private answering: string | null = null;

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
    if (perm?.state !== 'waiting') this.answering = null;
    const old = this.el.firstElementChild as HTMLElement | null;
    const kept = tc ? this.keptContent(tc) : undefined;
    if (!tc) this.content = undefined;
    // A card whose content block stays is brought up to date around it: moved into a new card, the
    // block (100,000 characters of a tool's output) would be laid out again on every update. The
    // new card is built with a stand-in where the block goes.
    const slot = kept && old && kept.parentElement === old ? this.ctx.doc.createComment('content') : undefined;
    const fresh = tc ? this.card(tc, perm, slot) : this.missing();
    const focused = holdsFocus(old);
    if (slot) morphInto(old!, fresh, slot, kept!);
    else this.el.replaceChildren(fresh);
    keepFocus(this.el.firstElementChild as HTMLElement | null, focused);
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
    // What an approval lets through, as the extension computed it from the intent; the agent's own
    // blocks (text, diffs, terminals it points at) follow, labelled as the agent's.
    const covers = perm?.display ? this.covers(perm) : null;
    // A held effect's card holds the request itself (our diff of it), not blocks the agent chose.
    const shownBy = perm?.unrequested ? "The request, as a diff from the file's current text:" : 'Shown by the agent:';
    const minutes = silentMinutes(tc, this.ctx.hostNow?.());
    const silence = h('span', { className: 'tool-silence', hidden: minutes === undefined, title: 'No update from the agent about this call for this long' }, minutes === undefined ? '' : silentLabel(minutes));
    this.silence = { el: silence, minutes };
    const head = h(
      'div',
      { className: 'tool-head' },
      icon(h, KIND_ICON[tc.kind] ?? 'tools', { className: 'kind-icon', label: tc.kind.replace('_', ' ') }),
      h('span', { className: 'tool-title', title: tc.title }, tc.title || tc.kind),
      this.late ? h('span', { className: 'late-badge', title: 'The agent sent this after you stopped its turn' }, 'after Stop') : null,
      silence,
      h('span', { className: `tool-status status-${tc.status}` },
        running ? icon(h, 'loading', { spin: true }) : null,
        h('vscode-badge', { className: 'status-badge' }, STATUS_LABEL[tc.status] ?? tc.status)),
    );
    return h(
      'div',
      {
        className: `tool-card kind-${tc.kind} status-${tc.status}${waiting ? ' waiting' : ''}`,
        // A click anywhere on a waiting card gives it the focus, so the keyboard's approve answers it.
        tabindex: waiting ? '-1' : undefined,
        role: 'group',
        'aria-label': `${tc.kind} tool call: ${tc.title}, ${STATUS_LABEL[tc.status] ?? tc.status}`,
      },
      head,
      tc.placeholder ? h('div', { className: 'placeholder-note muted' }, '(not announced by the agent)') : null,
      tc.locations.length
        ? h('div', { className: 'locations' }, tc.locations.map((l) => locationLink(this.ctx, l.path, l.line)))
        : null,
      // A waiting card puts its question, a one-line summary of the intent and its buttons first: in a
      // narrow, short view they are on screen without scrolling; the long parts (what exactly is let
      // through, the agent's diff) follow.
      waiting ? this.permission(tc, perm) : null,
      covers,
      covers && waiting && tc.content.length && !(perm?.unrequested && tc.kind === 'execute') ? h('div', { className: 'agent-shown muted' }, icon(h, perm?.unrequested ? 'diff' : 'comment'), h('span', null, shownBy)) : null,
      tc.content.length ? (kept ?? this.contentBlock(tc)) : null,
      perm && !waiting ? this.permission(tc, perm) : null,
      tc.verification === 'agent'
        ? h('div', { className: 'verification unverified', title: 'The agent performed this itself; Agent Switchboard could not check it against what you approved.' },
            icon(h, 'warning'), h('span', null, 'Performed by the agent itself — not verified by the client.'))
        : tc.verification === 'client'
          ? h('div', { className: 'verification verified muted' }, icon(h, 'verified'), h('span', null, 'Performed by Agent Switchboard after matching the approved intent.'))
          : null,
      this.reviewLink(tc),
      tc.rawInput !== undefined ? this.collapsible('raw-input', 'Raw input', h('pre', { className: 'raw' }, prettyJson(tc.rawInput))) : null,
      tc.rawOutput !== undefined ? this.collapsible('raw-output', 'Raw output', h('pre', { className: 'raw' }, prettyJson(tc.rawOutput))) : null,
    );
  }

  /**
   * "Allowing lets through exactly:" each effect of the declared intent, as plain text with hidden
   * characters made visible: the command line as the gate compares it and its folder, each file and
   * the content the gate will accept when the agent's blocks do not show it. Answered requests keep
   * the command lines and paths, without the content.
   */
  private covers(perm: PermissionView): HTMLElement {
    const { h } = this.ctx;
    const waiting = perm.state === 'waiting';
    const items = (perm.display ?? []).map((d) => coverItem(this.ctx, d, waiting, perm.unrequested === true));
    return h(
      'div',
      { className: `perm-covers${waiting ? ' waiting' : ''}`, role: 'group', 'aria-label': 'What an approval lets through' },
      waiting ? h('div', { className: 'perm-covers-head' }, icon(h, 'shield'), h('span', null, 'Allowing lets through exactly this:')) : null,
      items,
    );
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

  private collapsible(section: string, heading: string, body: HTMLElement): HTMLElement {
    const el = this.ctx.h('vscode-collapsible', { heading, className: 'raw-section', open: this.open.has(section) }, body);
    // The toggle event does not bubble; remember the choice so a rebuild keeps the section open.
    el.addEventListener('vsc-collapsible-toggle', (ev) => {
      if ((ev as CustomEvent<{ open: boolean }>).detail?.open) this.open.add(section);
      else this.open.delete(section);
    });
    return el;
  }

  private permission(tc: ToolCallView, perm: PermissionView): HTMLElement {
    const { h } = this.ctx;
    const key = this.ctx.state()?.key;
    if (perm.state === 'waiting') {
      const onceOnly = perm.onceOnly;
      const hasOnce = perm.options.some((o) => o.kind === 'allow_once');
      // What the agent did not show can only be allowed once: its "always" is not offered beside an
      // allow-once, and when it is the only allow, it is labelled (and recorded) as once.
      // In the order of their reach: allow once (the only default-looking one), the agent's broader
      // allow, then the rejects; our own grants follow on their own row, the broadest last.
      const shown = (onceOnly && hasOnce ? perm.options.filter((o) => o.kind !== 'allow_always') : perm.options)
        .map((o, i) => ({ o, i }))
        .sort((a, b) => (KIND_ORDER[a.o.kind] ?? 9) - (KIND_ORDER[b.o.kind] ?? 9) || a.i - b.i)
        .map(({ o }) => o);
      const buttons = shown.map((o) => {
        const kind = onceOnly && o.kind === 'allow_always' ? 'allow_once' : o.kind;
        const label = OPTION_LABEL[kind] ?? 'Agent option';
        const name = agentName(o.name);
        return h(
          'vscode-button',
          {
            className: 'perm-option',
            'data-option-id': o.optionId,
            'data-kind': o.kind,
            // Only allow-once looks like the default; anything broader or a reject is secondary.
            secondary: kind !== 'allow_once',
            icon: kind === 'allow_once' ? 'check' : kind === 'allow_always' ? 'check-all' : 'close',
            title: OPTION_TITLE[kind] ?? '',
            disabled: this.answering !== null,
            // The accessible name starts with the visible text (WCAG 2.5.3, axe label-content-name-mismatch).
            'aria-label': `${label}${name && !sameLabel(name, label) ? ` “${name}”` : ''}: ${tc.title}`,
            onClick: (ev: Event) => {
              if (!key || this.answering || (ev.currentTarget as HTMLElement).hasAttribute('disabled')) return;
              this.answering = o.optionId;
              for (const b of Array.from(this.el.querySelectorAll('.perm-option'))) b.setAttribute('disabled', '');
              this.ctx.post({ type: 'answerPermission', key, permissionId: perm.permissionId, optionId: o.optionId });
              // The extension answers with a permission patch; if it refused the answer (the
              // webview holds no authority) and nothing changed, let the person try again.
              this.ctx.later(() => {
                const p = this.ctx.state()?.permissions[perm.permissionId];
                if (this.answering === o.optionId && p?.state === 'waiting') {
                  this.answering = null;
                  this.update();
                }
              }, REENABLE_MS);
            },
          },
          label,
          name && !sameLabel(name, label) ? h('span', { className: 'perm-agent-name' }, ` “${name}”`) : null,
        );
      });
      // Our own choices beyond the agent's: allow, and keep allowing exactly this command or file.
      const allow = perm.options.find((o) => o.kind === 'allow_once') ?? perm.options.find((o) => o.kind === 'allow_always');
      const grantable = !onceOnly && allow && (tc.kind === 'edit' || tc.kind === 'execute' || tc.kind === 'delete' || tc.kind === 'move');
      const what = tc.kind === 'execute' ? 'command' : 'file';
      const grantButton = (scope: 'session' | 'workspace' | 'always') =>
        h(
          'vscode-button',
          {
            className: 'perm-option perm-grant',
            'data-grant': scope,
            secondary: true,
            icon: scope === 'always' ? 'warning' : undefined,
            disabled: this.answering !== null,
            title: `Allow now, and from now on allow exactly this ${what} ${scope === 'session' ? 'in this session' : scope === 'workspace' ? 'in this workspace' : 'in every workspace, with no expiry unless agentSwitchboard.policy.grantMinutes sets one'} without asking (revocable in the Grants view)`,
            onClick: (ev: Event) => {
              if (!key || !allow || this.answering || (ev.currentTarget as HTMLElement).hasAttribute('disabled')) return;
              this.answering = allow.optionId;
              for (const b of Array.from(this.el.querySelectorAll('.perm-option'))) b.setAttribute('disabled', '');
              this.ctx.post({ type: 'answerPermission', key, permissionId: perm.permissionId, optionId: allow.optionId, grant: scope });
              this.ctx.later(() => {
                if (this.answering === allow.optionId && this.ctx.state()?.permissions[perm.permissionId]?.state === 'waiting') {
                  this.answering = null;
                  this.update();
                }
              }, REENABLE_MS);
            },
          },
          GRANT_BUTTON[scope],
        );
      return h(
        'div',
        { className: 'permission waiting', role: 'group', 'aria-label': 'Permission request' },
        perm.unrequested
          ? h(
              'div',
              { className: 'perm-question perm-unrequested' },
              icon(h, 'shield'),
              h('span', { className: 'unrequested-badge' }, 'Asked nothing before acting'),
              h('span', null, tc.kind === 'execute' ? ' The agent sent this command without asking first. Nothing runs until you answer.' : ' The agent sent this write without asking first. Nothing is written until you answer.'),
            )
          : h('div', { className: 'perm-question' }, icon(h, 'shield'), h('span', null, 'The agent asks for permission to run this tool.')),
        intentSummary(this.ctx, tc, perm),
        onceOnly ? h('div', { className: 'perm-once-only' }, icon(h, 'info'), h('span', null, onceOnly)) : null,
        h('div', { className: 'perm-options' }, buttons),
        grantable
          ? h(
              'div',
              { className: 'perm-options perm-grants', role: 'group', 'aria-label': `Allow and keep allowing exactly this ${what}` },
              h('span', { className: 'perm-grants-label muted' }, `Keep allowing exactly this ${what}:`),
              grantButton('session'),
              grantButton('workspace'),
              grantButton('always'),
            )
          : null,
        // The warnings can be long: below the buttons, so the buttons stay in sight in a short view.
        (perm.undeclared ?? []).map((u) => h('div', { className: 'perm-undeclared' }, icon(h, 'warning'), h('span', null, u))),
        intentLine(this.ctx, perm),
      );
    }
    const option = perm.options.find((o) => o.optionId === perm.optionId);
    const kind = option && perm.asOnce && option.kind === 'allow_always' ? 'allow_once' : option?.kind;
    const label =
      perm.state === 'cancelled' ? 'Cancelled' : perm.grant && perm.answeredBy !== 'grant' ? GRANT_LABEL[perm.grant.scope] : kind ? (ANSWER_LABEL[kind] ?? 'Answered') : 'Answered';
    const name = option ? agentName(option.name) : '';
    const allowed = option?.kind.startsWith('allow') && perm.state === 'selected';
    const by = perm.answeredBy ? ANSWERED_BY[perm.answeredBy] : undefined;
    return h(
      'div',
      { className: `permission answered ${allowed ? 'allowed' : 'denied'}`, 'data-permission-state': perm.state },
      icon(h, perm.state === 'cancelled' ? 'circle-slash' : allowed ? 'pass' : 'error'),
      h('span', { className: 'perm-result' }, label),
      name && !sameLabel(name, label) ? h('span', { className: 'muted perm-agent-name' }, ` (the agent's option “${name}”)`) : null,
      by ? h('span', { className: 'muted' }, ` ${by}`) : null,
      perm.unrequested ? h('span', { className: 'muted perm-asked-at', title: 'The agent sent this effect without asking first; Agent Switchboard held it and asked you at the effect.' }, ' · asked at the effect') : null,
      perm.intentHash ? h('code', { className: 'intent-hash muted', title: `Intent SHA-256 ${perm.intentHash}` }, ` intent ${perm.intentHash.slice(0, 12)}`) : null,
    );
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

/** The agent's name of an option, on one line and bounded: shown as plain text, never as the label. */
function agentName(name: string): string {
  const one = name.replace(/\s+/g, ' ').trim();
  return one.length > MAX_AGENT_NAME ? `${one.slice(0, MAX_AGENT_NAME - 1)}…` : one;
}

/** True when the agent's name says no more than our label. */
function sameLabel(name: string, label: string): boolean {
  return name.toLowerCase() === label.toLowerCase();
}

/**
 * One line per effect saying what allowing does, above the buttons: "Run: <command line>" or
 * "Write <path> +a −d" (the stats of the agent's diff for that path). The full detail follows below.
 */
function intentSummary(ctx: Ctx, tc: ToolCallView, perm: PermissionView): HTMLElement | null {
  const { h } = ctx;
  const lines = (perm.display ?? []).flatMap((d) => {
    if (d.type === 'command') {
      if (d.unreadable || d.line === null) return [];
      // Next to the buttons: whether it runs sandboxed (issue 21); the whole profile is in the details.
      const boxed = d.sandbox
        ? h('div', { className: `perm-summary-line command-sandbox ${d.sandbox.sandboxed ? 'sandboxed' : 'unsandboxed'}` }, icon(h, d.sandbox.sandboxed ? 'shield' : 'warning'), h('span', { className: 'perm-summary-text' }, d.sandbox.sandboxed ? sandboxGist(d.sandbox.text) : d.sandbox.text.split(':')[0]))
        : null;
      return [h('div', { className: 'perm-summary-line' }, icon(h, 'terminal'), h('code', { className: 'perm-summary-text' }, visibleText(d.line, true))), ...(boxed ? [boxed] : [])];
    }
    if (d.type === 'write') {
      // The intent names a file as the gate does (workspace-relative); a diff names it as the agent did (absolute).
      const diff = tc.content.find((c): c is Extract<ToolCallView['content'][number], { type: 'diff' }> => c.type === 'diff' && samePath(c.path, d.path));
      return [h('div', { className: 'perm-summary-line' }, icon(h, diff?.oldText === null ? 'new-file' : 'edit'),
        h('span', { className: 'perm-summary-text' }, diff?.oldText === null ? 'Create ' : 'Write ', h('code', null, visibleText(d.path, true))),
        diff ? h('span', { className: 'diff-stats' }, h('span', { className: 'stat-add' }, `+${diff.added}`), h('span', { className: 'stat-del' }, `−${diff.removed}`)) : null)];
    }
    return [];
  });
  // Before the buttons: a change the preview below shows only in part is opened whole first.
  const cut = tc.content.findIndex((c, i) => c.type === 'diff' && previewCut(c, `${tc.toolCallId}:${i}`));
  const note = cut >= 0
    ? h('div', { className: 'perm-summary-line perm-cut' }, icon(h, 'warning'), h('span', { className: 'perm-summary-text' }, 'The card shows only part of this change. '), openFullDiffButton(ctx, { toolCallId: tc.toolCallId, index: cut }, 'Open the full diff'))
    : null;
  // A long content, address or plan the card cuts: the whole request, before the buttons.
  const whole = openWholeInputButton(ctx, tc.toolCallId, perm.display);
  return lines.length || note || whole ? h('div', { className: 'perm-summary' }, lines, note, whole) : null;
}

/** "Intent 1a2b3c4d5e6f": the short hash of what the person approves; the full one in the tooltip. */
function intentLine(ctx: Ctx, perm: PermissionView): HTMLElement | null {
  if (!perm.intentHash) return null;
  const { h } = ctx;
  return h(
    'div',
    { className: 'perm-intent muted', title: `SHA-256 of the exact intent (RFC 8785 canonical JSON): ${perm.intentHash}. Only effects matching it will be performed.` },
    icon(h, 'lock'),
    h('span', null, 'Intent '),
    h('code', { className: 'intent-hash' }, perm.intentHash.slice(0, 12)),
  );
}

/** One effect of the intent on the card. */
function coverItem(ctx: Ctx, d: IntentDisplayView, waiting: boolean, held = false): HTMLElement {
  const { h } = ctx;
  const hidden = (t: string, oneLine = true) => (hasInvisible(t, oneLine) ? h('div', { className: 'perm-hidden-chars' }, icon(h, 'warning'), h('span', null, 'This text holds invisible or direction-changing characters, shown as ⟨U+…⟩.')) : null);
  if (d.type === 'command') {
    const cwd = h('div', { className: 'command-cwd muted', title: 'Working directory' }, icon(h, 'folder'), h('span', null, visibleText(d.cwd, true)));
    // A held command shows each variable with its value (secrets redacted by the extension); a declared one, the names.
    const env = d.env?.length
      ? h('div', { className: 'command-env' }, h('div', { className: 'muted' }, 'With these environment variables:'), d.env.map((line) => h('code', { className: 'command-env-line' }, visibleText(line, true))))
      : d.envNames.length
        ? h('div', { className: 'command-env muted' }, h('span', null, `Sets ${d.envNames.map((n) => visibleText(n, true)).join(', ')}`))
        : null;
    // The sandbox the hash covers, in words, or that there is none (issue 21): our text, never the agent's.
    const sandbox = d.sandbox
      ? h('div', { className: `command-sandbox ${d.sandbox.sandboxed ? 'sandboxed' : 'unsandboxed'}` }, icon(h, d.sandbox.sandboxed ? 'shield' : 'warning'), h('span', null, visibleText(d.sandbox.text, false)))
      : null;
    if (d.unreadable) return h('div', { className: 'cover cover-command unreadable' }, h('div', { className: 'perm-undeclared' }, icon(h, 'error'), h('span', null, "No command: the client could not read the agent's command, so none will be let through.")), cwd);
    if (d.line === null) return h('div', { className: 'cover cover-command undeclared' }, h('div', { className: 'perm-undeclared' }, icon(h, 'warning'), h('span', null, 'Any one command in this folder: the agent did not show which.')), cwd, env, sandbox);
    return h(
      'div',
      { className: 'cover cover-command' },
      h('pre', { className: 'command', title: d.argv.length > 1 ? `Words: ${d.argv.map((a) => JSON.stringify(a)).join(' ')}` : undefined }, h('span', { className: 'prompt-sign' }, '$ '), visibleText(d.line, true)),
      hidden(d.line),
      cwd,
      env,
      sandbox,
    );
  }
  if (d.type === 'write') {
    const note =
      d.source === 'none'
        ? 'Any content: the agent did not show what it will write.'
        : d.source === 'diff'
          ? held
            ? 'With exactly the content the request carries, over the file’s current text (the diff below).'
            : 'With the content of the agent’s diff below.'
          : d.content
            ? 'With exactly this content:'
            : '';
    const content = waiting && d.content ? visibleText(d.content.text) : null;
    return h(
      'div',
      { className: 'cover cover-write' },
      h('div', { className: 'cover-path' }, icon(h, 'file'), h('code', null, visibleText(d.path, true))),
      hidden(d.path),
      note ? h('div', { className: `cover-note${d.source === 'none' ? ' perm-undeclared' : ' muted'}` }, h('span', null, note)) : null,
      content !== null ? h('pre', { className: 'cover-content' }, content) : null,
      content !== null && d.content ? hidden(d.content.text, false) : null,
      content !== null && d.content && d.content.totalChars > d.content.text.length
        ? h('div', { className: 'perm-undeclared' }, icon(h, 'warning'), h('span', null, `Only the first ${d.content.text.length} of ${d.content.totalChars} characters are shown; Open the whole request (above) shows all of it.`))
        : null,
    );
  }
  return h(
    'div',
    { className: 'cover cover-tool' },
    h('div', { className: 'cover-tool-head muted' }, icon(h, 'tools'), h('span', null, `Performed by the agent itself: ${visibleText(d.title, true)}`)),
    // The agent wrote these: text, never a link (the person copies the address if they want it).
    d.url ? h('div', { className: 'cover-url' }, icon(h, 'globe'), h('code', null, visibleText(d.url, true))) : null,
    d.url ? hidden(d.url) : null,
    d.plan && waiting ? h('div', { className: 'cover-note muted' }, h('span', null, 'The plan it puts to you:')) : null,
    d.plan && waiting ? h('pre', { className: 'cover-content cover-plan' }, visibleText(d.plan)) : null,
  );
}

/** Does a diff's path (as the agent sent it, usually absolute) name the intent's file (workspace-relative, `/`)? */
function samePath(diffPath: string, intentPath: string): boolean {
  const a = diffPath.replace(/\\/g, '/');
  return a === intentPath || a.endsWith(`/${intentPath}`);
}

function cssEscape(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}

/**
 * "Sandboxed when the editor runs it, no network, files that run held back" (or "…, network only to
 * a.example", "…, can create files that run") from the profile's words (ours).
 */
function sandboxGist(words: string): string {
  const net = /; (no network|network only to [^;]+);/.exec(words)?.[1];
  const held = /are held back at any depth/.test(words) ? 'files that run held back' : /cannot hold them back/.test(words) ? 'can create files that run' : undefined;
  return ['Sandboxed when the editor runs it', net, held].filter(Boolean).join(', ');
}

/**
 * A permission card's answer controls: while it waits, Allow and Reject (the agent's narrowest
 * options) and one "Allow more…" that opens every broader choice — our grants (this session, this
 * workspace, everywhere), the agent's own "always" options with what they would grant — and the
 * intent's hash written out (it is also on hover of Allow and of the card's status). Once answered,
 * how it ended and who answered.
 *
 * Every button answers through `answerPermission` with the agent's option id; the extension holds
 * the authority (it refuses what the request does not allow) and the person's answer is the one the
 * keyboard's approve / reject would give for Allow / Reject (`narrowestOption`).
 */
import { APPROVE_KEY, keyLabel, REJECT_KEY } from '../../src/common/keys';
import type { PermissionOptionKind } from '@agentclientprotocol/sdk';
import type { PermissionOptionView, PermissionView, ToolCallView } from '../../src/acp/session/types';
import type { Ctx } from './context';
import { icon } from './dom';
import { oneLine } from './permissionLead';

/**
 * The buttons' labels, by the option's kind and in our words: the agent names its options, and a
 * hostile one could call its `allow_always` "Reject". The agent's name is shown beside, smaller.
 */
export const OPTION_LABEL: Record<PermissionOptionKind, string> = {
  allow_once: 'Allow',
  allow_always: 'Allow as the agent offers',
  reject_once: 'Reject',
  reject_always: 'Reject always',
};

const OPTION_TITLE: Record<PermissionOptionKind, string> = {
  allow_once: 'Allow this one request, exactly as the card shows it.',
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

/** Order of the agent's options: by reach, allow once first. */
const KIND_ORDER: Record<PermissionOptionKind, number> = { allow_once: 0, allow_always: 1, reject_once: 2, reject_always: 3 };

/** Agents' option names are shown, secondary, up to this many characters. */
const MAX_AGENT_NAME = 80;

/** After this long without an answer from the extension, the option buttons work again. */
const REENABLE_MS = 5000;

const ANSWERED_BY = { person: 'by you', api: 'via the API', cancel: 'because the turn was cancelled', grant: 'by a grant' } as const;
const GRANT_LABEL = { session: 'Allowed for this session', workspace: 'Allowed for this workspace', always: 'Allowed in every workspace' } as const;
/** Our own grant buttons say what they grant, in words; the broadest is named for its reach and never looks like the default. */
const GRANT_BUTTON = { session: 'Allow for this session', workspace: 'Allow in this workspace', always: 'Always allow everywhere' } as const;

type Scope = keyof typeof GRANT_BUTTON;

/** What the prompt needs of its card: its element (to disable every answer at once) and a rebuild. */
export interface PromptCard {
  readonly el: HTMLElement;
  update(): void;
}

/** The answer controls of one tool card, and what they remember across the card's rebuilds. */
export class PermissionPrompt {
  /** Set after a click so a double click cannot answer twice before the extension's patch lands. */
  private answering: string | null = null;
  /** Requests whose "Allow more…" the person opened: a rebuild of the card keeps it open. */
  private readonly moreOpen = new Set<string>();

  constructor(private readonly ctx: Ctx, private readonly card: PromptCard) {}

  /** Forgets a click whose request is no longer waiting (its answer landed, or it ended). */
  settle(perm: PermissionView | undefined): void {
    if (perm?.state !== 'waiting') this.answering = null;
  }

  /** The waiting request's buttons: Allow, Reject, Allow more… and the broader choices it opens. */
  waiting(tc: ToolCallView, perm: PermissionView): HTMLElement {
    const { h } = this.ctx;
    const onceOnly = perm.onceOnly;
    const hasOnce = perm.options.some((o) => o.kind === 'allow_once');
    // What the agent did not show can only be allowed once: its "always" is not offered beside an
    // allow-once, and when it is the only allow, it is labelled (and recorded) as once.
    const shown = (onceOnly && hasOnce ? perm.options.filter((o) => o.kind !== 'allow_always') : perm.options)
      .map((o, i) => ({ o, i }))
      .sort((a, b) => (KIND_ORDER[a.o.kind] ?? 9) - (KIND_ORDER[b.o.kind] ?? 9) || a.i - b.i)
      .map(({ o }) => o);
    // On the card: the narrowest allow and the narrowest reject, as the keyboard's keys answer.
    const main = [shown.find((o) => o.kind.startsWith('allow')), shown.find((o) => o.kind.startsWith('reject'))].filter((o): o is PermissionOptionView => !!o);
    const more = shown.filter((o) => !main.includes(o));
    const allow = perm.options.find((o) => o.kind === 'allow_once') ?? perm.options.find((o) => o.kind === 'allow_always');
    const grantable = !onceOnly && !!allow && (tc.kind === 'edit' || tc.kind === 'execute' || tc.kind === 'delete' || tc.kind === 'move');
    const what = tc.kind === 'execute' ? 'command' : 'file';
    const hash = perm.intentHash ? `Intent SHA-256 ${perm.intentHash}: only effects matching it will be performed.` : undefined;

    const panelId = `perm-more-${perm.permissionId}`;
    const open = this.moreOpen.has(perm.permissionId);
    const panel = more.length || grantable
      ? h(
          'div',
          { className: 'perm-more', id: panelId, role: 'group', 'aria-label': 'More ways to answer', hidden: !open },
          grantable
            ? h(
                'div',
                { className: 'perm-options perm-grants', role: 'group', 'aria-label': `Allow and keep allowing exactly this ${what}` },
                h('span', { className: 'perm-grants-label muted' }, `Keep allowing exactly this ${what}:`),
                (['session', 'workspace', 'always'] as const).map((scope) => this.grantButton(perm, allow!, scope, what)),
              )
            : null,
          more.map((o) =>
            h('div', { className: 'perm-more-option' },
              this.optionButton(tc, perm, o, !!onceOnly),
              o.kind === 'allow_always' ? (perm.grantNotes ?? []).map((n) => oneLine(h, n, { className: 'perm-grant-note', icon: 'warning' })) : null),
          ),
          perm.intentHash
            ? h('div', { className: 'perm-intent muted', title: hash }, icon(h, 'lock'), 'Intent SHA-256 ', h('code', { className: 'intent-hash' }, perm.intentHash))
            : null,
        )
      : null;
    const toggle = panel
      ? h('vscode-button', {
          className: 'perm-more-toggle',
          secondary: true,
          'aria-expanded': open ? 'true' : 'false',
          'aria-controls': panelId,
          title: 'More ways to answer: keep allowing exactly this for the session, the workspace or everywhere, or the agent’s own options',
          onClick: () => this.toggleMore(perm.permissionId, toggle!, panel),
        }, 'Allow more…')
      : null;
    // Escape in the open choices closes them and gives the focus back to "Allow more…".
    panel?.addEventListener('keydown', (ev) => {
      if ((ev as KeyboardEvent).key !== 'Escape' || panel.hidden) return;
      ev.stopPropagation();
      this.toggleMore(perm.permissionId, toggle!, panel);
      toggle!.focus();
    });
    return h(
      'div',
      { className: 'permission waiting', role: 'group', 'aria-label': 'Permission request' },
      h('div', { className: 'perm-options perm-main' },
        main.map((o) => this.optionButton(tc, perm, o, !!onceOnly)),
        toggle),
      panel,
    );
  }

  /**
   * How an answered request ended and who answered, on one line; `verified`: the effect was then
   * performed by us after matching the approved intent, said in one word (the whole on hover, with
   * the intent's hash), so an answered card keeps to the change and this line.
   */
  answered(perm: PermissionView, verified = false): HTMLElement {
    const { h } = this.ctx;
    const option = perm.options.find((o) => o.optionId === perm.optionId);
    const kind = option && perm.asOnce && option.kind === 'allow_always' ? 'allow_once' : option?.kind;
    const label =
      perm.state === 'cancelled' ? 'Cancelled' : perm.grant && perm.answeredBy !== 'grant' ? GRANT_LABEL[perm.grant.scope] : kind ? (ANSWER_LABEL[kind] ?? 'Answered') : 'Answered';
    const name = option ? agentName(option.name) : '';
    const allowed = option?.kind.startsWith('allow') && perm.state === 'selected';
    const by = perm.answeredBy ? ANSWERED_BY[perm.answeredBy] : undefined;
    // Each part keeps its words together and the parts wrap between them (no separator to lead a
    // row of its own); spaces between them keep the line's text a sentence for a screen reader.
    const parts = [
      h('span', { className: 'perm-result' }, label),
      // The agent's own name of the option, when it says more than our label and the option's button did.
      name && !sameLabel(name, label) && !(kind && sameLabel(name, OPTION_LABEL[kind] ?? '')) ? h('span', { className: 'muted perm-agent-name' }, `(the agent's option “${name}”)`) : null,
      by ? h('span', { className: 'muted perm-by' }, by) : null,
      perm.unrequested ? h('span', { className: 'muted perm-asked-at', title: 'The agent sent this effect without asking first; Agent Switchboard held it and asked you at the effect.' }, icon(h, 'info'), 'asked at the effect') : null,
      verified
        ? h('span', { className: 'muted perm-verified', title: `Performed by Agent Switchboard after matching the approved intent${perm.intentHash ? ` (SHA-256 ${perm.intentHash})` : ''}.` }, icon(h, 'verified'), 'verified')
        : null,
    ].filter((p): p is HTMLElement => !!p);
    return h(
      'div',
      { className: `permission answered ${allowed ? 'allowed' : 'denied'}`, 'data-permission-state': perm.state, title: perm.intentHash ? `Intent SHA-256 ${perm.intentHash}` : undefined },
      icon(h, perm.state === 'cancelled' ? 'circle-slash' : allowed ? 'pass' : 'error'),
      parts.flatMap((p, i) => (i ? [' ', p] : [p])),
    );
  }

  /** Opens or closes "Allow more…" in place (no rebuild: the focus stays where it is). */
  private toggleMore(permissionId: string, toggle: HTMLElement, panel: HTMLElement): void {
    const open = !this.moreOpen.delete(permissionId);
    if (open) this.moreOpen.add(permissionId);
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  }

  /** The key that answers a card with this option's kind (the package's keybindings), as a sentence. */
  private keyHint(kind: string): string {
    const key = kind === 'allow_once' ? APPROVE_KEY : kind === 'reject_once' ? REJECT_KEY : undefined;
    if (!key) return '';
    const mac = /Mac|iPhone|iPad/.test(this.ctx.doc.defaultView?.navigator.platform ?? '');
    return ` Key: ${keyLabel(key, mac)} (the card with the focus, or the only one waiting).`;
  }

  /** One of the agent's options, labelled by its kind; its own name follows, secondary. */
  private optionButton(tc: ToolCallView, perm: PermissionView, o: PermissionOptionView, onceOnly: boolean): HTMLElement {
    const { h } = this.ctx;
    const kind = onceOnly && o.kind === 'allow_always' ? 'allow_once' : o.kind;
    const label = OPTION_LABEL[kind] ?? 'Agent option';
    const name = agentName(o.name);
    // The agent's name is said when it says something else than our label or the option's kind.
    const differs = name && !sameLabel(name, label) && !sameLabel(name, o.kind.replace('_', ' '));
    return h(
      'vscode-button',
      {
        className: 'perm-option',
        'data-option-id': o.optionId,
        'data-kind': o.kind,
        // Only allow-once looks like the default; anything broader or a reject is secondary.
        secondary: kind !== 'allow_once',
        // Allow, Reject and Allow more… share one row at the default side bar width: only the allows carry an icon.
        icon: kind === 'allow_once' ? 'check' : kind === 'allow_always' ? 'check-all' : undefined,
        // What an allow approves: exactly the card, whose intent's hash is this.
        title: `${OPTION_TITLE[kind] ?? ''}${this.keyHint(kind)}${kind.startsWith('allow') && perm.intentHash ? ` Intent SHA-256 ${perm.intentHash}.` : ''}`,
        disabled: this.answering !== null,
        // The accessible name starts with the visible text (WCAG 2.5.3, axe label-content-name-mismatch).
        'aria-label': `${label}${differs ? ` “${name}”` : ''}: ${tc.title}`,
        onClick: (ev: Event) => this.answer(ev, perm, o.optionId),
      },
      label,
      differs ? h('span', { className: 'perm-agent-name' }, ` “${name}”`) : null,
    );
  }

  /** Allow now with `allow`, and keep allowing exactly this command or file in `scope`. */
  private grantButton(perm: PermissionView, allow: PermissionOptionView, scope: Scope, what: string): HTMLElement {
    const reach = scope === 'session' ? 'in this session' : scope === 'workspace' ? 'in this workspace' : 'in every workspace, with no expiry unless agentSwitchboard.policy.grantMinutes sets one';
    return this.ctx.h(
      'vscode-button',
      {
        className: 'perm-option perm-grant',
        'data-grant': scope,
        secondary: true,
        icon: scope === 'always' ? 'warning' : undefined,
        disabled: this.answering !== null,
        title: `Allow now, and from now on allow exactly this ${what} ${reach} without asking (revocable in the Grants view)`,
        onClick: (ev: Event) => this.answer(ev, perm, allow.optionId, scope),
      },
      GRANT_BUTTON[scope],
    );
  }

  /**
   * Posts the answer once: every answer button is disabled until the extension's patch lands; if it
   * refused the answer (the webview holds no authority) and nothing changed, the person may try again.
   */
  private answer(ev: Event, perm: PermissionView, optionId: string, grant?: Scope): void {
    const key = this.ctx.state()?.key;
    if (!key || this.answering || (ev.currentTarget as HTMLElement).hasAttribute('disabled')) return;
    this.answering = optionId;
    for (const b of Array.from(this.card.el.querySelectorAll('.perm-option'))) b.setAttribute('disabled', '');
    this.ctx.post({ type: 'answerPermission', key, permissionId: perm.permissionId, optionId, ...(grant ? { grant } : {}) });
    this.ctx.later(() => {
      if (this.answering === optionId && this.ctx.state()?.permissions[perm.permissionId]?.state === 'waiting') {
        this.answering = null;
        this.card.update();
      }
    }, REENABLE_MS);
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

/**
 * The header: agent picker + "New session", a session picker when there are several sessions, and
 * the shown session's status and title, mode and model pickers and actions. Each part is rebuilt
 * only when its own input changed, so an open dropdown is not closed by an unrelated patch. Where
 * each part goes at the side bar's width (its row, a shorter form, or the "More" menu) is
 * {@link HeaderLayout}'s: the items are marked here with their rank.
 */
import type { SessionStatus } from '../../src/acp/session/types';
import { usageMeter } from '../../src/acp/session/usage';
import { autonomousMode, autonomySentence } from '../../src/acp/session/autonomy';
import type { AgentChoice, SessionSummary } from '../../src/views/session/protocol';
import { agentRowLabel, availabilityBadge } from '../../src/config/agentProblems';
import type { Ctx } from './context';
import { icon } from './dom';
import { EXPAND, FOLD, HeaderLayout, MENU_LABEL, WRAPS } from './headerLayout';

/**
 * Ranks in the header's layout (lower keeps its place longer). The session, agent, mode and model
 * have none: they are always in their row, whole.
 */
const RANK = {
  close: 1,
  usageWords: 3,
  autonomy: 4,
  option: 5,
  toggle: 6,
  openInTab: 7,
  configure: 8,
  hint: 9,
  statusWords: 11,
  startWords: 12,
  usageCost: 13,
  autonomyWords: 14,
} as const;

export const STATUS_TEXT: Record<SessionStatus, { label: string; icon: string; spin?: boolean }> = {
  starting: { label: 'Starting…', icon: 'loading', spin: true },
  ready: { label: 'Ready', icon: 'circle-filled' },
  prompting: { label: 'Working…', icon: 'loading', spin: true },
  cancelling: { label: 'Cancelling…', icon: 'loading', spin: true },
  closed: { label: 'Closed', icon: 'circle-outline' },
  error: { label: 'Error', icon: 'error' },
};

/** Label of an agent in the picker: a malformed entry says so and what is wrong (`agentRowLabel`). */
export function agentLabel(a: AgentChoice): string {
  return agentRowLabel(a);
}

/** The elements of `items` for which `test` holds, and the others (empty values dropped). */
function partition(items: (HTMLElement | null)[], test: (e: HTMLElement) => boolean): [HTMLElement[], HTMLElement[]] {
  const present = items.filter((e): e is HTMLElement => !!e);
  return [present.filter(test), present.filter((e) => !test(e))];
}

export class HeaderView {
  readonly el: HTMLElement;
  private readonly agentRow: HTMLElement;
  private readonly sessionLine: HTMLElement;
  private readonly layout: HeaderLayout;
  /** The session picker and its count (several sessions), then the shown session's items. */
  private sessionItems: HTMLElement[] = [];
  private statusItems: HTMLElement[] = [];
  private agentsKey = '';
  private sessionsKey = '';
  private statusKey = '';
  private chosenAgent: string | undefined;
  private agents: AgentChoice[] = [];
  private startButton: HTMLElement | undefined;

  /** @param onAgentChange called when the person picks another agent (the empty state names it). */
  constructor(private readonly ctx: Ctx, private readonly onAgentChange: () => void = () => {}) {
    const { h } = ctx;
    this.agentRow = h('div', { className: 'header-row agent-row' });
    // One line (wrapping) for the session picker (when there are several) and the shown session's
    // status, title, pickers and actions.
    this.sessionLine = h('div', { className: 'header-row session-line' });
    this.el = h('header', { className: 'header' }, this.agentRow, this.sessionLine);
    this.layout = new HeaderLayout(this.el, [this.agentRow, this.sessionLine], h);
  }

  /** The agent the "New session" button starts: the person's pick, else the current one, else the first available. */
  selectedAgent(): AgentChoice | undefined {
    const usable = (id: string | undefined) => this.agents.find((a) => a.id === id && a.available);
    return usable(this.chosenAgent) ?? usable(this.ctx.state()?.agentId) ?? this.agents.find((a) => a.available);
  }

  /** Starts a session with the selected agent (also used by the empty state's button). */
  start(): void {
    const agent = this.selectedAgent();
    if (agent) this.ctx.post({ type: 'startSession', agentId: agent.id });
  }

  update(agents: AgentChoice[], sessions: SessionSummary[]): void {
    this.agents = agents;
    const agentsKey = JSON.stringify([agents, this.ctx.state()?.agentId ?? null]);
    if (agentsKey !== this.agentsKey) {
      this.agentsKey = agentsKey;
      this.renderAgents();
    }
    const current = this.ctx.state()?.key ?? null;
    const sessionsKey = JSON.stringify([sessions, current]);
    if (sessionsKey !== this.sessionsKey) {
      this.sessionsKey = sessionsKey;
      this.renderSessions(sessions, current);
    }
    this.updateStatus();
  }

  /** Cheap: called after every flush that touched `meta`. */
  updateStatus(): void {
    const s = this.ctx.state();
    const picker = this.sessionItems.length > 0;
    const key = s ? JSON.stringify([s.key, s.status, s.title ?? '', s.usage ?? null, s.agentName, s.currentModeId ?? '', s.availableModes?.map((m) => m.id) ?? [], s.configOptions ?? [], s.unrequestedEffects ?? '', s.worktree?.branch ?? '', picker]) : '';
    if (key === this.statusKey) return;
    this.statusKey = key;
    const { h } = this.ctx;
    if (!s) {
      this.statusItems = [];
      this.layout.set(1, this.sessionItems);
      return;
    }
    const st = STATUS_TEXT[s.status] ?? { label: s.status, icon: 'circle-outline' };
    const closeKey = s.key;
    const closeWords = s.status === 'closed' ? 'Close this transcript' : 'Close session';
    const status = h('span', { className: `session-status status-${s.status}`, role: 'status', 'aria-label': `Session ${st.label}`, title: st.label },
      icon(h, st.icon, { spin: st.spin }), h('span', { className: 'status-label' }, st.label));
    // With several sessions the picker names this one (its title): the status leads the picker's
    // row, in place of its list icon, rather than taking a row of its own.
    const pick = picker ? this.sessionItems[0] : undefined;
    if (pick?.firstElementChild) pick.replaceChild(status, pick.firstElementChild);
    // Else the status and the title are one item: a long title wraps beside its status, not under
    // it (three lines at most, the whole of it in the tooltip) rather than being cut to a few
    // letters, and takes the room left on its line, so the session's actions close that line.
    const name = pick ? null : h('span', { className: 'session-name titled', [EXPAND]: String(RANK.statusWords) },
      status, h('span', { className: 'session-title', title: s.title || s.agentName, [WRAPS]: true }, s.title || s.agentName));
    const actions = [
      // A closed or failed session (a transcript from the journal, an agent that died) can go on in a new process.
      // Only a session its agent knows by id can be taken up again.
      (s.status === 'closed' || s.status === 'error') && s.sessionId
        ? h('button', { type: 'button', className: 'text-button resume-button session-action', title: 'Take this session up again in a new agent process (session/resume or session/load)',
            onClick: () => this.ctx.post({ type: 'resumeSession', key: closeKey }) }, icon(h, 'debug-restart'), ' Resume')
        : null,
      h('button', { type: 'button', className: 'icon-button session-action', title: 'Open in an editor tab', 'aria-label': 'Open in an editor tab', [FOLD]: String(RANK.openInTab),
        onClick: () => this.ctx.post({ type: 'openInTab', key: closeKey }) }, icon(h, 'link-external'), h('span', { className: 'button-text' }, 'Open in an editor tab')),
      // A closed one (a transcript) closes too: it then stops coming back after a reload.
      h('button', { type: 'button', className: 'icon-button session-action', title: closeWords, 'aria-label': 'Close session', [FOLD]: String(RANK.close),
        onClick: () => this.ctx.post({ type: 'closeSession', key: closeKey }) }, icon(h, 'close'), h('span', { className: 'button-text' }, closeWords)),
    ];
    // The mode and the model stay together: one item, on one line where it fits, else wrapping inside.
    const [pickers, options] = partition([this.modeControl(s), ...this.configControls(s)], (e) => !e.hasAttribute(FOLD));
    // Where the session's edits land is never folded away: a worktree session leaves the main folder alone.
    const worktree = s.worktree
      ? h('span', { className: 'worktree-tag', role: 'img', 'aria-label': `Works in the git worktree ${s.worktree.branch}`, title: `Works in the git worktree ${s.worktree.branch} (${s.worktree.dir}); your folder is unchanged until you apply it` },
          icon(h, 'git-branch'), h('span', null, 'worktree'))
      : null;
    const rest = [worktree, this.usageControl(s), pickers.length ? h('span', { className: 'session-pickers' }, pickers) : null, ...options, this.autonomyMark(s)];
    // The actions end the title's line; with a picker instead of a title, they end the whole line.
    this.statusItems = (picker ? [name, ...rest, ...actions] : [name, ...actions, ...rest]).filter((e): e is HTMLElement => !!e);
    this.layout.set(1, [...this.sessionItems, ...this.statusItems]);
  }

  /**
   * The context meter (`usage_update`): tokens in context against the window as a bar and words,
   * the session's cost when the agent sends one; none when the agent does not know the window's
   * size. Above 100 % the bar stays full and warns. The exact numbers are its accessible name.
   */
  private usageControl(s: NonNullable<ReturnType<Ctx['state']>>): HTMLElement | null {
    const m = usageMeter(s.usage);
    if (m.hidden) return null;
    const { h } = this.ctx;
    const fill = h('span', { className: 'usage-fill' });
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    fill.style.width = `${m.percent.toFixed(1)}%`;
    // Always in view, as the bar and a percentage at its shortest (the words are its tooltip); then
    // the words; then the cost.
    return h('span', { className: `usage-meter${m.over ? ' over' : ''}`, role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(m.percent), 'aria-label': m.detail, title: m.detail,
      [EXPAND]: m.cost ? `${RANK.usageWords},${RANK.usageCost}` : String(RANK.usageWords) },
      m.over ? icon(h, 'warning', { className: 'usage-warn' }) : null,
      h('span', { className: 'usage-bar' }, fill),
      h('span', { className: 'usage-words' }, m.text),
      h('span', { className: 'usage-pct' }, m.over ? '>100 %' : `${Math.round(m.percent)} %`),
      m.cost ? h('span', { className: 'usage-cost' }, m.cost) : null,
    );
  }

  /**
   * A mode in which the agent does not ask before acting: a shield beside the pickers whose name and
   * tooltip say that Agent Switchboard asks at each write and command instead (or refuses them). An
   * icon, so the header keeps to two rows; the thread carries the same sentence as a notice.
   */
  private autonomyMark(s: NonNullable<ReturnType<Ctx['state']>>): HTMLElement | null {
    const mode = autonomousMode(s);
    if (!mode || !s.unrequestedEffects || s.status === 'closed') return null;
    const { h } = this.ctx;
    const sentence = autonomySentence(mode, s.agentName, s.unrequestedEffects);
    return h('span', { className: `autonomy-mark ${s.unrequestedEffects}`, role: 'img', 'aria-label': sentence, title: sentence, [FOLD]: String(RANK.autonomy), [EXPAND]: String(RANK.autonomyWords) }, icon(h, s.unrequestedEffects === 'ask' ? 'shield' : 'circle-slash'), h('span', { className: 'autonomy-word' }, s.unrequestedEffects === 'ask' ? 'asks at effect' : 'refuses unasked'));
  }

  /** The agent's modes as a picker when it offers several (`session/set_mode`), else its mode as a tag. */
  private modeControl(s: NonNullable<ReturnType<Ctx['state']>>): HTMLElement | null {
    const { h } = this.ctx;
    // An agent that offers its mode as a config option gets that picker only (the ACP config spec).
    if (s.configOptions?.some((o) => o.category === 'mode')) return null;
    const modes = s.availableModes ?? [];
    if (modes.length < 2 || s.status === 'closed' || s.status === 'error') {
      const name = modes.find((m) => m.id === s.currentModeId)?.name ?? s.currentModeId;
      return name ? h('span', { className: 'mode-tag', title: 'Agent mode' }, name) : null;
    }
    const key = s.key;
    const select = h(
      'vscode-single-select',
      { className: 'mode-select', 'aria-label': 'Agent mode', label: 'Agent mode', title: 'Agent mode' },
      modes.map((m) => h('vscode-option', { value: m.id, selected: m.id === s.currentModeId, description: m.description }, m.name)),
    );
    select.addEventListener('change', () => {
      const modeId = (select as HTMLElement & { value?: string }).value;
      if (modeId && modeId !== this.ctx.state()?.currentModeId) this.ctx.post({ type: 'setMode', key, modeId });
    });
    return select;
  }

  /** The agent's configuration options (a model, a reasoning level, a switch) as pickers. */
  private configControls(s: NonNullable<ReturnType<Ctx['state']>>): HTMLElement[] {
    const { h } = this.ctx;
    if (s.status === 'closed' || s.status === 'error') return [];
    const key = s.key;
    return (s.configOptions ?? []).map((o) => {
      if (o.type === 'boolean') {
        const box = h('input', { type: 'checkbox', className: 'config-checkbox', checked: o.currentValue, 'aria-label': o.name }) as HTMLInputElement;
        box.checked = o.currentValue;
        box.addEventListener('change', () => {
          this.ctx.post({ type: 'setConfigOption', key, configId: o.id, value: box.checked });
          this.statusKey = '';
        });
        return h('label', { className: 'config-toggle', title: o.description ?? o.name, [FOLD]: String(RANK.toggle) }, box, o.name);
      }
      // The model (and a mode offered as an option) is always in view; other options may fold.
      const always = o.category === 'model' || o.category === 'mode';
      const select = h(
        'vscode-single-select',
        { className: 'config-select', 'aria-label': o.name, label: o.name, title: o.description ? `${o.name}: ${o.description}` : o.name, 'data-config-id': o.id,
          [FOLD]: always ? undefined : String(RANK.option), [MENU_LABEL]: o.name },
        o.options.map((v) => h('vscode-option', { value: v.value, selected: v.value === o.currentValue, description: v.description }, v.group ? `${v.group}: ${v.name}` : v.name)),
      );
      select.addEventListener('change', () => {
        const value = (select as HTMLElement & { value?: string }).value;
        if (value && value !== o.currentValue) {
          this.ctx.post({ type: 'setConfigOption', key, configId: o.id, value });
          // Redrawn from the state on the next change, whatever the agent answers.
          this.statusKey = '';
        }
      });
      return select;
    });
  }

  private renderAgents(): void {
    const { h } = this.ctx;
    const selected = this.selectedAgent();
    const options = this.agents.map((a) =>
      h(
        'vscode-option',
        {
          value: a.id,
          // Unavailable rows stay choosable: choosing one opens its fix (the settings entry, or the
          // log with the PATHs searched); it never becomes the agent "New session" starts.
          selected: a.id === selected?.id,
          title: !a.available ? a.reason ?? 'Not available' : undefined,
          description: a.invalid ? 'Choose to open settings at this entry' : !a.available ? `${a.reason ?? 'Not available'} Choose to see the PATHs searched.` : a.demo ? 'Scripted replies, no model: for trying the extension' : undefined,
        },
        agentLabel(a),
      ),
    );
    const select = h('vscode-single-select', { className: 'agent-select', 'aria-label': 'Agent', label: 'Agent', title: 'Agent for new sessions' }, options);
    select.addEventListener('change', () => {
      const value = (select as HTMLElement & { value?: string }).value;
      if (!value || value === this.chosenAgent) return;
      const picked = this.agents.find((a) => a.id === value);
      if (picked && !picked.available) {
        this.ctx.post({ type: 'showUnavailableAgents', agentId: value });
        (select as HTMLElement & { value?: string }).value = this.selectedAgent()?.id ?? '';
        return;
      }
      this.chosenAgent = value;
      const agent = this.selectedAgent();
      if (this.startButton) this.startButton.setAttribute('title', agent ? `Start a new session with ${agent.name}` : 'No agent is available');
      this.onAgentChange();
    });
    this.startButton = h('vscode-button', {
      className: 'start-button',
      icon: 'add',
      disabled: !selected,
      title: selected ? `Start a new session with ${selected.name}` : 'No agent is available',
      'aria-label': 'New session',
      onClick: (ev: Event) => {
        if (!(ev.currentTarget as HTMLElement).hasAttribute('disabled')) this.start();
      },
      [EXPAND]: String(RANK.startWords),
    }, h('span', { className: 'start-label' }, 'New session'));
    const unavailable = this.agents.filter((a) => !a.available);
    const items = [
      this.agents.length ? select : h('span', { className: 'muted' }, 'No agents configured'),
      this.startButton,
      h('button', { type: 'button', className: 'icon-button', title: 'Configure agents', 'aria-label': 'Configure agents', [FOLD]: String(RANK.configure),
        onClick: () => this.ctx.post({ type: 'configureAgents' }) }, icon(h, 'gear'), h('span', { className: 'button-text' }, 'Configure agents')),
    ];
    // Disabled options cannot show a tooltip inside the dropdown; say why once, beside it.
    if (unavailable.length && !this.agents.some((a) => a.available && !a.demo)) {
      const open = () => this.ctx.post({ type: 'showUnavailableAgents' });
      items.push(h('div', { className: 'agent-hint muted', role: 'button', tabindex: 0, title: unavailable.map((a) => `${a.name} (${availabilityBadge(a)}): ${a.problem ?? a.reason ?? 'not available'}`).join('\n'), [FOLD]: String(RANK.hint),
        onClick: open, onKeydown: (ev: Event) => {
          const key = (ev as KeyboardEvent).key;
          if (key !== 'Enter' && key !== ' ') return;
          ev.preventDefault();
          open();
        } },
        icon(h, 'info'), ` ${unavailable.length} agent${unavailable.length > 1 ? 's' : ''} unavailable`));
    }
    this.layout.set(0, items);
  }

  private renderSessions(sessions: SessionSummary[], current: string | null): void {
    const { h } = this.ctx;
    if (sessions.length < 2) {
      this.sessionItems = [];
      this.layout.set(1, this.statusItems);
      return;
    }
    const select = h(
      'vscode-single-select',
      { className: 'session-select', 'aria-label': 'Session', label: 'Session' },
      current === null ? h('vscode-option', { value: '', selected: true }, 'Open a session…') : null,
      sessions.map((s) =>
        h('vscode-option', {
          value: s.key,
          selected: s.key === current,
          description: `${s.agentName} · ${STATUS_TEXT[s.status]?.label ?? s.status}${s.waiting ? ` · ${s.waiting} waiting for you` : ''}`,
        }, `${s.waiting ? '● ' : ''}${s.title || s.agentName}`),
      ),
    );
    select.addEventListener('change', () => {
      const key = (select as HTMLElement & { value?: string }).value;
      if (key && key !== this.ctx.state()?.key) this.ctx.post({ type: 'selectSession', key });
    });
    const waiting = sessions.filter((s) => s.key !== current).reduce((n, s) => n + s.waiting, 0);
    // The shown session's status takes the list icon's place (updateStatus), again for this picker.
    this.statusKey = '';
    this.sessionItems = [
      h('span', { className: 'session-pick' }, icon(h, 'list-unordered', { className: 'row-icon' }), select),
      waiting ? h('vscode-badge', { variant: 'counter', title: `${waiting} permission request(s) waiting in other sessions` }, String(waiting)) : null,
    ].filter((e): e is HTMLElement => !!e);
    this.layout.set(1, [...this.sessionItems, ...this.statusItems]);
  }
}

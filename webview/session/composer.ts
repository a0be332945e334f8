/**
 * The prompt box: a `vscode-textarea` (Enter sends, Shift+Enter inserts a newline), Send and Stop.
 * Send works when a session is `ready`, and queues while a turn runs (`prompting`): queued prompts
 * go out as turns end and are listed above the box. Stop while `prompting` or `cancelling`.
 */
import type { Ctx } from './context';
import { toggleAttr } from './dom';

type ValueElement = HTMLElement & { value?: string };

export class ComposerView {
  readonly el: HTMLElement;
  private readonly input: ValueElement;
  private readonly send: HTMLElement;
  private readonly stop: HTMLElement;
  private readonly working: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly queued: HTMLElement;
  /** Set between posting a prompt and the host's answer (a status change), so a second Enter is not lost. */
  private sending = false;

  /** @param onDraft called with the unsent text as it changes (the app persists it). */
  constructor(private readonly ctx: Ctx, private readonly onDraft: (text: string) => void) {
    const { h } = ctx;
    this.input = h('vscode-textarea', {
      className: 'prompt-input',
      rows: '3',
      resize: 'vertical',
      placeholder: 'Ask the agent… (Enter to send)',
      title: 'Enter sends; Shift+Enter starts a new line',
      'aria-label': 'Prompt',
    }) as ValueElement;
    this.input.addEventListener('keydown', (ev) => this.onKey(ev as KeyboardEvent));
    this.input.addEventListener('input', () => this.onDraft(this.value()));
    this.send = h('vscode-button', { className: 'send-button', icon: 'send', title: 'Send (Enter)', 'aria-label': 'Send prompt', onClick: () => this.submit() }, 'Send');
    this.stop = h('vscode-button', {
      className: 'stop-button', secondary: true, icon: 'debug-stop', title: 'Stop the agent’s turn', 'aria-label': 'Stop',
      onClick: (ev: Event) => {
        const key = this.ctx.state()?.key;
        if (key && !(ev.currentTarget as HTMLElement).hasAttribute('disabled')) this.ctx.post({ type: 'cancel', key });
      },
    }, 'Stop');
    this.working = h('span', { className: 'working', hidden: true, role: 'status' }, h('vscode-progress-ring', { className: 'ring', 'aria-label': 'Agent is working' }), h('span', null, 'Working…'));
    this.hint = h('span', { className: 'composer-hint muted' });
    this.queued = h('div', { className: 'queued muted', hidden: true, role: 'status' });
    this.el = h(
      'footer',
      { className: 'composer' },
      this.queued,
      this.input,
      h('div', { className: 'composer-bar' }, this.working, this.hint, h('span', { className: 'spacer' }), this.stop, this.send),
    );
    this.update();
  }

  /** Restores a saved draft (after a reload). */
  setDraft(text: string): void {
    this.input.value = text;
    // Before the custom element upgrades, the property is not reflected; keep the attribute too.
    this.input.setAttribute('value', text);
  }

  /** Enables/disables controls for the current status. */
  update(): void {
    const s = this.ctx.state();
    const status = s?.status;
    const busy = status === 'prompting' || status === 'cancelling';
    if (status !== 'ready') this.sending = false;
    toggleAttr(this.send, 'disabled', !s || !(status === 'ready' || status === 'prompting') || this.sending);
    const label = status === 'prompting' ? 'Queue' : 'Send';
    if (this.send.textContent !== label) this.send.textContent = label;
    this.send.title = status === 'prompting' ? 'Queue: sent when this turn ends (Enter)' : 'Send (Enter)';
    const queued = s?.queued ?? [];
    this.queued.hidden = !queued.length;
    this.queued.textContent = queued.length ? `${queued.length} queued — sent when the turn ends: ${queued.map((q) => (q.length > 60 ? `${q.slice(0, 59)}…` : q)).join(' · ')}` : '';
    this.queued.title = queued.join('\n\n');
    toggleAttr(this.stop, 'disabled', !busy);
    toggleAttr(this.input, 'disabled', !s || status === 'closed' || status === 'error');
    this.working.hidden = !busy;
    const w = this.working.lastElementChild;
    if (w) w.textContent = status === 'cancelling' ? 'Cancelling…' : 'Working…';
    this.hint.textContent =
      !s ? '' : status === 'starting' ? 'Starting the agent…' : status === 'closed' ? 'Session closed' : status === 'error' ? 'The agent is not running' : '';
  }

  focus(): void {
    this.input.focus();
  }

  private value(): string {
    return this.input.value ?? '';
  }

  private onKey(ev: KeyboardEvent): void {
    if (ev.key !== 'Enter' || ev.shiftKey || ev.altKey || ev.ctrlKey || ev.metaKey || ev.isComposing) return;
    ev.preventDefault();
    this.submit();
  }

  private submit(): void {
    const s = this.ctx.state();
    const text = this.value().trim();
    // While a prompt is on its way, Enter keeps the text in the box; while a turn runs, it queues.
    if (!s || !(s.status === 'ready' || s.status === 'prompting') || !text || this.sending || this.send.hasAttribute('disabled')) return;
    this.ctx.post({ type: 'prompt', key: s.key, text });
    this.sending = true;
    this.update();
    // If the host refused the prompt (the status never changed), let the person send again.
    this.ctx.later(() => {
      this.sending = false;
      this.update();
    }, 3000);
    this.input.value = '';
    this.input.removeAttribute('value');
    this.onDraft('');
  }
}


/**
 * The prompt box: a `vscode-textarea` (Enter sends, Shift+Enter inserts a newline), Send and Stop.
 * Send works when a session is `ready`, and queues while a turn runs (`prompting`): queued prompts
 * go out as turns end and are listed above the box. Stop while `prompting` or `cancelling`.
 *
 * What goes with the prompt is shown as chips above the box: @-mentions of files and symbols
 * (suggested as you type `@`), the editor's selection, file or problems (the + menu, or the
 * editor's *Add … to Prompt* commands), and pasted images when the agent takes images. `/` at the
 * start suggests the agent's slash commands.
 */
import type { Ctx } from './context';
import { toggleAttr } from './dom';
import type { ContextItem } from '../../src/acp/promptContext';
import { SuggestList, completionToken, mentionSuggestions } from './suggest';
import type { MentionItem } from '../../src/views/session/protocol';

/** Largest pasted image, in bytes (the extension checks again). */
const MAX_IMAGE_BYTES = 7 * 1024 * 1024;

type ValueElement = HTMLElement & { value?: string };

export class ComposerView {
  readonly el: HTMLElement;
  private readonly input: ValueElement;
  private readonly send: HTMLElement;
  private readonly stop: HTMLElement;
  private readonly working: HTMLElement;
  private readonly hint: HTMLElement;
  private readonly queued: HTMLElement;
  /** "N requests wait for you · Reject all": shown while two or more permission cards wait (a flood of held effects). */
  private readonly waiting: HTMLElement;
  private readonly waitingText: HTMLElement;
  /** Set between posting a prompt and the host's answer (a status change), so a second Enter is not lost. */
  private sending = false;
  private readonly suggest: SuggestList;
  private readonly chips: HTMLElement;
  private readonly addMenu: HTMLElement;
  /** What goes with the next prompt, in order. */
  private attachments: { item: ContextItem; label: string }[] = [];
  /** What went with the last prompt, until the extension accepts it (or refuses it: then it comes back). */
  private lastSent: { item: ContextItem; label: string }[] = [];

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
    this.input.addEventListener('input', () => {
      this.onDraft(this.value());
      this.complete();
    });
    this.input.addEventListener('paste', (ev) => this.onPaste(ev as ClipboardEvent));
    this.input.addEventListener('blur', () => this.ctx.later(() => this.suggest.close(), 150));
    this.suggest = new SuggestList(ctx);
    this.chips = h('div', { className: 'chips', hidden: true, 'aria-label': 'Attached to the prompt' });
    const addItem = (what: 'file' | 'selection' | 'diagnostics', label: string) =>
      h('button', { type: 'button', className: 'menu-item', role: 'menuitem', onClick: () => {
        this.addMenu.hidden = true;
        this.ctx.post({ type: 'addContext', what });
      } }, label);
    this.addMenu = h('div', { className: 'add-menu', role: 'menu', hidden: true },
      addItem('file', 'Current file'), addItem('selection', 'Selection (with its lines)'), addItem('diagnostics', 'Problems'),
      h('div', { className: 'menu-note muted' }, 'Type @ to mention files and symbols'));
    const addButton = h('button', { type: 'button', className: 'icon-button add-context', title: 'Attach context (file, selection, problems)', 'aria-label': 'Attach context',
      onClick: () => (this.addMenu.hidden = !this.addMenu.hidden) }, h('span', { className: 'codicon codicon-add' }));
    this.send = h('vscode-button', { className: 'send-button', icon: 'send', title: 'Send (Enter)', onClick: () => this.submit() }, 'Send');
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
    this.waitingText = h('span', { className: 'waiting-count' });
    this.waiting = h(
      'div',
      { className: 'waiting-bar', hidden: true, role: 'group', 'aria-label': 'Waiting requests' },
      h('span', { className: 'codicon codicon-shield' }),
      this.waitingText,
      h('vscode-button', {
        className: 'reject-all',
        secondary: true,
        icon: 'close-all',
        title: 'Reject every request of this session that waits for you; each agent hears its own reject (or, for a write or command it did not ask about, -32013)',
        onClick: (ev: Event) => {
          const key = this.ctx.state()?.key;
          if (key && !(ev.currentTarget as HTMLElement).hasAttribute('disabled')) this.ctx.post({ type: 'rejectAllWaiting', key });
        },
      }, 'Reject all'),
    );
    this.el = h(
      'footer',
      { className: 'composer' },
      this.waiting,
      this.queued,
      this.chips,
      this.suggest.el,
      this.input,
      this.addMenu,
      h('div', { className: 'composer-bar' }, addButton, this.working, this.hint, h('span', { className: 'spacer' }), this.stop, this.send),
    );
    this.update();
  }

  /** Restores a saved draft (after a reload). */
  setDraft(text: string): void {
    this.input.value = text;
    // Before the custom element upgrades, the property is not reflected; keep the attribute too.
    this.input.setAttribute('value', text);
  }

  /**
   * With no session, the agent a prompt typed now starts a session with (the header's pick), or
   * none (no usable agent, no folder): then the box is not shown.
   */
  starter: (() => { id: string; name: string } | undefined) | undefined;

  /** Enables/disables controls for the current status. */
  update(): void {
    const s = this.ctx.state();
    const status = s?.status;
    const busy = status === 'prompting' || status === 'cancelling';
    const starter = s ? undefined : this.starter?.();
    if (s && status !== 'ready') this.sending = false;
    toggleAttr(this.send, 'disabled', s ? !(status === 'ready' || status === 'prompting') || this.sending : !starter || this.sending);
    const label = status === 'prompting' ? 'Queue' : 'Send';
    if (this.send.textContent !== label) this.send.textContent = label;
    this.send.title = status === 'prompting' ? 'Queue: sent when this turn ends (Enter)' : 'Send (Enter)';
    // Where the prompt works, said in the box: a worktree session keeps working in its worktree
    // (also after its changes were kept in the main folder).
    const placeholder = s?.worktree ? 'Ask the agent… (works in its worktree; Enter to send)' : starter ? `Ask ${starter.name}… (Enter starts a session)` : 'Ask the agent… (Enter to send)';
    if (this.input.getAttribute('placeholder') !== placeholder) this.input.setAttribute('placeholder', placeholder);
    const queued = s?.queued ?? [];
    this.queued.hidden = !queued.length;
    this.queued.textContent = queued.length ? `${queued.length} queued — sent when the turn ends: ${queued.map((q) => (q.length > 60 ? `${q.slice(0, 59)}…` : q)).join(' · ')}` : '';
    this.queued.title = queued.join('\n\n');
    const waiting = s ? Object.values(s.permissions).filter((p) => p.state === 'waiting').length : 0;
    this.waiting.hidden = waiting < 2;
    this.waitingText.textContent = waiting >= 2 ? `${waiting} requests wait for you` : '';
    toggleAttr(this.stop, 'disabled', !busy);
    toggleAttr(this.input, 'disabled', s ? status === 'closed' || status === 'error' : !starter);
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

  /** Attaches `item` to the next prompt (once). */
  addAttachment(item: ContextItem, label: string): void {
    const same = (a: ContextItem) => JSON.stringify(a) === JSON.stringify(item);
    if (!this.attachments.some((a) => same(a.item))) this.attachments.push({ item, label });
    this.renderChips();
  }

  /** Puts a prompt the extension refused back into the box (unless the person typed anew meanwhile). */
  restore(text: string, reason: string): void {
    if (!this.value().trim()) this.setValue(text);
    for (const c of this.lastSent) this.addAttachment(c.item, c.label);
    this.lastSent = [];
    this.sending = false;
    this.update();
    this.hint.textContent = `Not sent: ${reason}`;
  }

  /** The answer to an @-mention search. */
  mentionResults(requestId: number, items: MentionItem[]): void {
    if (!this.suggest.isCurrent(requestId)) return;
    const token = completionToken(this.value());
    if (token?.kind !== 'mention') return this.suggest.close();
    this.suggest.show(
      mentionSuggestions(items, (m) => {
        // The typed `@query` becomes `@label` in the text; the file or symbol rides as a chip.
        const text = this.value();
        this.setValue(`${text.slice(0, token.start)}@${m.label} `);
        this.addAttachment(m.item, m.label);
      }),
    );
  }

  private complete(): void {
    const token = completionToken(this.value());
    if (!token) return this.suggest.close();
    if (token.kind === 'mention') {
      this.suggest.requestMentions(token.query);
      return;
    }
    const commands = (this.ctx.state()?.availableCommands ?? []).filter((c) => c.name.toLowerCase().startsWith(token.query.toLowerCase()));
    if (!commands.length) return this.suggest.close();
    this.suggest.show(commands.map((c) => ({ label: `/${c.name}`, detail: c.description, accept: () => this.setValue(`/${c.name} `) })));
  }

  private setValue(text: string): void {
    this.input.value = text;
    this.input.setAttribute('value', text);
    this.onDraft(text);
    this.input.focus();
  }

  private renderChips(): void {
    const { h } = this.ctx;
    this.chips.hidden = !this.attachments.length;
    this.chips.replaceChildren(
      ...this.attachments.map((a, i) =>
        h('span', { className: `chip chip-${a.item.kind}`, title: a.label },
          h('span', { className: `codicon codicon-${{ file: 'file', selection: 'selection', symbol: 'symbol-method', diagnostics: 'warning', image: 'file-media' }[a.item.kind]}` }),
          h('span', { className: 'chip-label' }, a.label),
          h('button', { type: 'button', className: 'chip-remove', title: `Remove ${a.label}`, 'aria-label': `Remove ${a.label}`, onClick: () => {
            this.attachments.splice(i, 1);
            this.renderChips();
          } }, '×')),
      ),
    );
  }

  /** A pasted image becomes an attachment when the agent takes images; otherwise the person is told. */
  private onPaste(ev: ClipboardEvent): void {
    const files = [...(ev.clipboardData?.files ?? [])].filter((f) => /^image\/(png|jpeg|gif|webp)$/.test(f.type));
    if (!files.length) return;
    ev.preventDefault();
    if (!this.ctx.state()?.promptCapabilities?.image) {
      this.hint.textContent = 'This agent does not take images.';
      return;
    }
    for (const file of files) {
      if (file.size > MAX_IMAGE_BYTES) {
        this.hint.textContent = `${file.name || 'The image'} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`;
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const data = String(reader.result ?? '').replace(/^data:[^,]*,/, '');
        this.addAttachment({ kind: 'image', name: file.name || `pasted ${file.type.slice(6)} image`, mimeType: file.type as 'image/png', data }, file.name || `pasted ${file.type.slice(6)} image`);
      };
      reader.readAsDataURL(file);
    }
  }

  private onKey(ev: KeyboardEvent): void {
    if (this.suggest.onKey(ev)) {
      ev.preventDefault();
      return;
    }
    if (ev.key !== 'Enter' || ev.shiftKey || ev.altKey || ev.ctrlKey || ev.metaKey || ev.isComposing) return;
    ev.preventDefault();
    this.submit();
  }

  /** Sends what the box holds, as Enter in the box would (the "send" key command). */
  sendFromKey(): void {
    this.submit();
  }

  private submit(): void {
    const s = this.ctx.state();
    const text = this.value().trim();
    const starter = s ? undefined : this.starter?.();
    // While a prompt is on its way, Enter keeps the text in the box; while a turn runs, it queues.
    // With no session, what is typed starts one with the agent picked above.
    if (!text || this.sending || this.send.hasAttribute('disabled')) return;
    if (s ? !(s.status === 'ready' || s.status === 'prompting') : !starter) return;
    const context = this.attachments.map((a) => a.item);
    if (s) this.ctx.post({ type: 'prompt', key: s.key, text, ...(context.length ? { context } : {}) });
    else this.ctx.post({ type: 'startSession', agentId: starter!.id, prompt: text, ...(context.length ? { context } : {}) });
    this.lastSent = this.attachments;
    this.attachments = [];
    this.renderChips();
    this.suggest.close();
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


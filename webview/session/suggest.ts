/**
 * The composer's suggestion list: `/` at the start of the prompt lists the agent's slash commands
 * (`available_commands_update`), `@` at the end of the prompt lists workspace files and symbols
 * (asked of the extension). Arrow keys move, Enter or Tab accepts, Escape closes. The word being
 * completed is the last one of the prompt (the caret of a `vscode-textarea` is not reachable from
 * outside its shadow root in every host, and the end is where people type).
 */
import type { Ctx } from './context';
import type { MentionItem } from '../../src/views/session/protocol';

/** One suggestion: what the list shows and what accepting it does. */
export interface Suggestion {
  label: string;
  detail?: string;
  accept(): void;
}

/** What is being completed at the end of `text`, if anything. */
export function completionToken(text: string): { kind: 'command'; query: string } | { kind: 'mention'; query: string; start: number } | undefined {
  const slash = /^\/([\w:.-]*)$/.exec(text);
  if (slash) return { kind: 'command', query: slash[1] };
  const at = /(^|\s)@([^\s@]*)$/.exec(text);
  if (at) return { kind: 'mention', query: at[2], start: text.length - at[2].length - 1 };
  return undefined;
}

export class SuggestList {
  readonly el: HTMLElement;
  private items: Suggestion[] = [];
  private active = 0;
  private requestId = 0;

  constructor(private readonly ctx: Ctx) {
    this.el = ctx.h('div', { className: 'suggest', role: 'listbox', 'aria-label': 'Suggestions', hidden: true });
  }

  get open(): boolean {
    return !this.el.hidden && this.items.length > 0;
  }

  /** Asks the extension for mentions matching `query`; answers to older questions are ignored. */
  requestMentions(query: string): number {
    this.requestId++;
    this.ctx.post({ type: 'searchMentions', requestId: this.requestId, query });
    return this.requestId;
  }

  /** True when `requestId` is the latest question (its answer is still wanted). */
  isCurrent(requestId: number): boolean {
    return requestId === this.requestId;
  }

  show(items: Suggestion[]): void {
    this.items = items.slice(0, 30);
    this.active = 0;
    this.render();
  }

  close(): void {
    this.requestId++;
    this.items = [];
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  /** Handles a key while open. @returns true when the key was used. */
  onKey(ev: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      this.active = (this.active + (ev.key === 'ArrowDown' ? 1 : this.items.length - 1)) % this.items.length;
      this.render();
      return true;
    }
    if (ev.key === 'Enter' || ev.key === 'Tab') {
      const chosen = this.items[this.active];
      this.close();
      chosen?.accept();
      return true;
    }
    if (ev.key === 'Escape') {
      this.close();
      return true;
    }
    return false;
  }

  private render(): void {
    const { h } = this.ctx;
    this.el.hidden = !this.items.length;
    this.el.replaceChildren(
      ...this.items.map((s, i) =>
        h(
          'div',
          {
            className: `suggest-item${i === this.active ? ' active' : ''}`,
            role: 'option',
            'aria-selected': i === this.active ? 'true' : 'false',
            // mousedown, not click: the textarea must not lose the caret before we accept.
            onMousedown: (ev: Event) => {
              ev.preventDefault();
              this.close();
              s.accept();
            },
          },
          h('span', { className: 'suggest-label' }, s.label),
          s.detail ? h('span', { className: 'suggest-detail muted' }, s.detail) : null,
        ),
      ),
    );
  }
}

/** Mentions as suggestions (the caller decides what accepting one does). */
export function mentionSuggestions(items: MentionItem[], accept: (m: MentionItem) => void): Suggestion[] {
  return items.map((m) => ({ label: m.item.kind === 'symbol' ? `# ${m.label}` : m.label, detail: m.detail, accept: () => accept(m) }));
}

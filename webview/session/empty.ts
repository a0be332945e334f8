/**
 * What the sidebar shows without a session: why (no folder open, Restricted Mode, or simply no
 * session yet) and the button that starts one. The extension re-checks trust when asked to start.
 */
import type { AgentChoice } from '../../src/views/session/protocol';
import type { Ctx } from './context';
import { icon, setChildren } from './dom';

export interface EmptyInput {
  hasWorkspace: boolean;
  workspaceTrusted: boolean;
  /** The agent the start button would use; undefined when none is available. */
  agent: AgentChoice | undefined;
  anyAgents: boolean;
}

export class EmptyStateView {
  readonly el: HTMLElement;

  constructor(private readonly ctx: Ctx, private readonly onStart: () => void) {
    this.el = ctx.h('div', { className: 'empty', hidden: true });
  }

  update(input: EmptyInput): void {
    const { h } = this.ctx;
    let glyph = 'comment-discussion';
    let title = 'No session yet';
    let text = 'Type what you want in the box below: Enter starts a session with the agent picked above. The agent works in this workspace: it reads files, proposes edits and runs commands, and asks you before anything risky.';
    if (!input.hasWorkspace) {
      glyph = 'folder-opened';
      title = 'No folder open';
      text = 'Agents work inside a workspace folder. Open a folder first; a session started now has no project to work on.';
    } else if (!input.workspaceTrusted) {
      glyph = 'shield';
      title = 'Workspace not trusted';
      text = 'This workspace is in Restricted Mode. Agents run commands and edit files, so sessions start only in a trusted workspace; starting one asks you to trust it.';
    }
    const agent = input.agent;
    setChildren(this.el,
      h('div', { className: 'empty-icon' }, icon(h, glyph)),
      h('h2', { className: 'empty-title' }, title),
      h('p', { className: 'empty-text' }, text),
      h(
        'vscode-button',
        {
          className: 'empty-start',
          icon: 'add',
          disabled: !agent,
          onClick: (ev: Event) => {
            if (!(ev.currentTarget as HTMLElement).hasAttribute('disabled')) this.onStart();
          },
        },
        agent ? `Start a session with ${agent.name}` : 'Start a session',
      ),
      agent?.demo ? h('p', { className: 'muted small' }, 'This is the offline demo agent: scripted replies, no model.') : null,
      !agent
        ? h('p', { className: 'muted small' },
            input.anyAgents ? 'No configured agent is installed. ' : 'No agent is configured. ',
            h('button', { type: 'button', className: 'link', onClick: () => this.ctx.post({ type: 'configureAgents' }) }, 'Configure agents'))
        : null,
    );
  }
}

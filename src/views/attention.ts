/**
 * Tells the person when a session waits for them and they cannot see it (the sidebar shows another
 * session or is hidden, and the session has no visible editor tab): a permission request waits, or
 * the agent ended its turn. A notification with *Show*; `agentSwitchboard.showNotifications` turns
 * them off. A permission answered by a grant right away is not announced.
 */
import * as vscode from 'vscode';
import type { SessionManager } from '../acp/sessionManager';
import type { SessionChange } from '../acp/sessionController';
import { text } from '../common/untrustedText';
import { turnEndedClause } from '../acp/session/stopReason';

/** What attention needs from the app. */
export interface AttentionHost {
  manager: SessionManager;
  /** True when session `key` is on screen (sidebar or editor tab). */
  inView(key: string): boolean;
  enabled(): boolean;
  show(key: string): Promise<void>;
}

/** Watches sessions for moments that need the person. */
export class SessionAttention {
  constructor(private readonly host: AttentionHost) {}

  /** Feeds one session change. */
  onSessionChange(c: SessionChange): void {
    if (c.replay) return;
    // Most changes are streamed text: nothing to call anyone for, and nothing else is asked (the
    // settings and the view are looked at only for a change that may call the person).
    const calls = (p: SessionChange['patches'][number]) => (p.op === 'permission' && p.permission.state === 'waiting') || (p.op === 'entry' && (p.entry.kind === 'elicitation' || p.entry.kind === 'turn_end'));
    if (!c.patches.some(calls) || this.host.inView(c.key) || !this.host.enabled()) return;
    for (const p of c.patches) {
      if (p.op === 'permission' && p.permission.state === 'waiting') {
        const permissionId = p.permission.permissionId;
        // Checked a moment later: a grant may answer the request right after it is shown.
        setTimeout(() => this.permissionWaits(c.key, permissionId), 0);
      } else if (p.op === 'entry' && p.entry.kind === 'elicitation' && p.entry.elicitation.state === 'waiting') {
        // An agent's question (elicitation) waits for the person as a permission does.
        const s = this.host.manager.get(c.key)?.state;
        if (s) this.tell(c.key, text`${s.agentName} asks you: ${p.entry.elicitation.message.slice(0, 160)}`);
      } else if (p.op === 'entry' && p.entry.kind === 'turn_end' && p.entry.stopReason !== 'cancelled') {
        const s = this.host.manager.get(c.key)?.state;
        // A queued prompt goes out next: nobody needs to be called for that.
        if (s && !s.queued?.length) this.tell(c.key, text`${s.agentName} ${turnEndedClause(p.entry.stopReason)} and waits for you.`);
      }
    }
  }

  private permissionWaits(key: string, permissionId: string): void {
    const c = this.host.manager.get(key);
    const permission = c?.state.permissions[permissionId];
    if (!c || !permission || permission.state !== 'waiting') return;
    const title = c.state.toolCalls[permission.toolCallId]?.title ?? 'a tool call';
    // The agent wrote the title (and may have named itself): inert, so no part of it becomes a link.
    this.tell(key, text`${c.state.agentName} asks permission: ${title}`);
  }

  /** `message` is built with the `text` template, so every value in it is inert already. */
  private tell(key: string, message: string): void {
    void vscode.window.showInformationMessage(text`${message}`, 'Show').then((choice) => {
      if (choice === 'Show') void this.host.show(key);
    });
  }
}

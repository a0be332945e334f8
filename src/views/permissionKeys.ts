/**
 * The keyboard's way to answer a permission card (issue 17, item 6): "approve" takes the narrowest
 * allow the agent offered (allow once), "reject" the narrowest reject. Which card: the one with the
 * focus, else the only one waiting in view, else the key names the card it would answer and waits
 * for the person's yes (`permissionTarget.ts`). Both are guarded commands without arguments, so a
 * `command:` link cannot answer; they go through the same answer path as the card's buttons, with
 * the person as the decider (a card that hides values asks its second yes here too).
 */
import * as vscode from 'vscode';
import { inert, text } from '../common/untrustedText';
import type { SessionController } from '../acp/sessionController';
import { registerGuardedCommand } from './guardedCommands';
import { narrowestOption } from '../acp/session/permissionChoice';
import { keyTarget, waitingOf, type FocusedCardRef } from './permissionTarget';
import { secondYes } from './hiddenValues';
import { sessionLabel } from '../acp/session/promptSummary';

/** Context key that is true while some permission request waits (keybindings' `when`). */
export const PERMISSION_WAITING_KEY = 'agentSwitchboard.permissionWaiting';

/** What the commands need from the app. */
export interface PermissionKeysHost {
  sessions(): SessionController[];
  /** The sessions shown in a page that can be seen now (the sidebar, editor tabs). */
  inView(): string[];
  /** The card a session page last reported as holding the focus. */
  focused(): FocusedCardRef | undefined;
}

/** Registers approve / reject of the waiting card. */
export function registerPermissionKeys(host: PermissionKeysHost): vscode.Disposable[] {
  const answer = async (kind: 'allow' | 'reject', node?: unknown): Promise<boolean> => {
    const all = host.sessions();
    // From a row of the Sessions board: that session's requests only.
    const named = node && typeof node === 'object' && (node as { kind?: unknown }).kind === 'live' ? String((node as { key?: unknown }).key) : undefined;
    const target = keyTarget(all, { named, inView: host.inView(), focused: host.focused() });
    const c = target.kind === 'none' ? undefined : all.find((s) => s.state.key === target.key);
    const p = target.kind === 'none' ? undefined : c?.state.permissions[target.permissionId];
    if (!c || !p) {
      void vscode.window.showInformationMessage(text`No permission request waits.`);
      return false;
    }
    const option = narrowestOption(p, kind);
    if (!option) {
      if (kind === 'allow') void vscode.window.showWarningMessage(text`The agent offered no way to allow this request; answer it on its card.`);
      else void vscode.window.showWarningMessage(text`The agent offered no way to reject this request; answer it on its card.`);
      return false;
    }
    if (target.kind === 'confirm') {
      // No card the person points at: the key says which one it answers before it does.
      const verb = kind === 'allow' ? 'Allow once' : 'Reject';
      const title = c.state.toolCalls[p.toolCallId]?.title || p.toolCallId;
      const others = waitingOf(c).length - 1;
      const detail = `${target.why}\n\nThe key answers this one, the oldest waiting in ${inert(sessionLabel(c.state), { max: 300 })}${others > 0 ? ` (${others} more wait${others === 1 ? 's' : ''})` : ''}. To answer another, focus its card or use its buttons.`;
      const choice = await vscode.window.showWarningMessage(text`${verb}: “${title}”?`, { modal: true, detail }, verb);
      if (choice !== verb) return false;
    }
    const second = await secondYes(c, p.permissionId, option);
    if (second === 'declined') return false;
    return c.answerPermission(p.permissionId, option, 'person', undefined, { acceptHidden: second === 'accepted' });
  };
  return [
    registerGuardedCommand('agentSwitchboard.approveWaiting', (node?: unknown) => answer('allow', node), { refused: Promise.resolve(false), nodes: true }),
    registerGuardedCommand('agentSwitchboard.rejectWaiting', (node?: unknown) => answer('reject', node), { refused: Promise.resolve(false), nodes: true }),
    // A flood of cards (an agent in an automatic mode sending write after write): every waiting
    // request of every session, each with its narrowest reject.
    registerGuardedCommand('agentSwitchboard.rejectAllWaiting', () => {
      let rejected = 0;
      let left = 0;
      for (const c of host.sessions()) {
        const r = c.rejectAllWaiting('person');
        rejected += r.rejected;
        left += r.left;
      }
      if (!rejected && !left) void vscode.window.showInformationMessage(text`No permission request waits.`);
      else if (left) void vscode.window.showWarningMessage(text`Rejected ${String(rejected)} requests; ${String(left)} offered no way to reject and wait on their cards.`);
      return { rejected, left };
    }, { refused: { rejected: 0, left: 0 } }),
  ];
}

/** Context key that is true while some session's turn runs (the Stop keybinding's `when`). */
export const SESSION_RUNNING_KEY = 'agentSwitchboard.sessionRunning';

const lastKeys = new Map<string, boolean>();

/** Keeps {@link PERMISSION_WAITING_KEY} and {@link SESSION_RUNNING_KEY} in step with the sessions; sets a key only when it changes. */
export function updateContextKeys(sessions: SessionController[]): void {
  const values: [string, boolean][] = [
    [PERMISSION_WAITING_KEY, sessions.some((c) => waitingOf(c).length > 0)],
    [SESSION_RUNNING_KEY, sessions.some((c) => c.state.status === 'prompting')],
  ];
  for (const [k, v] of values) {
    if (lastKeys.get(k) === v) continue;
    lastKeys.set(k, v);
    void vscode.commands.executeCommand('setContext', k, v);
  }
}

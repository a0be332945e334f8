/**
 * The keyboard's way to answer a permission card (issue 17, item 6): "approve" takes the narrowest
 * allow the agent offered (allow once), "reject" the narrowest reject, for the oldest waiting request
 * of the session in view (else of any session). Both are guarded commands without arguments, so a
 * `command:` link cannot answer; they go through the same answer path as the card's buttons, with
 * the person as the decider.
 */
import * as vscode from 'vscode';
import { text } from '../common/untrustedText';
import type { PermissionView } from '../acp/session/types';
import type { SessionController } from '../acp/sessionController';
import { registerGuardedCommand } from './guardedCommands';
import { narrowestOption } from '../acp/session/permissionChoice';

/** Context key that is true while some permission request waits (keybindings' `when`). */
export const PERMISSION_WAITING_KEY = 'agentSwitchboard.permissionWaiting';

/** What the commands need from the app. */
export interface PermissionKeysHost {
  sessions(): SessionController[];
  /** The session shown in the sidebar, if any. */
  inView(): string | undefined;
}

/** The oldest waiting request of `c`, if any. */
function oldestWaiting(c: SessionController): PermissionView | undefined {
  return Object.values(c.state.permissions).filter((p) => p.state === 'waiting').sort((x, y) => x.requestedAt - y.requestedAt)[0];
}

/** Registers approve / reject of the waiting card. */
export function registerPermissionKeys(host: PermissionKeysHost): vscode.Disposable[] {
  const answer = (kind: 'allow' | 'reject', node?: unknown): boolean => {
    const all = host.sessions();
    // From a row of the Sessions board: that session's oldest waiting request.
    const named = node && typeof node === 'object' && (node as { kind?: unknown }).kind === 'live' ? all.find((c) => c.state.key === (node as { key?: unknown }).key) : undefined;
    const inView = all.find((c) => c.state.key === host.inView());
    // A row names its session: that one only, never another session's request.
    const c = named ?? ((inView && oldestWaiting(inView) ? inView : undefined) ?? all.find((s) => oldestWaiting(s)));
    const p = c && oldestWaiting(c);
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
    return c.answerPermission(p.permissionId, option, 'person');
  };
  return [
    registerGuardedCommand('agentSwitchboard.approveWaiting', (node?: unknown) => answer('allow', node), { refused: false, nodes: true }),
    registerGuardedCommand('agentSwitchboard.rejectWaiting', (node?: unknown) => answer('reject', node), { refused: false, nodes: true }),
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
    [PERMISSION_WAITING_KEY, sessions.some((c) => !!oldestWaiting(c))],
    [SESSION_RUNNING_KEY, sessions.some((c) => c.state.status === 'prompting')],
  ];
  for (const [k, v] of values) {
    if (lastKeys.get(k) === v) continue;
    lastKeys.set(k, v);
    void vscode.commands.executeCommand('setContext', k, v);
  }
}

/**
 * "Waiting for you", wherever the person is: a status bar item while a session that is not on
 * screen (the side bar shows another one, or is hidden, and no editor tab of it is visible) waits
 * for a permission answer or an answer to its question. It names the agent (or how many sessions
 * wait), its tooltip says what each asks, and one click shows the session that has waited longest
 * in the side bar. The side bar's own badge and its session picker's marks say the same there.
 */
import * as vscode from 'vscode';
import type { SessionController, SessionChange } from '../acp/sessionController';
import { waitingOf, waitingWords, type WaitingSession } from '../acp/session/waiting';
import { inert } from '../common/untrustedText';

/** What the indicator needs from the app. */
export interface WaitingHost {
  sessions(): SessionController[];
  /** True when session `key` can be seen now (the side bar shows it, or a visible tab). */
  onScreen(key: string): boolean;
}

/** The status bar's "waiting for you". */
export class WaitingIndicator implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentSwitchboard.waiting', vscode.StatusBarAlignment.Left, 1000);

  constructor(private readonly host: WaitingHost) {
    this.item.name = 'Agent Switchboard: waiting for you';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  /** Feeds a session change: only a request asked or answered (or a title) can change what it says. */
  onSessionChange(c: SessionChange): void {
    if (c.patches.some((p) => p.op === 'permission' || p.op === 'meta' || (p.op === 'entry' && p.entry.kind === 'elicitation'))) this.update();
  }

  /** Says again what waits off screen (sessions started or closed, the side bar or a tab shown or hidden). */
  update(): void {
    const off: WaitingSession[] = [];
    for (const c of this.host.sessions()) {
      const w = waitingOf(c.state);
      if (w && !this.host.onScreen(w.key)) off.push(w);
    }
    const words = waitingWords(off);
    if (!words) {
      this.item.hide();
      return;
    }
    // Agent names and titles are the agent's text: inert, so none becomes an icon.
    this.item.text = `$(bell-dot) ${inert(words.text, { max: 80 })}`;
    this.item.tooltip = inert(words.tooltip, { max: 2000, multiline: true });
    this.item.accessibilityInformation = { label: `${inert(words.text, { max: 80 })}. Show it.`, role: 'button' };
    this.item.command = { command: 'agentSwitchboard.showSession', title: 'Show the session that waits', arguments: [words.key] };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

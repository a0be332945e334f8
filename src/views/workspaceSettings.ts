/**
 * Says what a workspace's settings did to the person's gate: the values it tightened, and the ones
 * it tried to loosen (or user-only settings it tried to set) that were ignored. Shown in the Grants
 * view (always), in a new session's thread, and once per change as a notification. Every sentence
 * is ours: setting names, enum values and counts, never the repository's own text.
 */
import * as vscode from 'vscode';
import { text } from '../common/untrustedText';
import { Emitter } from '../common/lifecycle';
import { readSettings, userOnlySettingsInWorkspaceFiles, type WorkspaceSettingsReport } from '../config/vscodeSettings';

const WHERE_AGENTS = 'Define agents in your user settings (Preferences: Open User Settings (JSON)) instead.';

/** The window's record of what workspace settings did. */
export class WorkspaceSettingsNotes implements vscode.Disposable {
  private readonly emitter = new Emitter<void>();
  /** Fires when the report changed. */
  readonly onDidChange = this.emitter.event;
  private report: WorkspaceSettingsReport = { tightened: [], ignored: [] };
  private fromFiles: string[] = [];
  private shown = '';
  private seq = 0;

  constructor(private readonly log: (m: string) => void) {
    void this.refresh();
  }

  /** Reads the settings (and the workspace's settings files) again; notifies once per change. */
  async refresh(): Promise<void> {
    const mine = ++this.seq;
    const files = await userOnlySettingsInWorkspaceFiles().catch(() => []);
    if (mine !== this.seq) return;
    this.fromFiles = files;
    const next = this.current();
    const digest = JSON.stringify(next);
    if (digest === JSON.stringify(this.report)) return;
    this.report = next;
    this.emitter.fire();
    for (const t of next.tightened) this.log(`Workspace settings tightened the gate: ${t}.`);
    for (const i of next.ignored) this.log(`Workspace settings ignored: ${i}.`);
    if (digest !== this.shown && next.ignored.length) {
      this.shown = digest;
      const n = next.ignored.length;
      const agents = next.ignored.some((i) => i.startsWith('agentSwitchboard.agents')) ? ` ${WHERE_AGENTS}` : '';
      void vscode.window.showWarningMessage(text`This workspace's settings tried to loosen Agent Switchboard's permission gate or to set what only your user settings may set (${n} value${n > 1 ? 's' : ''}); they were ignored.${agents} The Grants view lists them.`, 'Show Grants').then((c) => {
        if (c) void vscode.commands.executeCommand('agentSwitchboard.grants.focus');
      });
    }
  }

  /** What the workspace tightened and what it tried, ignored (the person's settings still decide). */
  get(): WorkspaceSettingsReport {
    // The settings as they are now; only the scan of the workspace's files is from the last refresh.
    return this.current();
  }

  /** The notice for a new session's thread, or undefined when the workspace changed nothing. */
  sessionNotice(): { severity: 'info' | 'warning'; text: string } | undefined {
    const { tightened, ignored } = this.get();
    const parts: string[] = [];
    if (tightened.length) parts.push(`This workspace's settings tightened the permission gate: ${tightened.join('; ')}.`);
    if (ignored.length) {
      const agents = ignored.some((i) => i.startsWith('agentSwitchboard.agents')) ? ` ${WHERE_AGENTS}` : '';
      parts.push(`Ignored from this workspace's settings (only your user settings may set or loosen these): ${ignored.join('; ')}.${agents}`);
    }
    return parts.length ? { severity: ignored.length ? 'warning' : 'info', text: parts.join(' ') } : undefined;
  }

  private current(): WorkspaceSettingsReport {
    const r = readSettings(() => undefined).workspace;
    const ignored = [...r.ignored];
    // The same sentence when the editor showed the value too (a scope that lets the workspace write it).
    for (const f of this.fromFiles) if (!ignored.includes(f)) ignored.push(f);
    return { tightened: r.tightened, ignored };
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/**
 * The editor follows the agent, as Cursor's and VS Code's own agents do: a file the agent of the
 * session on screen has just changed opens in a preview tab (the next one replaces it), with the
 * inline review's tint and Keep / Undo on it, the focus left where it is. Only changes new since
 * the last look count (a Keep or Undo, or another session's change, opens nothing); a file already
 * in a visible editor is not opened again; nothing that is not a file (a compare view, a diff, the
 * trace) in the first editor group is covered, nor an editor with unsaved changes (the person is
 * typing there). `agentSwitchboard.review.followEdits` (with `review.inline`) turns it on and off.
 */
import * as vscode from 'vscode';
import { changeToFollow } from '../edits/followEdits';
import type { FileChange, ReviewModel } from '../edits/review';

/** What following needs of the rest of the extension. */
export interface FollowEditsPort {
  /** The session on screen (the side bar's), if any. */
  shownSession(): string | undefined;
  enabled(): boolean;
}

/** Opens the file an agent changed last in the session on screen; one owner, one subscription. */
export class FollowEdits implements vscode.Disposable {
  /** Every change id seen so far: only the ones new at a look are followed. */
  private readonly known = new Set<string>();
  private readonly sub: { dispose(): void };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private due: FileChange | undefined;

  constructor(private readonly model: ReviewModel, private readonly port: FollowEditsPort) {
    for (const t of model.turns()) for (const c of t.files) this.known.add(c.id);
    this.sub = model.onDidChange(() => this.look());
  }

  private look(): void {
    const fresh = this.model.turns().flatMap((t) => t.files).filter((c) => !this.known.has(c.id));
    for (const c of fresh) this.known.add(c.id);
    const key = this.port.shownSession();
    const next = key ? changeToFollow(fresh.filter((c) => c.sessionKey === key), new Set()) : undefined;
    if (!next) return;
    this.due = next;
    // Changes come in bursts (a tool call writes, the watcher confirms): open once they settle.
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.follow(), 200);
  }

  private async follow(): Promise<void> {
    this.timer = undefined;
    const c = this.due;
    this.due = undefined;
    if (!c || !this.port.enabled() || this.port.shownSession() !== c.sessionKey) return;
    const uri = vscode.Uri.file(c.path);
    if (vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === uri.toString())) return;
    const front = vscode.window.tabGroups.all.find((g) => g.viewColumn === vscode.ViewColumn.One)?.activeTab;
    if (front && !(front.input instanceof vscode.TabInputText)) return;
    if (vscode.window.visibleTextEditors.some((e) => e.viewColumn === vscode.ViewColumn.One && e.document.isDirty)) return;
    try {
      await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.One });
    } catch {
      // Gone again, or not text: nothing to follow.
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.sub.dispose();
  }
}

/**
 * The editor follows the agent, as Cursor's and VS Code's own agents do: while a turn of the
 * session on screen runs, the file the agent just changed opens in a preview tab beside what the
 * person reads (the focus stays where it is), with the inline review's tint and Keep / Undo on it.
 * A file already in a visible editor is not opened again; nothing that is not a file (a compare
 * view, a diff, the trace) in the first editor group is covered, nor an editor with unsaved changes
 * (the person is typing there); each change is followed once. Off with
 * `agentSwitchboard.review.inline` (the same switch as the inline review).
 */
import * as vscode from 'vscode';
import { changeToFollow } from '../edits/followEdits';
import type { ReviewModel } from '../edits/review';

/** What following needs of the rest of the extension. */
export interface FollowEditsPort {
  /** The session on screen while one of its turns runs; undefined otherwise. */
  workingSession(): string | undefined;
  enabled(): boolean;
}

/** Opens the file an agent changed last in the session on screen; one owner, one subscription. */
export class FollowEdits implements vscode.Disposable {
  private readonly shown = new Set<string>();
  private readonly sub: { dispose(): void };
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly model: ReviewModel, private readonly port: FollowEditsPort) {
    // Changes come in bursts (a tool call writes, the watcher confirms): look once they settle.
    this.sub = model.onDidChange(() => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.follow(), 200);
    });
  }

  private async follow(): Promise<void> {
    this.timer = undefined;
    const key = this.port.workingSession();
    if (!key || !this.port.enabled()) return;
    const changes = this.model.turns(key).flatMap((t) => t.files);
    const c = changeToFollow(changes, this.shown);
    // Every change seen now counts as followed: only the newest opens, not a queue of tabs.
    for (const x of changes) this.shown.add(x.id);
    if (!c) return;
    const uri = vscode.Uri.file(c.path);
    if (vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === uri.toString())) return;
    // What the person looks at in the editor is not covered when it is not a file (a compare view,
    // a diff, the trace): following opens over a text editor, or into an empty editor area.
    const front = vscode.window.tabGroups.all.find((g) => g.viewColumn === vscode.ViewColumn.One)?.activeTab;
    if (front && !(front.input instanceof vscode.TabInputText)) return;
    // Nor an editor the person is typing in (unsaved changes on screen): their keys stay theirs.
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

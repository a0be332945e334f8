/**
 * The agents' changes still to review, shown in the editor itself: the lines an agent wrote on the
 * diff editor's inserted-line background, what it removed after the first of them (and in full on
 * hover), and Keep / Undo above each hunk, with Keep All / Undo All and the way to the next change
 * at the top of the file. Where each hunk is, and whether Undo can still take it, comes from the
 * pure `edits/inlineHunks.ts`; Keep and Undo are the Changes view's own commands on the same hunk,
 * so the version-checked write, the undo guard and the refusal of text someone changed since are
 * the review's, not a second copy of them.
 *
 * Removed lines: the extension API has no view zones (the diff editor's way of showing the old
 * lines between the new ones). A decoration's `after` text is one line, so the first removed line
 * is shown there, struck through, with a count of the rest; the hover gives the hunk in full; a
 * removal with nothing written in its place is a rule above the line that now follows it. A
 * comment thread would make a zone, but it is the person's feedback channel (views/feedback.ts),
 * lists in the Comments panel and has a reply box; a CodeLens row holds one line of small text.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../activation/vscodeRegistry';
import { issue } from '../common/commandArgs';
import { onDidChangeSettings } from '../config/vscodeSettings';
import { inert, markdownCodeBlock } from '../common/untrustedText';
import { EMPTY_VIEW, hunkHoverCode, hunkHoverIntro, inlineView, type InlineBlock, type InlineHunk, type InlineView, type WholeFileWhat } from '../edits/inlineHunks';
import type { FileChange } from '../edits/review';
import { registerGuardedCommand } from './guardedCommands';
import type { ReviewCenter } from './review';
import type { ReviewNode } from './reviewTree';

/** Commands of the inline review (run from its CodeLenses; not in the Command Palette). */
export const INLINE_COMMANDS = {
  keepAll: 'agentSwitchboard.review.inline.keepAll',
  undoAll: 'agentSwitchboard.review.inline.undoAll',
  next: 'agentSwitchboard.review.inline.next',
  previous: 'agentSwitchboard.review.inline.previous',
} as const;

/** How long typing must pause before the decorations are placed again. */
const SETTLE_MS = 150;

const WHOLE_LABEL: Record<WholeFileWhat, string> = { created: 'Created by the agent', deleted: 'Deleted by the agent', moved: 'Moved here by the agent' };
const WHOLE_UNDO_TIP: Record<WholeFileWhat, string> = {
  created: 'Deletes the file the agent created (the notification offers Restore)',
  deleted: 'Writes the file back as it was before the agent deleted it',
  moved: 'Puts the file back at its old path',
};

/** The changes of a file a Keep All / Undo All lens was made for (issued: only ours drive the commands). */
interface FileNode {
  changeIds: string[];
}

/** The inline review of the files open in editors; one owner of its decorations, lenses and commands. */
export class InlineReview implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  /** The view of each document, for the version and model state it was made for. */
  private readonly cache = new Map<string, { version: number; generation: number; view: InlineView }>();
  /** Bumped on every change of the review model: a cached view of an older generation is stale. */
  private generation = 0;
  private readonly due = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly added: vscode.TextEditorDecorationType;
  private readonly removed: vscode.TextEditorDecorationType;
  private readonly gap: vscode.TextEditorDecorationType;

  constructor(
    private readonly center: ReviewCenter,
    private readonly enabled: () => boolean,
  ) {
    this.added = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    this.removed = vscode.window.createTextEditorDecorationType({
      after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'), textDecoration: 'line-through', margin: '0 0 0 2em' },
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    this.gap = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      borderColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
      borderStyle: 'solid',
      borderWidth: '2px 0 0 0',
    });
    const model = center.model;
    this.disposables.push(
      this.added,
      this.removed,
      this.gap,
      this.lensesChanged,
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, { onDidChangeCodeLenses: this.lensesChanged.event, provideCodeLenses: (doc) => this.lenses(doc) }),
      model.onDidChange(() => {
        this.generation++;
        this.lensesChanged.fire();
        this.schedule(undefined, 0);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.isReviewed(e.document)) this.schedule(e.document.uri.toString(), SETTLE_MS);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.cache.delete(d.uri.toString())),
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule(undefined, 0)),
      vscode.window.tabGroups.onDidChangeTabs(() => this.schedule(undefined, 0)),
      // agentSwitchboard.review.inline turns it all on and off, live.
      onDidChangeSettings(() => {
        this.lensesChanged.fire();
        this.schedule(undefined, 0);
      }),
      registerGuardedCommand(INLINE_COMMANDS.keepAll, (n: unknown) => this.keepAll(n), { nodes: true }),
      registerGuardedCommand(INLINE_COMMANDS.undoAll, (n: unknown) => this.undoAll(n), { nodes: true }),
      registerCommand(INLINE_COMMANDS.next, (uri: unknown) => this.go(uri, 1)),
      registerCommand(INLINE_COMMANDS.previous, (uri: unknown) => this.go(uri, -1)),
    );
    this.schedule(undefined, 0);
  }

  /** The inline view of `doc` as it is now (empty when turned off or nothing is to review there). */
  viewOf(doc: vscode.TextDocument): InlineView {
    if (!this.enabled() || !this.isReviewed(doc)) return EMPTY_VIEW;
    const key = doc.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === doc.version && hit.generation === this.generation) return hit.view;
    const view = inlineView(this.center.model, doc.uri.fsPath, doc.getText());
    this.cache.set(key, { version: doc.version, generation: this.generation, view });
    return view;
  }

  private isReviewed(doc: vscode.TextDocument): boolean {
    return doc.uri.scheme === 'file' && this.center.model.latestFor(doc.uri.fsPath) !== undefined;
  }

  /** Places the decorations again in the editors of `uri` (all visible editors when undefined) after `ms`. */
  private schedule(uri: string | undefined, ms: number): void {
    this.due.add(uri ?? '*');
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const all = this.due.has('*');
      const uris = new Set(this.due);
      this.due.clear();
      for (const editor of vscode.window.visibleTextEditors) if (all || uris.has(editor.document.uri.toString())) this.decorate(editor);
    }, ms);
  }

  private decorate(editor: vscode.TextEditor): void {
    // The review's own diff editor shows the change already; decorating its right side would say it twice.
    const view = this.inDiffEditor(editor) ? EMPTY_VIEW : this.viewOf(editor.document);
    const added: vscode.DecorationOptions[] = [];
    const removed: vscode.DecorationOptions[] = [];
    const gap: vscode.DecorationOptions[] = [];
    const last = editor.document.lineCount - 1;
    for (const h of view.hunks) {
      const hover = this.hover(h);
      for (const b of h.blocks) {
        const start = Math.min(b.start, last);
        if (b.count > 0) added.push({ range: new vscode.Range(start, 0, Math.min(b.start + b.count - 1, last), 0), hoverMessage: hover });
        if (!b.removed.length) continue;
        const line = editor.document.lineAt(start);
        removed.push({ range: new vscode.Range(start, line.text.length, start, line.text.length), hoverMessage: hover, renderOptions: { after: { contentText: removedText(b) } } });
        if (b.count === 0) gap.push({ range: new vscode.Range(start, 0, start, 0), hoverMessage: hover });
      }
    }
    editor.setDecorations(this.added, added);
    editor.setDecorations(this.removed, removed);
    editor.setDecorations(this.gap, gap);
  }

  private inDiffEditor(editor: vscode.TextEditor): boolean {
    const uri = editor.document.uri.toString();
    return vscode.window.tabGroups.all.some((g) => g.viewColumn === editor.viewColumn && g.activeTab?.input instanceof vscode.TabInputTextDiff && g.activeTab.input.modified.toString() === uri);
  }

  /** The hunk as the agent made it (what it removed and wrote), as the Changes view's hunk shows it. */
  private hover(h: InlineHunk): vscode.MarkdownString {
    const c = this.center.model.get(h.changeId);
    // The agent's lines in a fence they cannot close (appendCodeblock's can be, by a context line).
    return new vscode.MarkdownString().appendText(hunkHoverIntro(h.state)).appendMarkdown(markdownCodeBlock(hunkHoverCode(c?.hunks[h.hunk]?.lines ?? []), 'diff'));
  }

  private lenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const view = this.viewOf(doc);
    if (!view.changes.length) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    const lenses: vscode.CodeLens[] = [];
    const whole = view.changes.filter((c) => c.what !== 'changed');
    for (const c of whole) {
      const what = c.what as WholeFileWhat;
      const node = (): ReviewNode => issue({ type: 'file', changeId: c.changeId });
      lenses.push(
        lens(top, WHOLE_LABEL[what], ''),
        lens(top, 'Keep', 'agentSwitchboard.review.keep', [node()], 'Keep the agent\'s change of this file'),
        c.baseUnknown ? lens(top, 'Base unknown: Open Diff', 'agentSwitchboard.review.openDiff', [node()], 'What the file held before is not known for certain; Undo leaves it alone') : lens(top, 'Undo', 'agentSwitchboard.review.undo', [node()], WHOLE_UNDO_TIP[what]),
      );
    }
    // With more than one thing to decide, the file's own row: all at once, and the way from one to the next.
    if (view.hunks.length + whole.length > 1 && view.hunks.length) {
      const ids = view.changes.map((c) => c.changeId);
      const n = view.hunks.length;
      const uri = doc.uri.toString();
      lenses.push(
        lens(top, `${n} agent change${n === 1 ? '' : 's'} to review`, ''),
        lens(top, 'Keep All', INLINE_COMMANDS.keepAll, [issue<FileNode>({ changeIds: ids })], 'Keep every agent change of this file still to review'),
        lens(top, 'Undo All', INLINE_COMMANDS.undoAll, [issue<FileNode>({ changeIds: ids })], 'Undo every agent change of this file still to review; lines changed since are left alone'),
        lens(top, '$(arrow-up)', INLINE_COMMANDS.previous, [uri], 'Previous agent change'),
        lens(top, '$(arrow-down)', INLINE_COMMANDS.next, [uri], 'Next agent change'),
      );
    }
    for (const h of view.hunks) {
      const at = new vscode.Range(h.line, 0, h.line, 0);
      const node = (): ReviewNode => issue({ type: 'hunk', changeId: h.changeId, hunk: h.hunk });
      lenses.push(lens(at, 'Keep', 'agentSwitchboard.review.keep', [node()], 'Keep this change'));
      if (h.undoable) lenses.push(lens(at, 'Undo', 'agentSwitchboard.review.undo', [node()], 'Put back what was here before the agent\'s change'));
      else if (h.state === 'edited' && h.brokenByLater) lenses.push(lens(at, 'Changed since: Open Diff', 'agentSwitchboard.review.openDiff', [node()], 'A later agent change rewrote these lines: Undo that one first, then this one'));
      else if (h.state === 'edited') lenses.push(lens(at, 'Changed since: Open Diff', 'agentSwitchboard.review.openDiff', [node()], 'These lines were changed after the agent wrote them; Undo would take that text too, so undo them by hand in the diff'));
      else lenses.push(lens(at, 'Base unknown: Open Diff', 'agentSwitchboard.review.openDiff', [node()], 'What the file held before is not known for certain; Undo leaves it alone'));
    }
    return lenses;
  }

  private changesOf(n: unknown): FileChange[] {
    const ids = (n as Partial<FileNode> | undefined)?.changeIds;
    if (!Array.isArray(ids)) throw new Error('Keep All and Undo All act on the file a lens of the inline review was shown for.');
    return ids.flatMap((id) => (typeof id === 'string' ? [this.center.model.get(id)] : [])).filter((c): c is FileChange => c !== undefined);
  }

  private keepAll(n: unknown): void {
    for (const c of this.changesOf(n)) this.center.keep({ type: 'file', changeId: c.id });
  }

  /** Undoes the file's changes newest first: an older one is undone on the text the newer left. */
  private async undoAll(n: unknown): Promise<string[]> {
    const refused: string[] = [];
    for (const c of this.changesOf(n).sort((a, b) => b.at - a.at)) refused.push(...(await this.center.undo({ type: 'file', changeId: c.id })));
    return refused;
  }

  /** Moves the cursor to the next (or previous) change of the file, round the end. */
  private async go(uri: unknown, step: 1 | -1): Promise<void> {
    const editor = (typeof uri === 'string' && vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri)) || vscode.window.activeTextEditor;
    if (!editor) return;
    const lines = [...new Set(this.viewOf(editor.document).hunks.map((h) => h.line))];
    if (!lines.length) return;
    const here = editor.selection.active.line;
    const to = step > 0 ? (lines.find((l) => l > here) ?? lines[0]) : (lines.filter((l) => l < here).at(-1) ?? lines.at(-1)!);
    const shown = await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    shown.selection = new vscode.Selection(to, 0, to, 0);
    shown.revealRange(new vscode.Range(to, 0, to, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.disposables.forEach((d) => d.dispose());
    this.cache.clear();
  }
}

/** A CodeLens; an empty `command` makes a label. Titles are ours: no agent text goes into one. */
function lens(range: vscode.Range, title: string, command: string, args: unknown[] = [], tooltip?: string): vscode.CodeLens {
  return new vscode.CodeLens(range, { title, command, arguments: args, ...(tooltip ? { tooltip } : {}) });
}

/** The removed lines as the one line a decoration can show: the first, and how many more. */
function removedText(b: InlineBlock): string {
  const first = b.removed.find((l) => l.trim()) ?? b.removed[0];
  const more = b.removed.length - 1;
  // The file's text is shown as text: inert folds controls and bidirectional overrides, caps its length.
  return `− ${inert(first.trim(), { max: 80 }) || '(empty line)'}${more ? `  (+${more} more line${more === 1 ? '' : 's'})` : ''}`;
}

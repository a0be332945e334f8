/**
 * Review of agents' changes in the editor: owns the pure {@link ReviewModel} and
 * {@link DiskBaselines}, feeds them from the sessions (turns, tool calls, our own writes), the file
 * watcher and document changes, and performs Keep / Undo / Restore Checkpoint. Every undo is
 * planned on the text as it is at that moment and applied with a version check; text someone
 * changed after the agent is never overwritten — that undo is refused with a reason instead.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerGuardedCommand } from './guardedCommands';
import type { SessionPatch, SessionState } from '../acp/session/types';
import { fileEncoding } from '../config/vscodeSettings';
import { openDocument as openFileDocument } from '../fs/vscodeFiles';
import { asOwnEdit, isOwnEdit, isSavingByUs, replaceChecked } from '../edits/vscodeApply';
import { DiskBaselines, type Snapshot } from '../edits/baselines';
import { decodeFile, detectEol, encodeFile } from '../edits/encoding';
import { ReviewModel, type Base, type UndoPlan } from '../edits/review';
import { parseReviewNode, ReviewTree, type ReviewNode } from './reviewTree';
import { text } from '../common/untrustedText';

/** URI scheme of the read-only documents that show the base an agent's change replaced. */
export const BASE_SCHEME = 'agent-switchboard-base';
/** Files larger than this are not snapshotted for review (bytes). */
const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;

/** Reads a file's bytes and text synchronously; null when missing, text null when not text. */
export function readSnapshot(p: string): Snapshot {
  let bytes: Uint8Array;
  try {
    const stat = fs.statSync(p);
    if (!stat.isFile() || stat.size > MAX_SNAPSHOT_BYTES) return { bytes: new Uint8Array(), text: null };
    bytes = fs.readFileSync(p);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : { bytes: new Uint8Array(), text: null };
  }
  try {
    return { bytes, text: decodeFile(bytes, fileEncoding(vscode.Uri.file(p))).text };
  } catch {
    return { bytes, text: null };
  }
}

function openDocument(p: string): vscode.TextDocument | undefined {
  return openFileDocument(vscode.Uri.file(p));
}

/**
 * The open document of `p`, once it reflects the disk: a document without unsaved changes reloads
 * a file changed on disk asynchronously, so a plan made on its text a moment after an agent wrote
 * the file would be made on the old text. Waits up to `timeoutMs` for that reload.
 * @throws Error when the document still differs from the disk after that.
 */
async function freshDocument(p: string, timeoutMs = 3000): Promise<vscode.TextDocument | undefined> {
  const doc = openDocument(p);
  if (!doc || doc.isDirty) return doc;
  const disk = readSnapshot(p);
  if (!disk || disk.text === null || disk.text === doc.getText()) return doc;
  const settled = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === doc && doc.getText() === disk.text) done(true);
    });
    function done(ok: boolean) {
      clearTimeout(timer);
      sub.dispose();
      resolve(ok);
    }
  });
  if (!settled) throw new Error('the open document and the file on disk disagree; save or revert it first.');
  return doc.isClosed ? undefined : doc;
}

/** The Changes view and its actions. */
export class ReviewCenter implements vscode.Disposable {
  readonly model = new ReviewModel();
  readonly baselines: DiskBaselines;
  private readonly tree: ReviewTree;
  private readonly view: vscode.TreeView<ReviewNode>;
  private readonly disposables: vscode.Disposable[] = [];
  /** Documents between will-save and did-save: changes then come from save participants (formatters). */
  private readonly saving = new Set<string>();
  /** Paths we wrote on disk ourselves, with the time, so the watcher does not attribute them. */
  private readonly ownWrites = new Map<string, number>();
  /** Status of each session at the last patch, to see a turn end. */
  private readonly lastStatus = new Map<string, string>();

  constructor(
    private readonly agentName: (sessionKey: string) => string,
    roots: () => readonly string[],
  ) {
    this.baselines = new DiskBaselines(this.model, readSnapshot);
    this.tree = new ReviewTree(this.model, agentName, roots);
    this.view = vscode.window.createTreeView('agentSwitchboard.changes', { treeDataProvider: this.tree, showCollapseAll: true });
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const onDisk = (uri: vscode.Uri) => this.diskChanged(uri.fsPath);
    this.disposables.push(
      this.view,
      this.tree,
      watcher,
      watcher.onDidChange(onDisk),
      watcher.onDidCreate(onDisk),
      watcher.onDidDelete(onDisk),
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, {
        provideTextDocumentContent: (uri) => {
          const c = this.model.get(new URLSearchParams(uri.query).get('id') ?? '');
          if (!c) return 'This change is no longer available.';
          return new URLSearchParams(uri.query).get('side') === 'empty' ? '' : (c.base.text ?? '');
        },
      }),
      vscode.workspace.onWillSaveTextDocument((e) => this.saving.add(e.document.uri.toString())),
      vscode.workspace.onDidSaveTextDocument((d) => {
        this.saving.delete(d.uri.toString());
        // The person's save during an agent's edit call is not the agent's change.
        if (d.uri.scheme === 'file' && !isOwnEdit(d.uri)) this.baselines.savedByOthers(d.uri.fsPath);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => this.documentChanged(e)),
      this.model.onDidChange(() => this.updateBadge()),
      registerGuardedCommand('agentSwitchboard.review.keep', (n: unknown) => this.keep(parseReviewNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.review.undo', (n: unknown) => this.undo(parseReviewNode(n)), { nodes: true }),
      vscode.commands.registerCommand('agentSwitchboard.review.openDiff', (n: unknown) => this.openDiff(parseReviewNode(n))),
      registerGuardedCommand('agentSwitchboard.review.restoreCheckpoint', (n: unknown) => this.restoreCheckpoint(parseReviewNode(n)), { nodes: true }),
    );
  }

  // ---- feeding the model ----

  /** Follows a session: its turns (user entries), its writing tool calls and the end of each turn. */
  onSessionPatches(state: SessionState, patches: SessionPatch[]): void {
    const turn = turnOf(state);
    for (const p of patches) {
      if (p.op === 'entry' && p.entry.kind === 'user') this.model.turnStarted(state.key, turn, p.entry.text);
      if (p.op === 'toolCall') this.baselines.toolCall(state.key, turn, state.cwd, p.toolCall);
    }
    const before = this.lastStatus.get(state.key);
    this.lastStatus.set(state.key, state.status);
    if ((before === 'prompting' || before === 'cancelling') && state.status !== 'prompting' && state.status !== 'cancelling') this.baselines.turnEnded(state.key);
  }

  /** Records a write we performed for the agent (`fs/write_text_file`). */
  clientWrote(state: SessionState, absPath: string, base: Base, after: string): void {
    const turn = turnOf(state);
    // The tool call it belongs to: the latest one of this turn that names the file.
    const lastUser = state.entries.map((e) => e.kind).lastIndexOf('user');
    const ids = new Set(state.entries.slice(lastUser + 1).flatMap((e) => (e.kind === 'tool_call' ? [e.toolCallId] : [])));
    const call = Object.values(state.toolCalls)
      .filter((tc) => ids.has(tc.toolCallId))
      .filter((tc) => tc.locations.some((l) => path.resolve(state.cwd, l.path) === absPath) || tc.content.some((c) => c.type === 'diff' && path.resolve(state.cwd, c.path) === absPath))
      .at(-1);
    this.model.record(state.key, turn, absPath, 'client', base, after, call?.toolCallId);
  }

  private diskChanged(p: string): void {
    const own = this.ownWrites.get(p);
    if (own !== undefined && Date.now() - own < 3000) return;
    if (this.baselines.fileChanged(p)) return;
    const latest = this.model.latestFor(p);
    if (!latest) return;
    // Watcher events arrive late: a file that holds what the agent (or our undo) left is no news.
    let now: string | null | undefined;
    try {
      now = currentDiskText(p);
    } catch {
      now = undefined;
    }
    // An open document with unsaved changes is attributed by its own change events; one whose text
    // is what is now on disk was just saved from the editor (the person's save, already attributed).
    const doc = openDocument(p);
    if (doc && (doc.isDirty || doc.getText() === now)) return;
    if (now !== this.model.expectedText(latest)) this.model.noteLater(p, 'other');
  }

  private documentChanged(e: vscode.TextDocumentChangeEvent): void {
    if (e.document.uri.scheme !== 'file' || !e.contentChanges.length || isOwnEdit(e.document.uri)) return;
    const p = e.document.uri.fsPath;
    const latest = this.model.latestFor(p);
    if (!latest) return;
    if (this.saving.has(e.document.uri.toString()) || isSavingByUs(e.document.uri)) return this.model.noteLater(p, 'formatter');
    // Once the person is noted, further keystrokes change nothing: no disk read per keystroke.
    if (latest.later.at(-1)?.by === 'person') return;
    // A document that now equals the disk was reloaded from it (the watcher attributes that change);
    // isDirty cannot tell, as the editor updates it after this event.
    const disk = readSnapshot(p);
    if (disk?.text !== e.document.getText()) this.model.noteLater(p, 'person');
  }

  private updateBadge(): void {
    const n = this.model.pendingCount();
    this.view.badge = n ? { value: n, tooltip: `${n} file change${n === 1 ? '' : 's'} by agents to review` } : undefined;
  }

  // ---- actions ----

  /** Keeps a hunk, a file or a whole turn. */
  keep(n: ReviewNode): void {
    for (const { id, hunk } of this.targets(n)) this.model.keep(id, hunk);
  }

  /**
   * Undoes a hunk, a file or a whole turn. Hunks whose lines someone changed after the agent are
   * left alone and reported.
   * @returns the reasons of the undos that were refused (empty when all were done).
   */
  async undo(n: ReviewNode): Promise<string[]> {
    const refused: string[] = [];
    for (const { id, hunk } of this.targets(n)) {
      try {
        await this.undoOne(id, hunk);
      } catch (err) {
        refused.push(`${path.basename(this.model.get(id)?.path ?? id)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (refused.length) void vscode.window.showWarningMessage(text`Not undone — ${refused.join(' ')}`);
    return refused;
  }

  private targets(n: ReviewNode): { id: string; hunk?: number }[] {
    if (n.type === 'hunk') return [{ id: n.changeId, hunk: n.hunk }];
    if (n.type === 'file') return [{ id: n.changeId }];
    return (this.model.turns(n.sessionKey).find((t) => t.turn === n.turn)?.files ?? []).map((f) => ({ id: f.id }));
  }

  private async undoOne(id: string, hunk?: number): Promise<void> {
    const c = this.model.get(id);
    if (!c) throw new Error('this change was cleared.');
    const doc = await freshDocument(c.path);
    // Plan on the text as it is now; for an open document, plan and edit with nothing awaited between.
    const current = doc ? doc.getText() : currentDiskText(c.path);
    const plan = this.model.planUndo(id, current, hunk);
    if (plan.action === 'none') return;
    if (plan.action === 'conflict') throw new Error(plan.message);
    await this.perform(c.path, plan, doc, current);
    this.model.undone(id, plan.hunks);
  }

  /**
   * Carries out an undo or restore plan on a file whose text was `current` when planned. Unsaved
   * text is only ever edited in its document (undoable, left unsaved); otherwise the disk is the
   * truth, checked again right before the bytes are written (no save participants run on them, so
   * a formatter cannot alter a restored base).
   */
  private async perform(p: string, plan: Exclude<UndoPlan, { action: 'none' | 'conflict' }>, doc: vscode.TextDocument | undefined, current: string | null): Promise<void> {
    const uri = vscode.Uri.file(p);
    if (plan.action === 'delete') {
      if (doc?.isDirty) throw new Error('the file has unsaved changes; it was left alone.');
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(uri, { ignoreIfNotExists: true });
      this.ownWrites.set(p, Date.now());
      if (!(await asOwnEdit(uri, () => vscode.workspace.applyEdit(edit)))) throw new Error('the editor refused to delete the file.');
      return;
    }
    if (doc?.isDirty) {
      const refusal = await replaceChecked(doc, { text: current ?? '', version: doc.version }, plan.text);
      if (refusal) throw new Error(refusal.reason === 'edit_rejected' ? 'the editor rejected the edit.' : 'the file changed while undoing; nothing was changed.');
      return;
    }
    const disk = readSnapshot(p);
    if ((disk === null ? null : disk.text) !== current) throw new Error('the file changed while undoing; nothing was changed.');
    // The exact base bytes when we have them; else the text in the file's own encoding and BOM.
    const format = disk?.bytes ? decodeFile(disk.bytes, fileEncoding(uri)).format : { encoding: 'utf8', bom: false, eol: detectEol(plan.text) };
    const bytes = plan.action === 'restoreBase' && plan.bytes ? plan.bytes : encodeFile(plan.text, format);
    if (disk === null) await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(p)));
    this.ownWrites.set(p, Date.now());
    await asOwnEdit(uri, () => vscode.workspace.fs.writeFile(uri, bytes));
  }

  /**
   * Restores the workspace files a turn (and the turns after it) changed to their state before that
   * turn. Files someone changed since the agent's last write are skipped and named.
   * @returns the restored and the skipped paths.
   */
  async restoreCheckpoint(n: ReviewNode & { confirmed?: boolean }): Promise<{ restored: string[]; skipped: string[] }> {
    if (n.type !== 'turn') throw new Error('Restore Checkpoint applies to a turn.');
    const entries = this.model.checkpoint(n.sessionKey, n.turn);
    const result = { restored: [] as string[], skipped: [] as string[] };
    if (!entries.length) return result;
    if (!n.confirmed) {
      const ok = await vscode.window.showWarningMessage(
        text`Restore ${entries.length} file${entries.length === 1 ? '' : 's'} to their state before turn ${n.turn}?`,
        { modal: true, detail: `Changes of turn ${n.turn} and later turns of this session are undone. Files changed since by you or another program are skipped.` },
        'Restore',
      );
      if (ok !== 'Restore') return result;
    }
    const done: string[] = [];
    for (const e of entries) {
      let doc: vscode.TextDocument | undefined;
      let current: string | null | undefined;
      try {
        doc = await freshDocument(e.path);
        current = doc ? doc.getText() : currentDiskText(e.path);
      } catch {
        current = undefined;
      }
      if (!e.continuous || current === undefined || current !== e.expected) {
        result.skipped.push(e.path);
        continue;
      }
      const plan: Exclude<UndoPlan, { action: 'none' | 'conflict' }> = e.base.text === null ? { action: 'delete', hunks: [] } : { action: 'restoreBase', bytes: e.base.bytes, text: e.base.text, hunks: [] };
      if (current === null && plan.action === 'delete') {
        // Created in the turn and already gone: nothing to restore.
        done.push(...e.ids);
        continue;
      }
      try {
        await this.perform(e.path, plan, doc, current);
        result.restored.push(e.path);
        done.push(...e.ids);
      } catch {
        result.skipped.push(e.path);
      }
    }
    this.model.restored(done);
    const names = (l: string[]) => l.map((p) => path.basename(p)).join(', ');
    void vscode.window.showInformationMessage(
      text`Restored ${result.restored.length} file${result.restored.length === 1 ? '' : 's'} to before turn ${n.turn}${result.restored.length ? ` (${names(result.restored)})` : ''}.${result.skipped.length ? ` Skipped, changed since: ${names(result.skipped)}.` : ''}`,
    );
    return result;
  }

  /** Opens the native diff editor: the agent's base (virtual, read-only) ↔ the file now. */
  async openDiff(n: ReviewNode): Promise<void> {
    if (n.type === 'turn') return;
    const c = this.model.get(n.changeId);
    if (!c) return;
    const file = vscode.Uri.file(c.path);
    const base = vscode.Uri.from({ scheme: BASE_SCHEME, path: c.path, query: `id=${encodeURIComponent(c.id)}` });
    const exists = currentDiskText(c.path) !== null || !!openDocument(c.path);
    const right = exists ? file : base.with({ query: `id=${encodeURIComponent(c.id)}&side=empty` });
    const line = n.type === 'hunk' ? Math.max(0, c.hunks[n.hunk].newStart - 1) : 0;
    await vscode.commands.executeCommand('vscode.diff', base, right, `${path.basename(c.path)}: before turn ${c.turn} ↔ now`, {
      selection: new vscode.Range(line, 0, line, 0),
      preview: true,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /**
   * Shows what a tool call changed: selects its first file in the Changes view and opens its diff.
   * Tells the person when no change of that call was recorded (e.g. the write was refused).
   */
  async revealToolCall(sessionKey: string, toolCallId: string): Promise<void> {
    const files = this.model.turns(sessionKey).flatMap((t) => t.files).filter((f) => f.toolCallIds.includes(toolCallId));
    if (!files.length) {
      void vscode.window.showInformationMessage('No file change was recorded for this tool call (it was refused, changed nothing, or named no file).');
      return;
    }
    const node: ReviewNode = { type: 'file', changeId: files[0].id };
    await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
    await this.view.reveal(node, { select: true, focus: false, expand: true });
    await this.openDiff(node);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.model.dispose();
  }
}

/** The turn number of a session: how many prompts it has had. */
function turnOf(state: SessionState): number {
  return state.entries.reduce((n, e) => n + (e.kind === 'user' ? 1 : 0), 0);
}

function currentDiskText(p: string): string | null {
  const s = readSnapshot(p);
  if (s === null) return null;
  if (s.text === null) throw new Error('the file is not text in its encoding; it was left alone.');
  return s.text;
}

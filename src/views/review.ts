/**
 * Review of agents' changes in the editor: owns the pure {@link ReviewModel} and
 * {@link DiskBaselines}, feeds them from the sessions (turns, tool calls, our own writes), the file
 * watcher and document changes, and performs Keep / Undo / Restore Checkpoint. Every undo is
 * planned on the text as it is at that moment and applied with a version check; text someone
 * changed after the agent is never overwritten — that undo is refused with a reason instead.
 */
import { isPersonsPrompt, turnOf } from '../acp/session/turns';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createTreeView, registerCommand } from '../activation/vscodeRegistry';
import { registerGuardedCommand } from './guardedCommands';
import type { SessionPatch, SessionState } from '../acp/session/types';
import { fileEncoding } from '../config/vscodeSettings';
import type { AuditEntry } from '../policy/audit';
import { asOwnEdit, isOwnEdit, isSavingByUs, replaceChecked, writeBytesInSync } from '../edits/vscodeApply';
import { DiskBaselines } from '../edits/baselines';
import { readForBaseline } from '../edits/diskRead';
import { decodeFile, detectEol, encodeFile } from '../edits/encoding';
import { ReviewModel, uncertainMessage, type Base, type UndoPlan } from '../edits/review';
import { shownDiff } from '../edits/shownDiff';
import { ReviewSessions } from '../edits/reviewSessions';
import { changedSinceText, leftAloneText, STILL_WORKING } from '../edits/checkpointPreview';
import { beforeUri, serveBefore } from './beforeDocs';
import { checkUndoWrite, recordUndoResult, type DeletedByUndo, type UndoGuardDeps, type UndoWrite } from '../edits/undoGuard';
import { parseReviewNode, pendingBadge, ReviewTree, type ReviewNode } from './reviewTree';
import { confirmProtectedWrite, currentDiskText, decodeText, existingDirs, fileText, freshDocument, openDocument, readDisk, SAVE_WINDOW_MS } from './reviewFiles';
import { removeEmptyFolders } from '../fs/emptyFolders';
import { text } from '../common/untrustedText';

/** What the Changes view needs from the rest of the extension. */
export interface ReviewCenterDeps {
  /** The display name and the id of a session's agent. */
  agentName(sessionKey: string): string;
  agentId(sessionKey: string): string;
  /** The workspace folders: nothing outside them is snapshotted or written. */
  roots(): readonly string[];
  /** `agentSwitchboard.policy.protectedTargets`. */
  protectedTargets(): 'ask' | 'deny' | undefined;
  /** The policy's audit log; throws when it cannot be written. */
  audit(entry: AuditEntry): void;
  log(message: string): void;
  /** Asks the person to confirm one write to a protected path (default: a modal dialog). */
  confirm?: UndoGuardDeps['confirm'];
}

/** The Changes view and its actions. */
export class ReviewCenter implements vscode.Disposable {
  readonly model = new ReviewModel();
  /** What each session whose changes are listed is called, kept after it closes. */
  readonly sessions = new ReviewSessions();
  readonly baselines: DiskBaselines;
  private readonly tree: ReviewTree;
  /** The Changes view (the walkthrough's "See the change" follows whether it is on screen). */
  readonly view: vscode.TreeView<ReviewNode>;
  private readonly disposables: vscode.Disposable[] = [];
  /** Documents between will-save and did-save, since when: changes then come from save participants (formatters). */
  private readonly saving = new Map<string, number>();
  /** Paths we wrote on disk ourselves, with the time, so the watcher does not attribute them. */
  private readonly ownWrites = new Map<string, number>();
  /** Status of each session at the last patch, to see a turn end. */
  private readonly lastStatus = new Map<string, string>();

  private readonly guard: UndoGuardDeps;
  /** The files the latest Undo deleted (created by the agent), for Restore. */
  private lastDeleted: DeletedByUndo[] = [];

  constructor(private readonly deps: ReviewCenterDeps) {
    this.baselines = new DiskBaselines({
      review: this.model,
      read: (p, maxBytes) => readForBaseline(p, maxBytes, decodeText),
      roots: () => deps.roots(),
      log: (m) => deps.log(m),
      saving: (p) => Date.now() - (this.saving.get(vscode.Uri.file(p).toString()) ?? -Infinity) < SAVE_WINDOW_MS,
      notice: (message, paths) => {
        // The names come from the agent: they go to the log, the notification says only how many.
        deps.log(`${message} Not snapshotted: ${paths.slice(0, 200).join(', ')}${paths.length > 200 ? `, … ${paths.length - 200} more` : ''}`);
        void vscode.window.showWarningMessage(text`${message} The Output panel (Agent Switchboard) lists them.`);
      },
    });
    this.guard = {
      roots: () => [...deps.roots(), ...existingDirs(this.sessions.worktreeDirs())],
      protectedTargets: () => deps.protectedTargets(),
      audit: (e) => deps.audit(e),
      confirm: deps.confirm ?? confirmProtectedWrite,
    };
    this.tree = new ReviewTree(this.model, (key) => this.sessions.get(key) ?? { agentName: deps.agentName(key), title: 'a session' }, () => [...deps.roots(), ...this.sessions.worktreeDirs()]);
    this.view = createTreeView('agentSwitchboard.changes', this.tree);
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const onDisk = (uri: vscode.Uri) => void this.diskChanged(uri.fsPath);
    this.disposables.push(
      this.view,
      this.tree,
      watcher,
      watcher.onDidChange(onDisk),
      watcher.onDidCreate(onDisk),
      watcher.onDidDelete(onDisk),
      // The diff's left side: the file before the turn, as the tree counts it.
      serveBefore('change', (ref) => {
        const c = this.model.get(ref.id);
        return c && shownDiff(this.model, c).before;
      }),
      vscode.workspace.onWillSaveTextDocument((e) => this.saving.set(e.document.uri.toString(), Date.now())),
      vscode.workspace.onDidSaveTextDocument((d) => {
        this.saving.delete(d.uri.toString());
        // The person's save during an agent's edit call is not the agent's change.
        if (d.uri.scheme === 'file' && !isOwnEdit(d.uri)) this.baselines.savedByOthers(d.uri.fsPath, d.getText());
      }),
      vscode.workspace.onDidChangeTextDocument((e) => void this.documentChanged(e)),
      this.model.onDidChange(() => this.updateBadge()),
      registerGuardedCommand('agentSwitchboard.review.keep', (n: unknown) => this.keep(parseReviewNode(n)), { nodes: true }),
      registerGuardedCommand('agentSwitchboard.review.undo', (n: unknown) => this.undo(parseReviewNode(n)), { nodes: true }),
      registerCommand('agentSwitchboard.review.openDiff', (n: unknown) => this.openDiff(parseReviewNode(n))),
      registerGuardedCommand('agentSwitchboard.review.restoreDeleted', () => this.restoreDeleted()),
      registerGuardedCommand('agentSwitchboard.review.restoreCheckpoint', (n: unknown) => this.restoreCheckpoint(parseReviewNode(n)), { nodes: true }),
    );
  }

  // ---- feeding the model ----

  /** The id of the last prompt entry each session's turn was started from. */
  private readonly promptSeen = new Map<string, string>();

  /** Follows a session: its turns (the person's prompts), its writing tool calls and the end of each turn. */
  onSessionPatches(state: SessionState, patches: SessionPatch[]): void {
    const turn = turnOf(state);
    if (this.sessions.note(state) && this.model.turns(state.key).length) this.tree.refresh();
    for (const p of patches) {
      // A turn starts with the person's own prompt (`echo` is set only by `promptSent`), once: the
      // agent's `user_message_chunk`s, and the echo it sends of the prompt, re-patch or add user
      // entries, and must not move the turn's start (it would make an earlier change look old).
      if (p.op === 'entry' && isPersonsPrompt(p.entry) && this.promptSeen.get(state.key) !== p.entry.id) {
        this.promptSeen.set(state.key, p.entry.id);
        this.model.turnStarted(state.key, turn, p.entry.text, p.entry.id);
        // From here on the agent may change files: a change since is no certain base.
        this.baselines.turnStarted(state.key);
      }
      if (p.op === 'toolCall') this.baselines.toolCall(state.key, turn, state.cwd, p.toolCall);
    }
    const before = this.lastStatus.get(state.key);
    this.lastStatus.set(state.key, state.status);
    if ((before === 'prompting' || before === 'cancelling') && state.status !== 'prompting' && state.status !== 'cancelling') this.baselines.turnEnded(state.key);
  }

  /** Records a write we performed for the agent (`fs/write_text_file`). */
  clientWrote(state: SessionState, absPath: string, base: Base, after: string): void {
    const turn = turnOf(state);
    this.sessions.note(state);
    // The tool call it belongs to: the latest one of this turn that names the file.
    const lastUser = state.entries.map((e) => e.kind).lastIndexOf('user');
    const ids = new Set(state.entries.slice(lastUser + 1).flatMap((e) => (e.kind === 'tool_call' ? [e.toolCallId] : [])));
    const call = Object.values(state.toolCalls)
      .filter((tc) => ids.has(tc.toolCallId))
      .filter((tc) => tc.locations.some((l) => path.resolve(state.cwd, l.path) === absPath) || tc.content.some((c) => c.type === 'diff' && path.resolve(state.cwd, c.path) === absPath))
      .at(-1);
    this.model.record(state.key, turn, absPath, 'client', base, after, call?.toolCallId);
  }

  /** Resolves when the snapshots and comparisons asked for so far are recorded (the API waits for it). */
  settled(): Promise<void> {
    return this.baselines.settled();
  }

  private async diskChanged(p: string): Promise<void> {
    const own = this.ownWrites.get(p);
    if (own !== undefined && Date.now() - own < 3000) return;
    if (this.baselines.fileChanged(p)) return;
    if (!this.model.latestFor(p)) return;
    // Watcher events arrive late: a file that holds what the agent (or our undo) left is no news.
    let now: string | null | undefined;
    try {
      now = await currentDiskText(p);
    } catch {
      now = undefined;
    }
    const latest = this.model.latestFor(p);
    if (!latest) return;
    // An open document with unsaved changes is attributed by its own change events; one whose text
    // is what is now on disk was just saved from the editor (the person's save, already attributed).
    const doc = openDocument(p);
    if (doc && (doc.isDirty || doc.getText() === now)) return;
    if (now !== this.model.expectedText(latest)) this.model.noteLater(p, 'other');
  }

  private async documentChanged(e: vscode.TextDocumentChangeEvent): Promise<void> {
    if (e.document.uri.scheme !== 'file' || !e.contentChanges.length || isOwnEdit(e.document.uri)) return;
    const p = e.document.uri.fsPath;
    const latest = this.model.latestFor(p);
    if (!latest) return;
    if (this.saving.has(e.document.uri.toString()) || isSavingByUs(e.document.uri)) return this.model.noteLater(p, 'formatter');
    // Once the person is noted, further keystrokes change nothing: no disk read per keystroke.
    if (latest.later.at(-1)?.by === 'person') return;
    // A document that now equals the disk was reloaded from it (the watcher attributes that change);
    // isDirty cannot tell, as the editor updates it after this event.
    const text = e.document.getText();
    const disk = await readDisk(p).catch(() => undefined);
    if (disk === undefined || disk?.text !== text) this.model.noteLater(p, 'person');
  }

  private updateBadge(): void {
    this.view.badge = pendingBadge(this.model);
  }

  // ---- actions ----

  /** Keeps a hunk, a file or a whole turn. */
  keep(n: ReviewNode): void {
    for (const { id, hunk } of this.targets(n)) this.model.keep(id, hunk);
  }

  /**
   * Undoes a hunk, a file or a whole turn (newest change first: one made on an earlier change is
   * taken out before it). Hunks whose lines someone changed after the agent are left alone and reported.
   * @returns the reasons of the undos that were refused (empty when all were done).
   */
  async undo(n: ReviewNode): Promise<string[]> {
    const refused: string[] = [];
    const deleted: DeletedByUndo[] = [];
    for (const { id, hunk } of this.targets(n)) {
      try {
        const d = await this.undoOne(id, hunk);
        if (d) deleted.push(d);
      } catch (err) {
        refused.push(`${path.basename(this.model.get(id)?.path ?? id)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (refused.length) void vscode.window.showWarningMessage(text`Not undone — ${refused.join(' ')}`);
    if (deleted.length) this.saidDeleted(deleted);
    return refused;
  }

  /**
   * An Undo that deletes a file the agent created says so, with the way back: Restore writes the
   * file again with the bytes it had (so the person loses nothing), and the command
   * `agentSwitchboard.review.restoreDeleted` does the same for the latest such Undo.
   */
  private saidDeleted(deleted: DeletedByUndo[]): void {
    this.lastDeleted = deleted;
    const names = deleted.map((d) => path.basename(d.path)).join(', ');
    const restore = vscode.l10n.t('Restore');
    void Promise.resolve(vscode.window.showInformationMessage(text`Undo deleted ${names}, which the agent created.`, restore)).then((choice) => {
      if (choice === restore) void this.restoreDeleted(deleted);
    });
  }

  /**
   * Takes back an Undo that deleted files the agent created (by default the latest): each file is
   * written again with the bytes it had, through the same containment, protected-path and audit
   * checks as Undo, and its change is to review again. A path where a file exists again is left alone.
   * @returns the restored and the skipped paths.
   */
  async restoreDeleted(list: readonly DeletedByUndo[] = this.lastDeleted): Promise<{ restored: string[]; skipped: string[] }> {
    const result = { restored: [] as string[], skipped: [] as string[] };
    const reasons: string[] = [];
    for (const d of list) {
      const w: UndoWrite = { path: d.path, action: 'write', via: 'redo', sessionKey: d.sessionKey, agentId: this.deps.agentId(d.sessionKey), changeIds: [d.id] };
      let rel: string | undefined;
      try {
        if ((await readDisk(d.path).catch(() => undefined)) !== null) throw new Error('a file exists there again; it was left alone.');
        rel = await checkUndoWrite(w, this.guard);
        const uri = vscode.Uri.file(d.path);
        await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(d.path)));
        this.ownWrites.set(d.path, Date.now());
        await asOwnEdit(uri, () => vscode.workspace.fs.writeFile(uri, d.bytes));
        recordUndoResult(w, rel, 'ok', this.guard);
        if (this.model.get(d.id)) this.model.reinstate(d.id, d.decisions);
        result.restored.push(d.path);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (rel !== undefined) recordUndoResult(w, rel, message, this.guard);
        result.skipped.push(d.path);
        reasons.push(`${path.basename(d.path)}: ${message}`);
      }
    }
    this.lastDeleted = this.lastDeleted.filter((d) => !result.restored.includes(d.path));
    if (reasons.length) void vscode.window.showWarningMessage(text`Not restored — ${reasons.join(' ')}`);
    if (result.restored.length === 1) void vscode.window.showTextDocument(vscode.Uri.file(result.restored[0]), { preview: true }).then(undefined, () => undefined);
    return result;
  }

  private targets(n: ReviewNode): { id: string; hunk?: number }[] {
    if (n.type === 'hunk') return [{ id: n.changeId, hunk: n.hunk }];
    if (n.type === 'file') {
      // A moved file is one decision: its old path and its new one.
      const c = this.model.get(n.changeId);
      const move = c && this.model.moveOf(c);
      return move ? [{ id: move.from.id }, { id: move.to.id }] : [{ id: n.changeId }];
    }
    return this.model.turns(n.sessionKey).filter((t) => n.type === 'session' || t.turn === n.turn).flatMap((t) => t.files).sort((a, b) => b.at - a.at).map((f) => ({ id: f.id }));
  }

  /** @returns what it deleted, when the undo deleted a file the agent created (to be taken back). */
  private async undoOne(id: string, hunk?: number): Promise<DeletedByUndo | undefined> {
    const c = this.model.get(id);
    if (!c) throw new Error('this change was cleared.');
    // A base we are not sure of is never written, whatever the file holds now.
    if (c.base.uncertain !== undefined) throw new Error(uncertainMessage(c.base.uncertain));
    const doc = await freshDocument(c.path);
    // Plan on the text as it is now; for an open document, plan and edit with nothing awaited between.
    const current = await fileText(doc, c.path);
    const first = this.model.planUndo(id, current, hunk);
    if (first.action === 'none') return;
    if (first.action === 'conflict') throw new Error(first.message);
    const w: UndoWrite = { path: c.path, action: first.action === 'delete' ? 'delete' : 'write', via: 'undo', sessionKey: c.sessionKey, agentId: this.deps.agentId(c.sessionKey), changeIds: [id] };
    const rel = await checkUndoWrite(w, this.guard);
    // The checks (and a confirmation) took time: plan again on the text as it is now.
    const doc2 = doc && !doc.isClosed ? doc : openDocument(c.path);
    const now = await fileText(doc2, c.path);
    const plan = now === current ? first : this.model.planUndo(id, now, hunk);
    if (plan.action === 'none' || plan.action === 'conflict' || (plan.action === 'delete') !== (w.action === 'delete')) {
      recordUndoResult(w, rel, 'the file changed while undoing; nothing was changed', this.guard);
      throw new Error(plan.action === 'conflict' ? plan.message : 'the file changed while undoing; nothing was changed.');
    }
    // What a deleted file held, exactly, and the decisions before: Restore puts both back.
    let kept: DeletedByUndo | undefined;
    try {
      if (plan.action === 'delete') {
        const disk = await readDisk(c.path).catch(() => null);
        if (!disk || (disk.text !== null && disk.text !== now)) throw new Error('the file changed while undoing; nothing was changed.');
        kept = { id, path: c.path, sessionKey: c.sessionKey, bytes: disk.bytes, decisions: this.model.decisionsOf(id) };
      }
      await this.perform(c.path, plan, doc2, now, c.base.createdDir);
    } catch (err) {
      recordUndoResult(w, rel, err instanceof Error ? err.message : String(err), this.guard);
      throw err;
    }
    recordUndoResult(w, rel, 'ok', this.guard);
    this.model.undone(id, plan.hunks);
    return kept;
  }

  /**
   * Carries out an undo or restore plan on a file whose text was `current` when planned. Unsaved
   * text is only ever edited in its document (undoable, left unsaved); otherwise the disk is the
   * truth, checked again right before the bytes are written (no save participants run on them, so
   * a formatter cannot alter a restored base).
   */
  private async perform(p: string, plan: Exclude<UndoPlan, { action: 'none' | 'conflict' }>, doc: vscode.TextDocument | undefined, current: string | null, createdDir?: string): Promise<void> {
    const uri = vscode.Uri.file(p);
    if (plan.action === 'delete') {
      if (doc?.isDirty) throw new Error('the file has unsaved changes; it was left alone.');
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(uri, { ignoreIfNotExists: true });
      this.ownWrites.set(p, Date.now());
      if (!(await asOwnEdit(uri, () => vscode.workspace.applyEdit(edit)))) throw new Error('the editor refused to delete the file.');
      // The folders the agent's write made for the file go with it, when nothing else is in them.
      if (createdDir) await removeEmptyFolders(path.dirname(p), createdDir);
      return;
    }
    if (doc?.isDirty) {
      const refusal = await replaceChecked(doc, { text: current ?? '', version: doc.version }, plan.text);
      if (refusal) throw new Error(refusal.reason === 'edit_rejected' ? 'the editor rejected the edit.' : 'the file changed while undoing; nothing was changed.');
      return;
    }
    let disk: { bytes: Uint8Array; text: string | null } | null;
    try {
      disk = await readDisk(p);
    } catch {
      throw new Error('the file is no longer a readable regular file; it was left alone.');
    }
    if ((disk === null ? null : disk.text) !== current) throw new Error('the file changed while undoing; nothing was changed.');
    // The base bytes, else the text in the file's encoding and BOM with the line endings planned (to the byte).
    const format = disk?.bytes ? decodeFile(disk.bytes, fileEncoding(uri)).format : { encoding: 'utf8', bom: false, eol: detectEol(plan.text) };
    const bytes = plan.action === 'restoreBase' && plan.bytes ? plan.bytes : encodeFile(plan.text, format, 'keep');
    if (disk === null) await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(p)));
    this.ownWrites.set(p, Date.now());
    // Exactly these bytes, and an open document of the file loads them at once.
    if (!(await writeBytesInSync(uri, bytes))) throw new Error('the editor refused to write the file.');
  }

  /**
   * Restores the workspace files a turn (and the turns after it) changed to their state before that
   * turn. Files someone changed since the agent's last write are skipped and named.
   * @param opts `reasons` gets why each skipped file was left alone (a clause, by path); `quiet`
   *   leaves the telling to the caller (the thread says it where the person asked).
   * @returns the restored and the skipped paths.
   */
  async restoreCheckpoint(n: ReviewNode & { confirmed?: boolean }, opts: { reasons?: Map<string, string>; quiet?: boolean } = {}): Promise<{ restored: string[]; skipped: string[] }> {
    if (n.type !== 'turn') throw new Error('Restore Checkpoint applies to a turn.');
    const entries = this.model.checkpoint(n.sessionKey, n.turn);
    const result = { restored: [] as string[], skipped: [] as string[] };
    if (!entries.length) return result;
    // Every way to a restore (the Changes view, a message) ends here: none while the agent may still write.
    if (['prompting', 'cancelling'].includes(this.lastStatus.get(n.sessionKey) ?? '')) {
      for (const e of entries) opts.reasons?.set(e.path, STILL_WORKING);
      if (!opts.quiet) void vscode.window.showWarningMessage(text`Not restored — ${STILL_WORKING}`);
      return { restored: [], skipped: entries.map((e) => e.path) };
    }
    if (!n.confirmed) {
      const ok = await vscode.window.showWarningMessage(
        text`Restore ${entries.length} file${entries.length === 1 ? '' : 's'} to their state before turn ${n.turn}?`,
        { modal: true, detail: `Changes of turn ${n.turn} and later turns of this session are undone. Files changed since by you or another program are skipped.` },
        'Restore',
      );
      if (ok !== 'Restore') return result;
    }
    const done: string[] = [];
    // Skipped because what they held before is not known for certain: said as such, not as "changed".
    const unknown: string[] = [];
    for (const e of entries) {
      let doc: vscode.TextDocument | undefined;
      let current: string | null | undefined;
      try {
        doc = await freshDocument(e.path);
        current = await fileText(doc, e.path);
      } catch {
        current = undefined;
      }
      // A base we are not sure of is never written.
      if (e.base.uncertain !== undefined || !e.continuous || current === undefined || current !== e.expected) {
        result.skipped.push(e.path);
        if (e.base.uncertain !== undefined) unknown.push(e.path);
        opts.reasons?.set(e.path, e.base.uncertain !== undefined ? leftAloneText({ why: 'unknown' }) : !e.continuous ? leftAloneText({ why: e.undoneBetween ? 'undone_between' : 'interleaved' }) : current === undefined ? 'it could not be read' : changedSinceText(this.model, e.path));
        continue;
      }
      if (e.expected === e.base.text) {
        // Already as before the turn (undone, or created in it and already gone): nothing to write.
        done.push(...e.ids);
        continue;
      }
      const plan: Exclude<UndoPlan, { action: 'none' | 'conflict' }> = e.base.text === null ? { action: 'delete', hunks: [] } : { action: 'restoreBase', bytes: e.base.bytes, text: e.base.text, hunks: [] };
      const w: UndoWrite = { path: e.path, action: plan.action === 'delete' ? 'delete' : 'write', via: 'restore_checkpoint', sessionKey: n.sessionKey, agentId: this.deps.agentId(n.sessionKey), changeIds: e.ids };
      let rel: string | undefined;
      try {
        rel = await checkUndoWrite(w, this.guard);
        // The checks (and a confirmation) took time: the file must still be as planned.
        const d2 = doc && !doc.isClosed ? doc : openDocument(e.path);
        const now = await fileText(d2, e.path);
        if (now !== current) throw new Error('the file changed while restoring; nothing was changed.');
        await this.perform(e.path, plan, d2, current, e.base.createdDir);
        recordUndoResult(w, rel, 'ok', this.guard);
        result.restored.push(e.path);
        done.push(...e.ids);
      } catch (err) {
        if (rel !== undefined) recordUndoResult(w, rel, err instanceof Error ? err.message : String(err), this.guard);
        result.skipped.push(e.path);
        opts.reasons?.set(e.path, err instanceof Error ? err.message : String(err));
      }
    }
    this.model.restored(done);
    if (opts.quiet) return result;
    const names = (l: string[]) => l.map((p) => path.basename(p)).join(', ');
    const changed = result.skipped.filter((p) => !unknown.includes(p));
    void vscode.window.showInformationMessage(text`Restored ${result.restored.length} file${result.restored.length === 1 ? '' : 's'} to before turn ${n.turn}${result.restored.length ? ` (${names(result.restored)})` : ''}. ${unknown.length ? `Skipped, base unknown (what they held before the turn is not known for certain): ${names(unknown)}.` : ''} ${changed.length ? `Skipped, changed since: ${names(changed)}.` : ''}`);
    return result;
  }

  /**
   * Opens the native diff editor: the file before the turn (virtual, read-only; for a moved file,
   * at its old path) ↔ the file now.
   */
  async openDiff(n: ReviewNode): Promise<void> {
    if (n.type === 'turn' || n.type === 'session') return;
    const c = this.model.get(n.changeId);
    if (!c) return;
    const d = shownDiff(this.model, c);
    const exists = !!openDocument(d.afterPath) || (await currentDiskText(d.afterPath).catch(() => '')) !== null;
    const right = exists ? vscode.Uri.file(d.afterPath) : beforeUri(d.afterPath, { of: 'empty' });
    const line = n.type === 'hunk' ? Math.max(0, c.hunks[n.hunk].newStart - 1) : 0;
    const name = d.moved ? `${path.basename(d.beforePath)} → ${path.basename(d.afterPath)}` : path.basename(c.path);
    const title = `${name}: before turn ${c.turn}${d.what === 'base unknown' ? ' (base unknown: what was read)' : ''} ↔ now`;
    await vscode.commands.executeCommand('vscode.diff', beforeUri(d.beforePath, { of: 'change', id: c.id }), right, title, {
      selection: new vscode.Range(line, 0, line, 0),
      preview: true,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /** Selects and expands `n` in the Changes view (the end-of-turn row's Review). */
  reveal(n: ReviewNode): Thenable<void> {
    return this.view.reveal(n, { select: true, focus: false, expand: true });
  }

  /**
   * Shows what a tool call changed: selects its first file in the Changes view and opens its diff.
   * Tells the person when no change of that call was recorded (e.g. the write was refused).
   */
  async revealToolCall(sessionKey: string, toolCallId: string): Promise<void> {
    const files = this.model.turns(sessionKey).flatMap((t) => t.files).filter((f) => f.toolCallIds.includes(toolCallId));
    if (!files.length) {
      void vscode.window.showInformationMessage(text`No file change was recorded for this tool call (it was refused, changed nothing, or named no file).`);
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

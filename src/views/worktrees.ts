/**
 * Sessions in git worktrees, in the editor (issue 20): the git that VS Code's Git extension uses,
 * the worktrees kept in this extension's storage, and the person's ways to bring a worktree's work
 * back — Apply to Main Folder (one undoable, version-checked edit; a file they changed meanwhile is
 * merged around their edit or goes to the merge editor), Commit in Worktree, Discard (after saying
 * what will be lost). Nothing here deletes a worktree but Discard.
 */
import * as vscode from 'vscode';
import fs from 'node:fs';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import { gitRunner } from '../worktrees/gitCli';
import { Worktrees, storedWorktrees, type WorktreeCheck, type WorktreeFrom, type WorktreeRecord } from '../worktrees/worktrees';
import { applySummary, planApply, type ApplyInput, type ApplyStep } from '../worktrees/applyPlan';
import { changedMiddle, proposeChange } from '../edits/model';
import { checkContained } from '../fs/containment';
import { readRegularFileOrNull } from '../fs/safeRead';
import { protectedClass } from '../policy/protectedPaths';
import { text } from '../common/untrustedText';
import { approvalText } from '../common/approvalText';
import type { ConflictCenter } from './conflicts';
import type { WorktreeEnd } from './reviewWorktrees';

/** The part of VS Code's Git extension API used here (`vscode.git`, `getAPI(1)`). */
interface GitExtensionApi {
  git: { path: string };
}

/** What applying a worktree did. */
export interface ApplyReport {
  summary: string;
  steps: ApplyStep[];
  /** Files opened in the merge editor (their result goes into the document when the person saves it). */
  merging: string[];
}

/** What the worktree feature needs from the app. */
export interface WorktreeHost {
  /** The extension's storage folder (worktrees and their records live there, outside the workspace). */
  storage: string;
  conflicts: ConflictCenter;
  log(message: string): void;
  /** True while the session `key` is in a turn (its agent may still be writing the worktree). */
  busy?(key: string): boolean;
}

/** Owns the worktrees of this window. */
export class WorktreeCenter implements vscode.Disposable {
  private core: Promise<Worktrees> | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a worktree is made, applied, committed or discarded. */
  readonly onDidChange = this.changed.event;
  private readonly ended = new vscode.EventEmitter<WorktreeEnd>();
  /** Fires when a worktree's work was applied to the main folder, or the worktree was discarded. */
  readonly onDidEnd = this.ended.event;
  /** The worktrees on disk as last read (for views that cannot wait). */
  private known: WorktreeRecord[] = [];

  constructor(private readonly host: WorktreeHost) {
    this.onDidChange(() => void this.worktrees().then((w) => (this.known = w.list())));
  }

  /** The worktrees on disk as last read, newest first; read again on every change. */
  listed(): readonly WorktreeRecord[] {
    return this.known;
  }

  /** Reads the worktrees of earlier windows from their records (no git asked), for the board. */
  load(): void {
    this.known = storedWorktrees(this.host.storage);
    if (this.known.length) this.changed.fire();
  }

  /** The worktrees (made on first use: the Git extension is asked for its git only then). */
  worktrees(): Promise<Worktrees> {
    this.core ??= (async () => {
      let gitPath = 'git';
      try {
        const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitExtensionApi }>('vscode.git');
        const api = ext ? (ext.isActive ? ext.exports : await ext.activate()).getAPI(1) : undefined;
        if (api?.git.path) gitPath = api.git.path;
      } catch (err) {
        this.host.log(`The Git extension's git was not available (${err instanceof Error ? err.message : String(err)}); using "git" from PATH.`);
      }
      return new Worktrees(gitRunner(gitPath), this.host.storage);
    })();
    return this.core;
  }

  /** Whether `cwd` can get a worktree, or why not. */
  async check(cwd: string): Promise<WorktreeCheck> {
    return (await this.worktrees()).check(cwd);
  }

  /** Makes a worktree for a session of `agentId` started in `cwd`. @throws Error with the reason. */
  async create(cwd: string, agentId: string, from: WorktreeFrom): Promise<WorktreeRecord> {
    const r = await (await this.worktrees()).create(cwd, agentId, from);
    this.changed.fire();
    return r;
  }

  /** Notes the session working in worktree `id`. */
  async attach(id: string, sessionKey: string | undefined): Promise<void> {
    (await this.worktrees()).attach(id, sessionKey);
    this.changed.fire();
  }

  /**
   * Puts what worktree `id` changed against its base into the main folder (see
   * `worktrees/applyPlan.ts`): every file that needs no hand merge in ONE workspace edit, checked
   * against the documents' versions right before it is applied (Undo reverts it; documents that had
   * no unsaved changes are saved, the others stay unsaved with the person's text in them); each
   * file both sides changed on the same lines opens in the merge editor.
   * @throws Error when a document changed while the change was being prepared (nothing was written).
   */
  async apply(id: string, opts: { protectedFiles?: 'apply' | 'skip' } = {}): Promise<ApplyReport> {
    const core = await this.worktrees();
    const r = core.get(id);
    if (!r || r.state === 'discarded') throw new Error('That worktree is gone.');
    // Half a turn is not what anyone reviewed: the agent may still be writing.
    if (r.sessionKey && this.host.busy?.(r.sessionKey)) throw new Error(`Nothing was applied: the agent is still working in ${r.branch}. Stop it or wait for its turn to end, then apply.`);
    const changes = await core.changes(id);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const asText = (b: Buffer | null): string | null | undefined => {
      if (b === null) return null;
      if (b.includes(0)) return undefined;
      try {
        return decoder.decode(b);
      } catch {
        return undefined;
      }
    };
    // The main folder as it is now: the open document's text (unsaved edits included), else the disk.
    const docs = new Map<string, vscode.TextDocument>();
    const inputs: ApplyInput[] = [];
    for (const c of changes) {
      const abs = path.join(r.repo, c.rel);
      const uri = vscode.Uri.file(abs);
      // The worktree named this path: it must stay in the main folder (no linked folder out of it),
      // and only an ordinary file is read there.
      const where = (await checkContained(abs, [r.repo]).then(() => undefined, () => 'it leads outside the main folder (through a symlink)')) ?? (await linkedOnTheWay(r.repo, c.rel));
      if (c.special || where) {
        inputs.push({ rel: c.rel, base: null, worktree: null, main: null, special: c.special ?? where });
        continue;
      }
      let main: Buffer | null = null;
      const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === abs);
      if (open) main = Buffer.from(open.getText(), 'utf8');
      else {
        try {
          main = (await readRegularFileOrNull(abs))?.bytes ?? null;
        } catch (err) {
          inputs.push({ rel: c.rel, base: null, worktree: null, main: null, special: `the main folder's file ${err instanceof Error ? err.message : String(err)}` });
          continue;
        }
      }
      const base = asText(c.before);
      const worktree = asText(c.after);
      const mine = asText(main);
      const binary = base === undefined || worktree === undefined || mine === undefined;
      if (binary) inputs.push({ rel: c.rel, base: bytesKey(c.before), worktree: bytesKey(c.after), main: bytesKey(main), binary: true });
      else inputs.push({ rel: c.rel, base: base ?? null, worktree: worktree ?? null, main: mine ?? null });
      if (!binary && main !== null && c.after !== null) docs.set(c.rel, open ?? (await vscode.workspace.openTextDocument(uri)));
    }
    let steps = planApply(inputs);
    // Files tools run or read as configuration are written only with the person's yes, as an
    // agent's write of them needs an approval of that exact write.
    const touching = steps.filter((s) => (s.kind === 'write' || s.kind === 'delete' || s.kind === 'copy') && protectedClass(s.rel));
    if (touching.length) {
      // Every file the answer covers is in the question, whole (the detail is never cut); when they
      // cannot all be shown as they are, "Apply Them Too" is not offered.
      const n = touching.length;
      const files = `${n} ${n === 1 ? 'file' : 'files'} that tools run or read as configuration`;
      const list = approvalText(touching.map((s) => s.rel), { what: 'Their names' });
      const answer =
        opts.protectedFiles ??
        (list.ok
          ? await vscode.window.showWarningMessage(text`Applying ${r.branch} changes ${files}, listed below. Apply them too?`, { modal: true, detail: list.text }, 'Apply Them Too', 'Apply the Rest')
          : await vscode.window.showWarningMessage(text`Applying ${r.branch} changes ${files}. ${list.reason} They are not applied from here: apply the rest, then review them in the worktree.`, { modal: true }, 'Apply the Rest'));
      const choice = answer === 'apply' || answer === 'Apply Them Too' ? 'apply' : answer === 'skip' || answer === 'Apply the Rest' ? 'skip' : undefined;
      if (!choice) throw new Error('Nothing was applied: the changes to protected files were not confirmed.');
      if (choice === 'skip') steps = steps.map((s) => (touching.includes(s) ? { rel: s.rel, kind: 'conflict', why: 'a protected file you chose not to apply' } : s));
    }
    // A file no document holds may have changed on disk while the person answered: what is deleted,
    // copied or created must still be what was read.
    for (const s of steps) {
      if (docs.has(s.rel) || s.kind === 'conflict') continue;
      const input = inputs.find((i) => i.rel === s.rel);
      if (!input) continue;
      const now = await readRegularFileOrNull(path.join(r.repo, s.rel)).then((f) => f?.bytes ?? null, () => undefined);
      const key = now === undefined ? undefined : input.binary ? bytesKey(now) : now === null ? null : now.toString('utf8');
      if (key !== input.main) throw new Error(`${s.rel} changed in the main folder while the change was being prepared; nothing was applied. Apply again.`);
    }
    const versions = new Map([...docs].map(([rel, d]) => [rel, { version: d.version, text: d.getText(), dirty: d.isDirty }]));
    // From here to applyEdit nothing is awaited: the versions checked are the versions edited.
    const edit = new vscode.WorkspaceEdit();
    const created: vscode.Uri[] = [];
    for (const s of steps) {
      const uri = vscode.Uri.file(path.join(r.repo, s.rel));
      if (s.kind === 'write') {
        const d = docs.get(s.rel);
        if (d) {
          const seen = versions.get(s.rel)!;
          if (d.version !== seen.version || d.getText() !== inputs.find((i) => i.rel === s.rel)!.main) throw new Error(`${s.rel} changed while the change was being prepared; nothing was applied. Apply again.`);
          // Only the part that changes: the cursor and the person's unsaved text elsewhere stay put.
          const { start, endOld, endNew } = changedMiddle(seen.text, s.text);
          edit.replace(uri, new vscode.Range(d.positionAt(start), d.positionAt(endOld)), s.text.slice(start, endNew));
        } else {
          // A new file: made and filled in the same edit (so one Undo takes both back), saved below.
          edit.createFile(uri, { overwrite: false, ignoreIfExists: false });
          edit.insert(uri, new vscode.Position(0, 0), s.text);
          created.push(uri);
        }
      } else if (s.kind === 'delete') edit.deleteFile(uri, { ignoreIfNotExists: true });
      else if (s.kind === 'copy') {
        const bytes = changes.find((c) => c.rel === s.rel)!.after!;
        edit.createFile(uri, { overwrite: true, contents: bytes });
      }
    }
    if (edit.size > 0 && !(await vscode.workspace.applyEdit(edit, { isRefactoring: false }))) throw new Error('The editor refused the change; nothing was applied.');
    // What was saved before stays saved; what had the person's unsaved text stays unsaved.
    for (const [rel, d] of docs) if (!versions.get(rel)!.dirty && steps.some((s) => s.rel === rel && s.kind === 'write') && d.isDirty) await d.save();
    for (const uri of created) {
      const d = vscode.workspace.textDocuments.find((x) => x.uri.toString() === uri.toString());
      if (d?.isDirty) await d.save();
    }
    const merging: string[] = [];
    for (const s of steps) {
      if (s.kind !== 'conflict') continue;
      const input = inputs.find((i) => i.rel === s.rel)!;
      if (input.binary || input.base === null || input.worktree === null || input.main === null) continue;
      const uri = vscode.Uri.file(path.join(r.repo, s.rel));
      const conflict = this.host.conflicts.add(proposeChange(uri.toString(), input.base, input.worktree, null));
      await this.host.conflicts.openMerge(conflict, { title: 'Worktree', description: `${r.branch}, as the agent left it` });
      merging.push(s.rel);
    }
    core.mark(id, 'applied');
    this.changed.fire();
    this.ended.fire({ dir: r.dir, how: 'applied' });
    const summary = applySummary(steps);
    const left = steps.filter((s) => s.kind === 'conflict' && !merging.includes(s.rel)).map((s) => s.rel);
    void vscode.window.showInformationMessage(
      text`Applied ${r.branch} to the main folder: ${summary}.${merging.length ? ` Merge editor open for ${merging.join(', ')}.` : ''}${left.length ? ` Not applied (merge them by hand from the worktree): ${left.join(', ')}.` : ''} Undo reverts it.`,
    );
    return { summary, steps, merging };
  }

  /** Commits the worktree's changes on its branch. @returns the commit. */
  async commit(id: string, message: string): Promise<string> {
    const sha = await (await this.worktrees()).commit(id, message);
    this.changed.fire();
    return sha;
  }

  /**
   * Asks the person to confirm Discard, saying what will be lost: the files worktree `id` changed
   * and the commits on its branch that no other branch holds. @returns true on "Discard".
   */
  async confirmDiscard(id: string): Promise<boolean> {
    const core = await this.worktrees();
    const r = core.get(id);
    if (!r || r.state === 'discarded') throw new Error('That worktree is already gone.');
    const lost = await core.losses(id);
    const what = [lost.files.length ? `${lost.files.length} changed file${lost.files.length === 1 ? '' : 's'} (${lost.files.slice(0, 5).join(', ')}${lost.files.length > 5 ? ', …' : ''})` : '', lost.commits ? `${lost.commits} commit${lost.commits === 1 ? '' : 's'} on ${r.branch} that no other branch holds` : ''].filter(Boolean).join(' and ');
    const yes = await vscode.window.showWarningMessage(text`Discard the worktree ${r.branch}? Its folder and its branch are deleted${what ? `: ${what} will be lost` : ''}.`, { modal: true }, 'Discard');
    return yes === 'Discard';
  }

  /** Removes worktree `id` and its branch (the person confirmed: see {@link confirmDiscard}). */
  async discard(id: string): Promise<void> {
    const core = await this.worktrees();
    const dir = core.get(id)?.dir;
    await core.discard(id);
    this.changed.fire();
    if (dir) this.ended.fire({ dir, how: 'discarded' });
  }

  dispose(): void {
    this.changed.dispose();
    this.ended.dispose();
  }
}

/** A stand-in text for binary bytes, so the plan compares them (equal bytes, equal keys). */
function bytesKey(b: Buffer | null): string | null {
  return b === null ? null : `\0bytes:${b.toString('base64')}`;
}

/**
 * Why `rel` may not be written in the main folder `repo` although its real path stays inside: a
 * folder on its way (or the file itself) is a symlink there, so a write would land under another
 * name, e.g. `editor/tasks.json` through `editor -> .vscode`, which no protected-path check of
 * `editor/…` would see. Undefined when every part is an ordinary folder or absent.
 */
async function linkedOnTheWay(repo: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const at = path.join(repo, ...parts.slice(0, i));
    const st = await fs.promises.lstat(at).catch(() => undefined);
    if (!st) return undefined;
    if (st.isSymbolicLink()) return `${parts.slice(0, i).join('/')} is a symlink in the main folder`;
  }
  return undefined;
}

/**
 * Conflicts: an agent's write refused because the person changed the file after the agent read it.
 * The person's text is never touched by the refusal; here they can compare the agent's proposal
 * with their text (VS Code's diff editor, the proposal as a virtual document) and take the agent's
 * hunks that apply cleanly onto their current text, as an undoable edit (overlapping hunks stay
 * out), open the full three-way merge (VS Code's merge editor: the agent's base, their text, the
 * agent's proposal), or reject the proposal.
 *
 * The merge editor writes its result into a scratch copy in the extension's storage, never into
 * the person's document; when they complete the merge, the result is carried into the document as
 * one undoable edit, and only if the document is still as it was when the merge began.
 */
import * as vscode from 'vscode';
import { replaceChecked } from '../edits/vscodeApply';
import { mergeOnto, type ProposedChange } from '../edits/model';
import { text } from '../common/untrustedText';

/** URI scheme of the read-only documents that show an agent's proposal or the base it read. */
export const PROPOSAL_SCHEME = 'agent-switchboard-proposal';

interface Conflict {
  id: string;
  change: ProposedChange;
  at: number;
  /** The person's text when the merge editor was opened, shown as "Yours". */
  yours?: string;
}

/** What taking the clean hunks did. */
export interface TakeResult {
  applied: number;
  conflicting: number;
}

/** Holds refused writes and offers the person's choices for them. */
export class ConflictCenter implements vscode.Disposable {
  private readonly conflicts = new Map<string, Conflict>();
  private seq = 0;
  private readonly disposables: vscode.Disposable[] = [];

  /** @param mergeDir folder for the merge editor's scratch results (the extension's storage). */
  constructor(private readonly mergeDir: vscode.Uri) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri) => {
          const c = this.conflicts.get(new URLSearchParams(uri.query).get('id') ?? '');
          if (!c) return 'This proposal is no longer available.';
          const side = new URLSearchParams(uri.query).get('side');
          return side === 'base' ? c.change.baseText : side === 'yours' ? (c.yours ?? '') : c.change.newText;
        },
      }),
    );
  }

  /** Records a refused write and tells the person, with the ways forward. Returns its id. */
  report(change: ProposedChange, _current: string): string {
    const id = `c${++this.seq}`;
    this.conflicts.set(id, { id, change, at: Date.now() });
    const name = vscode.Uri.parse(change.uri).path.split('/').pop();
    void vscode.window
      .showWarningMessage(text`The agent's change to ${name} was refused: you changed the file after the agent read it. Your text is untouched.`, 'Compare', 'Take Clean Hunks', 'Open Merge', 'Reject')
      .then((choice) => {
        if (choice === 'Compare') void this.compare(id);
        if (choice === 'Take Clean Hunks') void this.takeCleanHunks(id);
        if (choice === 'Open Merge') void this.openMerge(id);
        if (choice === 'Reject') this.reject(id);
      });
    return id;
  }

  /**
   * Records a change to merge by hand without a notification (a worktree being applied opens the
   * merge editor on it at once). @returns its id, for {@link openMerge}.
   */
  add(change: ProposedChange): string {
    const id = `c${++this.seq}`;
    this.conflicts.set(id, { id, change, at: Date.now() });
    return id;
  }

  /** The newest conflict's id, if any. */
  latest(): string | undefined {
    return [...this.conflicts.keys()].at(-1);
  }

  /** Opens the diff editor: the current file on the left, the agent's proposal on the right. */
  async compare(id: string): Promise<void> {
    const c = this.get(id);
    const file = vscode.Uri.parse(c.change.uri);
    const proposal = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file.path, query: `id=${id}&side=proposal` });
    await vscode.commands.executeCommand('vscode.diff', file, proposal, `${file.path.split('/').pop()}: your text ↔ the agent's refused proposal`);
    // The first notification is gone once Compare was chosen: offer the merge again beside the diff.
    void vscode.window.showInformationMessage(text`Take the agent's hunks that do not overlap your changes, merge by hand, or reject the proposal?`, 'Take Clean Hunks', 'Open Merge', 'Reject').then((choice) => {
      if (choice === 'Take Clean Hunks') void this.takeCleanHunks(id);
      if (choice === 'Open Merge') void this.openMerge(id);
      if (choice === 'Reject') this.reject(id);
    });
  }

  /**
   * Carries the agent's hunks that apply cleanly onto the current text of the document, as one
   * undoable edit; hunks that overlap the person's changes are left out and counted.
   * @throws Error when the conflict is unknown.
   */
  async takeCleanHunks(id: string): Promise<TakeResult> {
    const c = this.get(id);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(c.change.uri));
    // Read and edit with nothing awaited in between, so the merge is computed on the text it replaces.
    const current = doc.getText();
    const merged = mergeOnto(c.change, current);
    if (merged.applied.length) {
      const refused = await replaceChecked(doc, { text: current, version: doc.version }, merged.text);
      if (refused) throw new Error('The editor rejected the merged edit; nothing changed.');
    }
    const result = { applied: merged.applied.length, conflicting: merged.conflicts.length };
    if (result.applied) {
      void vscode.window.showInformationMessage(
        text`Took ${result.applied} of the agent's ${result.applied + result.conflicting} hunks${result.conflicting ? `; ${result.conflicting} overlap your changes and were left out (use Compare)` : ''}. Undo reverts it.`,
      );
    } else {
      void vscode.window.showInformationMessage(text`None of the agent's ${result.conflicting} hunks applies: each overlaps your changes. Nothing was changed; use Compare to merge by hand.`);
    }
    return result;
  }

  /**
   * Opens VS Code's merge editor on the conflict: base = the text the agent read, "Yours" = the
   * document now, "Agent" = its refused proposal (`agentSide` names it otherwise, e.g. a worktree's
   * version). The result is edited in a scratch copy; completing
   * the merge (which saves that copy) carries it into the document as one undoable edit.
   * @returns the scratch result's URI.
   * @throws Error when the conflict is unknown or the merge editor is unavailable.
   */
  async openMerge(id: string, agentSide: { title: string; description: string } = { title: 'Agent', description: "the agent's refused proposal" }): Promise<vscode.Uri> {
    const c = this.get(id);
    const file = vscode.Uri.parse(c.change.uri);
    const doc = await vscode.workspace.openTextDocument(file);
    c.yours = doc.getText();
    const startVersion = doc.version;
    const name = file.path.split('/').pop() ?? 'file';
    const result = vscode.Uri.joinPath(this.mergeDir, id, name);
    await vscode.workspace.fs.writeFile(result, new TextEncoder().encode(c.yours));
    const side = (s: string) => vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file.path, query: `id=${id}&side=${s}` });
    const watch = vscode.workspace.onDidSaveTextDocument(async (saved) => {
      if (saved.uri.toString() !== result.toString()) return;
      const merged = saved.getText();
      // The merge editor saves the scratch copy once when it opens; only a changed result counts.
      if (merged === c.yours) return;
      watch.dispose();
      const refused = doc.isClosed ? { reason: 'closed' } : await replaceChecked(doc, { text: c.yours!, version: startVersion }, merged);
      if (refused) {
        void vscode.window.showWarningMessage(text`${name} changed while you merged; the merge result was not applied. It is kept in ${result.fsPath}.`);
        return;
      }
      this.conflicts.delete(id);
      void vscode.window.showInformationMessage(text`Merged text applied to ${name} (unsaved; Undo reverts it).`);
    });
    this.disposables.push(watch);
    await vscode.commands.executeCommand('_open.mergeEditor', {
      base: side('base'),
      input1: { uri: side('yours'), title: 'Yours', description: 'your text now' },
      input2: { uri: side('proposal'), ...agentSide },
      output: result,
    });
    void vscode.window.showInformationMessage(text`Resolve the conflicts in the merge editor, then save the result (Ctrl+S / Cmd+S) to put it into ${name}, unsaved. Closing without saving changes nothing.`);
    return result;
  }

  /** Drops the agent's refused proposal; the person's text stays as it is. */
  reject(id: string): void {
    this.get(id);
    this.conflicts.delete(id);
    void vscode.window.showInformationMessage(text`The agent's proposal was discarded; your text is unchanged.`);
  }

  private get(id: string): Conflict {
    const c = this.conflicts.get(id);
    if (!c) throw new Error(`No conflict "${id}".`);
    return c;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.conflicts.clear();
  }
}

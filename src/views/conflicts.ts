/**
 * Conflicts: an agent's write refused because the person changed the file after the agent read it.
 * The person's text is never touched by the refusal; here they can compare the agent's proposal
 * with their text (VS Code's diff editor, the proposal as a virtual document) and take the agent's
 * hunks that apply cleanly onto their current text, as an undoable edit. Overlapping hunks stay out.
 */
import * as vscode from 'vscode';
import { mergeOnto, type ProposedChange } from '../edits/model';

/** URI scheme of the read-only documents that show an agent's proposal or the base it read. */
export const PROPOSAL_SCHEME = 'agent-switchboard-proposal';

interface Conflict {
  id: string;
  change: ProposedChange;
  at: number;
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

  constructor() {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, {
        provideTextDocumentContent: (uri) => {
          const c = this.conflicts.get(new URLSearchParams(uri.query).get('id') ?? '');
          if (!c) return 'This proposal is no longer available.';
          return new URLSearchParams(uri.query).get('side') === 'base' ? c.change.baseText : c.change.newText;
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
      .showWarningMessage(`The agent's change to ${name} was refused: you changed the file after the agent read it. Your text is untouched.`, 'Compare', 'Take Clean Hunks')
      .then((choice) => {
        if (choice === 'Compare') void this.compare(id);
        if (choice === 'Take Clean Hunks') void this.takeCleanHunks(id);
      });
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
    void vscode.window.showInformationMessage("Take the agent's hunks that do not overlap your changes?", 'Take Clean Hunks').then((choice) => {
      if (choice) void this.takeCleanHunks(id);
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
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(current.length)), merged.text);
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error('The editor rejected the merged edit; nothing changed.');
    }
    const result = { applied: merged.applied.length, conflicting: merged.conflicts.length };
    void vscode.window.showInformationMessage(
      result.applied
        ? `Took ${result.applied} of the agent's ${result.applied + result.conflicting} hunks${result.conflicting ? `; ${result.conflicting} overlap your changes and were left out (use Compare)` : ''}. Undo reverts it.`
        : `None of the agent's ${result.conflicting} hunks applies: each overlaps your changes. Nothing was changed; use Compare to merge by hand.`,
    );
    return result;
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

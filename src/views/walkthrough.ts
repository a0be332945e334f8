/**
 * The editor side of the walkthrough's progress (`walkthroughSteps.ts` says when each step is
 * done): follows the sessions, the Changes view, the open tabs and the agents, and sets each step's
 * context key once it is done. VS Code keeps a completed step checked across windows; the keys only
 * need to become true once in some window.
 */
import * as vscode from 'vscode';
import type { SessionChange } from '../acp/sessionController';
import { hasRealAgent, isChangeDiff, isTraceTab, stepsOfPatches, WALKTHROUGH_KEYS, type WalkthroughStep } from './walkthroughSteps';

/** What the progress follows. */
export interface WalkthroughHost {
  onDidChangeSession(listener: (c: SessionChange) => void): { dispose(): void };
  /** The Changes view, and whether it lists any change now. */
  changes: { view: vscode.TreeView<unknown>; any(): boolean; onDidChange(listener: () => void): { dispose(): void } };
  agents(): readonly { available: boolean; demo?: boolean }[];
  /** The walkthrough as VS Code names it: `<extension id>#<walkthrough id>`. */
  walkthroughId: string;
}

/** Sets the walkthrough's context keys as its steps are done. */
export class WalkthroughProgress implements vscode.Disposable {
  private readonly done = new Set<WalkthroughStep>();
  private readonly disposables: { dispose(): void }[];

  constructor(private readonly host: WalkthroughHost) {
    this.disposables = [
      host.onDidChangeSession((c) => stepsOfPatches(c.patches, c.replay === true).forEach((s) => this.complete(s))),
      host.changes.view.onDidChangeVisibility(() => this.checkChanges()),
      host.changes.onDidChange(() => this.checkChanges()),
      vscode.window.tabGroups.onDidChangeTabs(() => this.checkTabs()),
    ];
    this.checkChanges();
    this.checkTabs();
    this.agentsChanged();
  }

  /** The agents were resolved again (settings changed, the login shell's PATH arrived). */
  agentsChanged(): void {
    if (hasRealAgent(this.host.agents())) this.complete('addAgent');
  }

  private checkChanges(): void {
    if (this.host.changes.view.visible && this.host.changes.any()) this.complete('seeChange');
  }

  private checkTabs(): void {
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (tab.input instanceof vscode.TabInputTextDiff && isChangeDiff(tab.input.original)) this.complete('seeChange');
      if (tab.input instanceof vscode.TabInputWebview && isTraceTab(tab.input.viewType)) this.complete('openTrace');
    }
  }

  private complete(step: WalkthroughStep): void {
    if (this.done.has(step)) return;
    this.done.add(step);
    void vscode.commands.executeCommand('setContext', WALKTHROUGH_KEYS[step], true);
    // VS Code's walkthrough service is made when the Welcome page is first used. A step whose
    // context already holds then is taken as seen but not checked, and the key becoming true again
    // counts for nothing: a step done before the walkthrough was opened would never check off. So
    // the step is also marked done by its id (the command fails harmlessly for an unknown step).
    void Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', `${this.host.walkthroughId}#${step}`)).then(undefined, () => undefined);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

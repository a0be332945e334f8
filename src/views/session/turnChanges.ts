/**
 * The end-of-turn row of the session thread ("3 files changed · Review · Keep all · Undo all"):
 * what the page is sent and what its buttons do. The row is a reading of the review
 * (`edits/turnSummary.ts`), sent whole whenever it changes; its buttons are the Changes view's own
 * Keep / Undo of a turn and its Open Diff, so Undo keeps every check it has there (the file as it
 * is now, text changed since never overwritten, protected paths, the audit).
 *
 * In a worktree session the files are the worktree's: Keep leaves them there, and the row then
 * offers the worktree's own Apply to Main Folder (the worktree command, with its checks).
 */
import * as vscode from 'vscode';
import { isPersonsPrompt } from '../../acp/session/turns';
import type { SessionPatch, SessionState } from '../../acp/session/types';
import { turnSummaries } from '../../edits/turnSummary';
import { readSetting } from '../../config/vscodeSettings';
import type { WorktreeRecord } from '../../worktrees/worktrees';
import { runVouched } from '../guardedCommands';
import type { ReviewCenter } from '../review';
import type { ReviewNode } from '../reviewTree';
import type { HostMessage, WebviewMessage } from './protocol';

type TurnChangesMessage = Extract<HostMessage, { type: 'turnChanges' }>;
type TurnAction = Extract<WebviewMessage, { type: 'turnAction' }>['action'];

/** Where a session page gets its end-of-turn rows and carries out their buttons. */
export interface TurnChangesSource {
  /** The rows of `state`'s session: its turns with changes (the newest once it ended). */
  message(state: SessionState): Promise<TurnChangesMessage>;
  /** Fires when what {@link message} returns may have changed (a change recorded, kept, undone; a worktree applied). */
  onDidChange(listener: () => void): vscode.Disposable;
  /** Keep all, Undo all, Review or Apply for turn `turn` of `state`'s session. */
  act(state: SessionState, turn: number, action: TurnAction): Promise<void>;
  /** Opens the review diff of change `changeId`, when it is one of session `key`'s. */
  openChange(key: string, changeId: string): Promise<void>;
}

/** What {@link reviewTurnChanges} reads. */
export interface TurnChangesDeps {
  review: ReviewCenter;
  /** The worktrees as last read, and their changes (made, applied, discarded). */
  worktrees: { listed(): readonly WorktreeRecord[]; onDidChange: vscode.Event<void> };
  /** The folders file names are shown relative to (the workspace's and the worktrees'). */
  roots(): readonly string[];
}

/** The rows from the review of this window (see {@link TurnChangesSource}). */
export function reviewTurnChanges(deps: TurnChangesDeps): TurnChangesSource {
  const { review } = deps;
  return {
    async message(state) {
      const prompts = state.entries.filter(isPersonsPrompt).map((e) => e.id);
      const running = state.status === 'prompting' || state.status === 'cancelling';
      const turns = turnSummaries(review.model, state.key, prompts, running, deps.roots());
      const msg: TurnChangesMessage = { type: 'turnChanges', key: state.key, turns };
      const wt = state.worktree;
      if (wt) {
        const record = deps.worktrees.listed().find((r) => r.id === wt.id);
        const newest = Math.max(0, ...review.model.turns(state.key).flatMap((t) => t.files.map((f) => f.updatedAt)));
        msg.worktree = { branch: wt.branch, applied: record?.state === 'applied' && (record.updatedAt ?? 0) >= newest };
      }
      return msg;
    },
    onDidChange(listener) {
      const subs = [review.model.onDidChange(listener), deps.worktrees.onDidChange(listener)];
      return { dispose: () => subs.forEach((s) => s.dispose()) };
    },
    async act(state, turn, action) {
      const node: ReviewNode = { type: 'turn', sessionKey: state.key, turn };
      if (action === 'keep') review.keep(node);
      else if (action === 'undo') await review.undo(node);
      else if (action === 'review') await revealTurn(review, state.key, turn);
      // Apply is the worktree's own command (its checks, its modal for protected files, its merge editor).
      else if (state.worktree) await runVouched('agentSwitchboard.worktree.apply', [{ worktreeId: state.worktree.id }]);
    },
    async openChange(key, changeId) {
      if (review.model.get(changeId)?.sessionKey !== key) return;
      await review.openDiff({ type: 'file', changeId });
    },
  };
}

/** Review: the turn selected in the Changes view, and the diff of its first file still to review (else its first). */
async function revealTurn(review: ReviewCenter, sessionKey: string, turn: number): Promise<void> {
  const files = review.model.turns(sessionKey).find((t) => t.turn === turn)?.files ?? [];
  const first = files.find((f) => f.fileDecision === 'pending') ?? files[0];
  if (!first) return;
  await vscode.commands.executeCommand('agentSwitchboard.changes.focus');
  await review.reveal({ type: 'turn', sessionKey, turn });
  // The file itself, its first hunk in view, where the review shows the agent's lines inline with
  // Keep / Undo on each, as an editor's own agent review does; the side-by-side diff where there is
  // nothing to review in place (a file the agent deleted, one already decided, the inline review off).
  if (first.fileDecision === 'pending' && first.after !== null && readSetting('inlineReview')) {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(first.path), { preview: false });
    const line = Math.max(0, (first.hunks[0]?.newStart ?? 1) - 1);
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return;
  }
  await review.openDiff({ type: 'file', changeId: first.id });
}

/** How long changes are gathered before the page is sent its rows again (ms): a turn records many. */
const SETTLE_MS = 40;

/**
 * Keeps one page's rows in step with the review: sends them after each snapshot, and again when
 * the review changes, a turn ends or a new one begins; nothing when they are as last sent.
 */
export class TurnChangesFeed {
  private last: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The turns whose Keep / Undo is under way: a second click waits for the first to finish. */
  private readonly busy = new Set<string>();
  private readonly sub: vscode.Disposable | undefined;

  constructor(
    private readonly source: TurnChangesSource | undefined,
    private readonly shown: () => SessionState | undefined,
    private readonly post: (m: TurnChangesMessage) => void,
    private readonly canPost: () => boolean,
  ) {
    this.sub = source?.onDidChange(() => this.soon());
  }

  /** The page was sent a snapshot: it gets its rows at once (its thread was rebuilt without them). */
  resend(): void {
    this.last = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.send();
  }

  /** Patches of the shown session: a turn that ends or begins moves or adds a row. */
  sessionChanged(patches: readonly SessionPatch[]): void {
    if (patches.some((p) => (p.op === 'meta' && p.meta.status !== undefined) || (p.op === 'entry' && isPersonsPrompt(p.entry)))) this.soon();
  }

  /** Carries out a row's button or file click; false for any other message. */
  async handle(m: WebviewMessage): Promise<boolean> {
    if (m.type === 'openChange') {
      await this.source?.openChange(m.key, m.changeId);
      return true;
    }
    if (m.type !== 'turnAction') return false;
    const state = this.shown();
    // Only the session this page shows: its rows are the only ones it was sent.
    if (!this.source || state?.key !== m.key) return true;
    const id = `${m.key}#${m.turn}`;
    if (this.busy.has(id)) return true;
    this.busy.add(id);
    try {
      await this.source.act(state, m.turn, m.action);
    } finally {
      this.busy.delete(id);
      // The page disabled the row's buttons until it hears back: it does, even when nothing changed (an Undo refused).
      this.resend();
    }
    return true;
  }

  private soon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.send();
    }, SETTLE_MS);
  }

  private async send(): Promise<void> {
    const state = this.shown();
    if (!this.source || !state) return;
    if (!this.canPost()) {
      // A hidden page is sent a snapshot when it shows again, and its rows with it.
      this.last = undefined;
      return;
    }
    const msg = await this.source.message(state);
    // The page may have moved to another session meanwhile.
    if (this.shown()?.key !== msg.key || !this.canPost()) return;
    const json = JSON.stringify(msg);
    if (json === this.last) return;
    this.last = json;
    this.post(msg);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.sub?.dispose();
  }
}

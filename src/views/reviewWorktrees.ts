/**
 * The Changes view follows the worktrees, whichever way one goes: a discarded worktree (Discard,
 * or Keep This One discarding the others) takes its changes out of the review, since its files are
 * gone and nothing there is left to keep or undo; an applied one (Apply to Main Folder, Keep This
 * One) has its changes still to review kept, since the person took that work; and a session whose
 * worktree folder is gone when it closes (removed outside the editor) takes its changes with it.
 */
import * as fs from 'node:fs';
import type * as vscode from 'vscode';
import type { SessionState } from '../acp/session/types';
import type { ReviewModel } from '../edits/review';
import { isWithin } from '../fs/containment';

/** How a worktree's work ended (see `WorktreeCenter.onDidEnd`). */
export interface WorktreeEnd {
  dir: string;
  how: 'applied' | 'discarded';
}

/** Keeps `model` in step with the worktrees' ends. */
export function followWorktrees(model: ReviewModel, onDidEnd: vscode.Event<WorktreeEnd>): vscode.Disposable {
  return onDidEnd((e) => {
    if (e.how === 'discarded') model.forgetUnder(e.dir);
    else for (const c of model.turns().flatMap((t) => t.files)) if (c.fileDecision === 'pending' && isWithin(e.dir, c.path)) model.keep(c.id);
  });
}

/** A session left the list: when the folder of its worktree is gone, its changes go from the review too. */
export function reviewSessionClosed(model: ReviewModel, state: Pick<SessionState, 'worktree'>): void {
  if (state.worktree && !fs.existsSync(state.worktree.dir)) model.forgetUnder(state.worktree.dir);
}

/**
 * The checks every write of Undo and Restore Checkpoint passes before it touches the disk, the same
 * as an agent's write gets from the gate: the path is inside a workspace folder (also after
 * resolving symlinks); a protected path (VCS internals, editor and agent configuration, see
 * `isProtected`, or a file with more than one hard link) is written only after the person confirms
 * exactly that write, and never when `agentSwitchboard.policy` denies protected targets; and the
 * write is recorded in the audit log as an effect decided by the person — if the record cannot be
 * written, neither is the file. No `vscode`: the confirmation and the audit log are injected.
 */
import path from 'node:path';
import { checkContained, PathNotAllowedError, realpathAllowMissing } from '../fs/containment';
import { lstatOrNull } from '../fs/safeRead';
import type { AuditEntry } from '../policy/audit';
import { relativePath } from '../policy/declare';
import { isProtected } from '../policy/gate';
import type { DecisionsSnapshot } from './review';

/** One write Undo or Restore Checkpoint is about to perform. */
export interface UndoWrite {
  /** Absolute path of the file. */
  path: string;
  /** `write`: put text or the base bytes back; `delete`: remove a file the agent created. */
  action: 'write' | 'delete';
  /** `redo`: re-creating a file that an Undo deleted, when the person takes that Undo back. */
  via: 'undo' | 'restore_checkpoint' | 'redo';
  /** The session whose agent made the change, and that agent's id (for the audit). */
  sessionKey: string;
  agentId: string;
  /** The review changes this write undoes. */
  changeIds: string[];
}

/** How each way of writing is named to the person and in the audit. */
export const VIA_NAME: Record<UndoWrite['via'], string> = { undo: 'Undo', restore_checkpoint: 'Restore Checkpoint', redo: 'Restore after Undo' };

/** What the guard needs from its host. */
export interface UndoGuardDeps {
  roots(): readonly string[];
  /** `agentSwitchboard.policy.protectedTargets`: `deny` refuses protected paths outright. */
  protectedTargets(): 'ask' | 'deny' | undefined;
  /**
   * Asks the person to confirm this very write to a protected path (`relPath` as shown in the
   * workspace, `why` a clause starting with "it"); true only on their explicit yes.
   */
  confirm(w: UndoWrite, relPath: string, why: string): Promise<boolean>;
  /** Appends to the audit log; throws when it cannot be written. */
  audit(entry: AuditEntry): void;
}

/** An Undo write the guard refused; `message` says why, as a sentence for the person. */
export class UndoRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndoRefusedError';
  }
}

/**
 * Checks an Undo or Restore write and records the decision. Call {@link recordUndoResult} after
 * performing it.
 * @returns the path as shown in the workspace (relative to its folder).
 * @throws {UndoRefusedError} when the path is outside the workspace folders, is protected and the
 *   policy denies it or the person did not confirm, or the audit log could not be written.
 */
export async function checkUndoWrite(w: UndoWrite, deps: UndoGuardDeps): Promise<string> {
  const roots = deps.roots();
  const what = w.action === 'delete' ? 'Deleting' : 'Writing';
  let rel: string;
  let protectedWhy: string | undefined;
  try {
    await checkContained(w.path, roots);
    const realRoots = await Promise.all(roots.map((r) => realpathAllowMissing(path.normalize(r))));
    rel = relativePath(await realpathAllowMissing(path.normalize(w.path)), realRoots);
    const lexical = relativePath(path.normalize(w.path), roots.map((r) => path.normalize(r)));
    const st = await lstatOrNull(w.path);
    // Messages name no path: the caller prefixes the file's name where it is shown.
    if (isProtected(rel) || isProtected(lexical)) protectedWhy = 'it is a protected path (version control, editor or agent configuration).';
    // A file with several hard links may be the same file as one outside the workspace.
    else if (st && st.nlink > 1) protectedWhy = `it has ${st.nlink} hard links: writing it also changes the same file under its other names.`;
  } catch (err) {
    const reason = err instanceof PathNotAllowedError ? 'it is outside the workspace folders (or resolves there through a symlink); Undo writes only inside them.' : `its path could not be checked (${err instanceof Error ? err.message : String(err)}).`;
    refuse(w, deps, 'outside_workspace', reason);
  }
  let decidedBy = 'person';
  if (protectedWhy) {
    if (deps.protectedTargets() === 'deny') refuse(w, deps, 'protected_target', `${protectedWhy} agentSwitchboard.policy denies writes to protected paths, also by Undo.`, rel);
    // Only an explicit yes counts: a dialog that could not be shown (or failed) is a no.
    const yes = await deps.confirm(w, rel, protectedWhy).catch(() => false);
    if (!yes) refuse(w, deps, 'not_confirmed', `${protectedWhy} It is written only when you confirm that write; it was left alone.`, rel);
    decidedBy = 'person:confirmed_protected';
  }
  try {
    deps.audit(entry(w, 'allowed', decidedBy, { path: rel, description: `${what} ${rel} (${VIA_NAME[w.via]})`, protected: protectedWhy !== undefined }));
  } catch (err) {
    throw new UndoRefusedError(`the audit log could not be written (${err instanceof Error ? err.message : String(err)}); nothing was changed.`);
  }
  return rel;
}

/** Records how a checked Undo write ended (`ok` or the error's message). Never throws. */
export function recordUndoResult(w: UndoWrite, rel: string, result: string, deps: Pick<UndoGuardDeps, 'audit'>): void {
  try {
    deps.audit(entry(w, result === 'ok' ? 'performed' : 'failed', 'person', { path: rel, result }));
  } catch {
    // The decision is on record; a missing result line is shown by the audit's own checks.
  }
}

function refuse(w: UndoWrite, deps: UndoGuardDeps, reason: string, message: string, rel?: string): never {
  try {
    deps.audit(entry(w, 'refused', reason, { path: rel ?? w.path, message }));
  } catch {
    // Refusing needs no record to be safe.
  }
  throw new UndoRefusedError(message);
}

function entry(w: UndoWrite, decision: string, decidedBy: string, detail: Record<string, unknown>): AuditEntry {
  return { sessionId: w.sessionKey, agentId: w.agentId, event: 'effect', decision, decidedBy, detail: { effect: { type: w.action === 'delete' ? 'delete' : 'write', path: detail.path }, via: w.via, changeIds: w.changeIds, ...detail } };
}

/** A file the agent created that an Undo deleted: what it held, to write it back on Restore. */
export interface DeletedByUndo {
  /** The review change whose undo deleted it. */
  id: string;
  path: string;
  sessionKey: string;
  /** The file's exact bytes just before the delete. */
  bytes: Uint8Array;
  /** The change's decisions before the undo. */
  decisions: DecisionsSnapshot;
}

/**
 * What restoring the checkpoint before a turn would do, said before it is done: which files go
 * back to how they were before that turn, which are left alone and why, and how many later turns
 * are undone with it. Read from the review model alone (no disk): the restore itself checks every
 * file again as it is at that moment and skips any that changed, so this is the forecast the
 * confirmation shows, never the authority. Pure: no `vscode`, no I/O.
 */
import type { FileChange, LaterAuthor, ReviewModel } from './review';

/** Why a file of a checkpoint is left alone. */
export type LeftAlone = 'unknown' | 'interleaved' | 'undone_between' | 'changed' | 'other_session';

/** One file a checkpoint restore touches. */
export interface CheckpointFile {
  /** Absolute path. */
  path: string;
  /** Set when the restore will (most likely) leave it alone; `by` for a change noted since. */
  leftAlone?: { why: LeftAlone; by?: LaterAuthor };
}

/** The forecast of a checkpoint restore (see {@link previewCheckpoint}). */
export interface CheckpointPreview {
  turn: number;
  /** Files changed from that turn on whose text is not already back as it was, oldest change first. */
  files: CheckpointFile[];
  /** The turns after `turn` whose changes are undone too (by a file that goes back). */
  laterTurns: number;
}

/**
 * The files a restore of the checkpoint before `turn` of `sessionKey` would put back (as
 * `ReviewModel.checkpoint` lists them), without those already as they were before the turn
 * (undone or restored before), each marked when the restore will leave it alone: what it held
 * before is not known for certain, someone else changed it between the agent's turns, or someone
 * (or another session) changed it after the agent's last write.
 */
export function previewCheckpoint(model: ReviewModel, sessionKey: string, turn: number): CheckpointPreview {
  const files: CheckpointFile[] = [];
  const turns = new Set<number>();
  for (const e of model.checkpoint(sessionKey, turn)) {
    if (e.base.uncertain === undefined && e.expected === e.base.text) continue;
    const latest = model.latestFor(e.path);
    const by = latest?.later.at(-1)?.by;
    const leftAlone: CheckpointFile['leftAlone'] =
      e.base.uncertain !== undefined ? { why: 'unknown' }
        : !e.continuous ? { why: e.undoneBetween ? 'undone_between' : 'interleaved' }
          : latest && !e.ids.includes(latest.id) ? { why: 'other_session' }
            : by ? { why: 'changed', by }
              : undefined;
    files.push(leftAlone ? { path: e.path, leftAlone } : { path: e.path });
    // The turns whose changes go: a file left alone undoes nothing of its turns.
    if (!leftAlone) for (const c of e.ids.map((id) => model.get(id)).filter((x): x is FileChange => !!x)) turns.add(c.turn);
  }
  return { turn, files, laterTurns: [...turns].filter((t) => t > turn).length };
}

/** Why a file is left alone, as the end of a sentence about it ("left alone: <why>"). */
export function leftAloneText(l: NonNullable<CheckpointFile['leftAlone']>): string {
  switch (l.why) {
    case 'unknown':
      return 'what it held before the turn is not known for certain';
    case 'interleaved':
      return "someone else changed it between the agent's turns";
    case 'undone_between':
      return "you undid an earlier turn's change of it since, not the later one made on it; Undo in the Changes view takes both out";
    case 'other_session':
      return 'another session changed it since';
    case 'changed':
      return l.by === 'person' ? 'you changed it since' : l.by === 'formatter' ? 'a formatter changed it since' : 'another program changed it since';
  }
}

/**
 * Why a restore left a file alone that changed after the agent's last write (its text is not the
 * one the agent left): who changed it when the review noted that, else that it changed.
 */
export function changedSinceText(model: ReviewModel, path: string): string {
  const by = model.latestFor(path)?.later.at(-1)?.by;
  return by ? leftAloneText({ why: 'changed', by }) : 'it changed after the agent wrote it';
}

/**
 * Why no checkpoint of a session is restored while its agent works: what it writes next would be
 * recorded on a base the restore has already replaced, and be lost track of.
 */
export const STILL_WORKING = 'the agent is still working in this session: restore once its turn has ended, or Stop it first.';


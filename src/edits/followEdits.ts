/**
 * Which file the editor follows while an agent works: the file the agent changed last in the
 * session on screen, once per change (a file per turn), and only one the agent left on disk (a
 * deleted file has nothing to open). Pure: the adapter (views/followEdits.ts) opens it.
 */
import type { FileChange } from './review';

/** The change to bring into view now, if any: the newest of `changes` not in `shown`, its file still there. */
export function changeToFollow(changes: readonly FileChange[], shown: ReadonlySet<string>): FileChange | undefined {
  let newest: FileChange | undefined;
  for (const c of changes) {
    if (shown.has(c.id) || c.after === null) continue;
    if (!newest || c.updatedAt > newest.updatedAt) newest = c;
  }
  return newest;
}

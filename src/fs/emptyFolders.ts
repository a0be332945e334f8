/**
 * Folders an agent's write made, taken away again with the file they were made for. No `vscode`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isWithin } from './containment';

/**
 * Removes `from` and the folders above it up to `upTo` (inclusive) while each is empty: the
 * folders an agent's write made for a file, after an Undo or Restore deleted that file. A folder
 * with anything in it (the person's file, another change) stays, and so does every one above it.
 */
export async function removeEmptyFolders(from: string, upTo: string): Promise<void> {
  let dir = from;
  while (isWithin(upTo, dir)) {
    try {
      await fs.promises.rmdir(dir);
    } catch {
      return;
    }
    if (dir === upTo) return;
    dir = path.dirname(dir);
  }
}

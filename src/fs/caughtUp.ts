/**
 * A clean document can lag its file: another program, or our own Restore or Undo, wrote the disk
 * and the editor has not reloaded it yet. The agent must not read the old text from it, nor write
 * through it (the save would then fail as "the file is newer", or the agent's edit would be made on
 * text the file no longer holds). Pure: the document and the disk are given as functions.
 */

/** How long a read or write waits for the editor to reload a clean document the disk got ahead of. */
export const CATCH_UP_MS = 1000;

/** What waiting needs of a document and its file. */
export interface EditorAndDisk {
  /** The document has no unsaved changes (and is open). */
  clean(): boolean;
  text(): string;
  /** The file's text on disk, decoded as the editor decodes it; undefined when there is none to compare. */
  disk(): Promise<string | undefined>;
}

/**
 * Resolves once the document shows what the disk holds (line endings aside: the editor keeps one
 * kind), at most `ms` later: a document an editor shows is reloaded soon after another program's
 * write; one no editor shows may never be. A document with unsaved changes is the person's work:
 * it is what the agent sees, at once.
 * @returns true when they agree (or the document is dirty), false when the wait ran out (the
 *   caller then reads, or writes, the file itself).
 */
/** The same text, line endings aside (the editor keeps one kind; a file may hold several). */
export function sameText(a: string, b: string): boolean {
  return a.replace(/\r\n?/g, '\n') === b.replace(/\r\n?/g, '\n');
}

export async function waitForEditor(d: EditorAndDisk, ms = CATCH_UP_MS, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!d.clean()) return true;
    const disk = await d.disk();
    if (disk === undefined || sameText(disk, d.text())) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * A clean document can lag its file: another program, or our own Restore or Undo, wrote the disk
 * and the editor has not reloaded it yet. The agent must not read the old text from it, nor write
 * through it (the save would then fail as "the file is newer", or the agent's edit would be made on
 * text the file no longer holds). Pure: the document and the disk are given as functions.
 */

/** How long a read or write waits for the editor to reload a clean document the disk got ahead of. */
export const CATCH_UP_MS = 3000;

/** What waiting needs of a document and its file. */
export interface EditorAndDisk {
  /** The document has no unsaved changes (and is open). */
  clean(): boolean;
  text(): string;
  /** The file's text on disk, decoded as the editor decodes it; undefined when there is none to compare. */
  disk(): Promise<string | undefined>;
  /** Asks the editor to load the document from disk again (called only while it is clean). */
  reload?(): Promise<unknown>;
}

/**
 * Resolves once the document shows what the disk holds (line endings aside: the editor keeps one
 * kind), at most `ms` later. Past that the document is taken as it is: a file the person reopened in
 * another encoding never reads the same as its bytes decoded, and a write's own checks still stand.
 * A document with unsaved changes is the person's work: it is what the agent sees, at once.
 * @returns true when they agree (or the document is dirty), false when the wait ran out.
 */
export async function waitForEditor(d: EditorAndDisk, ms = CATCH_UP_MS, pollMs = 50): Promise<boolean> {
  const flat = (t: string) => t.replace(/\r\n?/g, '\n');
  const deadline = Date.now() + ms;
  let asked = false;
  for (;;) {
    if (!d.clean()) return true;
    const disk = await d.disk();
    if (disk === undefined || flat(disk) === flat(d.text())) return true;
    if (Date.now() >= deadline) return false;
    // The editor does not always reload a document no editor shows: asked once, while it is clean
    // (checked with nothing awaited in between, so no unsaved keystroke is thrown away).
    if (!asked && d.reload && d.clean()) {
      asked = true;
      await d.reload().catch(() => undefined);
      continue;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

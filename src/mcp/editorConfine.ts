/**
 * Workspace confinement of the editor MCP server's answers: every document the server names — in
 * its own result (selection, open documents, diagnostics) or in a list of other places
 * (definitions, references, workspace symbols) — must be a file on disk inside a workspace
 * folder, also after resolving symlinks ({@link checkContained}). Untitled documents, other URI
 * schemes (`untitled:`, `vscode-userdata:`, `git:`, virtual file systems…) and files outside the
 * folders are left out, so an agent learns nothing about them through the editor.
 *
 * No `vscode`: the adapter passes each document as its URI scheme and file-system path.
 */
import { checkContained } from '../fs/containment';

/** A document as the editor names it: the URI scheme and, for `file:` URIs, the file-system path. */
export interface DocumentRef {
  scheme: string;
  path: string;
}

/**
 * Decides, with a cache for one answer, which documents an agent may be told about.
 * Build one per tool call: the cache must not outlive a change of the workspace folders or of a
 * symlink on disk.
 */
export class WorkspaceConfinement {
  private readonly cache = new Map<string, Promise<boolean>>();

  /** @param roots the workspace folders' absolute paths, read when the confinement is built. */
  constructor(private readonly roots: readonly string[]) {}

  /**
   * True when `ref` is a `file:` document inside a workspace folder after resolving symlinks.
   * Never throws: a path that cannot be resolved (a permission error, say) counts as outside.
   */
  allows(ref: DocumentRef): Promise<boolean> {
    if (ref.scheme !== 'file' || !this.roots.length) return Promise.resolve(false);
    let known = this.cache.get(ref.path);
    if (!known) {
      known = checkContained(ref.path, this.roots).then(
        () => true,
        () => false,
      );
      this.cache.set(ref.path, known);
    }
    return known;
  }

  /**
   * The items whose document {@link allows} admits, in their order.
   * @param refOf names the document an item is about.
   */
  async filter<T>(items: readonly T[], refOf: (item: T) => DocumentRef): Promise<T[]> {
    const keep = await Promise.all(items.map((i) => this.allows(refOf(i))));
    return items.filter((_, n) => keep[n]);
  }
}

/**
 * The read-only "before" documents of diffs: what a file held before an agent's turn (the review's
 * changes) or at the commit a worktree started from (the compare view). All of them live under ONE
 * URI scheme served by ONE provider, which hands each document to the owner of its kind. The
 * editor asks a scheme's providers newest first and takes the first text any of them returns, so
 * two providers on one scheme means one of them answers the other's documents — an empty "before"
 * that makes an edited file look new. Here a kind has exactly one owner, and a document nobody owns
 * says so instead of being empty.
 *
 * Pure: no `vscode`. The editor side registers the scheme once (views/beforeDocs.ts).
 */
import * as z from 'zod';
import type { IDisposable } from '../common/lifecycle';

/** URI scheme of every read-only "before" document. */
export const BEFORE_SCHEME = 'agent-switchboard-base';

/** Which document: a review change's "before", an empty side, or a worktree file at its base commit. */
export const BeforeRefSchema = z.discriminatedUnion('of', [
  z.object({ of: z.literal('change'), id: z.string().min(1).max(8192) }),
  z.object({ of: z.literal('empty') }),
  z.object({ of: z.literal('worktree'), id: z.string().regex(/^[0-9a-f]{8}$/), rel: z.string().min(1).max(4096) }),
]);

/** A "before" document's identity (its URI's query). */
export type BeforeRef = z.infer<typeof BeforeRefSchema>;

/** The kinds whose text comes from an owner (`empty` needs none). */
export type BeforeKind = Exclude<BeforeRef['of'], 'empty'>;

/**
 * The text of one kind's documents: undefined when the thing it names is gone (a cleared change, a
 * discarded worktree). '' is a real answer: the file did not exist.
 */
export type BeforeSource<K extends BeforeKind> = (ref: Extract<BeforeRef, { of: K }>) => string | undefined | Promise<string | undefined>;

/** What a document shows when its owner no longer knows it. */
export const GONE_TEXT = 'This change is no longer available.';
/** What a document shows whose URI is not one of ours (or whose owner was closed). */
export const UNKNOWN_TEXT = 'Agent Switchboard has no such document (the view that showed it was closed).';

/** The URI query of a "before" document. */
export function beforeQuery(ref: BeforeRef): string {
  return new URLSearchParams(Object.entries(ref)).toString();
}

/** The document a URI query names; undefined when it is not a well-formed one. */
export function parseBeforeQuery(query: string): BeforeRef | undefined {
  const r = BeforeRefSchema.safeParse(Object.fromEntries(new URLSearchParams(query)));
  return r.success ? r.data : undefined;
}

/** A source whose kind was checked when the document was parsed. */
type AnySource = (ref: BeforeRef) => string | undefined | Promise<string | undefined>;

/** The owners of the "before" documents, one per kind. */
export class BeforeDocuments {
  private readonly sources = new Map<BeforeKind, AnySource>();

  /**
   * Makes `source` the owner of `kind`'s documents until disposed.
   * @throws Error when the kind already has an owner: a second one would answer the first one's documents.
   */
  serve<K extends BeforeKind>(kind: K, source: BeforeSource<K>): IDisposable {
    if (this.sources.has(kind)) throw new Error(`The "${kind}" documents already have an owner.`);
    // Only documents of `kind` are ever handed to it (see text()).
    const own = source as unknown as AnySource;
    this.sources.set(kind, own);
    return {
      dispose: () => {
        if (this.sources.get(kind) === own) this.sources.delete(kind);
      },
    };
  }

  /** Whether any kind has an owner. */
  get serving(): boolean {
    return this.sources.size > 0;
  }

  /** The text of the document with URI query `query`; never throws. */
  async text(query: string): Promise<string> {
    const ref = parseBeforeQuery(query);
    if (!ref) return UNKNOWN_TEXT;
    if (ref.of === 'empty') return '';
    const source = this.sources.get(ref.of);
    if (!source) return UNKNOWN_TEXT;
    try {
      return (await source(ref)) ?? GONE_TEXT;
    } catch (err) {
      return `What the file held before could not be read: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}

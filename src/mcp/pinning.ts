/**
 * Catalog pinning: a defence against a server that rewrites its tools after the person looked at
 * them (a "rug pull": a harmless description today, instructions to the model tomorrow). Each tool
 * is hashed — name, title, description, input and output schema, annotations — as RFC 8785
 * canonical JSON with SHA-256. The first catalog seen is pinned; a later one that differs is held
 * back from agents until the person accepts it. Pure.
 */
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';

/** Tool name → SHA-256 (hex) of what the model is told about the tool. */
export type CatalogPins = Record<string, string>;

/** How a catalog differs from its pins. */
export interface CatalogDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The pins of a catalog. */
export function pinCatalog(tools: readonly Tool[]): CatalogPins {
  const pins: CatalogPins = {};
  for (const t of tools) {
    const shown = { name: t.name, title: t.title ?? null, description: t.description ?? null, inputSchema: t.inputSchema ?? null, outputSchema: t.outputSchema ?? null, annotations: t.annotations ?? null };
    pins[t.name] = createHash('sha256').update(canonicalize(shown) ?? '').digest('hex');
  }
  return pins;
}

/** What changed between the pinned catalog and `now`; undefined when nothing did. */
export function diffCatalog(pinned: CatalogPins, now: CatalogPins): CatalogDiff | undefined {
  const added = Object.keys(now).filter((n) => !(n in pinned));
  const removed = Object.keys(pinned).filter((n) => !(n in now));
  const changed = Object.keys(now).filter((n) => n in pinned && pinned[n] !== now[n]);
  return added.length || removed.length || changed.length ? { added, removed, changed } : undefined;
}

/** One sentence for the person: which tools were added, removed or changed. */
export function describeDiff(d: CatalogDiff): string {
  const parts = [d.changed.length ? `changed: ${d.changed.join(', ')}` : '', d.added.length ? `added: ${d.added.join(', ')}` : '', d.removed.length ? `removed: ${d.removed.join(', ')}` : ''];
  return `its tools changed since you accepted them (${parts.filter(Boolean).join('; ')})`;
}

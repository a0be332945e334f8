/**
 * The capability matrices of every agent version this person has run, kept across sessions and
 * windows: what each `name@version` declared at `initialize` (the latest declaration), and how often
 * each capability was exercised and failed, summed over all its connections (the live ones counted
 * as they go). Saved as JSON in the extension's global storage. Node `fs` only, no `vscode`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as z from 'zod';
import type { CapabilityMatrix, CapabilityRow } from './capabilities';

/** The matrix of one agent version. */
export interface AgentVersionCapabilities {
  agentId: string;
  /** `agentInfo.name` and `agentInfo.version` from `initialize` ("unknown" when the agent gives none). */
  name: string;
  version: string;
  connections: number;
  /** Epoch milliseconds of the last connection. */
  lastSeen: number;
  rows: CapabilityRow[];
}

const rowSchema = z.object({
  capability: z.string(),
  group: z.enum(['declared', 'agent calls us', 'agent sends', 'we call the agent']),
  declared: z.boolean().optional(),
  exercised: z.number(),
  failed: z.number(),
  lastError: z.string().optional(),
});
const fileSchema = z.object({
  v: z.literal(1),
  agents: z.array(z.object({ agentId: z.string(), name: z.string(), version: z.string(), connections: z.number(), lastSeen: z.number(), rows: z.array(rowSchema) })),
});

interface Live {
  key: string;
  matrix: CapabilityMatrix;
  /** Counts already added to the saved totals. */
  baseline: Map<string, { exercised: number; failed: number }>;
}

/** Keeps the per-version matrices. */
export class CapabilityBook {
  private readonly saved = new Map<string, AgentVersionCapabilities>();
  private readonly live = new Set<Live>();

  /** Reads `file` (a missing or unreadable file starts an empty book; `log` hears why). */
  constructor(
    private readonly file: string,
    private readonly log: (m: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    try {
      for (const a of fileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).agents) this.saved.set(keyOf(a.agentId, a.name, a.version), a);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`The capability record ${file} was unreadable and starts again: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Counts a connection's matrix under its agent version from now on.
   * @returns a function that stops counting it (its counts stay in the book).
   */
  track(agentId: string, init: acp.InitializeResponse, matrix: CapabilityMatrix): () => void {
    const name = init.agentInfo?.name ?? 'unknown';
    const version = init.agentInfo?.version ?? 'unknown';
    const key = keyOf(agentId, name, version);
    const entry = this.saved.get(key) ?? { agentId, name, version, connections: 0, lastSeen: 0, rows: [] };
    entry.connections++;
    entry.lastSeen = this.now();
    // The latest declaration wins: the same version may be configured differently.
    const declared = new Map(matrix.rows().filter((r) => r.declared !== undefined).map((r) => [r.capability, r.declared]));
    for (const r of entry.rows) if (declared.has(r.capability)) r.declared = declared.get(r.capability);
    this.saved.set(key, entry);
    const live: Live = { key, matrix, baseline: new Map() };
    this.live.add(live);
    return () => {
      this.fold(live);
      this.live.delete(live);
    };
  }

  /** Every agent version of `agentId` (all agents without one), most recently seen first. */
  list(agentId?: string): AgentVersionCapabilities[] {
    const out: AgentVersionCapabilities[] = [];
    for (const [key, saved] of this.saved) {
      if (agentId && saved.agentId !== agentId) continue;
      const rows = new Map(saved.rows.map((r) => [r.capability, { ...r }]));
      for (const l of this.live) if (l.key === key) addRows(rows, l.matrix.rows(), l.baseline);
      out.push({ ...saved, rows: [...rows.values()] });
    }
    return out.sort((a, b) => b.lastSeen - a.lastSeen);
  }

  /** Writes the book (live connections' counts so far included). */
  save(): void {
    for (const l of this.live) this.fold(l);
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(`${this.file}.tmp`, JSON.stringify({ v: 1, agents: [...this.saved.values()] }));
      fs.renameSync(`${this.file}.tmp`, this.file);
    } catch (err) {
      this.log(`The capability record could not be written: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Adds what a live matrix counted since its last fold to the saved totals. */
  private fold(l: Live): void {
    const entry = this.saved.get(l.key);
    if (!entry) return;
    const rows = new Map(entry.rows.map((r) => [r.capability, r]));
    addRows(rows, l.matrix.rows(), l.baseline, true);
    entry.rows = [...rows.values()];
  }
}

function keyOf(agentId: string, name: string, version: string): string {
  return `${agentId}\u0000${name}\u0000${version}`;
}

/** Adds `rows` (minus `baseline`) into `into`; with `commit`, the baseline moves up to them. */
function addRows(into: Map<string, CapabilityRow>, rows: CapabilityRow[], baseline: Map<string, { exercised: number; failed: number }>, commit = false): void {
  for (const r of rows) {
    const base = baseline.get(r.capability) ?? { exercised: 0, failed: 0 };
    const target = into.get(r.capability) ?? { capability: r.capability, group: r.group, exercised: 0, failed: 0 };
    if (r.declared !== undefined) target.declared = r.declared;
    target.exercised += r.exercised - base.exercised;
    target.failed += r.failed - base.failed;
    if (r.lastError) target.lastError = r.lastError;
    into.set(r.capability, target);
    if (commit) baseline.set(r.capability, { exercised: r.exercised, failed: r.failed });
  }
}

/** The book as Markdown: one table per agent version. */
export function capabilitiesMarkdown(agentName: string, versions: AgentVersionCapabilities[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
  const out = [`# Capabilities of ${cell(agentName)}`, ''];
  if (!versions.length) out.push('No session with this agent yet: its capabilities appear once it has answered `initialize`.');
  for (const v of versions) {
    out.push(`## ${cell(v.name)} ${cell(v.version)}`, '', `${v.connections} connection${v.connections === 1 ? '' : 's'}, last ${new Date(v.lastSeen).toISOString()}.`, '');
    out.push('| capability | group | declared | exercised | failed | last error |', '|---|---|---|---|---|---|');
    const order: CapabilityRow['group'][] = ['declared', 'agent calls us', 'we call the agent', 'agent sends'];
    for (const r of [...v.rows].sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group))) {
      out.push(`| ${cell(r.capability)} | ${r.group} | ${r.declared === undefined ? '' : r.declared ? 'yes' : 'no'} | ${r.exercised} | ${r.failed} | ${cell(r.lastError ?? '')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

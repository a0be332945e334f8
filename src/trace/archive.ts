/**
 * Saved traces: when a session closes (or the window does), its trace is written to the extension's
 * storage as an OTLP/HTTP JSON export request with a small header of ours, so it can be opened again
 * in the trace panel or sent to a collector later. The folder keeps the newest `maxFiles` traces.
 * Files that cannot be read are skipped with a reason, never fatal. No `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseOtlpJson, toOtlpJson, type SpanRecord } from './otlp';

/** A saved trace as listed. */
export interface SavedTrace {
  file: string;
  title: string;
  savedAt: string;
  spans: number;
}

/** The folder of saved traces. */
export class TraceArchive {
  constructor(
    private readonly dir: string,
    private readonly maxFiles = 50,
  ) {}

  /** Writes a session's trace (synchronously: the window may be closing). Nothing for no spans. */
  save(title: string, spans: readonly SpanRecord[], now = new Date()): string | undefined {
    if (!spans.length) return undefined;
    fs.mkdirSync(this.dir, { recursive: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const file = path.join(this.dir, `${stamp}-${title.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60)}.json`);
    fs.writeFileSync(file, JSON.stringify({ agentSwitchboard: { title, savedAt: now.toISOString(), spans: spans.length }, ...toOtlpJson(spans) }));
    this.prune();
    return file;
  }

  /** Saved traces, newest first; unreadable files are skipped. */
  list(): SavedTrace[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: SavedTrace[] = [];
    for (const n of names.sort().reverse()) {
      try {
        const head = (JSON.parse(fs.readFileSync(path.join(this.dir, n), 'utf8')) as { agentSwitchboard?: { title?: string; savedAt?: string; spans?: number } }).agentSwitchboard;
        out.push({ file: path.join(this.dir, n), title: String(head?.title ?? n), savedAt: String(head?.savedAt ?? ''), spans: Number(head?.spans ?? 0) });
      } catch {
        // A damaged file is not listed; the others still are.
      }
    }
    return out;
  }

  /**
   * The spans of a saved trace.
   * @throws Error when the file is not a trace this archive wrote (or any OTLP JSON export).
   */
  load(file: string): SpanRecord[] {
    const text = fs.readFileSync(file, 'utf8');
    return parseOtlpJson(JSON.parse(text)).spans;
  }

  private prune(): void {
    const names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json')).sort();
    for (const n of names.slice(0, Math.max(0, names.length - this.maxFiles))) fs.rmSync(path.join(this.dir, n), { force: true });
  }
}

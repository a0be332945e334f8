/**
 * Saved traces: when a session closes (or the window does), its trace is written to the extension's
 * storage as an OTLP/HTTP JSON export request with a small header of ours, so it can be opened again
 * in the trace panel or sent to a collector later. The folder keeps the newest `maxFiles` traces.
 * An index file lists them without reading each; a listed file that is gone is skipped. Secrets are
 * redacted before they are written (the audit's redaction). No `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { redactSecrets } from '../policy/redact';
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

  /**
   * Writes a session's trace (synchronously: the window may be closing), secrets redacted in the
   * spans and the title (see `toOtlpJson`). Nothing for no spans.
   */
  save(rawTitle: string, spans: readonly SpanRecord[], now = new Date()): string | undefined {
    if (!spans.length) return undefined;
    const title = redactSecrets(rawTitle);
    fs.mkdirSync(this.dir, { recursive: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const file = path.join(this.dir, `${stamp}-${title.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60)}.json`);
    const entry = { title, savedAt: now.toISOString(), spans: spans.length };
    fs.writeFileSync(file, JSON.stringify({ agentSwitchboard: entry, ...toOtlpJson(spans) }));
    // The index lists traces without reading them (each may be tens of megabytes).
    const index = this.index().filter((e) => e.file !== path.basename(file));
    index.push({ file: path.basename(file), ...entry });
    this.writeIndex(index);
    this.prune();
    return file;
  }

  private index(): { file: string; title: string; savedAt: string; spans: number }[] {
    try {
      const raw = JSON.parse(fs.readFileSync(path.join(this.dir, 'index.json'), 'utf8')) as unknown;
      return Array.isArray(raw) ? raw.filter((e): e is { file: string; title: string; savedAt: string; spans: number } => !!e && typeof e.file === 'string' && /^[^/\\]+\.json$/.test(e.file)) : [];
    } catch {
      return [];
    }
  }

  private writeIndex(index: { file: string; title: string; savedAt: string; spans: number }[]): void {
    fs.writeFileSync(path.join(this.dir, 'index.json'), JSON.stringify(index));
  }

  /** Saved traces, newest first (from the index; files that are gone are skipped). */
  list(): SavedTrace[] {
    return this.index()
      .filter((e) => fs.existsSync(path.join(this.dir, e.file)))
      .sort((a, b) => (a.file < b.file ? 1 : -1))
      .map((e) => ({ file: path.join(this.dir, e.file), title: String(e.title), savedAt: String(e.savedAt), spans: Number(e.spans) }));
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
    const names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json') && n !== 'index.json').sort();
    const gone = new Set(names.slice(0, Math.max(0, names.length - this.maxFiles)));
    for (const n of gone) fs.rmSync(path.join(this.dir, n), { force: true });
    if (gone.size) this.writeIndex(this.index().filter((e) => !gone.has(e.file)));
  }
}

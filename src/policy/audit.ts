/**
 * The audit log: append-only JSONL, one record per decision and per effect, each carrying the hash
 * of the previous record (a hash chain), so that editing or deleting a line is detectable.
 * Secrets are redacted before writing; each append is fsync'ed before the effect is reported done.
 *
 * Record hash = SHA-256 of the RFC 8785 canonical JSON of the record without its `hash` field.
 * Uses `node:fs`; no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { canonicalHash } from './intent';
import { redactValue } from './redact';

/** What happened, as recorded. */
export interface AuditEntry {
  /** The client's session key. */
  sessionId: string;
  /** The agent's ACP session id. */
  acpSessionId?: string;
  agentId: string;
  /** `decision` = a permission answer; `effect` = a client-hosted effect allowed or refused. */
  event: 'decision' | 'effect';
  intentHash?: string;
  /** e.g. `allow_once`, `reject_once`, `cancelled`, `allowed`, `refused`. */
  decision: string;
  /** Who or what decided: `person`, `api`, `approval:<hash>`, `policy`, `cancel`. */
  decidedBy: string;
  /** The effect's description and result (`ok`, an error message). */
  detail?: unknown;
}

/** A stored record: the entry plus its place in the chain. */
export interface AuditRecord extends AuditEntry {
  seq: number;
  time: string;
  prev: string;
  hash: string;
}

const GENESIS = '0'.repeat(64);

/** The hash a record must carry. */
export function recordHash(r: Omit<AuditRecord, 'hash'>): string {
  return canonicalHash(r);
}

/**
 * Where the log's head (last sequence number and hash) is kept outside the file (VS Code's
 * workspaceState): removing records from the end, or rewriting the whole chain, then shows.
 */
export interface AuditHeadStore {
  get(): { seq: number; hash: string } | undefined;
  set(head: { seq: number; hash: string }): void;
}

/** Appends hash-chained records to one JSONL file. */
export class AuditLog {
  private last: { seq: number; hash: string } | undefined;

  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
    readonly head?: AuditHeadStore,
  ) {}

  private tail(): { seq: number; hash: string } {
    if (this.last) return this.last;
    let seq = 0;
    let hash = GENESIS;
    if (fs.existsSync(this.file)) {
      const lines = fs.readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
      const lastLine = lines.at(-1);
      if (lastLine) {
        try {
          const r = JSON.parse(lastLine) as AuditRecord;
          seq = r.seq;
          hash = r.hash;
        } catch {
          // A torn last line: chain on from a marker so verify() names it.
          seq = lines.length;
          hash = 'torn';
        }
      }
    }
    this.last = { seq, hash };
    return this.last;
  }

  /** Redacts, chains and appends one entry; the line is on disk (fsync) when this returns. */
  append(entry: AuditEntry): AuditRecord {
    const { seq, hash } = this.tail();
    const body = { ...redactValue(entry), seq: seq + 1, time: this.now().toISOString(), prev: hash };
    const record: AuditRecord = { ...body, hash: recordHash(body) };
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const fd = fs.openSync(this.file, 'a');
    try {
      fs.writeSync(fd, JSON.stringify(record) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.last = { seq: record.seq, hash: record.hash };
    this.head?.set(this.last);
    return record;
  }
}

/** Result of {@link verifyAudit}. */
export type AuditVerification = { ok: true; records: number } | { ok: false; records: number; line: number; reason: string };

/**
 * Checks every line's hash and link; names the first broken line (1-based). With `head` (the last
 * record the extension wrote, kept outside the file), also finds records removed from the end and
 * a chain rewritten as a whole.
 */
export function verifyAudit(text: string, head?: { seq: number; hash: string }): AuditVerification {
  const lines = text.split('\n').filter((l) => l.length > 0);
  let prev = GENESIS;
  for (let i = 0; i < lines.length; i++) {
    let r: AuditRecord;
    try {
      r = JSON.parse(lines[i]) as AuditRecord;
    } catch {
      return { ok: false, records: lines.length, line: i + 1, reason: 'not valid JSON' };
    }
    const { hash, ...body } = r;
    if (r.prev !== prev) return { ok: false, records: lines.length, line: i + 1, reason: 'does not link to the previous record (a record was removed, reordered or inserted)' };
    if (recordHash(body) !== hash) return { ok: false, records: lines.length, line: i + 1, reason: 'its content does not match its hash (it was edited)' };
    if (r.seq !== i + 1) return { ok: false, records: lines.length, line: i + 1, reason: `sequence number ${r.seq} where ${i + 1} was expected` };
    prev = hash;
  }
  if (head) {
    if (lines.length < head.seq) return { ok: false, records: lines.length, line: lines.length + 1, reason: `the log ends at record ${lines.length}, but the extension wrote ${head.seq} (records were removed from the end)` };
    const atHead = lines[head.seq - 1] ? (JSON.parse(lines[head.seq - 1]) as AuditRecord).hash : undefined;
    if (head.seq > 0 && atHead !== head.hash) return { ok: false, records: lines.length, line: head.seq, reason: 'it is not the record the extension wrote there (the chain was rewritten)' };
  }
  return { ok: true, records: lines.length };
}

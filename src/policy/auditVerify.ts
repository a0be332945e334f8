/**
 * The audit record format and its verification. A record carries the hash of the one before it (a
 * hash chain) and, when the log is signed, an HMAC by a key kept in the editor's secret storage
 * (`auditKey.ts`). {@link verifyAudit} names the first record that fails and every further problem
 * (runs of records with the same problem are one range). It never calls a log valid that it could
 * not check: records signed with a key this editor does not have, unsigned records when a key is
 * expected, and records of the log's own integrity events (records found missing on start, a new
 * signed segment) are problems. No `vscode`.
 */
import { canonicalHash } from './intent';
import type { AuditSigner } from './auditKey';

/** What happened, as recorded. */
export interface AuditEntry {
  /** The client's session key (`*` for events of the log itself). */
  sessionId: string;
  /** The agent's ACP session id. */
  acpSessionId?: string;
  agentId: string;
  /**
   * `decision` = a permission answer; `effect` = a client-hosted effect allowed or refused;
   * `integrity` = something the log found about itself on start (records missing, a new key).
   */
  event: 'decision' | 'effect' | 'integrity';
  intentHash?: string;
  /** e.g. `allow_once`, `reject_once`, `cancelled`, `allowed`, `refused`; for `integrity` see {@link describeIntegrity}. */
  decision: string;
  /** Who or what decided: `person`, `api`, `approval:<hash>`, `policy`, `cancel`, `audit-log`. */
  decidedBy: string;
  /** The effect's description and result (`ok`, an error message). */
  detail?: unknown;
}

/** A stored record: the entry plus its place in the chain, and its signature when signed. */
export interface AuditRecord extends AuditEntry {
  seq: number;
  time: string;
  prev: string;
  /** {@link AuditSigner.id} of the key that signed it (inside the hashed body). */
  key?: string;
  hash: string;
  /** HMAC-SHA-256 (hex) of the record without `mac`, by the key named in `key`. */
  mac?: string;
}

/** The `prev` of the first record. */
export const GENESIS = '0'.repeat(64);

/** The hash a record must carry: SHA-256 of the RFC 8785 form of the record without `hash` and `mac`. */
export function recordHash(r: Omit<AuditRecord, 'hash' | 'mac'>): string {
  return canonicalHash(r);
}

/** One problem: record `line` (1-based), through `to` when a run of records has it. */
export interface AuditProblem {
  line: number;
  to?: number;
  reason: string;
}

/** Result of {@link verifyAudit}: the first problem in `line`/`to`/`reason`, the others in `more`. */
export type AuditVerification = { ok: true; records: number } | { ok: false; records: number; line: number; to?: number; reason: string; more?: AuditProblem[] };

/** The sentence that says what an `integrity` record records. */
export function describeIntegrity(r: Pick<AuditEntry, 'decision' | 'detail'>): string {
  const d = (r.detail ?? {}) as Record<string, unknown>;
  const range = d.from === d.to ? `record ${String(d.from)} was` : `records ${String(d.from)}–${String(d.to)} were`;
  switch (r.decision) {
    case 'records_missing':
      return `${range} removed from the end of the log while the editor was closed (the editor had written ${String(d.to)}; found on start)`;
    case 'record_replaced':
      return `record ${String(d.seq)} is not the record the editor wrote there (the log was rewritten while the editor was closed; found on start)`;
    case 'records_not_signed':
      return `${range} added after the last record the editor wrote, without its signature (found on start)`;
    case 'new_signed_segment':
      return `a new signed segment starts here: the records before it cannot be verified with this editor's key (${String(d.reason)})`;
    default:
      return `an integrity event of the log (${r.decision})`;
  }
}

/**
 * Checks every record's link, hash and sequence number, and — with `signer` — its signature.
 * `signer` undefined checks the chain only (a log written without a key); null means a key is
 * expected but not available, so no record can be verified. With `head` (the last record the
 * extension wrote, kept outside the file) records removed from the end and a rewritten chain show.
 */
export function verifyAudit(text: string, head?: { seq: number; hash: string }, signer?: AuditSigner | null): AuditVerification {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const problems: AuditProblem[] = [];
  const add = (line: number, reason: string) => {
    const last = problems.at(-1);
    if (last && last.reason === reason && (last.to ?? last.line) === line - 1) last.to = line;
    else problems.push({ line, reason });
  };
  const hashes: (string | undefined)[] = [];
  let prev: string | undefined = GENESIS;
  for (let i = 0; i < lines.length; i++) {
    let r: AuditRecord;
    try {
      r = JSON.parse(lines[i]) as AuditRecord;
      if (typeof r !== 'object' || r === null) throw new Error('not an object');
    } catch {
      add(i + 1, 'not valid JSON');
      hashes.push((prev = undefined));
      continue;
    }
    const { hash, mac: _mac, ...body } = r;
    // After a broken record the chain is followed on from the next one, so later problems still show.
    if (prev !== undefined && r.prev !== prev) add(i + 1, 'does not link to the previous record (a record was removed, reordered or inserted)');
    else if (recordHash(body) !== hash) add(i + 1, 'its content does not match its hash (it was edited)');
    else if (r.seq !== i + 1) add(i + 1, `sequence number ${r.seq} where ${i + 1} was expected`);
    else if (signer === null) add(i + 1, 'cannot be verified: the signing key could not be read from the secret storage');
    else if (signer && r.mac === undefined) add(i + 1, 'is not signed (written by an older version of the extension, without a key, or by someone else): it cannot be verified');
    else if (signer && r.key !== signer.id) add(i + 1, `is signed with a key this editor does not have (${String(r.key)}: another machine, or the secret storage was cleared): it cannot be verified`);
    else if (signer && !signer.verify(r)) add(i + 1, 'its signature does not match (it was not written by this editor: forged or edited)');
    else if (r.event === 'integrity') add(i + 1, describeIntegrity(r));
    hashes.push((prev = typeof hash === 'string' ? hash : undefined));
  }
  if (head && head.seq > 0) {
    if (lines.length < head.seq) add(lines.length + 1, `the log ends at record ${lines.length}, but the extension wrote ${head.seq} (records were removed from the end)`);
    else if (hashes[head.seq - 1] !== head.hash) add(head.seq, 'it is not the record the extension wrote there (the chain was rewritten)');
  }
  if (!problems.length) return { ok: true, records: lines.length };
  const [first, ...more] = problems;
  return { ok: false, records: lines.length, ...first, ...(more.length ? { more } : {}) };
}

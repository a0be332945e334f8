/**
 * The audit log: append-only JSONL, one record per decision and per effect, each carrying the hash
 * of the previous record (a hash chain) and, with a key store, an HMAC by a key kept in the editor's
 * secret storage (`auditKey.ts`), so that editing, deleting or appending a line is detectable.
 * Secrets are redacted before writing; each append is fsync'ed before the effect is reported done.
 *
 * On {@link AuditLog.open} the file's tail is compared with the head kept outside the file (the
 * last record the extension wrote): records cut from the end, a rewritten log, records appended by
 * someone else, or a tail signed with a key this editor does not have are each recorded as an
 * `integrity` record of their own (never healed silently) and reported, and `verifyAudit` keeps
 * naming them. Uses `node:fs`; no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadAuditKey, type AuditKeyStore, type AuditSigner } from './auditKey';
import { describeIntegrity, GENESIS, recordHash, verifyAudit, type AuditEntry, type AuditRecord, type AuditVerification } from './auditVerify';
import { redactValue } from './redact';

export { describeIntegrity, recordHash, verifyAudit, type AuditEntry, type AuditProblem, type AuditRecord, type AuditVerification } from './auditVerify';

/**
 * Where the log's head (last sequence number and hash) is kept outside the file (VS Code's
 * workspaceState): removing records from the end, or rewriting the whole chain, then shows.
 */
export interface AuditHeadStore {
  get(): { seq: number; hash: string } | undefined;
  set(head: { seq: number; hash: string }): void;
}

/** What {@link AuditLog.open} found: sentences for the person (empty when the tail is the one written). */
export interface AuditOpening {
  problems: string[];
  /** True when records are signed from now on. */
  signed: boolean;
}

/** Thrown by {@link AuditLog.append} on a signed log that is not open yet (fail closed: the effect does not go ahead). */
export class AuditNotOpenError extends Error {
  constructor() {
    super('The audit log is still opening (its signing key is being read from the secret storage); try again in a moment.');
  }
}

/** Appends hash-chained (and, with a key store, signed) records to one JSONL file. */
export class AuditLog {
  private last: { seq: number; hash: string } | undefined;
  private signer: AuditSigner | undefined;
  private opening: Promise<AuditOpening> | undefined;
  private opened = false;
  /** The key store failed: records are unsigned, and verification says none can be verified. */
  private keyFailed = false;

  /**
   * @param keys where the signing key is kept; without it records are hash-chained only (tests, the
   * host process fake) and {@link append} works without {@link open}.
   */
  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
    readonly head?: AuditHeadStore,
    private readonly keys?: AuditKeyStore,
  ) {}

  /**
   * Reads (or creates) the key and compares the file's tail with the stored head; records what it
   * found as `integrity` records. Once per log (later calls share the first); never rejects.
   */
  open(): Promise<AuditOpening> {
    this.opening ??= this.doOpen();
    return this.opening;
  }

  private async doOpen(): Promise<AuditOpening> {
    const problems: string[] = [];
    let created = false;
    if (this.keys) {
      try {
        ({ signer: this.signer, created } = await loadAuditKey(this.keys));
      } catch (err) {
        this.keyFailed = true;
        problems.push(`The audit log's signing key could not be read or stored (${err instanceof Error ? err.message : String(err)}): records are not signed and cannot be verified.`);
      }
    }
    let lines: string[] = [];
    try {
      lines = (await fs.promises.readFile(this.file, 'utf8')).split('\n').filter(Boolean);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`The audit log could not be read (${String(err)}).`);
    }
    const records = lines.map(parseRecord);
    const tail = records.at(-1);
    // A torn last line: chain on from a marker so verify() names it.
    this.last = lines.length ? (tail ? { seq: tail.seq, hash: tail.hash } : { seq: lines.length, hash: 'torn' }) : { seq: 0, hash: GENESIS };
    this.opened = true;
    const found: AuditEntry[] = [];
    const head = this.head?.get();
    if (head && head.seq > 0) {
      if (lines.length < head.seq) found.push(integrity('records_missing', { from: lines.length + 1, to: head.seq, hashWritten: head.hash }));
      else if (records[head.seq - 1]?.hash !== head.hash) found.push(integrity('record_replaced', { seq: head.seq, hashWritten: head.hash }));
      else if (this.signer) {
        // Records after the head are ours only when signed: the head's update can be lost in a crash, the file's fsync'ed line not.
        const foreign = records.slice(head.seq).findIndex((r) => !r || !this.signer!.verify(r));
        if (foreign >= 0) found.push(integrity('records_not_signed', { from: head.seq + foreign + 1, to: lines.length }));
      }
    }
    if (this.signer && lines.length && !(tail && this.signer.verify(tail))) {
      const reason = !tail ? 'its last line is torn' : tail.mac === undefined ? 'its last record is not signed' : tail.key !== this.signer.id ? `its last record is signed with key ${String(tail.key)}, which is not in this editor's secret storage (another machine, or the storage was cleared)` : 'its last record has a signature that does not match';
      found.push(integrity('new_signed_segment', { reason, previousKey: tail?.key ?? null, keyCreated: created }));
    }
    for (const e of found) {
      try {
        this.append(e);
        problems.push(`Audit log: ${describeIntegrity(e)}.`);
      } catch (err) {
        problems.push(`Audit log: ${describeIntegrity(e)}; this could not be recorded (${String(err)}).`);
      }
    }
    return { problems, signed: !!this.signer };
  }

  private tail(): { seq: number; hash: string } {
    if (this.last) return this.last;
    let seq = 0;
    let hash = GENESIS;
    if (fs.existsSync(this.file)) {
      const lines = fs.readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
      const lastLine = lines.at(-1);
      if (lastLine) {
        const r = parseRecord(lastLine);
        // A torn last line: chain on from a marker so verify() names it.
        ({ seq, hash } = r ?? { seq: lines.length, hash: 'torn' });
      }
    }
    this.last = { seq, hash };
    return this.last;
  }

  /**
   * Redacts, chains, signs and appends one entry; the line is on disk (fsync) when this returns.
   * @throws AuditNotOpenError on a log with a key store before {@link open} has finished; the
   * file system's error when the line cannot be written.
   */
  append(entry: AuditEntry): AuditRecord {
    if (this.keys && !this.opened) throw new AuditNotOpenError();
    const { seq, hash } = this.tail();
    const body: Omit<AuditRecord, 'hash' | 'mac'> = { ...redactValue(entry), seq: seq + 1, time: this.now().toISOString(), prev: hash, ...(this.signer ? { key: this.signer.id } : {}) };
    const record: AuditRecord = { ...body, hash: recordHash(body) };
    if (this.signer) record.mac = this.signer.sign(record);
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

  /** {@link append} once the log is open (for records of things already done, which need not hold up anything). */
  async appendWhenOpen(entry: AuditEntry): Promise<AuditRecord> {
    await this.open();
    return this.append(entry);
  }

  /**
   * Verifies the whole file (after {@link open}): the chain, the stored head and, on a log with a
   * key store, every record's signature. An absent file is an empty, valid log.
   */
  async verify(): Promise<AuditVerification> {
    await this.open();
    let text = '';
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return verifyAudit(text, this.head?.get(), this.keys ? (this.keyFailed ? null : this.signer) : undefined);
  }
}

function integrity(decision: string, detail: Record<string, unknown>): AuditEntry {
  return { sessionId: '*', agentId: '*', event: 'integrity', decision, decidedBy: 'audit-log', detail };
}

function parseRecord(line: string): AuditRecord | undefined {
  try {
    const r = JSON.parse(line) as AuditRecord;
    return typeof r === 'object' && r !== null && typeof r.seq === 'number' && typeof r.hash === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

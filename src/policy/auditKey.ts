/**
 * The audit log's signing key: 32 random bytes kept in the editor's secret storage (VS Code's
 * SecretStorage, through {@link AuditKeyStore}), never in the log, a setting, a log line or a span.
 * Each record carries an HMAC-SHA-256 over its RFC 8785 canonical form (without the `mac` field), so
 * someone who can write the file but not read the secret storage cannot append records that verify,
 * even with a correct hash chain. The record names its key by {@link AuditSigner.id}, a hash of the
 * key that reveals nothing of it. No `vscode`.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from './intent';

/** Where the key is kept (VS Code: `ExtensionContext.secrets`). Values are base64 strings. */
export interface AuditKeyStore {
  get(): PromiseLike<string | undefined>;
  store(value: string): PromiseLike<void>;
}

const KEY_BYTES = 32;

/** Signs and checks records with one key. */
export class AuditSigner {
  /** 16 hex digits naming the key in each record (a hash of it: the key cannot be derived from it). */
  readonly id: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`an audit key has ${KEY_BYTES} bytes, not ${key.length}`);
    this.id = createHash('sha256').update('agent-switchboard audit key id\0').update(key).digest('hex').slice(0, 16);
  }

  /** The HMAC-SHA-256 (hex) of `record` without its `mac` field. */
  sign(record: object): string {
    const { mac: _mac, ...rest } = record as { mac?: unknown };
    return createHmac('sha256', this.key).update(canonicalJson(rest)).digest('hex');
  }

  /** True when `record` names this key and its `mac` is the one {@link sign} gives (constant-time compare). */
  verify(record: { key?: unknown; mac?: unknown }): boolean {
    if (record.key !== this.id || typeof record.mac !== 'string' || !/^[0-9a-f]{64}$/.test(record.mac)) return false;
    return timingSafeEqual(Buffer.from(record.mac, 'hex'), Buffer.from(this.sign(record), 'hex'));
  }
}

/**
 * The stored key, or a new one stored first (`created`). A stored value that is not a key of the
 * right size is replaced. After storing, the key is read back: when another window stored one at
 * the same moment, both use the one that stayed.
 * @throws whatever the store throws (the secret storage is unavailable).
 */
export async function loadAuditKey(store: AuditKeyStore): Promise<{ signer: AuditSigner; created: boolean }> {
  const existing = decode(await store.get());
  if (existing) return { signer: new AuditSigner(existing), created: false };
  const fresh = randomBytes(KEY_BYTES);
  await store.store(fresh.toString('base64'));
  const kept = decode(await store.get()) ?? fresh;
  return { signer: new AuditSigner(kept), created: true };
}

function decode(value: string | undefined): Buffer | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const key = Buffer.from(value, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

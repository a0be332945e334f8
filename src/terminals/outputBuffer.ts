/**
 * A bounded byte store for one terminal's output (ACP v1 "Terminals" → `terminal/output`).
 *
 * A chatty command can print gigabytes; keeping all of it only to hand back the last megabyte
 * would let an agent exhaust the extension host's memory. This ring buffer therefore retains at
 * most `limit` bytes, grows lazily (a large limit costs nothing until output arrives) and drops
 * the oldest bytes at a UTF-8 character boundary, as the spec requires.
 */

import { StringDecoder } from 'node:string_decoder';
import { decodeUtf8, isUtf8ContinuationByte, truncateUtf8Front } from './utf8';

/** Default `outputByteLimit` when the agent gives none: 1 MiB. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;

/** First allocation of the ring; small so that quiet terminals stay cheap. */
const INITIAL_CAPACITY = 16 * 1024;

/** Snapshot of the retained output, as reported by `terminal/output`. */
export interface OutputText {
  /** The retained output, decoded; never starts with a split character. */
  text: string;
  /** True once any byte has been dropped because of the limit. */
  truncated: boolean;
}

/**
 * Ring buffer of UTF-8 bytes with a hard byte limit.
 *
 * Callers must append whole characters only (no chunk ends inside a character); the terminal
 * ensures that by holding back, per stream, the start of a character a chunk ends in. With that
 * guarantee the only split the buffer can create is at its own front, which it repairs.
 */
export class OutputBuffer {
  /** Maximum retained bytes. */
  readonly limit: number;
  private ring: Buffer;
  /** Offset of the oldest retained byte in `ring`. */
  private start = 0;
  /** Number of retained bytes. */
  private size = 0;
  private dropped = false;
  /** Bumped on every change so `read` can reuse its last decode. */
  private version = 0;
  private cache: { version: number; value: OutputText } | undefined;

  /**
   * @param limit - Maximum bytes to retain; a non-negative integer.
   * @throws RangeError when `limit` is negative or not an integer.
   */
  constructor(limit: number = DEFAULT_OUTPUT_BYTE_LIMIT) {
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(`output byte limit must be a non-negative integer, got ${limit}`);
    }
    this.limit = limit;
    this.ring = Buffer.alloc(Math.min(limit, INITIAL_CAPACITY));
  }

  /** Bytes currently retained (≤ `limit`). */
  get byteLength(): number {
    return this.size;
  }

  /** True once any output has been dropped because of the limit. */
  get truncated(): boolean {
    return this.dropped;
  }

  /**
   * Appends bytes, dropping the oldest retained bytes when the limit would be exceeded.
   *
   * @param chunk - Complete UTF-8 characters (see the class comment).
   */
  append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.version++;
    if (chunk.length >= this.limit) {
      // The chunk alone fills the limit: everything older goes, and the chunk is cut itself.
      const kept = truncateUtf8Front(chunk, this.limit).bytes;
      this.dropped ||= this.size > 0 || kept.length < chunk.length;
      this.start = 0;
      this.size = 0;
      this.ensureCapacity(kept.length);
      this.write(kept);
      return;
    }
    const needed = this.size + chunk.length;
    if (needed > this.ring.length) this.ensureCapacity(needed);
    // After ensureCapacity the ring is either big enough or already at `limit` bytes.
    const overflow = needed - this.ring.length;
    if (overflow > 0) this.discard(overflow);
    this.write(chunk);
    if (overflow > 0) this.skipPartialCharacter();
  }

  /** Returns the retained output decoded; repeated calls without new output reuse one decode. */
  read(): OutputText {
    if (this.cache?.version !== this.version) {
      this.cache = { version: this.version, value: { text: this.decode(), truncated: this.dropped } };
    }
    return this.cache.value;
  }

  /**
   * Decodes the retained bytes in place, without first copying them into one buffer (a snapshot
   * of a full 1 MiB terminal would otherwise allocate twice): a string decoder carries a character
   * that straddles the ring's wrap point from one part to the other.
   */
  private decode(): string {
    const firstPart = Math.min(this.size, this.ring.length - this.start);
    if (firstPart === this.size) return decodeUtf8(this.ring.subarray(this.start, this.start + this.size));
    const d = new StringDecoder('utf8');
    return d.write(this.ring.subarray(this.start, this.start + firstPart)) + d.write(this.ring.subarray(0, this.size - firstPart)) + d.end();
  }

  /** Returns a contiguous copy of the retained bytes, oldest first. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.size);
    const firstPart = Math.min(this.size, this.ring.length - this.start);
    this.ring.copy(out, 0, this.start, this.start + firstPart);
    if (firstPart < this.size) this.ring.copy(out, firstPart, 0, this.size - firstPart);
    return out;
  }

  /** Frees the storage; the buffer reads as empty afterwards (used when a terminal is released). */
  clear(): void {
    this.version++;
    this.ring = Buffer.alloc(0);
    this.start = 0;
    this.size = 0;
  }

  /** Grows the ring (doubling, capped at `limit`) and unwraps the contents to offset 0. */
  private ensureCapacity(needed: number): void {
    if (needed <= this.ring.length) return;
    const capacity = Math.min(this.limit, Math.max(needed, this.ring.length * 2));
    if (capacity <= this.ring.length) return;
    const next = Buffer.alloc(capacity);
    this.bytes().copy(next, 0);
    this.ring = next;
    this.start = 0;
  }

  /** Copies `chunk` behind the newest byte; the caller has made room for it. */
  private write(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const cap = this.ring.length;
    const at = (this.start + this.size) % cap;
    const firstPart = Math.min(chunk.length, cap - at);
    this.ring.set(chunk.subarray(0, firstPart), at);
    if (firstPart < chunk.length) this.ring.set(chunk.subarray(firstPart), 0);
    this.size += chunk.length;
  }

  /** Drops `count` of the oldest bytes. */
  private discard(count: number): void {
    this.start = (this.start + count) % this.ring.length;
    this.size -= count;
    this.dropped = true;
  }

  /** After dropping from the front, removes the tail of a character whose lead byte went. */
  private skipPartialCharacter(): void {
    for (let i = 0; i < 3 && this.size > 0 && isUtf8ContinuationByte(this.ring[this.start]!); i++) {
      this.discard(1);
    }
  }
}

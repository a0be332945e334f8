/**
 * UTF-8 helpers for terminal output limits (ACP v1 "Terminals" → `outputByteLimit`).
 *
 * The spec says the client drops the oldest output when it exceeds the byte limit and MUST cut
 * at a character boundary, even if that keeps slightly fewer bytes than the limit. These helpers
 * do that cut on raw bytes so nothing ever decodes half a character into U+FFFD.
 */

/** Longest run of continuation bytes a well-formed UTF-8 character can have (4-byte form). */
const MAX_CONTINUATION_BYTES = 3;

/**
 * Tells whether `byte` is a UTF-8 continuation byte (`0b10xxxxxx`), i.e. not the first byte of
 * a character.
 *
 * @param byte - One byte, 0–255.
 */
export function isUtf8ContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * Returns the first character boundary at or after `index` in `bytes`.
 *
 * At most three continuation bytes are skipped, because no well-formed character has more; on
 * malformed input the cut therefore stays close to `index` instead of eating unrelated bytes.
 *
 * @param bytes - UTF-8 encoded bytes.
 * @param index - Byte offset to start from; values past the end return `bytes.length`.
 * @returns A byte offset in `[index, min(index + 3, bytes.length)]`.
 */
export function utf8BoundaryAtOrAfter(bytes: Uint8Array, index: number): number {
  let i = Math.min(Math.max(0, index), bytes.length);
  const stop = Math.min(bytes.length, i + MAX_CONTINUATION_BYTES);
  while (i < stop && isUtf8ContinuationByte(bytes[i]!)) i++;
  return i;
}

/**
 * Returns the length of the longest prefix of `bytes` that does not end inside a character: a
 * lead byte at the end whose sequence is not complete yet is left out, with its continuation
 * bytes. Malformed input is not judged here (the decoder replaces it); only a sequence that could
 * still complete is held back, so at most three bytes are.
 *
 * @param bytes - UTF-8 encoded bytes, e.g. one chunk read from a pipe.
 * @returns A byte offset in `[max(0, bytes.length - 3), bytes.length]`.
 */
export function completeUtf8Prefix(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let j = n - 1; j >= 0 && j >= n - 4; j--) {
    const b = bytes[j]!;
    if (isUtf8ContinuationByte(b)) continue;
    const length = b >= 0xf0 && b <= 0xf7 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return b >= 0xf8 || j + length <= n ? n : j;
  }
  return n;
}

/** Result of {@link truncateUtf8Front}. */
export interface Utf8TruncateResult {
  /** The kept bytes: a suffix of the input, at most `limit` bytes long, starting on a character. */
  bytes: Uint8Array;
  /** `bytes` decoded as UTF-8. */
  text: string;
  /** True when any input byte was dropped (by the limit or by the boundary adjustment). */
  truncated: boolean;
}

/**
 * Keeps the newest bytes of `input` that fit in `limit` bytes, cut at a UTF-8 character boundary.
 *
 * This is the rule ACP v1 gives for `terminal/output` with `outputByteLimit`: drop from the
 * beginning, never split a character. When the cut lands inside a multibyte character, the rest
 * of that character is dropped too, so the result may be up to three bytes shorter than `limit`.
 * The returned `bytes` is a view into `input` (no copy).
 *
 * @param input - UTF-8 encoded bytes, oldest first.
 * @param limit - Maximum bytes to keep; a non-negative integer (0 keeps nothing).
 * @throws RangeError when `limit` is negative or not an integer.
 */
export function truncateUtf8Front(input: Uint8Array, limit: number): Utf8TruncateResult {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`limit must be a non-negative integer number of bytes, got ${limit}`);
  }
  const start = input.length > limit ? utf8BoundaryAtOrAfter(input, input.length - limit) : 0;
  const bytes = input.subarray(start);
  return { bytes, text: decodeUtf8(bytes), truncated: start > 0 };
}

/**
 * Decodes UTF-8 bytes to a string; malformed sequences become U+FFFD as in `TextDecoder`.
 *
 * @param bytes - UTF-8 encoded bytes.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * Encodings and line endings of files the agent writes: a file keeps its own encoding (UTF-8 with or
 * without BOM, UTF-16LE/BE, GBK, any encoding iconv-lite knows) and its own line endings (a CRLF file
 * stays CRLF when the agent writes LF text). Bytes that do not decode are refused with a clear error,
 * never mangled. Pure; `iconv-lite` does the decoding and encoding of everything but UTF-8, which
 * Node does itself: iconv-lite's code tables are ~0.5 MB of the bundle, so they are a bundle of their
 * own (`dist/vendor/iconv.js`, see `src/vendor/iconv.ts`), required the first time a file is not
 * UTF-8 (PF6).
 */
import { StringDecoder } from 'node:string_decoder';
import type Iconv from '../vendor/iconv';
import { lazy } from '../common/lazy';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
const iconv = lazy(() => (require('../vendor/iconv') as { default: typeof Iconv }).default);

// `utf8bom` is VS Code's name for UTF-8 written with a BOM; the BOM itself decides that here.
const isUtf8 = (encoding: string) => /^utf-?8(bom)?$/i.test(encoding);

/** How a file is stored. */
export interface TextFormat {
  /** iconv-lite encoding name, e.g. `utf8`, `utf16le`, `utf16be`, `gbk`. */
  encoding: string;
  /** Whether the file starts with a byte-order mark. */
  bom: boolean;
  /** The file's line ending; `\n` for a file without line breaks. */
  eol: '\n' | '\r\n';
}

/** A file that cannot be read as text in the encoding it claims or was given. */
export class UndecodableError extends Error {
  constructor(readonly encoding: string, detail: string) {
    super(`The file is not valid ${encoding} text (${detail}); it is left untouched. Set its encoding (files.encoding) if it is not ${encoding}.`);
    this.name = 'UndecodableError';
  }
}

/** The dominant line ending of a text: CRLF when at least half of its line breaks are CRLF. */
export function detectEol(text: string): '\n' | '\r\n' {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = text.match(/\n/g)?.length ?? 0;
  return crlf > 0 && crlf * 2 >= lf ? '\r\n' : '\n';
}

/** Rewrites every line break of `text` as `eol`. */
export function withEol(text: string, eol: '\n' | '\r\n'): string {
  return text.replace(/\r\n|\r|\n/g, eol);
}

/**
 * Decodes a file's bytes. A BOM decides the encoding; else `hint` (the editor's encoding for the
 * file) is used; else UTF-8, strictly.
 * @throws {UndecodableError} for invalid UTF-8, or bytes the hinted encoding cannot represent.
 */
export function decodeFile(bytes: Uint8Array, hint?: string): { text: string; format: TextFormat } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let encoding = hint && !isUtf8(hint) && iconv().encodingExists(hint) ? hint.toLowerCase() : 'utf8';
  let bom = false;
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) [encoding, bom] = ['utf8', true];
  else if (buf[0] === 0xff && buf[1] === 0xfe) [encoding, bom] = ['utf16le', true];
  else if (buf[0] === 0xfe && buf[1] === 0xff) [encoding, bom] = ['utf16be', true];
  let text: string;
  if (encoding === 'utf8' || encoding === 'utf-8') {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
    } catch {
      throw new UndecodableError('UTF-8', 'invalid byte sequence');
    }
  } else {
    text = iconv().decode(buf, encoding, { stripBOM: true });
    // iconv-lite substitutes U+FFFD for bytes it cannot map; a round trip that differs means loss.
    if (text.includes('\ufffd') && !iconv().encode(text, encoding, { addBOM: bom }).equals(buf)) {
      throw new UndecodableError(encoding, 'bytes that do not map to characters');
    }
  }
  return { text, format: { encoding, bom, eol: detectEol(text) } };
}

/**
 * Encodes `text` in the file's format: its line endings, its encoding, its BOM.
 * @param eol `normalize` (default) gives every line the file's line ending, for new text (an
 *   agent's); `keep` writes the line endings `text` has, for text that is exact to the byte (an
 *   Undo's: the file's own lines with the agent's taken out, mixed endings included).
 * @throws {UndecodableError} when the text has characters the encoding cannot represent (e.g. an
 *   emoji into GBK), rather than writing `?` for them.
 */
export function encodeFile(text: string, format: TextFormat, eol: 'normalize' | 'keep' = 'normalize'): Uint8Array {
  const normalized = eol === 'keep' ? text : withEol(text, format.eol);
  const utf8 = isUtf8(format.encoding);
  const bytes = utf8 ? Buffer.concat([Buffer.from(format.bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(normalized, 'utf8')]) : iconv().encode(normalized, format.encoding, { addBOM: format.bom });
  // A lone surrogate has no UTF-8 form (it would become U+FFFD); other encodings lack characters.
  // The decode strips a leading BOM as iconv-lite's does: text that starts with U+FEFF is refused
  // rather than turning into a BOM the file did not have.
  const decoded = utf8 ? bytes.toString('utf8') : iconv().decode(bytes, format.encoding, { stripBOM: true });
  const back = utf8 && decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (back !== normalized) {
    throw new UndecodableError(format.encoding, 'the new text has characters this encoding cannot store');
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A streaming decoder for text that arrives in chunks: a multi-byte character split across two
 * chunks is decoded whole, never as two replacement characters.
 */
export function chunkDecoder(encoding: string): { write(chunk: Uint8Array): string; end(): string } {
  if (isUtf8(encoding)) {
    // As iconv-lite's decoder: a BOM at the very start is not text.
    const d = new StringDecoder('utf8');
    let first = true;
    const strip = (text: string) => {
      if (first && text) {
        first = false;
        return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      }
      return text;
    };
    return { write: (chunk) => strip(d.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))), end: () => strip(d.end()) };
  }
  const d = iconv().getDecoder(encoding);
  return { write: (chunk) => d.write(Buffer.from(chunk)), end: () => d.end() ?? '' };
}

/**
 * Text helpers for client-hosted file access (ACP `fs/read_text_file`). Pure; no `vscode`.
 */
import { createHash } from 'node:crypto';

/**
 * The lines `[line, line + limit)` of `text` (ACP: `line` is 1-based, `limit` counts lines).
 * Line breaks are `\n` or `\r\n`; a sliced result joins lines with `\n` and never ends a line with a
 * stray `\r`. Without `line` and `limit` the text is returned unchanged.
 * A `line` past the end yields `''`; `line < 1` is treated as 1; `limit <= 0` yields `''`.
 */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (line == null && limit == null) return text;
  const start = Math.max(1, line ?? 1) - 1;
  if (limit != null && limit <= 0) return '';
  const lines = text.split(/\r?\n/);
  // A trailing newline makes split() yield a final '' that is not a line of the file.
  const hadFinalNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (hadFinalNewline) lines.pop();
  if (start >= lines.length) return '';
  const end = limit == null ? lines.length : Math.min(lines.length, start + limit);
  const body = lines.slice(start, end).join('\n');
  return end === lines.length && !hadFinalNewline ? body : body + '\n';
}

/** SHA-256 of the UTF-8 bytes of `text`, as lowercase hex. */
export function sha256Text(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

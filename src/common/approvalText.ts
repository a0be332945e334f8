/**
 * The text of a prompt that approves something: all of it, exactly as it is, or a refusal.
 *
 * A prompt that cuts what it approves lets whatever sorts after the cut through unseen (three long
 * dull file names first, `.vscode/tasks.json` fourth; a URL whose host comes after 500 characters of
 * user name). {@link inert} makes untrusted text safe to show, but to do so it may cut it, fold its
 * lines, drop invisible characters and split link syntax, so what it shows is not always what is
 * approved. {@link approvalText} shows each item only when showing it changes nothing, one item a
 * line and never more than a prompt shows whole; otherwise it says why, and the prompt must not
 * offer to approve it. Pure (no `vscode`).
 */
import { inert } from './untrustedText';

/** Most characters a prompt's detail holds whole: about a hundred lines of a modal dialog. */
export const MAX_APPROVAL_CHARS = 8192;

/** What a prompt shows of the things it approves: all of them, or why it cannot. */
export type ApprovalText = { ok: true; text: string } | { ok: false; reason: string };

/** Options of {@link approvalText}. */
export interface ApprovalTextOptions {
  /** Most characters of the whole text; default {@link MAX_APPROVAL_CHARS}. */
  max?: number;
  /** What the items are, for the refusal: "The protected files", "The address". Default "What is to be approved". */
  what?: string;
  /** Items are paragraphs of our own layout that may hold `\n` line breaks (and blank lines); no other break. */
  multiline?: boolean;
}

/**
 * `items` one a line, exactly as they are, when every item shows as itself and the whole fits in a
 * prompt; else a refusal saying why (the items are not repeated in it: they could not be shown).
 * An item shows as itself when it is not empty, holds no line break, does not begin or end with a
 * space, and {@link inert} would leave it unchanged (no control, invisible or direction-changing
 * character, no tab, no `](`, `$(` or `<scheme:` that a surface reads as a link or an icon).
 */
export function approvalText(items: readonly string[], options: ApprovalTextOptions = {}): ApprovalText {
  const max = options.max ?? MAX_APPROVAL_CHARS;
  const what = options.what ?? 'What is to be approved';
  if (!items.length) return { ok: false, reason: `${what}: nothing to show.` };
  for (let i = 0; i < items.length; i++) {
    const why = unshowable(items[i], options.multiline === true);
    if (why) return { ok: false, reason: `${what} cannot be shown whole: ${items.length > 1 ? `the ${ordinal(i + 1)} of ${items.length} ` : ''}${why}.` };
  }
  const text = items.join('\n');
  if (text.length > max) return { ok: false, reason: `${what} cannot be shown whole: ${text.length.toLocaleString('en')} characters, more than the ${max.toLocaleString('en')} a prompt shows.` };
  return { ok: true, text };
}

/** Why `item` would not show as itself, or undefined. */
function unshowable(item: string, multiline: boolean): string | undefined {
  if (item.length === 0) return 'is empty';
  if ((multiline ? /[\r\u0085\u2028\u2029]/ : /[\r\n\u0085\u2028\u2029]/).test(item)) return 'holds a line break';
  if (item.trim() !== item) return 'begins or ends with a space';
  // `multiline` keeps line breaks and runs of spaces, so only a real change shows here.
  if (inert(item, { max: item.length + 1, multiline: true }) !== item) return 'holds a character that cannot be shown as it is (a control, invisible or direction-changing character, a tab, or text read as a link or an icon)';
  return undefined;
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

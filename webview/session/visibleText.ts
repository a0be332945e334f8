/**
 * Text that must read the same on screen as it is in memory: command lines, working folders and
 * paths on a permission card, and the content the person approves. Bidirectional controls
 * (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) would reorder what is shown ("Trojan
 * Source", CVE-2021-42574), and invisible characters (zero-width, other format characters, C0/C1
 * controls, line and paragraph separators) would hide part of it. Each is shown as a visible escape
 * `⟨U+202E⟩` instead, so the person sees that it is there and which it is. Pure.
 */

/**
 * Characters that do not show as themselves: every format character (Cf: bidi controls, zero-width
 * space/joiners, word joiner, BOM, soft hyphen, tags…), every control character (Cc) but tab and
 * line feed, the line and paragraph separators, and the Hangul and braille blanks that render empty.
 */
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000B-\u001F\u007F-\u009F\u115F\u1160\u2800\u3164\uFFA0]/gu;

/** Same, for one-line text (a command line, a folder, a path), where a tab or line feed also hides text. */
const INVISIBLE_ONE_LINE = /[\p{Cf}\p{Zl}\p{Zp}\p{Cc}\u115F\u1160\u2800\u3164\uFFA0]/gu;

function escape(ch: string): string {
  return `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * `text` with every bidi control and invisible character replaced by a visible `⟨U+XXXX⟩`; tabs and
 * line feeds are kept (multi-line content), unless `oneLine`, when they are escaped too.
 */
export function visibleText(text: string, oneLine = false): string {
  return text.replace(oneLine ? INVISIBLE_ONE_LINE : INVISIBLE, escape);
}

/** True when {@link visibleText} changes `text`: the card then says that the text holds hidden characters. */
export function hasInvisible(text: string, oneLine = false): boolean {
  return visibleText(text, oneLine) !== text;
}

/**
 * Untrusted text made inert for the editor's own surfaces (issue 16, finding 1).
 *
 * Text from an agent, an MCP server or app, a remote agent, a repository or a web page must never
 * become a link, markup, an icon or a layout trick when the extension shows it. VS Code parses
 * markup in several places that look like plain text:
 *
 * - notifications (`window.show{Information,Warning,Error}Message`, progress notifications) and
 *   quick input prompts parse `[label](target "title")` with `parseLinkedText`
 *   (src/vs/base/common/linkedText.ts) and open the target with `allowCommands: true`, so
 *   `[Allow](command:agentSwitchboard.answerPermission?[…])` runs a command with arguments;
 * - quick pick labels, descriptions and details, the status bar and tree labels render `$(name)`
 *   as a codicon (src/vs/base/browser/ui/iconLabel/iconLabels.ts), which lets text fake a ✓ or a
 *   shield;
 * - `MarkdownString` renders Markdown: links, autolinked `https://…` and `www.…`, emphasis, code,
 *   and with `supportHtml` or `supportThemeIcons` more.
 *
 * {@link inert} turns any value into one line of plain text that none of these parsers reads as
 * markup; {@link text} is a tagged template that applies it to every interpolated value, so a call
 * site cannot forget one; {@link markdownText} / {@link markdown} do the same for Markdown. The
 * lint rule in eslint.config.mjs makes the first argument of every `show*Message` a literal or a
 * `text` template; {@link markdownCodeBlock} shows untrusted lines as code. This module is pure
 * (no `vscode`), so it is unit-tested under plain Node.
 */

/** How many characters (code points) one interpolated value keeps by default. */
export const INERT_MAX = 500;

/** Options of {@link inert}. */
export interface InertOptions {
  /** The most code points kept; longer text ends in `…`. Default {@link INERT_MAX}. */
  max?: number;
  /** Keep line breaks (as `\n`) instead of folding them into spaces: for plain-string tooltips. */
  multiline?: boolean;
}

// Bidirectional formatting characters reorder what is shown ("Trojan Source", CVE-2021-42574):
// shown as U+FFFD so the person sees that something was there.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// C0 and C1 controls and DEL, except tab and the line breaks handled apart.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g;
// Invisible characters that only serve to hide or split words (zero-width space, word joiner, BOM,
// Mongolian vowel separator); zero-width (non-)joiners stay, emoji and scripts need them.
const INVISIBLE = /[\u180e\u200b\u2060-\u2064\ufeff]/g;
const LINE_BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/g;
// The two-character openings that the editor's parsers need adjacent: `](` ends a link label and
// starts its target (every form parseLinkedText and Markdown accept), `$(` starts a codicon. A space
// between them keeps the text readable and leaves nothing to parse. Fullwidth and other lookalike
// brackets are not syntax for any of the parsers, so they stay as they are.
const LINK_JOINT = /\]\(/g;
const ICON_JOINT = /\$\(/g;
// `<scheme:…>` is an autolink in Markdown and a link in some renderers; `<` followed by a letter
// cannot form one once the bracket is split from it.
const ANGLE_LINK = /<(?=[a-z][a-z0-9+.-]*:)/gi;

/**
 * Any value as one line of inert plain text: safe in a notification, a quick pick (label,
 * description, detail), a quick input prompt or title, a tree item (label, description, string
 * tooltip) and the status bar.
 *
 * Link syntax (`[label](target)`, with any label, target, title or whitespace) and codicon syntax
 * (`$(name)`) are split so that no parser reads them; line breaks become spaces (kept with
 * `multiline`); tabs become spaces; control characters are dropped; bidirectional overrides become
 * U+FFFD; the result is capped at `max` code points. `null`/`undefined` become the empty string;
 * an `Error` gives its message; other objects are shown with `String()`.
 */
export function inert(value: unknown, options: InertOptions = {}): string {
  const max = Math.max(1, options.max ?? INERT_MAX);
  let s = value === undefined || value === null ? '' : value instanceof Error ? value.message : String(value);
  // Capping first bounds the work on huge input; the cap is applied again after the rewrite.
  if (s.length > max * 4 + 64) s = s.slice(0, max * 4 + 64);
  s = s
    .replace(LINE_BREAK, options.multiline ? '\n' : ' ')
    .replace(/\t/g, ' ')
    .replace(CONTROL, '')
    .replace(INVISIBLE, '')
    .replace(BIDI, '\ufffd');
  // After the removals above, so that a dropped control character cannot join a pair again.
  s = s.replace(LINK_JOINT, '] (').replace(ICON_JOINT, '$ (').replace(ANGLE_LINK, '< ');
  if (!options.multiline) s = s.replace(/ {2,}/g, ' ').trim();
  return capCodePoints(s, max);
}

/**
 * A tagged template whose literal parts are the extension's own text and whose every interpolated
 * value goes through {@link inert} (capped at {@link INERT_MAX} code points each). Use it for every
 * message, label and prompt that names anything an agent, server, app or repository chose:
 *
 * ```ts
 * void vscode.window.showWarningMessage(text`${agentName} asks permission: ${title}`);
 * ```
 */
export function text(strings: TemplateStringsArray, ...values: unknown[]): string {
  return translate(strings, values.map((v) => inert(v)));
}

/**
 * Translates one message: `message` is the template's literal parts joined by `{0}`, `{1}`, … (the
 * placeholders of `vscode.l10n.t` and package.nls.json bundles), `args` the values already made
 * inert. It must put each value in once and may not read them as markup.
 */
export type MessageTranslator = (message: string, args: string[]) => string;

/** Without a translator (unit tests, plain Node) a message is its template with the values in place. */
const substitute: MessageTranslator = (message, args) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? args[Number(i)] : m));

let translator: MessageTranslator = substitute;

/**
 * Routes every {@link text} and {@link markdown} message through the editor's localization
 * (extension.ts passes `vscode.l10n.t`), so the extension's own words are translatable while the
 * values stay inert. One translator per process; returns a function that restores the default.
 */
export function setMessageTranslator(t: MessageTranslator): () => void {
  translator = t;
  return () => (translator = substitute);
}

/** The template's literal parts as one message with `{n}` placeholders, through the translator. */
function translate(strings: TemplateStringsArray, args: string[]): string {
  let message = strings[0];
  for (let i = 0; i < args.length; i++) message += `{${i}}` + strings[i + 1];
  try {
    return translator(message, args);
  } catch {
    return substitute(message, args);
  }
}

/**
 * Untrusted text as Markdown source that renders as exactly that text: every ASCII punctuation
 * character is backslash-escaped (CommonMark lets any of them be escaped), so no emphasis, link,
 * autolink (`https\://`, `www\.`, `a\@b`), HTML, code span or theme icon survives. Apply
 * {@link inert} rules first (one line, no controls) unless `multiline`, where line breaks become
 * Markdown hard breaks.
 */
export function markdownText(value: unknown, options: InertOptions = {}): string {
  const s = inert(value, options).replace(/[!-/:-@[-`{-~]/g, '\\$&');
  return options.multiline ? s.replace(/\n/g, '  \n') : s;
}

/** A tagged template for Markdown: literal parts are the extension's Markdown, values are {@link markdownText}. */
export function markdown(strings: TemplateStringsArray, ...values: unknown[]): string {
  return translate(strings, values.map((v) => markdownText(v)));
}

/** How many characters (code points) {@link markdownCodeBlock} keeps by default. */
export const CODE_BLOCK_MAX = 20_000;

/**
 * Untrusted lines as a fenced Markdown code block that renders as exactly those lines, whatever
 * they hold: the fence is longer than any run of backticks anywhere in them, so no line can close
 * it — not one that starts with a diff's ` ` prefix before three backticks, which the editor's own
 * `MarkdownString.appendCodeblock` (it measures only runs at the start of a line) lets through.
 * Inside the block nothing is markup; control characters are dropped, bidirectional overrides shown
 * as U+FFFD (they would reorder the lines on screen), line breaks made `\n`, and the text capped at
 * `max` code points. `language` keeps only the characters of a language id.
 */
export function markdownCodeBlock(value: unknown, language = '', max = CODE_BLOCK_MAX): string {
  let s = value === undefined || value === null ? '' : String(value);
  if (s.length > max * 4 + 64) s = s.slice(0, max * 4 + 64);
  s = capCodePoints(s.replace(LINE_BREAK, '\n').replace(CONTROL, '').replace(INVISIBLE, '').replace(BIDI, '\ufffd'), max);
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `\n${fence}${language.replace(/[^\w+#.-]/g, '')}\n${s}\n${fence}\n`;
}

/** The message of an error (or any thrown value) as inert text: agent JSON-RPC errors carry agent text. */
export function errorText(err: unknown, max = INERT_MAX): string {
  return inert(err instanceof Error ? err.message : err, { max });
}

function capCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  const points = Array.from(s);
  return points.length <= max ? s : points.slice(0, max - 1).join('') + '…';
}

/**
 * How a command rule (`commandPrefix`, `commandRegex`) meets a command line. Allowing and denying
 * are not the same question, so they are answered by different functions:
 * - an allow rule or a grant admits a line only when nothing in it can change what runs or where it
 *   writes beyond what the rule names ({@link prefixCovers}, {@link regexAllows}): a prefix admits
 *   plain operands only, never options, expansions or shell syntax;
 * - a deny rule refuses a line when any simple command in it could be what the rule names
 *   ({@link prefixDenies}, {@link regexDenies}). A deny rule over a shell string is best effort: it
 *   cannot see through aliases, functions, scripts, interpreters (`node -e`, `python -c`; a shell's
 *   `-c` script is read), quoting
 *   (`r''m`, `"rm"`), escapes (`r\m`), expansions (`$(…)`, `$X`, globs) or the environment.
 * Pure; no `vscode`.
 */

/**
 * One plain operand: letters, digits and `_ . , : / + -`, not beginning with `-` (an option). No
 * quotes, backslashes, `$`, backticks, globs (`* ? [ ]`), `~`, braces, `=`, `%`, `!`, `#`, `@`, `^`
 * or whitespace: each of them either makes the shell expand the word into something else (a glob
 * can expand into a file named `--output=x`) or, on some shell, starts an option or a variable.
 */
const PLAIN_OPERAND = /^[A-Za-z0-9_.,:/+][A-Za-z0-9_.,:/+-]*$/;

/** An option a rule may list in `allowOptions`: `-x`, `--name`, `--name=value` with plain characters, or `--`. */
export const ALLOWED_OPTION = /^(?:--|--?[A-Za-z0-9][A-Za-z0-9_.,:/+=-]*)$/;

/** Characters a line admitted by a regex allow rule may hold: no shell syntax, quoting or expansion. */
const REGEX_ALLOW_LINE = /^[A-Za-z0-9_.,:/+= -]*$/;

/** The options of {@link prefixCovers}. */
export interface PrefixOptions {
  /** Option words admitted after the prefix, compared exactly (e.g. `--oneline`, `--`). */
  allowOptions?: readonly string[];
  /** `win32`: an operand beginning with `/` is an option there too, so it is refused. Default: this process's platform. */
  platform?: NodeJS.Platform;
}

/**
 * Does an allow rule's or a grant's prefix cover a command line? The line is the prefix, or the
 * prefix followed by single spaces and words each of which is a plain operand (see
 * {@link PLAIN_OPERAND}) or one of `allowOptions` exactly. So `npm test` covers `npm test unit/a.ts`
 * but not `npm test --script-shell=./x`, `npm test -- --grep x`, `git log --output=f`,
 * `npm test *`, `npm test ~/x`, `npm test; curl evil` nor `npm test $(evil)`.
 */
export function prefixCovers(prefix: string, line: string, options: PrefixOptions = {}): boolean {
  const p = prefix.trim();
  if (line === p) return true;
  if (!p || !line.startsWith(p + ' ')) return false;
  const allowed = new Set(options.allowOptions ?? []);
  const windows = (options.platform ?? process.platform) === 'win32';
  // Several spaces in a row are one separator to a shell; anything else (tabs, newlines) fails below.
  for (const word of line.slice(p.length + 1).split(' ')) {
    if (word === '' || allowed.has(word)) continue;
    if (!PLAIN_OPERAND.test(word) || (windows && word.startsWith('/'))) return false;
  }
  return true;
}

/**
 * Does an allow rule's regex admit a command line? The regex must match the whole line (it is
 * anchored as `^(?:regex)$`), and the line must hold nothing but letters, digits, spaces and
 * `_ . , : / + = -`: no shell operators, quoting, escapes, expansions or globs. The options the
 * regex itself admits are admitted: `git log.*` admits `git log --output=f`; write the words out.
 */
export function regexAllows(regex: string, line: string): boolean {
  return REGEX_ALLOW_LINE.test(line) && new RegExp(`^(?:${regex})$`).test(line);
}

/** Shell operators that start another simple command. */
const COMMAND_SEPARATOR = /\|\||&&|\$\(|[;&|\n\r`(){}]/;
/**
 * Words before the command itself that still run it, one at a time: `FOO=1 rm`, `sudo rm`, `env rm`,
 * `command rm`, and a shell handed its script with `-c` (`/bin/bash -lc rm`, `sh -c 'rm`, `cmd /c rm`,
 * `powershell -Command rm`) — codex-acp runs every command as `/bin/bash -lc <script>`, so without
 * the shell form no deny prefix would ever name one of its commands. One opening quote of the script
 * goes with the shell.
 */
const LEADING = [
  /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*|(?:\S*\/)?(?:sudo|doas|env)|command|exec|nohup|time|nice|builtin|then|do|else|!) /,
  /^(?:\S*\/)?(?:ba|da|z|k|mk|a|fi)?sh (?:--?[A-Za-z][A-Za-z-]* )*?-[A-Za-z]*c[A-Za-z]* ['"]?/,
  /^(?:\S*[\\/])?cmd(?:\.exe)? \/[cCkK] ['"]?/,
  /^(?:\S*[\\/])?(?:pwsh|powershell)(?:\.exe)? (?:-[A-Za-z]+ )*?-(?:c|command) ['"]?/i,
];

/**
 * A simple command as written and after each leading wrapper is taken off it, so a deny prefix can
 * name the wrapper (`sudo`, `bash`) as well as what it runs.
 */
function unwrapped(simple: string): string[] {
  const out = [simple];
  for (let s = simple, i = 0; i < 32; i++) {
    const next = LEADING.reduce((acc, re) => (acc === s ? s.replace(re, '') : acc), s);
    if (next === s) break;
    out.push((s = next));
  }
  return out;
}

/**
 * Does a deny rule's prefix name a command line? True when any simple command in the line (split at
 * `;`, `&&`, `||`, `|`, `&`, newlines, `(`, `)`, braces, backticks and `$(`), as written or after
 * any number of its leading variable assignments and wrappers such as `sudo`, `env`, `nohup` and
 * `bash -c` are taken off, and with runs of whitespace read as one space, is the prefix or begins
 * with it and a space. Best effort: see the module comment.
 */
export function prefixDenies(prefix: string, line: string): boolean {
  const p = prefix.trim().replace(/\s+/g, ' ');
  if (!p) return false;
  for (const part of line.split(COMMAND_SEPARATOR)) {
    for (const simple of unwrapped(part.replace(/\s+/g, ' ').trim())) {
      // The closing quote of a `-c` script, when the script ends with this command.
      const bare = simple.replace(/['"]+$/, '');
      if (simple === p || bare === p || simple.startsWith(p + ' ')) return true;
    }
  }
  return false;
}

/** Does a deny rule's regex match anywhere in the command line (a search, not a whole-line match)? */
export function regexDenies(regex: string, line: string): boolean {
  return new RegExp(regex).test(line);
}

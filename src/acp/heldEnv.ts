/**
 * Which environment values a held command's card shows and which it hides. A variable is either
 * shown (`NAME=value`, whole) or hidden (its name and length only, the value kept nowhere). Hiding
 * is for credentials, and only for values that cannot choose what runs: many variables with a
 * credential's name pick a program or where code and configuration are loaded from
 * (`AWS_SHARED_CREDENTIALS_FILE` whose file names a `credential_process`,
 * `CARGO_REGISTRY_CREDENTIAL_PROVIDER`, `GIT_CREDENTIAL_HELPER`, `PASSWORD_STORE_EXTENSIONS_DIR`,
 * `SSH_AUTH_SOCK`), so a value is hidden only when all three hold:
 *
 * - its name says it is a credential ({@link isCredentialName});
 * - its name has no word of a family that names a program, a path, code a program loads, its
 *   options or its configuration ({@link choosesWhatRuns});
 * - the value does not have the shape of a path or a command line ({@link looksLikePathOrCommand}).
 *
 * A card with a hidden value cannot be allowed in one click (see `sessionController.ts`
 * `answerPermission`): the person confirms running with values they have not seen. Pure: no
 * `vscode`, no I/O.
 */

/**
 * Environment names whose value is a credential by convention (a token, a password, a key pair's
 * secret half). Judged by the name's words, never by the value's form, so a value cannot slip past
 * by how it is written; and narrowly, so a variable that changes what a program does
 * (`GIT_CONFIG_KEY_0`, `NODE_OPTIONS`, `LD_PRELOAD`) is not one.
 */
export function isCredentialName(name: string): boolean {
  const n = name.toUpperCase();
  if (/PASSWORD|PASSWD|PASSPHRASE|TOKEN|SECRET|CREDENTIAL/.test(n)) return true;
  const words = n.split(/[^A-Z0-9]+/).filter(Boolean);
  if (words.some((w) => w === 'PWD' || w === 'PASS' || w === 'AUTH' || w === 'APIKEY' || w === 'COOKIE')) return true;
  // KEY only as the second half of API_KEY, ACCESS_KEY, PRIVATE_KEY, SIGNING_KEY, MASTER_KEY, ENCRYPTION_KEY.
  return words.some((w, i) => w === 'KEY' && i > 0 && ['API', 'ACCESS', 'PRIVATE', 'SIGNING', 'MASTER', 'ENCRYPTION', 'LICENSE', 'ACCOUNT'].includes(words[i - 1]));
}

/**
 * Word stems of names whose value says what runs, or where a program finds code, configuration or
 * the helper it runs: a program or command line (`*_COMMAND`, `*_CMD`, `*_HELPER`, `*_PROVIDER`,
 * `*_PROCESS`, `*ASKPASS`, `*_EXEC`, `*_SHELL`, `EDITOR`), a path or a list of them (`*_FILE`,
 * `*_PATH`, `*_DIR`, `*_HOME`, `*_SOCK`), code a program loads (`*_PRELOAD`, `*_PLUGIN`,
 * `*_EXTENSIONS`, `*_MODULE`, `*_LIB`, `*_BACKEND`), options it reads (`*_OPTIONS`, `*OPT`, `*_FLAGS`,
 * `*_ARGS`) and its configuration (`*_CONFIG`, `*RC`, `*_PROFILE`, `*_ENV`, `*_CREDENTIALS`). Matching too much only
 * shows a value; matching too little could hide a program, so the lists are broad. (A name that only
 * says where the credential is used, `CI_REGISTRY_PASSWORD`, `PROXY_TOKEN`, stays a credential: a
 * value that is a place, a URL or a host name, is shown by its shape.)
 *
 * A word of the name (split at anything but letters and digits) matches a stem of the first list
 * when it holds it anywhere (`PGPASSFILE`, `PASSCOMMAND`, `TOKENOPTIONS`, `EXTENSIONS`); a stem
 * of the second list only as the whole word or its end (`PERL5OPT`, `NETRC`, `GITHOOK`), so that
 * `BINANCE_API_KEY`, `PAGERDUTY_TOKEN` or `HOMEBREW_GITHUB_API_TOKEN` stay credentials.
 */
const STEMS = [
  'COMMAND', 'HELPER', 'PROVIDER', 'PROCESS', 'PROGRAM', 'EXEC', 'BINARY', 'SCRIPT', 'ASKPASS', 'EDITOR', 'WRAPPER', 'ALIAS',
  'LAUNCHER', 'HANDLER', 'CALLBACK', 'STARTUP', 'LOADER', 'PRELOAD', 'PLUGIN', 'EXTENSION', 'MODULE', 'LIBRAR',
  'BACKEND', 'DRIVER', 'INTERPRETER', 'FACTORY', 'FILE', 'PATH', 'DIRECTOR', 'FOLDER', 'PREFIX', 'LOCATION', 'OPTION',
  'CONFIG', 'PROFILE',
] as const;
const SHORT_STEMS = [
  'CMD', 'CMDS', 'PROG', 'BIN', 'BINS', 'HOOK', 'HOOKS', 'SHELL', 'PAGER', 'BROWSER', 'VISUAL', 'TOOL', 'TOOLS',
  'CLASS', 'ENGINE', 'SOURCE', 'LIB', 'LIBS', 'DIR', 'DIRS', 'HOME', 'SOCK', 'SOCKET', 'PIPE', 'OPT', 'OPTS',
  'FLAG', 'FLAGS', 'ARG', 'ARGS', 'ARGV', 'INIT', 'RUN', 'RC', 'ENV', 'CONF', 'CFG',
  // A name ending in CREDENTIALS holds the credentials' file or document (`GOOGLE_APPLICATION_CREDENTIALS`
  // is a path to a JSON file that can name a program to run), not one secret.
  'CREDENTIALS',
] as const;
/** Words that end like a stem but name no program: a webhook is an address, shown by its shape when it is one. */
const NOT_STEMS = new Set(['WEBHOOK', 'WEBHOOKS']);

/**
 * True when the name says its value picks a program, a path, code a program loads, its options or
 * configuration (see {@link STEMS}): such a value is always shown, whatever else the name says.
 */
export function choosesWhatRuns(name: string): boolean {
  const words = name.toUpperCase().split(/[^A-Z0-9]+/).filter((w) => w && !NOT_STEMS.has(w));
  return words.some((w) => STEMS.some((s) => w.includes(s)) || SHORT_STEMS.some((s) => w.endsWith(s)));
}

/**
 * File name endings of what a program reads as code, configuration, keys or a socket: a value that
 * ends in one (`creds.json`, `helper.sh`) names a file, whatever the variable's name.
 */
const FILE_ENDINGS = /\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|config|xml|plist|properties|env|rc|netrc|txt|sh|bash|zsh|fish|ps1|psm1|bat|cmd|com|exe|msi|app|py|pyc|pl|rb|php|lua|js|cjs|mjs|ts|cts|mts|jar|class|so|dylib|dll|node|wasm|pem|key|crt|cer|der|p12|pfx|jks|gpg|asc|sock|socket|pipe)$/i;

/**
 * True when `value` has the shape of a path or a command line, which a card always shows: an
 * absolute, home or explicitly relative path (`/…`, `~…`, `./…`, `../…`, `C:\…`, `\\host\…`), a dot file (`.npmrc`), a path
 * with a `.` or `..` step, a file name with the ending of code, configuration, a key or a socket
 * (`creds.json`, `tool.sh`), a URL (`scheme://…`, `file:…`), or a command line: command substitution
 * (`$(…)`, a backtick) or a word that is an option (`… -x`, `… --flag`). A password with spaces, quotes
 * or `& ! ; ,` in it is none of these and stays hidden (the name decides what is a credential; the
 * shape only takes out what a program would read as a place or a program).
 */
export function looksLikePathOrCommand(value: string): boolean {
  const v = value.trim();
  if (/^(\/|~|\.{1,2}[/\\]|\.[A-Za-z]|[A-Za-z]:[/\\]|\\\\)/.test(v)) return true;
  if (/(^|[/\\])\.{1,2}([/\\]|$)/.test(v)) return true;
  if (FILE_ENDINGS.test(v)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(v) || /^file:/i.test(v)) return true;
  return /\$\(|`/.test(v) || /\s--?[A-Za-z]/.test(v);
}

/**
 * True when a held command's card hides the value of `name` (see the module's comment): a
 * credential by its name, whose name names nothing that runs or is loaded, and whose value is not
 * a path or a command line. Every other value is shown whole (an empty one has nothing to hide).
 */
export function hidesValue(name: string, value: string): boolean {
  return value !== '' && isCredentialName(name) && !choosesWhatRuns(name) && !looksLikePathOrCommand(value);
}

/** A variable whose value a card hides: its name and how long the value is. */
export interface HiddenValue {
  name: string;
  chars: number;
}

/** The sentence a card with hidden values says above its buttons: which ones, why, and what allowing asks. */
export function hiddenValuesNote(hidden: readonly HiddenValue[]): string {
  const names = hidden.map((h) => `${h.name} (${h.chars} characters)`).join(', ');
  return `Not shown: the value${hidden.length === 1 ? '' : 's'} of ${names}. ${hidden.length === 1 ? 'Its name says it is' : 'Their names say they are'} a credential, and neither ${hidden.length === 1 ? 'its name nor its value says it is' : 'their names nor their values say they are'} a program, a path, a command line or options (such values are always shown). Allowing asks you once more, since you would approve ${hidden.length === 1 ? 'a value' : 'values'} you have not seen.`;
}

/**
 * The one redaction of secrets in text, used wherever text leaves memory: the audit log, the
 * session journal, saved and exported traces, effect spans, and the protocol inspector's and the
 * session's exports (which add their own structural rules, e.g. env values and file contents, on
 * top of this one). It replaces private keys, authorization headers and bearer tokens, credentials
 * in URLs, `NAME=value` / `name: value` of secret-looking names (`GITHUB_TOKEN=…`, `--api-key=…`,
 * `"password": "…"`), password options, and well-known key formats with `[redacted]`.
 * Environment *values* never reach the audit in the first place (intents carry names only).
 * Every quantifier is bounded, so a hostile string cannot make a rule backtrack for seconds.
 * Pure; no `vscode`.
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

const SECRET_WORD = '(token|secret|passw(or)?d|passwd|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|credentials?)';

// Order matters: the first rules leave `[redacted]` behind, which the later ones match as a value
// and replace with itself.
const RULES: [RegExp, string][] = [
  // PEM private keys, whole: the base64 body (and `Proc-Type:`/`DEK-Info:` headers) up to the END
  // line, or to where the body stops when the END line is missing (cut output).
  [/-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s:,]|-(?!----)){0,65536}(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?/g, '[redacted private key]'],
  // Authorization-like headers and schemes: "Authorization: token x", "X-Api-Key: x", "Cookie: x".
  [/\b(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|cookie|set-cookie)(\s{0,5}[:=]\s{0,5})("[^"]{0,2048}"|'[^']{0,2048}'|(?:(?:bearer|basic|digest|token)\s{1,5})?[^\s"',;]{1,4096})/gi, `$1$2${REDACTED}`],
  [/\bBearer\s{1,5}[\w.~+/=-]{8,4096}/gi, `Bearer ${REDACTED}`],
  [/\bBasic\s{1,5}(?=[A-Za-z0-9+/]{0,4096}[0-9+/=])[A-Za-z0-9+/]{12,4096}={0,2}/g, `Basic ${REDACTED}`],
  // NAME=value / NAME: value where NAME ends in a secret word (export GITHUB_TOKEN=…, DB_PASSWORD=…,
  // --api-key=…, SECRET_KEY: …). The name must end in the word, so "tokens: 500" or "author: Ada" stay.
  [new RegExp(`\\b([\\w-]{0,64}${SECRET_WORD})(\\s{0,5}[=:]\\s{0,5})("[^"]{0,2048}"|'[^']{0,2048}'|[^\\s"'&;,]{1,4096})`, 'gi'), `$1$4${REDACTED}`],
  // Environment assignments whose upper-case name holds a secret word anywhere: MY_KEY=…, GITHUB_TOKEN_2=….
  [/\b([A-Z0-9_]{0,64}(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Z0-9_]{0,64})=("[^"]{0,2048}"|'[^']{0,2048}'|[^\s"'&;,]{1,4096})/g, `$1=${REDACTED}`],
  // A quoted key in JSON or a literal: "apiKey": "…", 'password': ….
  [new RegExp(`(["'])([\\w-]{0,64}(?:apikey|${SECRET_WORD}))\\1(\\s{0,5}:\\s{0,5})("(?:[^"\\\\]|\\\\.){0,2048}"|'[^']{0,2048}'|[^\\s,}]{1,4096})`, 'gi'), `$1$2$1$5"${REDACTED}"`],
  // --password x, --token x, -token x (a value in the next word).
  [/(\s--?(?:password|passwd|token|api[-_]?key|secret)\s{1,5})("[^"]{0,2048}"|'[^']{0,2048}'|[^\s-][^\s]{0,4095})/gi, `$1${REDACTED}`],
  // URLs: user:password@host, and secret-looking query parameters.
  [/(\b[a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/@:]{1,256}:[^\s/@]{1,256}@/gi, `$1${REDACTED}@`],
  [/([?&](?:[\w-]{0,64}(?:token|key|secret|sig|signature|password|code|auth)[\w-]{0,64})=)[^&#\s"']{1,4096}/gi, `$1${REDACTED}`],
  // curl -u user:pass, mysql -ppassword.
  [/(\s-u\s{1,5}|\s--user\s{1,5})("[^"]{0,1024}"|'[^']{0,1024}'|\S{1,1024})/g, `$1${REDACTED}`],
  [/\b((?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n]{0,200}?\s-p)(?!\[redacted\])\S{1,256}/g, `$1${REDACTED}`],
  // Azure connection strings.
  [/\b(AccountKey|SharedAccessKey|SharedAccessSignature)=[^;\s"']{1,4096}/g, `$1=${REDACTED}`],
  // Well-known key formats.
  [/\b(sk-ant-[\w-]{10,256}|sk-[\w-]{16,256}|sk_(live|test)_\w{10,256}|rk_(live|test)_\w{10,256}|gh[pousr]_[A-Za-z0-9]{20,256}|github_pat_\w{20,256}|glpat-[\w-]{16,256}|xox[baprs]-[\w-]{10,256}|npm_[A-Za-z0-9]{30,256}|AIza[\w-]{30,256}|(AKIA|ASIA)[0-9A-Z]{16}|eyJ[\w-]{8,4096}\.[\w-]{8,4096}\.[\w-]{8,4096})/g, REDACTED],
];

/**
 * A word at least one of which every rule needs to match: text without any of them holds nothing
 * to redact, and most text (ids, names, ordinary output) is passed over with one scan.
 */
const ANY_RULE = /key|token|secret|passw|credential|bearer|basic|auth|cookie|:\/\/|\s-u\s|--user|mysql|mariadb|sharedaccess|sig|code|begin|sk[-_]|rk_|gh[pousr]_|github_pat|glpat|xox|npm_|aiza|akia|asia|eyj/i;

/** Returns `text` with every secret the rules recognise replaced by `[redacted]`; nothing is cut. */
export function redactSecrets(text: string): string {
  if (!ANY_RULE.test(text)) return text;
  let out = text;
  for (const [re, rep] of RULES) out = out.replace(re, rep);
  return out;
}

/** Longest string kept in an audit record; longer ones are cut (and redacted first). */
export const MAX_AUDIT_STRING = 16 * 1024;

/** Returns `text` cut to {@link MAX_AUDIT_STRING} characters, with secrets replaced (for the audit log). */
export function redactText(text: string): string {
  const out = text.length > MAX_AUDIT_STRING ? `${text.slice(0, MAX_AUDIT_STRING)}…[${text.length - MAX_AUDIT_STRING} more characters]` : text;
  return redactSecrets(out);
}

/** Keys whose whole value is a credential, wherever they sit (a dotted key by its last part). */
const SECRET_KEY = /(^|[._-])(authorization|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|token|password|passwd|secret|client[-_]?secret|private[-_]?key|cookie)$/i;

/**
 * Redacts every string inside a JSON-like value (objects and arrays are copied): each string as
 * {@link redactText} (cut for the audit) or, with `{ cut: false }`, as {@link redactSecrets}; the
 * value of a key that names a credential (`token`, `password`, `http.request.header.authorization`…)
 * becomes `[redacted]` whole (with `{ cut: false }` only a string value, so the shape stays).
 */
export function redactValue<T>(value: T, options: { cut?: boolean } = {}): T {
  const text = options.cut === false ? redactSecrets : redactText;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return text(v);
    if (depth > 64) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      // The audit drops a credential's whole value, whatever its shape; the journal and spans keep
      // the shape (a replay reads it) and redact the strings inside.
      for (const [k, x] of Object.entries(v)) out[k] = SECRET_KEY.test(k) && x !== null && x !== undefined && x !== '' && (typeof x === 'string' || options.cut !== false) ? REDACTED : walk(x, depth + 1);
      return out;
    }
    return v;
  };
  return walk(value, 0) as T;
}

/**
 * Redaction of secrets before anything is written to the audit log: tokens and keys in command
 * lines, `NAME=value` assignments of secret-looking variables, and authorization headers.
 * Environment *values* never reach the audit in the first place (intents carry names only).
 * Pure; no `vscode`.
 */

// Every quantifier is bounded, so a hostile string cannot make a rule backtrack for seconds.
const RULES: [RegExp, string][] = [
  // Authorization and API-key headers, bearer tokens.
  [/\b(authorization\s{0,5}[:=]\s{0,5})(?:(?:bearer|basic|token)\s{1,5})?[^\s'"]{1,4096}/gi, '$1[REDACTED]'],
  [/\b(x-[a-z0-9-]{0,40}(?:key|token|secret)|api[-_]?key)(\s{0,5}:\s{0,5})[^\s'"]{1,4096}/gi, '$1$2[REDACTED]'],
  [/\bbearer\s{1,5}[A-Za-z0-9._~+/=-]{8,4096}/gi, 'Bearer [REDACTED]'],
  // Credentials in URLs: scheme://user:password@host
  [/\b([a-z][a-z0-9+.-]{0,20}:\/\/[^\s:@/]{1,256}:)[^\s@/]{1,256}@/gi, '$1[REDACTED]@'],
  // VAR=value where VAR looks secret (API_KEY, TOKEN, SECRET, PASSWORD, …).
  [/\b([A-Z0-9_]{0,64}(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Z0-9_]{0,64})=("[^"]{0,4096}"|'[^']{0,4096}'|[^\s]{1,4096})/gi, '$1=[REDACTED]'],
  // "apiKey": "…", token: …, password = …
  [/(["']?\b(?:api[-_]?key|apikey|access[-_]?token|token|secret|password|passwd)["']?\s{0,5}[:=]\s{0,5})("[^"]{0,4096}"|'[^']{0,4096}'|[^\s,}]{1,4096})/gi, '$1[REDACTED]'],
  // --password=x, --token x, --api-key x
  [/(--?(?:password|passwd|token|api[-_]?key|secret)(?:=|\s{1,5}))("[^"]{0,4096}"|'[^']{0,4096}'|[^\s]{1,4096})/gi, '$1[REDACTED]'],
  // curl -u user:password, mysql -ppassword
  [/(\s(?:-u|--user)\s{1,5}[^\s:]{1,256}:)\S{1,256}/g, '$1[REDACTED]'],
  [/\b((?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n]{0,200}?\s-p)\S{1,256}/g, '$1[REDACTED]'],
  // Well-known key formats.
  [/\b(sk-(?:ant-)?[A-Za-z0-9_-]{8,256}|gh[opusr]_[A-Za-z0-9]{20,256}|github_pat_[A-Za-z0-9_]{20,256}|glpat-[A-Za-z0-9_-]{20,256}|AIza[0-9A-Za-z_-]{35}|xox[abprs]-[A-Za-z0-9-]{10,256}|AKIA[0-9A-Z]{16})\b/g, '[REDACTED]'],
];

/** Longest string kept in an audit record; longer ones are cut (and redacted first). */
export const MAX_AUDIT_STRING = 16 * 1024;

/** Returns `text` with secrets replaced by `[REDACTED]`, cut to {@link MAX_AUDIT_STRING} characters. */
export function redactText(text: string): string {
  let out = text.length > MAX_AUDIT_STRING ? `${text.slice(0, MAX_AUDIT_STRING)}…[${text.length - MAX_AUDIT_STRING} more characters]` : text;
  for (const [re, rep] of RULES) out = out.replace(re, rep);
  return out;
}

/** Redacts every string inside a JSON-like value (objects and arrays are copied). */
export function redactValue<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactValue) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = /^(authorization|api[-_]?key|apikey|access[-_]?token|token|password|passwd|secret)$/i.test(k) ? '[REDACTED]' : redactValue(v);
    return out as T;
  }
  return value;
}

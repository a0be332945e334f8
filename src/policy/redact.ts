/**
 * Redaction of secrets before anything is written to the audit log: tokens and keys in command
 * lines, `NAME=value` assignments of secret-looking variables, and authorization headers.
 * Environment *values* never reach the audit in the first place (intents carry names only).
 * Pure; no `vscode`.
 */

const RULES: [RegExp, string][] = [
  // Authorization headers and bearer tokens.
  [/\b(authorization\s*[:=]\s*)(bearer|basic|token)?\s*[^\s'"]+/gi, '$1$2 [REDACTED]'],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer [REDACTED]'],
  // VAR=value where VAR looks secret (API_KEY, TOKEN, SECRET, PASSWORD, …).
  [/\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s]+)/gi, '$1=[REDACTED]'],
  // --password=x, --token x, --api-key x
  [/(--?(?:password|passwd|token|api[-_]?key|secret)(?:=|\s+))("[^"]*"|'[^']*'|[^\s]+)/gi, '$1[REDACTED]'],
  // Well-known key formats.
  [/\b(sk-(?:ant-)?[A-Za-z0-9_-]{8,}|ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g, '[REDACTED]'],
];

/** Returns `text` with secrets replaced by `[REDACTED]`. */
export function redactText(text: string): string {
  let out = text;
  for (const [re, rep] of RULES) out = out.replace(re, rep);
  return out;
}

/** Redacts every string inside a JSON-like value (objects and arrays are copied). */
export function redactValue<T>(value: T): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (Array.isArray(value)) return value.map(redactValue) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = /^(authorization|api[-_]?key|token|password|secret)$/i.test(k) ? '[REDACTED]' : redactValue(v);
    return out as T;
  }
  return value;
}

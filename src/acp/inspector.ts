/**
 * The protocol inspector: what it shows and exports of a connection's record (`ProtocolLog`, in
 * protocolLog.ts, re-exported here), messages stringified only to show, search or export. Export
 * redacts: environment values, anything that looks like a credential, and — unless asked to keep
 * them — file contents. No `vscode`. Spec: PROTOCOLS.md §1 (ACP over stdio).
 */
import { redactSecrets } from '../policy/redact';
import type { ProtocolEntry } from './protocolLog';

export { ProtocolLog, tapStream, withoutAnswerValues, type EntrySummary, type ObservableStream, type ProtocolEntry } from './protocolLog';

/** Options of {@link redact}. */
export interface RedactOptions {
  /** Keep file contents (`fs/*` texts, diffs, embedded resources, what read tools returned); default false. */
  fileContents?: boolean;
}

/** Keys whose whole value (whatever its shape) is a credential. */
const SECRET_KEY = /(token|secret|passw(or)?d|passwd|authorization|api[-_]?key|credential|cookie|private[-_]?key|client[-_]?secret|session[-_]?key|access[-_]?key|signature)/i;
/**
 * Redacts every credential found in `text`: the one rule set of `policy/redact.ts`, shared with the
 * audit, the journal and the traces.
 */
export const redactText: (text: string) => string = redactSecrets;

/** Tool input keys that hold a file's text (Claude Code's Edit/Write, Codex's apply_patch, …). */
const FILE_INPUT_KEYS = new Set(['content', 'old_string', 'new_string', 'oldText', 'newText', 'old_str', 'new_str', 'file_text', 'patch', 'input']);
const CONTENT_HOLDERS = new Set(['params', 'result', 'rawInput', 'rawOutput']);

/**
 * A copy of `message` with secrets removed: every value of an `env` list or map (`{name, value}` or
 * `{KEY: value}`), header values, the whole value under a key that names a credential, and
 * credentials inside any text (see {@link redactText}). Unless `fileContents`, file contents become
 * `[N characters]`: `fs/*` texts, diff texts, a resource's `text`/`blob` wherever it sits, file text
 * in a tool's raw input, and what a read tool returned.
 */
export function redact(message: unknown, options: RedactOptions = {}): unknown {
  const hide = (v: string) => (v.length ? `[${v.length} characters]` : v);
  const walk = (v: unknown, key: string | undefined, parentKey: string | undefined, depth: number, ctx: { read: boolean }): unknown => {
    if (depth > 64) return '[too deep]';
    if (key && SECRET_KEY.test(key) && v !== null && v !== undefined && v !== '' && typeof v !== 'boolean') return '[redacted]';
    if (typeof v === 'string') {
      if (parentKey === 'env' || parentKey === 'headers') return '[redacted]';
      if (!options.fileContents) {
        if (key === 'oldText' || key === 'newText') return hide(v);
        if (key === 'content' && parentKey !== undefined && CONTENT_HOLDERS.has(parentKey)) return hide(v);
        if (parentKey === 'rawInput' && key && FILE_INPUT_KEYS.has(key)) return hide(v);
        // What a read tool (or the agent's own read) returned is the file.
        if (ctx.read && (key === 'text' || parentKey === 'rawOutput')) return hide(v);
      }
      return redactText(v);
    }
    if (Array.isArray(v)) {
      // An env or header list: [{name, value}].
      if (key === 'env' || key === 'headers') return v.map((x) => (x && typeof x === 'object' && 'name' in x ? { ...x, value: '[redacted]' } : '[redacted]'));
      return v.map((x) => walk(x, key, parentKey, depth + 1, ctx));
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      // An embedded resource is a file wherever it sits; a read tool call's content is the file.
      const isResource = (o.type === 'resource' || key === 'resource') && ('text' in o || 'blob' in o || 'resource' in o);
      const next = { read: ctx.read || o.kind === 'read' || (isResource && !options.fileContents) };
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(o)) {
        if (!options.fileContents && isResource && (k === 'text' || k === 'blob') && typeof x === 'string') out[k] = hide(x);
        else out[k] = walk(x, k, key, depth + 1, k === 'content' || k === 'rawOutput' || k === 'resource' ? next : ctx);
      }
      return out;
    }
    return v;
  };
  return walk(message, undefined, undefined, 0, { read: false });
}

/**
 * A message as the inspector shows it: pretty JSON with secrets redacted (env and header values,
 * credential keys, credentials in text, e.g. the `headers` of an HTTP MCP server in `session/new`),
 * file contents kept, since the person reads the protocol to debug it. Cut at `max` characters.
 */
export function inspectorJson(message: unknown, max: number): string {
  let json: string;
  try {
    json = JSON.stringify(redact(message, { fileContents: true }), null, 2) ?? 'undefined';
  } catch {
    json = '[a message that cannot be shown]';
  }
  return json.length > max ? `${json.slice(0, max)}\n… [${json.length - max} more characters; Export has them]` : json;
}

/** The log as JSON Lines for export: `{seq, at (ISO), dir, message}` per line, redacted. */
export function exportLog(entries: readonly ProtocolEntry[], options: RedactOptions = {}): string {
  return entries.map((e) => JSON.stringify({ seq: e.seq, at: new Date(e.at).toISOString(), dir: e.dir, message: redact(e.message, options) })).join('\n') + (entries.length ? '\n' : '');
}

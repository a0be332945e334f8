/**
 * One audit record as a person reads it: what was decided, by whom and when, what the intent lets
 * through in words (each write and command, its sandbox), what was done under it, and whether the
 * record is intact (its hash, its link to the record before, its signature). The log itself is one
 * JSON object a line, thousands of characters long: this is the view of one of them.
 *
 * Everything the agent chose (paths, command lines, titles) is shown verbatim, as text: control,
 * bidirectional and invisible characters are written as `\u{…}` escapes, so a name can neither add
 * a line of its own nor reorder or hide what is shown. Our own sentences wrap; verbatim values are
 * never cut or wrapped, so a long path is its one long line. Pure: no `vscode`, no I/O.
 */
import { describeIntegrity, type AuditRecord, type AuditVerification } from './auditVerify';
import { describeProfile, type SandboxProfile } from '../sandbox/profile';

/** The decision record of an intent and what the log holds around it. */
export interface LocatedRecord {
  record: AuditRecord;
  /** Its place in the log (1-based, as `verifyAudit` counts). */
  line: number;
  total: number;
  /** The effects the log records as allowed by this intent's approval, each with its result when recorded. */
  effects: { check: AuditRecord; result?: AuditRecord }[];
}

/** Whether the log is signed here, and what verifying the whole of it found. */
export interface RecordIntegrity {
  verification: AuditVerification;
  /** True when records are checked against this editor's key (a log with a key store). */
  signed: boolean;
}

/** Width our own sentences wrap at (verbatim values are never wrapped). */
const WIDTH = 104;
const LABEL = 16;

/**
 * Finds the decision about `intentHash` in the log's `text` (the last one, as an intent decided
 * again is decided anew), else the last record that names it; undefined when none does.
 */
export function locateRecord(text: string, intentHash: string): LocatedRecord | undefined {
  const records = text.split('\n').filter((l) => l.length > 0).map(parse);
  let at = -1;
  for (let i = records.length - 1; i >= 0 && at < 0; i--) if (records[i]?.event === 'decision' && records[i]?.intentHash === intentHash) at = i;
  for (let i = records.length - 1; i >= 0 && at < 0; i--) if (records[i]?.intentHash === intentHash) at = i;
  if (at < 0) return undefined;
  const effects: LocatedRecord['effects'] = [];
  for (let i = at + 1; i < records.length; i++) {
    const check = records[i];
    if (check?.event !== 'effect' || check.intentHash !== intentHash) continue;
    const description = field(check.detail, 'description');
    const result = records.slice(i + 1).find((r) => r?.event === 'effect' && r.decidedBy === 'client' && r.sessionId === check.sessionId && field(r.detail, 'description') === description);
    effects.push({ check, ...(result ? { result } : {}) });
  }
  return { record: records[at]!, line: at + 1, total: records.length, effects };
}

/** The record in words, one field a line (see the module comment). */
export function auditRecordText(found: LocatedRecord, integrity: RecordIntegrity, home?: string): string {
  const r = found.record;
  const out: string[] = [`Audit record ${found.line} of ${found.total}: ${eventWords(r)}`, ''];
  const row = (label: string, value: string) => out.push(`${label.padEnd(LABEL)}${value}`);
  const say = (label: string, sentence: string) => wrap(sentence, WIDTH - LABEL).forEach((l, i) => out.push(`${(i ? '' : label).padEnd(LABEL)}${l}`));
  row('Decision', `${decisionWords(r.decision)} (${shown(r.decision)})`);
  row('Decided by', deciderWords(r.decidedBy));
  row('When', whenText(r.time));
  row('Agent', shown(r.agentId));
  row('Session', shown(r.sessionId));
  if (r.acpSessionId) row("Agent's session", shown(r.acpSessionId));
  const d = (r.detail ?? {}) as Record<string, unknown>;
  if (typeof d.toolCallId === 'string') row('Tool call', `${shown(d.toolCallId)}${typeof d.kind === 'string' ? ` (${shown(d.kind)})` : ''}`);
  if (d.askedAt === 'effect') say('Asked', 'at the effect: the agent sent no permission request; it was held and you were asked about it.');
  if (typeof d.recordedAs === 'string') say('Recorded as', `${shown(d.recordedAs)}: ${shown(d.why)}`);
  if (r.event === 'integrity') say('What it says', `${describeIntegrity(r)}.`);

  if (Array.isArray(d.effects)) {
    out.push('', r.event === 'decision' ? 'What the intent lets through' : 'What it did');
    if (!d.effects.length) out.push('  nothing the editor could determine');
    for (const e of d.effects) out.push(...effectLines(e, home));
  } else if (r.event === 'effect' && d.effect && typeof d.effect === 'object') {
    out.push('', 'The effect', ...effectLines(d.effect, home));
    if (typeof d.result === 'string') row('  Result', shown(d.result));
  } else if (r.event !== 'integrity') {
    const rest = Object.entries(d).filter(([k]) => !['toolCallId', 'kind', 'askedAt', 'recordedAs', 'why', 'grants'].includes(k));
    if (rest.length) out.push('', 'Details', ...rest.map(([k, v]) => `  ${shown(k).padEnd(LABEL - 2)}${valueText(v)}`));
  }
  if (Array.isArray(d.grants)) {
    out.push('', 'Grants it made');
    if (!d.grants.length) out.push('  none: it approves this request only');
    for (const g of d.grants) out.push(`  ${shown(field(g, 'id'))}: ${shown(field(g, 'scope'))} scope, ${patternWords(field(g, 'pattern'))}`);
  }
  if (r.event === 'decision' && r.intentHash) {
    out.push('', 'Done under this approval');
    if (!found.effects.length) out.push('  nothing recorded yet');
    for (const { check, result } of found.effects) {
      const what = shown(field(check.detail, 'description') ?? 'an effect');
      out.push(`  ${what}: ${shown(check.decision)} (record ${check.seq})${result ? `, ${shown(result.decision)}: ${shown(field(result.detail, 'result') ?? '')} (record ${result.seq})` : ', no result recorded'}`);
    }
  }

  out.push('', 'Integrity');
  if (r.intentHash) row('Intent hash', shown(r.intentHash));
  row('Record hash', shown(r.hash));
  row('Previous', found.line === 1 ? `${shown(r.prev)} (the first record)` : `${shown(r.prev)} (record ${found.line - 1})`);
  row('Signature', r.mac ? `HMAC-SHA-256 by key ${shown(r.key)}` : 'none: this record is not signed');
  say('Verified', recordStatus(found, integrity));
  say('The log', logStatus(found, integrity.verification));
  return out.join('\n') + '\n';
}

function effectLines(raw: unknown, home?: string): string[] {
  const e = (raw ?? {}) as Record<string, unknown>;
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`    ${label.padEnd(LABEL - 4)}${value}`);
  if (e.type === 'write') {
    lines.push(`  Write ${shown(e.path)}`);
    const content = Array.isArray(e.contentSha256) ? e.contentSha256 : [];
    if (!content.length) row('content', 'not shown by the agent: approved for this path, any content');
    content.forEach((h, i) => row(i ? '' : 'content', `SHA-256 ${shown(h)}`));
    row('replaces', typeof e.baseSha256 === 'string' ? `SHA-256 ${shown(e.baseSha256)}` : 'nothing (a new file, or not known)');
    if (e.hardLinked) row('', 'the file has other names (hard links): treated as protected');
  } else if (e.type === 'command') {
    const words = [e.command, ...(Array.isArray(e.args) ? e.args : [])].filter((w) => w !== null && w !== undefined).map(shown);
    lines.push(`  Run ${e.command === null ? '(a command the agent did not show)' : words.join(' ')}`);
    row('in', shown(e.cwd));
    if (Array.isArray(e.envNames) && e.envNames.length) row('sets', e.envNames.map(shown).join(', '));
    const sandbox = e.sandbox as SandboxProfile | undefined;
    const text = sandbox && Array.isArray(sandbox.writeRoots) ? describeProfile(sandbox, home) : 'not sandboxed: it can read, write and reach what you can';
    wrap(text, WIDTH - LABEL).forEach((l, i) => row(i ? '' : 'sandbox', l));
  } else if (e.type === 'tool') {
    lines.push(`  ${shown(e.title)}: done by the agent itself, not by the editor`);
  } else {
    lines.push(`  ${valueText(raw)}`);
  }
  return lines;
}

function recordStatus(found: LocatedRecord, integrity: RecordIntegrity): string {
  const v = integrity.verification;
  const own = v.ok ? undefined : [{ line: v.line, to: v.to, reason: v.reason }, ...(v.more ?? [])].find((p) => found.line >= p.line && found.line <= (p.to ?? p.line));
  if (own) return `NO: ${own.reason}.`;
  const link = found.line === 1 ? 'it starts the chain' : `it links to record ${found.line - 1}`;
  return `yes: its hash matches its content and ${link}${integrity.signed ? "; its signature is this editor's" : ' (the log is not signed here: the hash chain only)'}.`;
}

function logStatus(found: LocatedRecord, v: AuditVerification): string {
  if (v.ok) return `${v.records} records, all verified.`;
  const problems = [{ line: v.line, to: v.to, reason: v.reason }, ...(v.more ?? [])];
  const first = problems[0];
  const where = first.to ? `records ${first.line}–${first.to}` : `record ${first.line}`;
  return `${v.records} records; ${problems.length === 1 ? 'one problem' : `${problems.length} problems`}, the first at ${where}: ${first.reason}. Agent Switchboard: Verify the Audit Log names them all.`;
}

function eventWords(r: AuditRecord): string {
  if (r.event === 'integrity') return 'what the log found about itself';
  if (r.event === 'effect') return 'an effect';
  return r.decision.startsWith('elicitation_') ? "an answer to the agent's question" : 'a permission decision';
}

const DECISIONS: Record<string, string> = {
  allow_once: 'Allowed once',
  allow_always: 'Allowed always',
  reject_once: 'Rejected',
  reject_always: 'Rejected always',
  cancelled: 'Cancelled: nobody answered (the turn was stopped, or the session ended)',
  allowed: 'Allowed',
  refused: 'Refused',
  performed: 'Performed',
  failed: 'Failed',
  performed_by_agent_unverified: 'Done by the agent itself; the editor could not check it',
  revoke_approvals: 'Approvals withdrawn',
};

function decisionWords(decision: string): string {
  return DECISIONS[decision] ?? shown(decision.replace(/_/g, ' '));
}

function deciderWords(by: string): string {
  if (by === 'person') return 'you (person)';
  if (by === 'api') return 'an extension, through the API (api)';
  if (by === 'replay') return "nobody now: history replayed or read back (replay)";
  if (by === 'cancel') return 'nobody (cancel)';
  if (by.startsWith('grant:')) return `a standing grant: ${shown(by.slice(6))}`;
  if (by.startsWith('policy')) return `a policy rule (${shown(by)})`;
  if (by.startsWith('approval:')) return `the approval of intent ${shown(by.slice(9))}`;
  return shown(by);
}

function patternWords(p: unknown): string {
  const o = (p ?? {}) as Record<string, unknown>;
  if (typeof o.commandExact === 'string') return `exactly the command ${shown(o.commandExact)}`;
  if (typeof o.commandPrefix === 'string') return `commands starting ${shown(o.commandPrefix)}`;
  if (typeof o.pathGlob === 'string') return `writes to ${shown(o.pathGlob)}`;
  return valueText(p);
}

function whenText(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? shown(iso) : `${new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`;
}

/** Any value on one line: a string as it is (escaped, see {@link shown}), anything else as JSON. */
function valueText(v: unknown): string {
  if (typeof v === 'string') return shown(v);
  try {
    return shown(JSON.stringify(v) ?? String(v));
  } catch {
    return shown(String(v));
  }
}

function field(o: unknown, key: string): string | undefined {
  const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v);
}

function parse(line: string): AuditRecord | undefined {
  try {
    const r = JSON.parse(line) as AuditRecord;
    return r && typeof r === 'object' && typeof r.seq === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}

// Line breaks and other controls, bidirectional formatting and invisible characters.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A value the agent or a file chose, on one line and as it is: every character that would break the
 * line, reorder the text or hide in it is written as its `\u{…}` escape.
 */
export function shown(value: unknown): string {
  const s = value === undefined || value === null ? '' : String(value);
  return s.replace(HIDDEN, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Our own sentence, wrapped at word boundaries to `width` (a word longer than that stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/**
 * A session as a document to keep or share: Markdown (the conversation, each tool call with its
 * status, locations, permission decision and output, the plan) or JSON (the session state). Both
 * pass through the inspector's redaction: environment values, credentials, bearer tokens and
 * well-known key formats are removed; file contents (diffs) are kept only when asked. Pure; no
 * `vscode`.
 */
import { redact, type RedactOptions } from '../inspector';
import type { PlanStop, SessionState, ToolCallView } from './types';

/** Options of an export. `now`: when it was made (ms since the epoch). */
export interface SessionExportOptions extends RedactOptions {
  now?: number;
}

/** The session state as redacted JSON (pretty-printed). */
export function sessionToJson(state: SessionState, options: SessionExportOptions = {}): string {
  return JSON.stringify({ exportedAt: new Date(options.now ?? Date.now()).toISOString(), session: redact(state, options) }, null, 2);
}

/** The session as Markdown, redacted. */
export function sessionToMarkdown(state: SessionState, options: SessionExportOptions = {}): string {
  const s = redact(state, options) as SessionState;
  const out: string[] = [];
  out.push(`# ${s.title ? s.title : `Session with ${s.agentName}`}`, '');
  out.push(`- Agent: ${s.agentName} (\`${s.agentId}\`)`, `- Folder: \`${s.cwd}\``, `- Session: \`${s.sessionId ?? s.key}\``, `- Exported: ${new Date(options.now ?? Date.now()).toISOString()}`, '');
  for (const e of s.entries) {
    if (e.kind === 'user') out.push('## You', '', quote(e.text), '');
    // The agent's words are its own Markdown, but may not pose as structure of the export (a
    // "## You" heading, a closed <details>): their headings are demoted and HTML tags escaped.
    else if (e.kind === 'agent') out.push(`## ${s.agentName}`, '', contained(e.text), '');
    else if (e.kind === 'thought') out.push('<details><summary>Thinking</summary>', '', contained(e.text), '', '</details>', '');
    else if (e.kind === 'tool_call') {
      const tc = s.toolCalls[e.toolCallId];
      if (tc) out.push(...toolCall(tc, s), '');
    } else if (e.kind === 'turn_end') out.push(`*Turn ended: ${e.stopReason}.*`, '');
    else if (e.kind === 'notice') out.push(`> **${e.severity}:** ${e.text.replace(/\n/g, '\n> ')}`, '');
    else if (e.kind === 'elicitation') {
      // The question and how it ended; the values were never kept, so none are exported.
      const q = e.elicitation;
      out.push(`### ${s.agentName} asked`, '', quote(q.message), '');
      if (q.url) out.push(`- Page: \`${q.url.replace(/`/g, "'")}\``);
      out.push(`- Answer: ${q.state === 'waiting' ? 'none yet' : q.state}${q.fields?.length ? ` (${q.fields.join(', ')})` : ''}${q.completed ? ' · completed' : ''}`, '');
    }
  }
  if (s.plan.length) {
    out.push('## Plan (last known)', '');
    for (const p of s.plan) out.push(`- [${p.status === 'completed' ? 'x' : ' '}] ${p.content}${p.status !== 'in_progress' ? '' : p.stopped ? ` *(stopped: ${PLAN_STOP_WORDS[p.stopped]})*` : ' *(in progress)*'}`);
    out.push('');
  }
  return out.join('\n');
}

/** Why an entry left in progress stopped, in the export's words. */
const PLAN_STOP_WORDS: Record<PlanStop, string> = {
  cancelled: 'the turn was cancelled',
  failed: 'the turn failed',
  closed: 'the session was closed',
  ended: 'the turn ended first',
};

function toolCall(tc: ToolCallView, s: SessionState): string[] {
  const lines = [`### Tool call: ${tc.title || tc.kind} — ${tc.status}`, ''];
  lines.push(`- Kind: ${tc.kind}${tc.verification ? ` · performed by ${tc.verification === 'client' ? 'the editor (checked against the approval)' : 'the agent itself (not verified)'}` : ''}`);
  if (tc.locations.length) lines.push(`- Files: ${tc.locations.map((l) => `\`${l.path}${l.line ? `:${l.line}` : ''}\``).join(', ')}`);
  const p = tc.permissionId ? s.permissions[tc.permissionId] : undefined;
  if (p) {
    const chosen = p.options.find((o) => o.optionId === p.optionId);
    lines.push(`- Permission: ${p.state === 'selected' ? `${chosen?.name ?? p.optionId} (${chosen?.kind ?? '?'})` : p.state} by ${p.answeredBy ?? '—'}${p.intentHash ? ` · intent \`${p.intentHash.slice(0, 12)}\`` : ''}`);
  }
  for (const c of tc.content) {
    if (c.type === 'text') lines.push('', quote(c.text));
    else if (c.type === 'diff') lines.push('', `Diff of \`${c.path}\` (+${c.added} −${c.removed}):`, '', fence(`${c.oldText === null ? '(new file)\n' : ''}${c.newText}`, 'diff'));
    else if (c.type === 'terminal') {
      const t = s.terminals[c.terminalId];
      if (t) lines.push('', `Terminal \`${t.commandLine}\`${t.exitStatus ? ` (exit ${t.exitStatus.exitCode ?? t.exitStatus.signal})` : ''}:`, '', fence(t.output, 'text'));
      else if (c.unavailable) lines.push('', 'Terminal output not available: it ran in an earlier agent process.');
    } else if (c.type === 'resource') lines.push('', `Resource: \`${c.uri}\``);
    else if (c.type === 'image') lines.push('', `Image (${c.mimeType}, ${c.dataLength} bytes)`);
  }
  return lines;
}

/** Agent Markdown kept readable but unable to open a section of its own or close ours. */
function contained(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      // Code blocks are left exactly as written.
      const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (f && (!fence || (f[0] === fence[0] && f.length >= fence.length))) {
        fence = fence ? undefined : f;
        return line;
      }
      if (fence) return line;
      return line.replace(/^(\s{0,3})(#{1,6})(\s)/, '$1####$2$3').replace(/</g, '&lt;');
    })
    .join('\n');
}

function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
}

/** A fenced block that the text cannot close early (the fence is longer than any run of backticks in it). */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

/**
 * Effects an agent reports it performed itself, and which of them the audit has yet to record.
 *
 * An agent that writes files or runs commands on its own (claude-agent-acp, codex-acp, any agent in
 * an automatic mode) tells the client only through its tool-call reports: a call `completed` with a
 * diff, a command, a target. The client cannot check those effects, so each is recorded as
 * performed by the agent, unverified. What is recorded is the effect, never the tool-call id: an
 * agent chooses its ids, and may report a new effect under an id that a load's replay, an earlier
 * report or the client's own performance already showed done. So an effect is known by what it
 * does — a write by its path, the text it replaces and the text it writes (or, without a diff, its
 * kind, path and raw input); a command by its line and folder — and the ledger records each one the
 * first time the client learns of it, whatever id it comes under, and not again:
 * - an effect a replay (or the journal) shows done is known, not new: the history is not performed now;
 * - an effect the client performed itself is known: it was checked and recorded as it was performed;
 * - anything else a live report shows done is new, once, under whichever id.
 * Pure: no `vscode`, no I/O.
 */
import path from 'node:path';
import type { ToolCallView } from '../acp/session/types';
import { commandFromRaw } from './declare';
import { canonicalHash, canonicalJson, sha256, type CommandEffect } from './intent';

/**
 * One effect a completed tool call reports, as the audit records it: hashes of texts, never the
 * texts (a file's content may hold secrets; the command line is redacted on the way to the log).
 */
export type ReportedEffect =
  /** A write shown as a diff: the text it replaces (null: a new file) and the text it writes. */
  | { type: 'write'; path: string; baseSha256: string | null; contentSha256: string }
  /** A write, delete or move shown without a diff: its kind, target and raw input (the content, when given). */
  | { type: 'change'; kind: string; path: string; contentSha256: string | null; inputSha256: string }
  /** A command: its line (argv joined with spaces, as the gate compares lines) and folder; without a line, the call's title and raw input. */
  | { type: 'command'; line: string | null; cwd: string; title?: string; inputSha256?: string }
  /** An effectful call that names nothing more: its kind, title and raw input. */
  | { type: 'tool'; kind: string; title: string; inputSha256: string };

/** An effect the client performed for the agent: a write (`fs/write_text_file`) or a command (`terminal/create`). */
export type ClientEffect = { type: 'write'; path: string; content: string; base?: string | null } | CommandEffect;

/** The ACP tool kinds that change something (what a `completed` call of theirs did, the agent did). */
const EFFECT_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move', 'execute']);

/**
 * What tool call `tc` says it did, effect by effect, whatever its status: every diff is a write
 * (under any kind: a diff shows a file changed, whatever the call calls itself); an `execute` call
 * runs its command; an `edit`, `delete` or `move` without a diff changes its target. A call of
 * another kind without a diff reports no effect.
 * @param cwd the session's folder: relative paths and commands without a folder are taken there.
 */
export function reportedEffects(tc: ToolCallView, cwd: string): ReportedEffect[] {
  const raw = (tc.rawInput && typeof tc.rawInput === 'object' && !Array.isArray(tc.rawInput) ? tc.rawInput : {}) as Record<string, unknown>;
  const out: ReportedEffect[] = [];
  for (const c of tc.content) {
    if (c.type === 'diff') out.push({ type: 'write', path: path.resolve(cwd, c.path), baseSha256: c.oldText === null ? null : sha256(c.oldText), contentSha256: sha256(c.newText) });
  }
  if (tc.kind === 'execute') {
    const cmd = commandFromRaw(raw, cwd);
    const line = cmd.command === null ? null : [cmd.command, ...cmd.args].join(' ');
    out.push(line === null ? { type: 'command', line, cwd: cmd.cwd, title: tc.title, inputSha256: inputHash(raw) } : { type: 'command', line, cwd: cmd.cwd });
  } else if (!out.length && EFFECT_KINDS.has(tc.kind)) {
    const target = stringField(raw, ['file_path', 'filePath', 'filepath', 'path', 'target_file']) ?? tc.locations[0]?.path;
    const content = stringField(raw, ['content', 'contents', 'new_content', 'text']);
    out.push(
      target
        ? { type: 'change', kind: tc.kind, path: path.resolve(cwd, target), contentSha256: content === undefined ? null : sha256(content), inputSha256: inputHash(raw) }
        : { type: 'tool', kind: tc.kind, title: tc.title, inputSha256: inputHash(raw) },
    );
  }
  return out;
}

/** The effects of one session the client has learned of, by what they do. */
export class EffectLedger {
  private readonly known = new Set<string>();

  /** @param cwd the session's folder (see {@link reportedEffects}). */
  constructor(private readonly cwd: () => string) {}

  /**
   * A call as history shows it (a load's replay, its late tail, the journal of a session taken up
   * again): what it shows done was done then, and is not recorded as new when reported again.
   */
  shownDone(tc: ToolCallView): void {
    if (tc.status === 'completed') for (const e of reportedEffects(tc, this.cwd())) this.known.add(key(e));
  }

  /**
   * The client performed `done` for the agent, under call `tc` when the gate tied it to one. The
   * effect itself is known from now on (a report of exactly it is the client's, under any id), and
   * so is what `tc` shows of it now: its diffs of the written file (an agent may show only the
   * replaced fragment), or its command when the line is the one run or not shown. What else `tc`
   * shows is not: reported done later, it is the agent's own.
   */
  performedByClient(tc: ToolCallView | undefined, done: ClientEffect): void {
    const cwd = this.cwd();
    if (done.type === 'write') {
      const abs = path.resolve(cwd, done.path);
      const content = sha256(done.content);
      // A full-text diff of the write as agents show it: over the replaced text, over nothing or over "".
      for (const base of new Set([null, sha256(''), typeof done.base === 'string' ? sha256(done.base) : null])) this.known.add(key({ type: 'write', path: abs, baseSha256: base, contentSha256: content }));
      for (const e of tc ? reportedEffects(tc, cwd) : []) if ((e.type === 'write' || e.type === 'change') && e.path === abs) this.known.add(key(e));
    } else {
      const line = done.command === null ? null : [done.command, ...done.args].join(' ');
      const folder = path.resolve(cwd, done.cwd);
      if (line !== null) this.known.add(key({ type: 'command', line, cwd: folder }));
      // A call that did not show its command ran the one the client ran for it (the gate let it cover one, once).
      for (const e of tc ? reportedEffects(tc, cwd) : []) if (e.type === 'command' && e.line === null) this.known.add(key(e));
    }
  }

  /**
   * A live report of call `tc`: when it shows the call done, the effects in it the client had not
   * learned of, which are known from now on (each is returned once, under whatever id); otherwise none.
   */
  reported(tc: ToolCallView): ReportedEffect[] {
    if (tc.status !== 'completed') return [];
    const fresh: ReportedEffect[] = [];
    for (const e of reportedEffects(tc, this.cwd())) {
      const k = key(e);
      if (this.known.has(k)) continue;
      this.known.add(k);
      fresh.push(e);
    }
    return fresh;
  }
}

/** The identity of an effect: its canonical JSON (every field is what it does). */
function key(e: ReportedEffect): string {
  return canonicalJson(e);
}

/** SHA-256 of a raw input's canonical JSON; of its plain JSON when it has no canonical form. */
function inputHash(raw: Record<string, unknown>): string {
  try {
    return canonicalHash(raw);
  } catch {
    return sha256(JSON.stringify(raw) ?? '');
  }
}

function stringField(raw: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (typeof raw[k] === 'string') return raw[k] as string;
  return undefined;
}

/**
 * What an agent declares it will do, from the tool call behind a `session/request_permission`:
 * the write effects (path and every content the declared diffs can produce from the current text)
 * and command effects (command, args, cwd), as an {@link Intent}.
 *
 * Agents declare differently (seen in recorded runs): claude-code-acp's Write sends the whole file as
 * a diff with `oldText: null`, its Edit sends only the replaced fragment; opencode sends `oldText: ""`
 * for a new file; shell commands come as `rawInput.command` (a string, or an argv array). A request
 * that declares no content is approved at path level, and {@link DeclaredIntent.undeclared} says so.
 * Pure; the current text comes through `readCurrent`.
 */
import path from 'node:path';
import type { ToolCallView } from '../acp/session/types';
import { sha256, type CommandEffect, type Effect, type Intent, type WriteEffect } from './intent';

/** What declaring needs to know about the session and the files. */
export interface DeclareContext {
  sessionId: string;
  agentId: string;
  /** The session's working directory (commands without cwd run there). */
  cwd: string;
  /** Workspace folders, for workspace-relative paths. */
  roots: readonly string[];
  /** The current text of a file (the open document, unsaved changes included), or null if none. */
  readCurrent(absPath: string): Promise<string | null>;
  /** Resolves symlinks (as the performed effect will be); identity when absent. `roots` must be resolved alike. */
  realpath?(absPath: string): Promise<string>;
}

/** An intent plus plain-language notes on what the agent left undeclared. */
export interface DeclaredIntent {
  intent: Intent;
  /** Sentences for the card, e.g. "The agent did not show what it will write to a.txt." */
  undeclared: string[];
}

/** Workspace-relative path with `/` separators, or the absolute path when outside every root. */
export function relativePath(abs: string, roots: readonly string[]): string {
  for (const root of roots) {
    const rel = path.relative(root, abs);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return rel.split(path.sep).join('/');
  }
  return abs;
}

/** Builds the declared intent of a tool call. */
export async function declareIntent(tc: ToolCallView, ctx: DeclareContext): Promise<DeclaredIntent> {
  const undeclared: string[] = [];
  const effects: Effect[] = [];
  const diffs = tc.content.filter((c) => c.type === 'diff');
  const raw = (tc.rawInput && typeof tc.rawInput === 'object' ? tc.rawInput : {}) as Record<string, unknown>;

  if (diffs.length) {
    const byPath = new Map<string, { oldText: string | null; newText: string }[]>();
    for (const d of diffs) byPath.set(d.path, [...(byPath.get(d.path) ?? []), { oldText: d.oldText, newText: d.newText }]);
    for (const [p, list] of byPath) effects.push(await writeFromDiffs(p, list, ctx));
  } else if (tc.kind === 'execute') {
    const cmd = commandFromRaw(raw, ctx.cwd);
    if (cmd.command === null) undeclared.push('The agent did not show the command it will run.');
    effects.push(cmd);
  } else if (tc.kind === 'edit' || tc.kind === 'delete' || tc.kind === 'move') {
    const target = stringField(raw, ['file_path', 'filePath', 'filepath', 'path', 'target_file']) ?? tc.locations[0]?.path;
    const content = stringField(raw, ['content', 'contents', 'new_content', 'text']);
    if (target && path.isAbsolute(target)) {
      const base = await ctx.readCurrent(target);
      effects.push({ type: 'write', path: await resolvedRelative(target, ctx), contentSha256: content === undefined ? [] : [sha256(content)], baseSha256: base === null ? null : sha256(base) });
      if (content === undefined) undeclared.push(`The agent did not show what it will write to ${relativePath(target, ctx.roots)}.`);
    } else {
      undeclared.push('The agent did not say which file it will change.');
    }
  }
  if (!effects.length) effects.push({ type: 'tool', title: tc.title });
  return { intent: { sessionId: ctx.sessionId, agentId: ctx.agentId, toolCallId: tc.toolCallId, kind: tc.kind, effects }, undeclared };
}

/**
 * The contents a sequence of diffs on one file can produce from its current text. A diff whose
 * `oldText` is the whole file (or null/"" for a new or empty file) yields `newText`; a fragment
 * yields the text with its first occurrence replaced, and with every occurrence replaced (agents'
 * edit tools offer both). A fragment not found in the current text still allows `newText` as the
 * whole file, since some agents send the file as they last saw it.
 */
async function writeFromDiffs(abs: string, diffs: { oldText: string | null; newText: string }[], ctx: DeclareContext): Promise<WriteEffect> {
  const base = await ctx.readCurrent(abs);
  let candidates = new Set<string>([base ?? '']);
  for (const d of diffs) {
    const next = new Set<string>();
    for (const text of candidates) {
      if (d.oldText === null || d.oldText === '' || d.oldText === text) {
        next.add(d.newText);
      } else if (text.includes(d.oldText)) {
        next.add(text.replace(d.oldText, () => d.newText));
        next.add(text.split(d.oldText).join(d.newText));
      } else {
        next.add(d.newText);
      }
    }
    candidates = next;
  }
  return {
    type: 'write',
    path: await resolvedRelative(abs, ctx),
    contentSha256: [...candidates].map(sha256),
    baseSha256: base === null ? null : sha256(base),
  };
}

/** The workspace-relative path of `abs` after resolving symlinks, as the gate sees the performed write. */
async function resolvedRelative(abs: string, ctx: DeclareContext): Promise<string> {
  return relativePath(ctx.realpath ? await ctx.realpath(path.normalize(abs)) : path.normalize(abs), ctx.roots);
}

/** The command an `execute` tool call declares in its raw input. */
export function commandFromRaw(raw: Record<string, unknown>, sessionCwd: string): CommandEffect {
  const cwdRaw = stringField(raw, ['cwd', 'workdir', 'working_directory', 'dir_path']);
  const cwd = cwdRaw ? path.resolve(sessionCwd, cwdRaw) : sessionCwd;
  const c = raw.command ?? raw.cmd;
  if (typeof c === 'string' && c.trim()) {
    const args = Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string') ? (raw.args as string[]) : [];
    return { type: 'command', command: c, args, cwd, envNames: [] };
  }
  if (Array.isArray(c) && c.length && c.every((a) => typeof a === 'string')) {
    return { type: 'command', command: c[0] as string, args: c.slice(1) as string[], cwd, envNames: [] };
  }
  return { type: 'command', command: null, args: [], cwd, envNames: [] };
}

function stringField(raw: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (typeof raw[k] === 'string') return raw[k] as string;
  return undefined;
}

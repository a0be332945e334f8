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
import os from 'node:os';
import path from 'node:path';
import { relativePathReason } from '../fs/containment';
import { MAX_DISPLAY_CONTENT, MAX_TOOL_URL, type IntentDisplayView, type ToolCallView } from '../acp/session/types';
import { sha256, type CommandEffect, type Effect, type Intent, type WriteEffect } from './intent';
import { describeProfile, describeUnsandboxed, type SandboxPlan } from '../sandbox/profile';

/** What declaring needs to know about the session and the files. */
export interface DeclareContext {
  sessionId: string;
  agentId: string;
  /** The session's working directory (commands without cwd run there). */
  cwd: string;
  /** Workspace folders, for workspace-relative paths. */
  roots: readonly string[];
  /**
   * The current text of a file (the open document, unsaved changes included), or null if none.
   * Called only for a path that resolves inside `roots` and, when `identity` is given, is a regular
   * file; it may throw for a file it will not read (over a cap), which makes the write unmatchable.
   */
  readCurrent(absPath: string): Promise<string | null>;
  /** Resolves symlinks (as the performed effect will be); identity when absent. `roots` must be resolved alike. */
  realpath?(absPath: string): Promise<string>;
  /** The file at a resolved path (type, hard links) from a handle that does not block; not examined when absent. */
  identity?(real: string): Promise<{ regular: boolean; kind: string; links: number } | null>;
  /** Where the sandbox stands for the session's commands (issue 21); absent: off. */
  sandbox?: SandboxPlan;
}

/** An intent plus plain-language notes on what the agent left undeclared. */
export interface DeclaredIntent {
  intent: Intent;
  /** Sentences for the card, e.g. "The agent did not show what it will write to a.txt." */
  undeclared: string[];
  /**
   * What the intent lets through, one entry per effect in the same order, for the card to show as
   * text (see {@link displayOf}); absent only on intents built elsewhere.
   */
  display?: IntentDisplayView[];
}

/**
 * The path an intent names: relative to the innermost workspace folder that holds it, with `/`
 * separators; in a multi-root workspace prefixed with that folder's name (`projA/src/x.ts`, and
 * `name#2/…` when two folders share a name), so that the same relative path in two folders is two
 * different targets. The absolute path when outside every folder.
 */
export function relativePath(abs: string, roots: readonly string[]): string {
  let best: { i: number; rel: string } | undefined;
  roots.forEach((root, i) => {
    const rel = path.relative(root, abs);
    const inside = rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    if (inside && (!best || root.length > roots[best.i].length)) best = { i, rel };
  });
  if (!best) return abs;
  const rel = best.rel.split(path.sep).join('/');
  if (roots.length === 1) return rel;
  const name = path.basename(roots[best.i]);
  const clash = roots.some((r, j) => j !== best!.i && path.basename(r) === name);
  return `${clash ? `${name}#${best.i + 1}` : name}/${rel}`;
}

/** Builds the declared intent of a tool call. */
export async function declareIntent(tc: ToolCallView, ctx: DeclareContext): Promise<DeclaredIntent> {
  const undeclared: string[] = [];
  const effects: Effect[] = [];
  // The content a raw-input write's hash was taken of: the card must show it, the agent's blocks may not.
  let rawContent: string | undefined;
  const diffs = tc.content.filter((c) => c.type === 'diff');
  const raw = (tc.rawInput && typeof tc.rawInput === 'object' ? tc.rawInput : {}) as Record<string, unknown>;

  if (diffs.length) {
    // Grouped by the normalised path, so `a//b` and `a/b` are one target with one sequence of edits.
    const byPath = new Map<string, { oldText: string | null; newText: string }[]>();
    for (const d of diffs) {
      // A relative path stays as sent: it is refused by that name.
      const key = path.isAbsolute(d.path) ? path.normalize(d.path) : d.path;
      byPath.set(key, [...(byPath.get(key) ?? []), { oldText: d.oldText, newText: d.newText }]);
    }
    for (const [p, list] of byPath) effects.push(await writeFromDiffs(p, list, ctx, undeclared));
  } else if (tc.kind === 'execute') {
    const cmd = commandFromRaw(raw, ctx.cwd);
    if (ctx.sandbox && 'profile' in ctx.sandbox) cmd.sandbox = ctx.sandbox.profile;
    else if (ctx.sandbox?.mode === 'always') undeclared.push(describeUnsandboxed(ctx.sandbox)!);
    if (cmd.unmatchable) undeclared.push('The agent declared a command the client cannot read (not text or a list of words): no command will be let through.');
    else if (cmd.command === null) undeclared.push('The agent did not show the command it will run.');
    effects.push(cmd);
  } else if (tc.kind === 'edit' || tc.kind === 'delete' || tc.kind === 'move') {
    const target = stringField(raw, ['file_path', 'filePath', 'filepath', 'path', 'target_file']) ?? tc.locations[0]?.path;
    const content = stringField(raw, ['content', 'contents', 'new_content', 'text']);
    rawContent = content;
    if (target && path.isAbsolute(target)) {
      const t = await examine(target, ctx, undeclared);
      const hashes = !t.read ? [UNMATCHABLE] : content === undefined ? [] : [sha256(content)];
      effects.push({ type: 'write', path: t.rel, contentSha256: hashes, baseSha256: t.base === null ? null : sha256(t.base), ...(t.hardLinked ? { hardLinked: true as const } : {}) });
      if (content === undefined && t.read) undeclared.push(`The agent did not show what it will write to ${t.rel}.`);
    } else if (target) {
      undeclared.push(`${relativePathReason(target)} The client will refuse to write it.`);
    } else {
      undeclared.push('The agent did not say which file it will change.');
    }
  }
  if (!effects.length) effects.push({ type: 'tool', title: tc.title });
  const display = displayOf(effects, diffs.length ? 'diff' : 'rawInput', rawContent, ctx.sandbox && describeUnsandboxed(ctx.sandbox));
  // A fetch's URL and a mode switch's plan are shown whatever else the call carries.
  const detail = toolDetail(tc.kind, raw);
  if (detail.url || detail.plan) {
    const tool = display.findIndex((d) => d.type === 'tool');
    if (tool >= 0) display[tool] = { ...(display[tool] as Extract<IntentDisplayView, { type: 'tool' }>), ...detail };
    else display.push({ type: 'tool', title: tc.title, ...detail });
  }
  // What the card cuts, it says, and offers whole ("Open the whole request": the raw input, from the
  // session's own copy): nothing approved is shown only in part without a way to read all of it.
  if (display.some((d) => d.type === 'write' && d.content && d.content.totalChars > d.content.text.length)) {
    undeclared.push(`The content the agent will write is longer than the ${MAX_DISPLAY_CONTENT} characters the card shows; open the whole request and read it before you allow it.`);
  }
  if (detail.cut) undeclared.push(`The ${detail.url !== undefined ? 'address' : 'plan'} is longer than the card shows; open the whole request and read it before you allow it.`);
  return { intent: { sessionId: ctx.sessionId, agentId: ctx.agentId, toolCallId: tc.toolCallId, kind: tc.kind, effects }, undeclared, display };
}

/**
 * The card's form of exactly what `effects` let through: each command line as the gate compares it
 * (argv joined with spaces) and its folder; each write's path and, when its content came from the
 * raw input rather than from diff blocks the card shows, that content (cut to
 * {@link MAX_DISPLAY_CONTENT} characters, `totalChars` telling how many there are).
 */
export function displayOf(effects: readonly Effect[], source: 'diff' | 'rawInput', rawContent?: string, unsandboxed?: string): IntentDisplayView[] {
  return effects.map((e): IntentDisplayView => {
    if (e.type === 'command') {
      const argv = e.command === null ? [] : [e.command, ...e.args];
      // The sandbox in words: the profile the hash covers, or (sandbox on but unavailable) that there is none.
      const sandbox = e.sandbox ? { sandboxed: true, text: describeProfile(e.sandbox, os.homedir()) } : unsandboxed ? { sandboxed: false, text: unsandboxed } : undefined;
      return { type: 'command', line: e.command === null ? null : argv.join(' '), argv, cwd: e.cwd, envNames: [...e.envNames], ...(e.unmatchable ? { unreadable: true as const } : {}), ...(sandbox ? { sandbox } : {}) };
    }
    if (e.type === 'write') {
      const shown = source === 'rawInput' && rawContent !== undefined && e.contentSha256.length > 0 && !e.contentSha256.includes(UNMATCHABLE);
      return {
        type: 'write',
        path: e.path,
        source: shown ? 'rawInput' : source === 'diff' ? 'diff' : 'none',
        ...(shown ? { content: { text: rawContent.slice(0, MAX_DISPLAY_CONTENT), totalChars: rawContent.length } } : {}),
      };
    }
    return { type: 'tool', title: e.title };
  });
}

/**
 * What the card shows of a call the agent performs itself, from its raw input: the URL a `fetch`
 * reads (`url`, `uri` or `href`), the plan a `switch_mode` puts forward (`plan`). Text only, cut to
 * the display bounds, with `cut` when it was longer (the card then says so and offers the whole
 * request); nothing when the raw input does not carry it as a string.
 */
export function toolDetail(kind: string, raw: Record<string, unknown>): { url?: string; plan?: string; cut?: true } {
  const pick = (keys: string[]) => keys.map((k) => raw[k]).find((v): v is string => typeof v === 'string' && v.length > 0);
  const cut = (s: string, max: number) => (s.length > max ? { cut: true as const } : {});
  if (kind === 'fetch') {
    const url = pick(['url', 'uri', 'href']);
    return url ? { url: url.slice(0, MAX_TOOL_URL), ...cut(url, MAX_TOOL_URL) } : {};
  }
  if (kind === 'switch_mode') {
    const plan = pick(['plan']);
    return plan ? { plan: plan.slice(0, MAX_DISPLAY_CONTENT), ...cut(plan, MAX_DISPLAY_CONTENT) } : {};
  }
  return {};
}

/** Most diffs on one file, and most candidate contents, that an intent enumerates; beyond, it fails closed. */
const MAX_DIFFS_PER_FILE = 16;
const MAX_CANDIDATES = 64;
/** A content hash no write can have: the declared diff cannot produce any content we could verify. */
export const UNMATCHABLE = 'diff-does-not-apply';

/**
 * The contents a sequence of diffs on one file can produce from its current text. A diff whose
 * `oldText` is null or empty, or equals the whole file, yields `newText` (the whole new file);
 * a fragment yields the text with its first occurrence replaced, and with every occurrence replaced
 * (agents' edit tools offer both). A fragment that is not in the current text, or more diffs or
 * candidates than we enumerate, yields nothing that can match: the write will be refused, and the
 * card says why (it never widens into "any content").
 */
async function writeFromDiffs(abs: string, diffs: { oldText: string | null; newText: string }[], ctx: DeclareContext, undeclared: string[]): Promise<WriteEffect> {
  const t = await examine(abs, ctx, undeclared);
  const { rel, base } = t;
  const effect = (hashes: string[]): WriteEffect => ({ type: 'write', path: rel, contentSha256: hashes, baseSha256: base === null ? null : sha256(base), ...(t.hardLinked ? { hardLinked: true as const } : {}) });
  if (!t.read) return effect([UNMATCHABLE]);
  if (diffs.length > MAX_DIFFS_PER_FILE) {
    undeclared.push(`The agent sent ${diffs.length} edits to ${rel}; the client verifies at most ${MAX_DIFFS_PER_FILE}, so its write will be refused.`);
    return effect([UNMATCHABLE]);
  }
  let candidates = new Set<string>([base ?? '']);
  for (const d of diffs) {
    const next = new Set<string>();
    for (const text of candidates) {
      // null/"" (claude-code-acp's Write always sends null, also over an existing file; opencode
      // sends "" for a new file): the card shows newText as the whole file, so that is what matches.
      if (d.oldText === null || d.oldText === '' || d.oldText === text) {
        next.add(d.newText);
      } else if (d.oldText !== null && d.oldText !== '' && text.includes(d.oldText)) {
        next.add(text.replace(d.oldText, () => d.newText));
        next.add(text.split(d.oldText).join(d.newText));
      }
    }
    if (next.size === 0) {
      undeclared.push(`The agent's edit does not apply to the current text of ${rel}; its write will be refused.`);
      return effect([UNMATCHABLE]);
    }
    if (next.size > MAX_CANDIDATES) {
      undeclared.push(`The agent's edits to ${rel} have too many possible results to verify; its write will be refused.`);
      return effect([UNMATCHABLE]);
    }
    candidates = next;
  }
  return effect([...candidates].map(sha256));
}

/** What declaring learned of a write's target: its path as the gate sees it, its text, whether it could be read, hard links. */
interface Examined {
  rel: string;
  base: string | null;
  /** False when the client did not or could not read it: no content can be verified, the write will be refused. */
  read: boolean;
  hardLinked: boolean;
}

/**
 * Resolves and contains the target before anything reads it: a path outside the workspace folders
 * is named but never opened (its write will be refused anyway); inside, a FIFO, device or directory
 * is reported, not read (a read could block or never end). Notes for the card go to `undeclared`.
 */
async function examine(abs: string, ctx: DeclareContext, undeclared: string[]): Promise<Examined> {
  // Named as sent, never resolved: against the extension host's working folder it would name a
  // file the agent never meant.
  if (!path.isAbsolute(abs)) {
    undeclared.push(`${relativePathReason(abs)} The client did not read it and will refuse to write it.`);
    return { rel: abs, base: null, read: false, hardLinked: false };
  }
  const real = ctx.realpath ? await ctx.realpath(path.normalize(abs)) : path.normalize(abs);
  const rel = relativePath(real, ctx.roots);
  const unread = (note: string): Examined => (undeclared.push(note), { rel, base: null, read: false, hardLinked: false });
  if (path.isAbsolute(rel)) return unread(`${rel} is outside the workspace folders: the client did not read it and will refuse to write it.`);
  let links = 1;
  if (ctx.identity) {
    try {
      const id = await ctx.identity(real);
      if (id && !id.regular) return unread(`${rel} is ${id.kind}, not a regular file: the client did not read it and will refuse to write it.`);
      links = id?.links ?? 1;
    } catch (err) {
      return unread(`${rel} could not be examined (${err instanceof Error ? err.message : String(err)}); its write will be refused.`);
    }
  }
  let base: string | null;
  try {
    base = await ctx.readCurrent(abs);
  } catch (err) {
    return unread(`${rel} was not read (${err instanceof Error ? err.message : String(err)}); its write will be refused.`);
  }
  if (links > 1) undeclared.push(`${rel} has ${links} hard links: it may be the same file as one outside the workspace, so only an approval of this exact write lets it through.`);
  return { rel, base, read: true, hardLinked: links > 1 };
}

/**
 * The command an `execute` tool call declares in its raw input: `command` (or `cmd`) as a shell
 * string (with `args` when every one is a string) or as an argv array of strings. With no such field
 * the command is null (undeclared: one command, once). A field that is present but anything else
 * (a number, an array holding a non-string, an empty array or string, an object; or `args` that are
 * not all strings) is `unmatchable`:
 * the card could not show what would run, so the declaration covers no command at all.
 */
export function commandFromRaw(raw: Record<string, unknown>, sessionCwd: string): CommandEffect {
  const cwdRaw = stringField(raw, ['cwd', 'workdir', 'working_directory', 'dir_path']);
  const cwd = cwdRaw ? path.resolve(sessionCwd, cwdRaw) : sessionCwd;
  const c = raw.command ?? raw.cmd;
  if (typeof c === 'string' && c.trim()) {
    if (raw.args === undefined || raw.args === null) return { type: 'command', command: c, args: [], cwd, envNames: [] };
    if (Array.isArray(raw.args) && raw.args.every((a) => typeof a === 'string')) return { type: 'command', command: c, args: raw.args as string[], cwd, envNames: [] };
  } else
  if (Array.isArray(c) && c.length && c.every((a) => typeof a === 'string')) {
    return { type: 'command', command: c[0] as string, args: c.slice(1) as string[], cwd, envNames: [] };
  }
  if (c !== undefined && c !== null) return { type: 'command', command: null, args: [], cwd, envNames: [], unmatchable: true };
  return { type: 'command', command: null, args: [], cwd, envNames: [] };
}

function stringField(raw: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) if (typeof raw[k] === 'string') return raw[k] as string;
  return undefined;
}

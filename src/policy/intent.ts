/**
 * Intents: the exact effect an agent asks for, in a canonical form with a SHA-256 hash. The person
 * approves an intent; the effect we later perform must match it.
 *
 * Canonical form: RFC 8785 JSON Canonicalization Scheme (`canonicalize`), hashed with SHA-256
 * (`node:crypto`). Pure; no `vscode`.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { SandboxProfile } from '../sandbox/profile';

/** A write of a file, as declared (permission request) or performed (`fs/write_text_file`). */
export interface WriteEffect {
  type: 'write';
  /** Workspace-relative path with `/` separators; absolute when outside every folder. */
  path: string;
  /**
   * SHA-256 (hex) of every content the agent may write under this intent. For a performed write it
   * holds one hash. Empty when the agent did not declare what it will write (approval at path level).
   */
  contentSha256: string[];
  /** SHA-256 of the text the write replaces; null for a new file or when unknown. */
  baseSha256: string | null;
  /**
   * Present (true) when the target file has more than one hard link: the same file may also be
   * reachable under a name outside the workspace, so the gate treats it as a protected target, and
   * a performed write to it is covered only by a declaration that carried this flag too (the
   * person was shown it). Absent otherwise (so it does not change the hash of ordinary intents).
   */
  hardLinked?: true;
}

/** A command, as declared (permission request) or performed (`terminal/create`). */
export interface CommandEffect {
  type: 'command';
  /** The command line: the shell string, or the program followed by its arguments. Null when not declared. */
  command: string | null;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** Names of the environment variables the request sets (never their values). */
  envNames: string[];
  /**
   * Present (true) on a declaration whose command field is there but is neither a string nor an
   * array of strings: it covers no command at all (where `command: null`, no field, covers one
   * command once). Absent otherwise, so it does not change the hash of ordinary intents.
   */
  unmatchable?: true;
  /**
   * The sandbox the command runs in (issue 21): the folders it may write, the paths it may not read,
   * the hosts it may reach. Absent: it runs unsandboxed (so the hash of intents made with the sandbox
   * off is what it always was). A performed command is covered only by a declaration with the same
   * profile, and runs in exactly the profile its check carried.
   */
  sandbox?: SandboxProfile;
}

/** A tool call whose effect the client does not host (the agent does it itself, e.g. fetch or its own tools). */
export interface ToolEffect {
  type: 'tool';
  title: string;
}

/** One effect. */
export type Effect = WriteEffect | CommandEffect | ToolEffect;

/** An intent: who asks, for which tool call, to do what. */
export interface Intent {
  sessionId: string;
  agentId: string;
  toolCallId: string;
  /** ACP `ToolKind` of the tool call (`edit`, `execute`, …). */
  kind: string;
  effects: Effect[];
}

/**
 * The RFC 8785 canonical JSON of `value`.
 * @throws Error when the value cannot be represented (e.g. `NaN`, `Infinity`, a function).
 */
export function canonicalJson(value: unknown): string {
  const s = canonicalize(value);
  if (s === undefined) throw new Error('value cannot be canonicalized');
  return s;
}

/** SHA-256 (lowercase hex) of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}

/** SHA-256 (lowercase hex) of a text's UTF-8 bytes. */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The intent's hash: SHA-256 of its canonical JSON, with effect lists in a canonical order. */
export function intentHash(intent: Intent): string {
  return canonicalHash(normalizeIntent(intent));
}

/** The short form shown on cards: the first 12 hex digits. */
export function shortHash(hash: string): string {
  return hash.slice(0, 12);
}

/** Sorts the set-like lists so that equal intents hash equal whatever order they were built in. */
export function normalizeIntent(intent: Intent): Intent {
  return {
    ...intent,
    effects: intent.effects.map((e) => {
      if (e.type === 'write') return { ...e, contentSha256: [...new Set(e.contentSha256)].sort() };
      if (e.type === 'command') return { ...e, envNames: [...new Set(e.envNames)].sort() };
      return e;
    }),
  };
}

/**
 * A comparison (issue 20): one prompt sent to several agents, each in a worktree of its own, and
 * what each did side by side — status, time, tokens and cost when the agent says them, the files it
 * changed with their diffs, and the exit code of a test command the person named. The model the
 * compare view draws; built from the sessions and the worktrees' changes. Pure.
 */
import { structuredPatch } from 'diff';
import { hunkTitle } from '../edits/hunkTitle';

/** One file an agent changed, with its diff in unified lines (bounded). */
export interface CompareFile {
  rel: string;
  kind: 'added' | 'deleted' | 'modified' | 'binary';
  added: number;
  removed: number;
  /** Hunk lines (`@@ Lines 4–6`) and ' ', '+', '-' lines; cut at {@link MAX_DIFF_LINES}. */
  lines: string[];
  /** Lines not shown (the diff opens whole from the view). */
  more: number;
}

/** One agent's column. */
export interface CompareEntry {
  sessionKey: string;
  worktreeId: string;
  agentId: string;
  agentName: string;
  branch: string;
  /** Board status words ("working", "waiting for you (1)", "done"…). */
  status: string;
  /** Requests of this agent that wait for the person (permissions and questions). */
  waiting?: number;
  startedAt: number;
  endedAt?: number;
  /** "53k tokens · 0.42 USD", when the agent sends usage. */
  usage: string;
  files: CompareFile[];
  test?: {
    state: 'waiting' | 'running' | 'done';
    exitCode?: number | null;
    output?: string;
    ms?: number;
    stopped?: string;
    /** Not run, and why (the sandbox unavailable with `always`, or it could not be set up). */
    refused?: string;
    /** How it runs (or ran): sandboxed in the session's profile, or not, in words. */
    sandbox?: { sandboxed: boolean; text: string };
  };
  /** `kept`: applied to the main folder from here; `discarded`: its worktree is gone. */
  outcome?: 'kept' | 'discarded';
  error?: string;
}

/** A whole comparison. */
export interface CompareView {
  id: string;
  prompt: string;
  testCommand?: string;
  entries: CompareEntry[];
}

/** Diff lines a file shows in the view before "… N more lines". */
export const MAX_DIFF_LINES = 400;

/** A file's entry from its two sides (null: missing; undefined: not text). */
export function compareFile(rel: string, before: string | null | undefined, after: string | null | undefined): CompareFile {
  if (before === undefined || after === undefined) return { rel, kind: 'binary', added: 0, removed: 0, lines: [], more: 0 };
  const patch = structuredPatch(rel, rel, before ?? '', after ?? '', undefined, undefined, { context: 2 });
  const all: string[] = [];
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    // A hunk's line says where it is as a person looks for it ("@@ Lines 4–6"), not as patch(1) does.
    all.push(`@@ ${hunkTitle(h)}`);
    for (const l of h.lines) {
      if (l[0] === '\\') continue;
      if (l[0] === '+') added++;
      if (l[0] === '-') removed++;
      all.push(l);
    }
  }
  return { rel, kind: before === null ? 'added' : after === null ? 'deleted' : 'modified', added, removed, lines: all.slice(0, MAX_DIFF_LINES), more: Math.max(0, all.length - MAX_DIFF_LINES) };
}

/** "2 min 5 s", "840 ms". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

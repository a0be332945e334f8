/**
 * A prompt as one readable line, for the places that name a turn or a session by what the person
 * asked (the Changes view, the session picker): whitespace and line breaks folded, code fences
 * dropped, cut at a word with "…". A prompt that is JSON (the offline demo agent's scenarios take
 * their script as the prompt) is named by what it holds — `{"edits":[{"path":"a.txt",…}]}` reads
 * "edits a.txt" — never as raw JSON. Pure, shared with the webview.
 */
import type { SessionState } from './types';

/** Longest summary, in characters, unless the caller asks for another. */
export const PROMPT_SUMMARY_CHARS = 60;

/** The fields that name an item of a script's list, in the order they are preferred. */
const NAMING_FIELDS = ['path', 'file', 'command', 'tool', 'name', 'title', 'op', 'id'];

/**
 * One line of at most `max` characters saying what `prompt` asks; '' for an empty prompt.
 * Control characters never reach the result.
 */
export function promptSummary(prompt: string, max = PROMPT_SUMMARY_CHARS): string {
  const trimmed = prompt.trim();
  if (!trimmed) return '';
  const script = /^[[{]/.test(trimmed) ? scriptSummary(trimmed) : undefined;
  const words = script ?? trimmed
    .split(/\r?\n/)
    // A fence line says only that code follows; the code itself is kept.
    .filter((l) => !/^\s*(```|~~~)/.test(l))
    .join(' ');
  return cut(oneLine(words), max);
}

/**
 * A session named so that two of them can be told apart where only words can (a dialog, a
 * tooltip): its agent, its title and, for one in a git worktree, its branch — parallel runs of
 * one agent on one prompt differ only there.
 */
export function sessionLabel(s: Pick<SessionState, 'agentName' | 'title' | 'entries' | 'worktree'>): string {
  return labelOf(s.agentName, sessionTitle(s), s.worktree);
}

/** {@link sessionLabel} from its parts (a session remembered after it closed keeps only these). */
export function labelOf(agentName: string, title: string, worktree?: { branch: string }): string {
  return `${agentName} · ${title}${worktree ? ` (worktree ${worktree.branch})` : ''}`;
}

/** The title a session goes by: the agent's title, else its first prompt's summary, else "New session". */
export function sessionTitle(s: Pick<SessionState, 'title' | 'entries'>): string {
  if (s.title?.trim()) return oneLine(s.title);
  const first = s.entries.find((e) => e.kind === 'user');
  return (first && 'text' in first && promptSummary(first.text)) || 'New session';
}

/** What a JSON prompt holds, in words; text that only looks like JSON keeps its words, not its brackets. */
function scriptSummary(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text.replace(/[{}[\]"]+/g, ' ').replace(/\s*:\s*/g, ': ').replace(/\s*,\s*/g, ', ');
  }
  return describe(value, 0) || 'a script';
}

/** A JSON value in words: an object by its keys and what each holds, a list by what names its items. */
function describe(v: unknown, depth: number): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.slice(0, 6).map((x) => itemName(x, depth)).filter(Boolean).join(', ') + (v.length > 6 ? ', …' : '');
  if (depth > 1) return Object.keys(v as object).slice(0, 3).join(', ');
  return Object.entries(v as Record<string, unknown>)
    .slice(0, 4)
    .map(([k, x]) => {
      const said = describe(x, depth + 1);
      return said ? `${k} ${said}` : k;
    })
    .join(' · ');
}

/** An item of a script's list by its naming field (its path, command, tool…), else in words. */
function itemName(x: unknown, depth: number): string {
  if (x && typeof x === 'object' && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    const field = NAMING_FIELDS.find((f) => typeof o[f] === 'string' && (o[f] as string).trim());
    if (field) return o[field] as string;
  }
  return describe(x, depth + 2);
}

/** Whitespace, control and direction-changing characters folded into single spaces. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\s]+/g, ' ').trim();
}

/** At most `max` characters, cut at a word when one ends in the last third, with "…". */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max * 0.66 ? head.slice(0, space) : head).trimEnd()}…`;
}

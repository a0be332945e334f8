/**
 * The part of a session a page is sent. A restored session may hold 20,000 entries; the page builds
 * only the newest ones, so sending (and structured-cloning, and saving with the webview's state)
 * all of them would make its first paint grow with the session (PF2 in bench/session.ts). A
 * snapshot therefore carries the newest {@link SNAPSHOT_ENTRIES} entries with the tool calls,
 * permissions and terminals they show; earlier entries come a page at a time when the person asks.
 *
 * Pure, DOM-free: the extension builds windows and pages, the webview merges pages.
 */
import type { PermissionView, SessionPatch, SessionState, TerminalView, ThreadEntry, ToolCallView } from './types';
import { PieceText } from '../../common/pieceText';

/** Entries a snapshot carries, and entries per page of earlier ones. */
export const SNAPSHOT_ENTRIES = 300;

/**
 * Most characters of one tool-content text a page is sent and shows (a card counts the rest; the
 * export has it all). A tool that re-sends its whole output on every update (PF10: 200 updates
 * growing to 2 MiB) would otherwise have every copy cloned into the page.
 */
export const SHOWN_TEXT_CHARS = 100_000;

/**
 * `tc` as a page is sent it: each text content item cut at {@link SHOWN_TEXT_CHARS} with its full
 * length in `totalChars`. Returns `tc` itself when nothing is cut.
 */
export function toolCallForPage(tc: ToolCallView): ToolCallView {
  if (!tc.content.some((c) => c.type === 'text' && c.text.length > SHOWN_TEXT_CHARS)) return tc;
  return {
    ...tc,
    content: tc.content.map((c) => (c.type === 'text' && c.text.length > SHOWN_TEXT_CHARS ? { type: 'text', text: c.text.slice(0, SHOWN_TEXT_CHARS), totalChars: c.totalChars ?? c.text.length } : c)),
  };
}

/** Entries before a snapshot's first, with what they show (see {@link earlierPage}). */
export interface EarlierPage {
  entries: ThreadEntry[];
  toolCalls: Record<string, ToolCallView>;
  permissions: Record<string, PermissionView>;
  terminals: Record<string, TerminalView>;
  /** Entries still before this page's first one. */
  omitted: number;
}

/** The tool calls, permissions and terminals `entries` show (a tool card reads all three). */
function shownBy(state: SessionState, entries: readonly ThreadEntry[]): Omit<EarlierPage, 'entries' | 'omitted'> {
  const toolCalls: Record<string, ToolCallView> = {};
  const permissions: Record<string, PermissionView> = {};
  const terminals: Record<string, TerminalView> = {};
  for (const e of entries) {
    if (e.kind !== 'tool_call') continue;
    const tc = state.toolCalls[e.toolCallId];
    if (!tc) continue;
    toolCalls[tc.toolCallId] = toolCallForPage(tc);
    const p = tc.permissionId ? state.permissions[tc.permissionId] : undefined;
    if (p) permissions[p.permissionId] = p;
    for (const c of tc.content) {
      if (c.type === 'terminal' && state.terminals[c.terminalId]) terminals[c.terminalId] = state.terminals[c.terminalId];
    }
  }
  return { toolCalls, permissions, terminals };
}

/**
 * The state as a snapshot carries it: a shallow copy with the newest `max` entries and what they
 * show (long tool texts cut, {@link toolCallForPage}); it reaches further back to the card of a permission or question that waits (the page must
 * be able to answer it).
 * @returns The windowed state (the original when it fits) and how many entries were left out.
 */
export function windowState(state: SessionState, max = SNAPSHOT_ENTRIES): { state: SessionState; omitted: number } {
  if (state.entries.length <= max) {
    const cut = Object.values(state.toolCalls).some((tc) => toolCallForPage(tc) !== tc);
    return { state: cut ? { ...state, ...shownBy(state, state.entries) } : state, omitted: 0 };
  }
  let start = state.entries.length - max;
  // A permission that waits is answered on its tool call's card: the window reaches back to it.
  const waiting = new Set(Object.values(state.permissions).filter((p) => p.state === 'waiting').map((p) => p.toolCallId));
  // So is an agent's question that waits (its card holds the form).
  const asks = (e: ThreadEntry) => e.kind === 'elicitation' && e.elicitation.state === 'waiting';
  if (waiting.size || state.entries.slice(0, start).some(asks)) {
    for (let i = 0; i < start; i++) {
      const e = state.entries[i];
      if ((e.kind === 'tool_call' && waiting.has(e.toolCallId)) || asks(e)) {
        start = i;
        break;
      }
    }
  }
  const entries = state.entries.slice(start);
  return { state: { ...state, entries, ...shownBy(state, entries) }, omitted: start };
}

/**
 * Up to `count` entries before the entry `beforeEntryId`, with what they show.
 * @returns `undefined` when the session has no such entry (the page's view is stale: it should ask
 *   for a snapshot).
 */
export function earlierPage(state: SessionState, beforeEntryId: string, count = SNAPSHOT_ENTRIES): EarlierPage | undefined {
  let end = -1;
  for (let i = state.entries.length - 1; i >= 0; i--) {
    if (state.entries[i].id === beforeEntryId) {
      end = i;
      break;
    }
  }
  if (end < 0) return undefined;
  const start = Math.max(0, end - Math.max(1, Math.floor(count)));
  const entries = state.entries.slice(start, end);
  return { entries, ...shownBy(state, entries), omitted: start };
}

/**
 * Puts an earlier page in front of the page's state; tool calls, permissions and terminals it
 * already holds are newer and stay.
 * @returns False when the page does not join: the state's first entry is not the one the page was
 *   asked before (a snapshot came in between); nothing is changed then.
 */
export function mergeEarlier(state: SessionState, beforeEntryId: string, page: EarlierPage): boolean {
  if (state.entries[0]?.id !== beforeEntryId) return false;
  state.entries.unshift(...page.entries);
  for (const [k, v] of Object.entries(page.toolCalls)) state.toolCalls[k] ??= v;
  for (const [k, v] of Object.entries(page.permissions)) state.permissions[k] ??= v;
  for (const [k, v] of Object.entries(page.terminals)) state.terminals[k] ??= v;
  return true;
}

/**
 * A batch as the page is sent it: of several `toolCall` patches of one call only the last is kept (each
 * replaces the call's whole view), long tool texts are cut ({@link toolCallForPage}), and
 * consecutive `appendText` patches of one entry become one. A tool re-sending its growing output
 * (PF10) then costs one clone of its first 100,000 characters per frame, and a message streamed in
 * a thousand chunks within a frame one patch (PF1: each patch was serialised and applied apart).
 */
export function patchesForPage(patches: readonly SessionPatch[]): SessionPatch[] {
  const lastOf = new Map<string, number>();
  for (let i = 0; i < patches.length; i++) {
    const p = patches[i];
    if (p.op === 'toolCall') lastOf.set(p.toolCall.toolCallId, i);
  }
  const out: SessionPatch[] = [];
  // Streamed chunks of one message become one append (the same text, one patch to send and apply):
  // the texts of the append at the end of `out` are collected and joined once, not copied per chunk.
  let run: string[] | undefined;
  const close = () => {
    const last = out[out.length - 1];
    if (run && last?.op === 'appendText') out[out.length - 1] = { ...last, text: run.join('') };
    run = undefined;
  };
  for (let i = 0; i < patches.length; i++) {
    const p = patches[i];
    const last = out[out.length - 1];
    if (p.op === 'appendText' && last?.op === 'appendText' && last.entryId === p.entryId) (run ??= [last.text]).push(p.text);
    else if (p.op !== 'toolCall') {
      close();
      out.push(p);
    } else if (lastOf.get(p.toolCall.toolCallId) === i) {
      close();
      out.push({ op: 'toolCall', toolCall: toolCallForPage(p.toolCall) });
    }
  }
  close();
  return out;
}

/** Shortest tool text worth leaving out of a patch when the page already has it. */
const ELIDE_MIN_CHARS = 4096;

/**
 * `patches` (as {@link patchesForPage} made them) with each tool-call text the page was last sent
 * for the same item of the same call left out: `{ type: 'text', text: '', sameText: true }` with its
 * `totalChars`. A tool re-sending its growing output keeps the first {@link SHOWN_TEXT_CHARS}
 * characters the page shows unchanged, so without this each update cloned (and, in a remote window,
 * compressed) the same 100,000 characters again.
 * @param shown what the page was sent, per tool call id the text of each content item; updated
 *   here. The caller empties it whenever the page gets a snapshot (or may have missed a batch).
 */
export function elideShownTexts(patches: SessionPatch[], shown: Map<string, (string | undefined)[]>): SessionPatch[] {
  return patches.map((p) => {
    if (p.op !== 'toolCall') return p;
    const id = p.toolCall.toolCallId;
    const before = shown.get(id);
    let elided = false;
    const content = p.toolCall.content.map((c, i) => {
      if (c.type !== 'text' || c.text.length < ELIDE_MIN_CHARS || before?.[i] !== c.text) return c;
      elided = true;
      return { type: 'text' as const, text: '', totalChars: c.totalChars ?? c.text.length, sameText: true as const };
    });
    shown.set(id, p.toolCall.content.map((c) => (c.type === 'text' ? c.text : undefined)));
    return elided ? { op: 'toolCall', toolCall: { ...p.toolCall, content } } : p;
  });
}

/**
 * The patches of one session waiting to be sent to its page (~16 ms), from the session's changes.
 * Consecutive `appendText` patches of one entry are joined as they arrive, into flat pieces
 * ({@link PieceText}), rather than kept as patch objects until the batch is sent: at 250,000
 * chunks a second a frame holds some 4,000 of them, and each that was alive when V8 collected its
 * young generation survived it (14 of the 22 MB that survived a 200,000-chunk turn, enough to
 * grow the young generation 32 → 128 MB). {@link take} gives what {@link patchesForPage} makes of
 * them. Pure.
 */
export class PatchBatch {
  private patches: SessionPatch[] = [];
  /** The `appendText` at the end of the batch, still growing. */
  private run: { entryId: string; text: PieceText } | undefined;
  /** The session's rev before the batch's first patch (the page checks it follows its own). */
  fromRev = 0;
  /** The session's rev after the batch's last patch. */
  rev = 0;

  /** True when nothing waits. */
  get empty(): boolean {
    return !this.patches.length && !this.run;
  }

  /** Adds one change's `patches`, after which the session is at `rev`. */
  push(patches: readonly SessionPatch[], rev: number): void {
    if (this.empty) this.fromRev = rev - patches.length;
    for (const p of patches) {
      if (p.op === 'appendText' && this.run?.entryId === p.entryId) {
        this.run.text.append(p.text);
        continue;
      }
      this.closeRun();
      if (p.op === 'appendText') this.run = { entryId: p.entryId, text: new PieceText(p.text) };
      else this.patches.push(p);
    }
    this.rev = rev;
  }

  /** What waits, as the page is sent it ({@link patchesForPage}); the batch is empty after. */
  take(): SessionPatch[] {
    this.closeRun();
    const out = patchesForPage(this.patches);
    this.patches = [];
    return out;
  }

  /** Drops what waits (the page gets a snapshot instead). */
  clear(): void {
    this.patches = [];
    this.run = undefined;
  }

  private closeRun(): void {
    if (!this.run) return;
    this.patches.push({ op: 'appendText', entryId: this.run.entryId, text: this.run.text.text });
    this.run = undefined;
  }
}

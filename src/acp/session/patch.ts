/**
 * Applies {@link SessionPatch}es to a {@link SessionState}. The extension's reducer and the webview
 * run this same function, so both sides hold the same state by construction.
 *
 * Pure and DOM-free; mutates `state` in place (a streamed chunk must cost O(chunk), not O(thread)).
 */
import type { SessionPatch, SessionState, ThreadEntry } from './types';
import { appendPieces } from '../../common/pieceText';

/** Index of the entry with `id`, searching from the end (new entries and appends land there). */
export function findEntryIndex(state: SessionState, id: string): number {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    if (state.entries[i].id === id) return i;
  }
  return -1;
}

/**
 * Applies one patch in place and bumps `state.rev`.
 * An `appendText` for an unknown entry is ignored (it cannot happen from our reducer; a webview that
 * missed a patch detects the gap through `rev` and asks for a snapshot).
 */
export function applyPatch(state: SessionState, patch: SessionPatch): void {
  switch (patch.op) {
    case 'entry': {
      // A copy: later appends mutate the stored entry, and the patch object may still sit in a batch.
      const entry = { ...patch.entry };
      const i = findEntryIndex(state, entry.id);
      if (i >= 0) state.entries[i] = entry;
      else state.entries.push(entry);
      const n = Number(patch.entry.id.slice(1));
      if (Number.isFinite(n) && n >= state.nextEntry) state.nextEntry = n + 1;
      break;
    }
    case 'appendText': {
      const i = findEntryIndex(state, patch.entryId);
      if (i >= 0) {
        const e = state.entries[i] as Extract<ThreadEntry, { text: string }>;
        // Appended in flat pieces: a streamed chunk does not outlive V8's young generation.
        if ('text' in e) appendPieces(e, patch.text);
      }
      break;
    }
    case 'toolCall': {
      const tc = patch.toolCall;
      const before = state.toolCalls[tc.toolCallId];
      // A text the page already has was left out of the patch (elideShownTexts): it is put back.
      state.toolCalls[tc.toolCallId] = tc.content.some((c) => c.type === 'text' && c.sameText)
        ? {
            ...tc,
            content: tc.content.map((c, i) => {
              if (c.type !== 'text' || !c.sameText) return c;
              const had = before?.content[i];
              return { type: 'text', text: had?.type === 'text' ? had.text : '', ...(c.totalChars !== undefined ? { totalChars: c.totalChars } : {}) };
            }),
          }
        : tc;
      break;
    }
    case 'permission':
      state.permissions[patch.permission.permissionId] = patch.permission;
      break;
    case 'terminal':
      state.terminals[patch.terminal.terminalId] = patch.terminal;
      break;
    case 'plan':
      state.plan = patch.plan;
      break;
    case 'meta':
      Object.assign(state, patch.meta);
      break;
  }
  state.rev++;
}

/** Applies patches in order. */
export function applyPatches(state: SessionState, patches: readonly SessionPatch[]): void {
  for (const p of patches) applyPatch(state, p);
}

/**
 * The whole diff of a tool card, in VS Code's diff editor: the "Open full diff" of a card whose
 * preview shows only part of a change (the preview stops at 20 changed lines). Both sides are
 * read-only virtual documents whose text comes from the session's own state (the card's frozen
 * copy of the call), never from the webview's message, which only names the session, the tool call
 * and the content item. The editor shows bidi and invisible characters (its unicode highlighting).
 * Likewise "Open the whole request": a card's raw input in full, as JSON, when the card shows only
 * part of what it approves (a long content, address or plan).
 */
import * as vscode from 'vscode';
import { text } from '../../common/untrustedText';
import type { SessionState } from '../../acp/session/types';

/** URI scheme of the two sides of a card's diff. */
export const CARD_DIFF_SCHEME = 'agent-switchboard-card';

/** Registers the documents of cards' diffs; `state` finds a session's state by its key. */
export function registerCardDiffs(state: (key: string) => SessionState | undefined): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(CARD_DIFF_SCHEME, {
    provideTextDocumentContent: (uri) => {
      const q = new URLSearchParams(uri.query);
      if (q.get('side') === 'input') return inputOf(state(q.get('key') ?? ''), q.get('toolCallId') ?? '') ?? 'This request is no longer available.';
      const d = diffOf(state(q.get('key') ?? ''), q.get('toolCallId') ?? '', Number(q.get('index')));
      if (!d) return 'This change is no longer available.';
      return q.get('side') === 'old' ? (d.oldText ?? '') : d.newText;
    },
  });
}

/**
 * Opens the content item `index` of tool call `toolCallId` of session `key` as a diff: the text it
 * replaces on the left (empty for a new file), the new text on the right. Says so when there is no
 * such diff (the session closed, or the message named something else).
 */
export async function openCardDiff(state: SessionState | undefined, key: string, toolCallId: string, index: number): Promise<void> {
  const d = diffOf(state, toolCallId, index);
  if (!d) {
    void vscode.window.showInformationMessage(text`That change is no longer available.`);
    return;
  }
  const name = d.path.split(/[\\/]/).pop() || d.path;
  const side = (s: 'old' | 'new') => vscode.Uri.from({ scheme: CARD_DIFF_SCHEME, path: `/${s}/${name}`, query: new URLSearchParams({ key, toolCallId, index: String(index), side: s }).toString() });
  await vscode.commands.executeCommand('vscode.diff', side('old'), side('new'), text`${name}: ${d.oldText === null ? 'new file' : 'now'} ↔ the agent's change`, { preview: true } satisfies vscode.TextDocumentShowOptions);
}

/**
 * Opens the whole raw input of tool call `toolCallId` of session `key` (what its card was built from:
 * frozen while the card waits) as read-only JSON. Says so when there is none.
 */
export async function openCardInput(state: SessionState | undefined, key: string, toolCallId: string): Promise<void> {
  if (inputOf(state, toolCallId) === undefined) {
    void vscode.window.showInformationMessage(text`That request is no longer available.`);
    return;
  }
  const uri = vscode.Uri.from({ scheme: CARD_DIFF_SCHEME, path: '/input/request.json', query: new URLSearchParams({ key, toolCallId, side: 'input' }).toString() });
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
}

function inputOf(state: SessionState | undefined, toolCallId: string): string | undefined {
  const raw = state?.toolCalls[toolCallId]?.rawInput;
  if (raw === undefined) return undefined;
  try {
    return JSON.stringify(raw, null, 2) ?? String(raw);
  } catch {
    return String(raw);
  }
}

function diffOf(state: SessionState | undefined, toolCallId: string, index: number): { path: string; oldText: string | null; newText: string } | undefined {
  const c = Number.isInteger(index) && index >= 0 ? state?.toolCalls[toolCallId]?.content[index] : undefined;
  return c?.type === 'diff' ? c : undefined;
}

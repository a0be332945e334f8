/**
 * What went with each prompt the person sent, so *Edit and resend* can put a message back into the
 * prompt box with its attachments, not only its words. The thread keeps only an attachment's label
 * (`ThreadEntry.context`); the items themselves (a file's path, a selection's lines and text, an
 * image) are kept here, per session, by the prompt's text and labels — what the thread entry shows —
 * the newest first, within a budget of bytes: past it the oldest go, and a message whose items
 * are gone comes back with its words and the labels it lost named. Pure: no `vscode`.
 */
import type { ContextItem } from '../../acp/promptContext';

/** One attachment as the composer shows it. */
export interface SentItem {
  item: ContextItem;
  label: string;
}

/** Bytes of attachments (their JSON) kept for all sessions together. */
export const SENT_CONTEXT_BYTES = 32 * 1024 * 1024;

/** The attachments of the prompts sent in this window. */
export class SentContext {
  /** Insertion order is age: the oldest first. */
  private readonly byPrompt = new Map<string, { items: SentItem[]; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budget = SENT_CONTEXT_BYTES) {}

  /** Notes what went with `text` in session `key` (labels in the order the thread shows them). */
  note(key: string, text: string, items: readonly ContextItem[], labels: readonly string[]): void {
    if (!items.length || items.length !== labels.length) return;
    const id = promptId(key, text, labels);
    const kept = items.map((item, i) => ({ item, label: labels[i] }));
    const bytes = JSON.stringify(kept).length;
    this.drop(id);
    // One prompt larger than the whole budget is not kept (its message comes back with its words).
    if (bytes > this.budget) return;
    this.byPrompt.set(id, { items: kept, bytes });
    this.bytes += bytes;
    for (const old of this.byPrompt.keys()) {
      if (this.bytes <= this.budget) break;
      this.drop(old);
    }
  }

  /**
   * The attachments of the prompt `text` with `labels` (as its thread entry shows them); `missing`
   * names the labels whose items are no longer known (sent before this window, or past the budget).
   */
  find(key: string, text: string, labels: readonly string[]): { items: SentItem[]; missing: string[] } {
    if (!labels.length) return { items: [], missing: [] };
    const kept = this.byPrompt.get(promptId(key, text, labels));
    return kept ? { items: kept.items.map((i) => ({ ...i })), missing: [] } : { items: [], missing: [...labels] };
  }

  /** Forgets a session's prompts (it was closed). */
  forget(key: string): void {
    const prefix = `[${JSON.stringify(key)},`;
    for (const id of [...this.byPrompt.keys()]) if (id.startsWith(prefix)) this.drop(id);
  }

  private drop(id: string): void {
    const old = this.byPrompt.get(id);
    if (!old) return;
    this.byPrompt.delete(id);
    this.bytes -= old.bytes;
  }
}

function promptId(key: string, text: string, labels: readonly string[]): string {
  // JSON keeps the parts apart whatever characters they hold.
  return JSON.stringify([key, text, ...labels]);
}

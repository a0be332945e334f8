/**
 * The page's ways to send words to an agent — a prompt, a prompt typed before any session (which
 * starts one), an earlier message edited in place (after restoring its files, when asked) — and
 * the one promise they share: what could not go out comes back to the prompt box, with why
 * (`promptRefused`), so nothing typed is lost.
 */
import type { ContextItem } from '../../acp/promptContext';
import type { HostMessage, WebviewMessage } from './protocol';

/** What sending needs of the app (a part of the session surface's host). */
export interface PromptSendHost {
  startSession(agentId: string): Promise<string>;
  prompt(key: string, text: string, context?: ContextItem[]): Promise<unknown>;
  messages?: { restore(key: string, entryId: string): Promise<Extract<HostMessage, { type: 'checkpointRestored' }>> };
}

type Sending = Extract<WebviewMessage, { type: 'prompt' | 'startSession' | 'resendMessage' }>;

/** Carries out `m` for the page; `post` answers it. Rethrows a failure after answering it. */
export async function sendFromPage(host: PromptSendHost, m: Sending, post: (msg: HostMessage) => void): Promise<void> {
  const refused = (text: string, err: unknown) => post({ type: 'promptRefused', text, reason: err instanceof Error ? err.message : String(err) });
  switch (m.type) {
    case 'startSession': {
      if (!m.prompt) {
        await host.startSession(m.agentId);
        return;
      }
      // Typed before any session: the session starts, and what was typed is its first turn.
      try {
        const key = await host.startSession(m.agentId);
        await host.prompt(key, m.prompt, m.context);
      } catch (err) {
        refused(m.prompt, err);
        throw err;
      }
      return;
    }
    case 'resendMessage': {
      // One step: the files back to before the message when asked, then the edited words as a
      // new turn. A restore that is refused (the agent still works, a restore under way) sends
      // nothing: the words wait in the prompt box, with why.
      if (m.restore) {
        const r = await host.messages?.restore(m.key, m.entryId);
        if (r) post(r);
        if (!r || r.refused) {
          post({ type: 'promptRefused', text: m.text, reason: `the files were not restored first (${r?.refused ?? 'this session has ended.'})` });
          return;
        }
      }
      try {
        await host.prompt(m.key, m.text, m.context);
      } catch (err) {
        refused(m.text, err);
        throw err;
      }
      return;
    }
    case 'prompt':
      try {
        await host.prompt(m.key, m.text, m.context);
      } catch (err) {
        refused(m.text, err);
        throw err;
      }
  }
}

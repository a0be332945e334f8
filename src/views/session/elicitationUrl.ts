/**
 * Opening a URL-mode question's page (ACP `elicitation/create`, `mode: "url"`). The address comes
 * from the session's own state, never from the page's message; the person is asked first in a modal
 * that names the host (the spec: "display the target host and obtain consent"); only then is the
 * agent told `accept` and the page opened with `vscode.env.openExternal`. A question that stopped
 * waiting meanwhile (Stop, the agent withdrew it) opens nothing.
 */
import * as vscode from 'vscode';
import type { SessionController } from '../../acp/sessionController';
import { urlTarget } from '../../elicitation/url';
import { text } from '../../common/untrustedText';

/** Asks, answers `accept`, and opens the page of the question `elicitationKey` of `session`. */
export async function openElicitationUrl(session: SessionController | undefined, elicitationKey: string, problems: (p: string[]) => void): Promise<void> {
  const view = session?.state.entries.find((e) => e.kind === 'elicitation' && e.elicitation.elicitationKey === elicitationKey);
  if (!session || !view || view.kind !== 'elicitation' || view.elicitation.mode !== 'url' || view.elicitation.state !== 'waiting') return;
  const target = urlTarget(view.elicitation.url ?? '');
  if (!target.openable) return problems([target.reason]);
  const choice = await vscode.window.showWarningMessage(
    text`${session.state.agentName} asks you to open a page on ${target.host}. Open it in your browser?`,
    { modal: true, detail: text`${target.href}` },
    'Open',
  );
  if (choice !== 'Open') return;
  const r = session.answerElicitation(elicitationKey, 'accept');
  if (!r.ok) return 'problems' in r ? problems(r.problems) : undefined;
  await vscode.env.openExternal(vscode.Uri.parse(target.href, true));
}

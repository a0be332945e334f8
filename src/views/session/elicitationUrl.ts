/**
 * Opening a URL-mode question's page (ACP `elicitation/create`, `mode: "url"`). The address comes
 * from the session's own state, never from the page's message; the person is asked first in a modal
 * that names the host (the spec: "display the target host and obtain consent") and shows the whole
 * address (src/views/openUrl.ts); only then is the agent told `accept` and the page opened. A
 * question that stopped waiting meanwhile (Stop, the agent withdrew it) opens nothing.
 */
import type { SessionController } from '../../acp/sessionController';
import { urlTarget } from '../../elicitation/url';
import { askToOpenUrl, openCheckedUrl } from '../openUrl';

/** Asks, answers `accept`, and opens the page of the question `elicitationKey` of `session`. */
export async function openElicitationUrl(session: SessionController | undefined, elicitationKey: string, problems: (p: string[]) => void): Promise<void> {
  const view = session?.state.entries.find((e) => e.kind === 'elicitation' && e.elicitation.elicitationKey === elicitationKey);
  if (!session || !view || view.kind !== 'elicitation' || view.elicitation.mode !== 'url' || view.elicitation.state !== 'waiting') return;
  const target = urlTarget(view.elicitation.url ?? '');
  if (!target.openable) return problems([target.reason]);
  if (!(await askToOpenUrl(session.state.agentName, target))) return;
  const r = session.answerElicitation(elicitationKey, 'accept');
  if (!r.ok) return 'problems' in r ? problems(r.problems) : undefined;
  await openCheckedUrl(target);
}

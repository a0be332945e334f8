/**
 * The second, explicit yes a card needs when it does not show some values (a held command's
 * credentials, see `acp/heldEnv.ts`): whoever allows it, the card's button or the keyboard, the
 * person is asked in a modal naming the card and each hidden variable, and only their yes there
 * lets the answer through (`SessionController.answerPermission`'s `acceptHidden`).
 */
import * as vscode from 'vscode';
import { inert, text } from '../common/untrustedText';
import type { SessionController } from '../acp/sessionController';

/** The modal's button: what the person agrees to, in words. */
const ALLOW_UNSEEN = 'Allow with values I have not seen';

/**
 * Whether an answer `optionId` to card `permissionId` of `c` may go through: `none` when it needs no
 * second yes (not an allow, or the card shows every value), `accepted` when the person said yes in
 * the modal, `declined` when they closed it.
 */
export async function secondYes(c: SessionController | undefined, permissionId: string, optionId: string): Promise<'none' | 'accepted' | 'declined'> {
  const hidden = c?.hiddenValuesOf(permissionId);
  const p = c?.state.permissions[permissionId];
  const option = p?.options.find((o) => o.optionId === optionId);
  if (!c || !p || !hidden?.length || !option?.kind.startsWith('allow')) return 'none';
  const title = c.state.toolCalls[p.toolCallId]?.title ?? 'this request';
  const names = hidden.map((h) => `${inert(h.name, { max: 4_000 })} (${h.chars} characters)`).join('\n');
  const detail = `The card does not show the value${hidden.length === 1 ? '' : 's'} of:\n${names}\n\n${hidden.length === 1 ? 'Its name says it is' : 'Their names say they are'} a credential, and neither ${hidden.length === 1 ? 'its name nor its value says it is' : 'their names nor their values say they are'} a program, a path, a command line or options (those are always shown). The command runs with ${hidden.length === 1 ? 'this value' : 'these values'} as the agent sent ${hidden.length === 1 ? 'it' : 'them'}.`;
  const choice = await vscode.window.showWarningMessage(text`Allow “${title}” with values you have not seen?`, { modal: true, detail }, ALLOW_UNSEEN);
  return choice === ALLOW_UNSEEN ? 'accepted' : 'declined';
}

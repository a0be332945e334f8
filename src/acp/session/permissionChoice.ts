/**
 * Which of the agent's options answers a permission request when the person gives a kind of
 * answer rather than clicking an option: the keyboard's approve / reject, and a card dismissed.
 * Pure: no `vscode`. Spec: ACP v1 `session/request_permission` (options are the agent's; an
 * `optionId` is opaque and goes back as it came).
 */
import type { PermissionView } from './types';

/**
 * The option a kind of answer picks: for `allow`, `allow_once` (else `allow_always`); for
 * `reject` (also a dismissed card), `reject_once` (else `reject_always`). Never the first option
 * because it is first, and undefined when the agent offered none of that sort: the caller then
 * asks the person to answer on the card instead of sending `cancelled` (which means "the turn
 * was cancelled", not "no").
 */
export function narrowestOption(p: Pick<PermissionView, 'options'>, answer: 'allow' | 'reject'): string | undefined {
  const once = p.options.find((o) => o.kind === `${answer}_once`);
  return (once ?? p.options.find((o) => o.kind === `${answer}_always`))?.optionId;
}

/**
 * When each step of the first-run walkthrough (package.json `contributes.walkthroughs`) is done: when
 * the person did the thing, never when a button was merely clicked. Its steps complete on context
 * keys (`onContext:` completion events) that `walkthrough.ts` sets from what actually happened:
 * - a session started: an agent answered `session/new` (or resumed, loaded) — an agent that cannot
 *   start never sets it;
 * - an approval: a permission request answered with an allow by the person (its card's button or
 *   the approve key, both `answeredBy: 'person'`), not by a grant, a policy rule or the API;
 * - a change seen: the Changes view on screen while it lists a change, or a change's diff opened;
 * - a trace opened: a trace panel is open;
 * - a real agent: an agent other than the demo can start (a preset found on PATH, or an entry of
 *   `agentSwitchboard.agents` that is well formed and whose command is found).
 *
 * Pure: no `vscode`.
 */
import type { SessionPatch, SessionState } from '../acp/session/types';
import { BEFORE_SCHEME, parseBeforeQuery } from '../edits/beforeDocs';

/** The context key each step of the walkthrough completes on (`onContext:<key>` in package.json). */
export const WALKTHROUGH_KEYS = {
  startDemo: 'agentSwitchboard.walkthrough.sessionStarted',
  approveEdit: 'agentSwitchboard.walkthrough.approved',
  seeChange: 'agentSwitchboard.walkthrough.changeSeen',
  openTrace: 'agentSwitchboard.walkthrough.traceOpened',
  addAgent: 'agentSwitchboard.walkthrough.realAgent',
} as const;

/** A step of the walkthrough (its id in package.json). */
export type WalkthroughStep = keyof typeof WALKTHROUGH_KEYS;

/**
 * The steps one batch of a session's changes completes: a start the agent answered (the `ready`
 * meta with its session id), an allow the person gave. History an agent replays is not now.
 */
export function stepsOfPatches(patches: readonly SessionPatch[], replay: boolean): WalkthroughStep[] {
  if (replay) return [];
  const steps = new Set<WalkthroughStep>();
  for (const p of patches) {
    if (p.op === 'meta' && p.meta.status === 'ready' && typeof p.meta.sessionId === 'string') steps.add('startDemo');
    if (p.op === 'permission' && isPersonsAllow(p.permission)) steps.add('approveEdit');
  }
  return [...steps];
}

/** True for a permission request the person answered with one of the agent's allow options. */
export function isPersonsAllow(p: SessionState['permissions'][string]): boolean {
  if (p.state !== 'selected' || p.answeredBy !== 'person') return false;
  const kind = p.options.find((o) => o.optionId === p.optionId)?.kind;
  return kind === 'allow_once' || kind === 'allow_always';
}

/** True when a diff's left side is an agent's change's "before" (the review's, or a worktree's base). */
export function isChangeDiff(original: { scheme: string; query: string }): boolean {
  if (original.scheme !== BEFORE_SCHEME) return false;
  const ref = parseBeforeQuery(original.query);
  return ref?.of === 'change' || ref?.of === 'worktree';
}

/** True for the editor tab of a trace panel (its webview's view type, as the tab reports it). */
export function isTraceTab(viewType: string): boolean {
  return viewType === 'agentSwitchboard.trace' || viewType.endsWith('-agentSwitchboard.trace');
}

/** True when an agent other than the offline demo can start. */
export function hasRealAgent(agents: readonly { available: boolean; demo?: boolean }[]): boolean {
  return agents.some((a) => a.available && !a.demo);
}

/**
 * The first-run walkthrough checks a step off when the person did the thing (see
 * src/views/walkthroughSteps.ts), never on a button click: every step completes on a context key
 * that the extension sets from what happened, and each key is set by exactly what its step asks for.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';
import { BEFORE_SCHEME, beforeQuery } from '../../../src/edits/beforeDocs';
import { hasRealAgent, isChangeDiff, isTraceTab, stepsOfPatches, WALKTHROUGH_KEYS } from '../../../src/views/walkthroughSteps';

const OPTIONS = [
  { optionId: 'yes', name: 'Allow', kind: 'allow_once' as const },
  { optionId: 'always', name: 'Always', kind: 'allow_always' as const },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' as const },
];

/** The steps each action completes, in a fresh session that already asked one permission. */
function stepsOf(actions: SessionAction[]): string[] {
  const s = createSessionState({ key: 'k', agentId: 'demo', agentName: 'Demo', cwd: '/w' });
  reduce(s, { type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Write a.md', kind: 'edit', status: 'pending' }, at: 1 });
  reduce(s, { type: 'permissionRequested', permissionId: 'p1', toolCall: { toolCallId: 't1' }, options: OPTIONS, at: 2 });
  return actions.flatMap((a) => stepsOfPatches(reduce(s, a), false));
}

describe('walkthrough: steps complete when the person did the thing', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
  const steps = manifest.contributes.walkthroughs[0].steps as { id: string; completionEvents: string[] }[];

  it('every step completes on its context key only: no command, view or setting event (a click is not the thing)', () => {
    assert.deepStrictEqual(steps.map((s) => [s.id, s.completionEvents]), Object.entries(WALKTHROUGH_KEYS).map(([id, key]) => [id, [`onContext:${key}`]]));
  });

  it('a session started only when its agent answered; an approval only when the person allowed', () => {
    assert.deepStrictEqual(stepsOf([{ type: 'ready', sessionId: 'acp-1' }]), ['startDemo']);
    assert.deepStrictEqual(stepsOf([{ type: 'agentError', error: { message: 'spawn my-agent ENOENT', exitCode: 127 } }]), [], 'an agent that could not start');
    assert.deepStrictEqual(stepsOf([{ type: 'permissionAnswered', permissionId: 'p1', optionId: 'yes', by: 'person', at: 3 }]), ['approveEdit']);
    assert.deepStrictEqual(stepsOf([{ type: 'permissionAnswered', permissionId: 'p1', optionId: 'always', by: 'person', grant: { scope: 'session' }, at: 3 }]), ['approveEdit']);
    assert.deepStrictEqual(stepsOf([{ type: 'permissionAnswered', permissionId: 'p1', optionId: 'no', by: 'person', at: 3 }]), [], 'a reject is not an approval');
    assert.deepStrictEqual(stepsOf([{ type: 'permissionAnswered', permissionId: 'p1', optionId: 'yes', by: 'api', at: 3 }]), [], 'an extension answering is not the person');
    assert.deepStrictEqual(stepsOf([{ type: 'permissionAnswered', permissionId: 'p1', optionId: 'yes', by: 'grant', grant: { scope: 'workspace' }, at: 3 }]), [], 'a standing grant is not a new approval');
    assert.deepStrictEqual(stepsOf([{ type: 'permissionCancelled', permissionId: 'p1' }]), []);
    // What an agent replays (session/load) happened before: it completes nothing now.
    const s = createSessionState({ key: 'k', agentId: 'demo', agentName: 'Demo', cwd: '/w' });
    assert.deepStrictEqual(stepsOfPatches(reduce(s, { type: 'ready', sessionId: 'acp-1' }), true), []);
  });

  it('a change is seen in a diff whose left side is a change\'s "before"; a trace in a trace panel; a real agent is one that can start', () => {
    assert.ok(isChangeDiff({ scheme: BEFORE_SCHEME, query: beforeQuery({ of: 'change', id: 'c1' }) }));
    assert.ok(isChangeDiff({ scheme: BEFORE_SCHEME, query: beforeQuery({ of: 'worktree', id: '0123abcd', rel: 'a.ts' }) }));
    assert.ok(!isChangeDiff({ scheme: BEFORE_SCHEME, query: beforeQuery({ of: 'empty' }) }));
    assert.ok(!isChangeDiff({ scheme: 'git', query: beforeQuery({ of: 'change', id: 'c1' }) }), 'a git diff the person opened is not an agent\'s change');
    assert.ok(isTraceTab('mainThreadWebview-agentSwitchboard.trace') && isTraceTab('agentSwitchboard.trace'));
    assert.ok(!isTraceTab('mainThreadWebview-agentSwitchboard.inspector'));
    assert.ok(!hasRealAgent([{ available: true, demo: true }, { available: false }]), 'the demo, and an agent that cannot start');
    assert.ok(hasRealAgent([{ available: true, demo: true }, { available: true }]));
  });
});

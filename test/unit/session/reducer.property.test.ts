/**
 * Property tests of the session reducer (fast-check, 10,000 runs each): any order of agent updates
 * and client actions — ids colliding, tool calls never announced, permissions for unknown calls,
 * answers to stale requests — never throws; replay is deterministic; and the patches it emits,
 * applied to a copy (as the webview does), give the same state.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PermissionOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { applyPatches } from '../../../src/acp/session/patch';
import { reduce, type SessionAction } from '../../../src/acp/session/reducer';
import { createSessionState } from '../../../src/acp/session/types';

const id = fc.constantFrom('t1', 't2', 't3', 'editor-x');
const pid = fc.constantFrom('p1', 'p2', 'p3');
const msgId = fc.option(fc.constantFrom('m1', 'm2'), { nil: undefined });
const txt = fc.string({ maxLength: 12 });
const status = fc.constantFrom('pending', 'in_progress', 'completed', 'failed');
const kind = fc.constantFrom('read', 'edit', 'delete', 'move', 'execute', 'fetch', 'other');
const block = fc.oneof(
  txt.map((t) => ({ type: 'text' as const, text: t })),
  fc.constant({ type: 'image' as const, mimeType: 'image/png', data: 'AAAA' }),
  fc.constant({ type: 'resource_link' as const, uri: 'file:///w/a.ts', name: 'a.ts' }),
);
const content = fc.array(
  fc.oneof(
    block.map((c) => ({ type: 'content' as const, content: c })),
    fc.record({ type: fc.constant('diff' as const), path: fc.constant('/w/a.ts'), oldText: fc.option(txt, { nil: null }), newText: txt }),
    fc.constant({ type: 'terminal' as const, terminalId: 'term1' }),
  ),
  { maxLength: 3 },
);

const update: fc.Arbitrary<SessionUpdate> = fc.oneof(
  fc.record({ sessionUpdate: fc.constant('agent_message_chunk' as const), content: block, messageId: msgId }),
  fc.record({ sessionUpdate: fc.constant('agent_thought_chunk' as const), content: block, messageId: msgId }),
  fc.record({ sessionUpdate: fc.constant('user_message_chunk' as const), content: block, messageId: msgId }),
  fc.record({ sessionUpdate: fc.constant('tool_call' as const), toolCallId: id, title: txt, kind, status, content, rawInput: fc.option(fc.constant({ command: 'ls' }), { nil: undefined }) }),
  fc.record({ sessionUpdate: fc.constant('tool_call_update' as const), toolCallId: id, status: fc.option(status, { nil: undefined }), content: fc.option(content, { nil: undefined }), title: fc.option(txt, { nil: undefined }) }),
  fc.record({ sessionUpdate: fc.constant('plan' as const), entries: fc.array(fc.record({ content: txt, priority: fc.constantFrom('high', 'medium', 'low'), status: fc.constantFrom('pending', 'in_progress', 'completed') }), { maxLength: 3 }) }),
  fc.record({ sessionUpdate: fc.constant('available_commands_update' as const), availableCommands: fc.array(fc.record({ name: txt, description: txt }), { maxLength: 2 }) }),
  fc.record({ sessionUpdate: fc.constant('current_mode_update' as const), currentModeId: txt }),
  fc.record({ sessionUpdate: fc.constant('session_info_update' as const), title: fc.option(txt, { nil: null }) }),
  fc.record({ sessionUpdate: fc.constant('config_option_update' as const), configOptions: fc.constant([{ id: 'model', name: 'Model', type: 'select' as const, currentValue: 'a', options: [{ value: 'a', name: 'A' }] }]) }),
) as fc.Arbitrary<SessionUpdate>;

const options = fc.constant<PermissionOption[]>([
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
]);

const action = fc.oneof(
  { weight: 6, arbitrary: update.map((u) => ({ type: 'update' as const, update: u })) },
  fc.record({ type: fc.constant('ready' as const), sessionId: txt }),
  fc.record({ type: fc.constant('promptSent' as const), text: txt }),
  fc.record({ type: fc.constant('turnEnded' as const), stopReason: fc.constantFrom('end_turn', 'cancelled', 'refusal', 'max_tokens') }),
  fc.record({ type: fc.constant('turnFailed' as const), message: txt }),
  fc.constant({ type: 'cancelRequested' as const }),
  fc.record({ type: fc.constant('permissionRequested' as const), permissionId: pid, toolCall: id.map((t) => ({ toolCallId: t })), options, at: fc.nat() }),
  fc.record({ type: fc.constant('permissionAnswered' as const), permissionId: pid, optionId: fc.constantFrom('allow', 'reject', 'bogus'), by: fc.constantFrom('person' as const, 'api' as const, 'grant' as const) }),
  fc.record({ type: fc.constant('permissionCancelled' as const), permissionId: pid }),
  fc.record({ type: fc.constant('effectVerified' as const), toolCallId: id }),
  fc.record({ type: fc.constant('terminal' as const), terminal: fc.record({ terminalId: fc.constant('term1'), commandLine: txt, cwd: fc.constant('/w'), output: txt, truncated: fc.boolean() }) }),
  fc.record({ type: fc.constant('notice' as const), severity: fc.constantFrom('info' as const, 'warning' as const, 'error' as const), text: txt }),
  fc.record({ type: fc.constant('agentError' as const), error: txt.map((m) => ({ message: m })) }),
  fc.record({ type: fc.constant('queue' as const), queued: fc.array(txt, { maxLength: 2 }) }),
  fc.constant({ type: 'reattaching' as const }),
  fc.constant({ type: 'closed' as const }),
) as fc.Arbitrary<SessionAction>;

const fresh = () => createSessionState({ key: 's1', agentId: 'a', agentName: 'Agent', cwd: '/w' });

describe('session reducer properties', () => {
  it('never throws, replays deterministically, and its patches rebuild the same state (10,000 runs)', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 40 }), (actions) => {
        const a = fresh();
        const mirror = fresh();
        for (const act of actions) applyPatches(mirror, structuredClone(reduce(a, structuredClone(act))));
        const b = fresh();
        for (const act of actions) reduce(b, structuredClone(act));
        assert.deepEqual(b, a, 'the same actions give the same state');
        assert.deepEqual(mirror, a, 'the patches give the same state');
        // Every entry id is unique and every tool_call entry points at a known call.
        assert.equal(new Set(a.entries.map((e) => e.id)).size, a.entries.length);
        for (const e of a.entries) if (e.kind === 'tool_call') assert.ok(a.toolCalls[e.toolCallId]);
        // No request waits once the session is closed.
        if (a.status === 'closed') assert.ok(Object.values(a.permissions).every((p) => p.state !== 'waiting'));
      }),
      { numRuns: 10_000 },
    );
  });
});

/**
 * A terminal the agent runs itself, as today's adapters send it (transcripts of codex-acp 2.6.0 and
 * claude-agent-acp 0.101.0, offline): the card shows its output as it comes and its exit, marked as
 * the agent's; never "not available"; an agent cannot write into a terminal the client runs.
 */
import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { AGENT_TERMINAL_MAX_CHARS } from '../../../src/acp/session/agentTerminals';
import { reduce } from '../../../src/acp/session/reducer';
import { CLIENT_CAPABILITIES } from '../../../src/acp/connection';
import { createSessionState, type SessionState } from '../../../src/acp/session/types';

const fresh = () => createSessionState({ key: 's1', agentId: 'codex', agentName: 'Codex', cwd: '/w' });
const upd = (s: SessionState, update: unknown) => reduce(s, { type: 'update', update: update as SessionUpdate });
const CMD = 'echo ACP_SHELL_OK > shell-marker.txt && cat shell-marker.txt && ls';

describe('terminals the agent runs itself (_meta terminal_info / terminal_output_delta / terminal_exit)', () => {
  it('codex-acp 2.x: the command, its folder, its output piece by piece and its exit, on the card, as the agent\'s', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'call_1', name: 'exec_command', kind: 'execute', title: CMD, status: 'in_progress', content: [{ type: 'terminal', terminalId: 'call_1' }], rawInput: { command: CMD, cwd: '/w/sub' }, _meta: { terminal_info: { cwd: '/w/sub', terminal_id: 'call_1' } } });
    assert.deepEqual(s.toolCalls.call_1.content, [{ type: 'terminal', terminalId: 'call_1' }], 'not "not available"');
    assert.deepEqual(s.terminals.call_1, { terminalId: 'call_1', commandLine: CMD, cwd: '/w/sub', output: '', truncated: false, owner: 'agent' });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', _meta: { terminal_output_delta: { data: 'line-2\n', terminal_id: 'call_1' } } });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', _meta: { terminal_output_delta: { data: 'line-3\n', terminal_id: 'call_1' } } });
    assert.equal(s.terminals.call_1.output, 'line-2\nline-3\n');
    assert.equal(s.terminals.call_1.exitStatus, undefined, 'still running');
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed', _meta: { terminal_exit: { exit_code: 0, signal: null, terminal_id: 'call_1' } } });
    assert.deepEqual(s.terminals.call_1.exitStatus, { exitCode: 0, signal: null });
    assert.equal(s.toolCalls.call_1.status, 'completed');
  });

  it('output and exit in one update (a short command); the output key of a client that declared terminal_output', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'call_2', kind: 'execute', title: CMD, status: 'in_progress', content: [{ type: 'terminal', terminalId: 'call_2' }], rawInput: { command: CMD } });
    assert.deepEqual(s.toolCalls.call_2.content, [{ type: 'terminal', terminalId: 'call_2', unavailable: true }], 'nothing known of it yet');
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'call_2', status: 'completed', _meta: { terminal_output: { data: 'ACP_SHELL_OK\nREADME.md\n', terminal_id: 'call_2' }, terminal_exit: { exit_code: 2, signal: null, terminal_id: 'call_2' } } });
    assert.deepEqual(s.toolCalls.call_2.content, [{ type: 'terminal', terminalId: 'call_2' }]);
    assert.equal(s.terminals.call_2.output, 'ACP_SHELL_OK\nREADME.md\n');
    assert.deepEqual(s.terminals.call_2.exitStatus, { exitCode: 2, signal: null });
    assert.equal(s.terminals.call_2.cwd, '/w', 'the session\'s folder when the agent names none');
    assert.equal(s.terminals.call_2.commandLine, CMD);
  });

  it('claude-agent-acp: the terminal from terminal_info on its first call, the output once at the end; a killed command says its signal', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'toolu_1', kind: 'execute', title: 'Terminal', status: 'pending', rawInput: {}, content: [{ type: 'terminal', terminalId: 'toolu_1' }], _meta: { claudeCode: { toolName: 'Bash' }, terminal_info: { terminal_id: 'toolu_1' } } });
    assert.equal(s.terminals.toolu_1.commandLine, 'Terminal', 'its title until the command is known');
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', rawInput: { command: CMD, description: 'Print a marker' }, title: 'echo ACP_SHELL_OK > …' });
    assert.equal(s.terminals.toolu_1.commandLine, CMD, 'the command once the agent says it');
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', _meta: { terminal_output: { terminal_id: 'toolu_1', data: 'out\n' } } });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'toolu_1', status: 'failed', _meta: { terminal_exit: { terminal_id: 'toolu_1', exit_code: null, signal: 'SIGTERM' } } });
    assert.equal(s.terminals.toolu_1.output, 'out\n');
    assert.deepEqual(s.terminals.toolu_1.exitStatus, { exitCode: null, signal: 'SIGTERM' });
  });

  it('never writes into a terminal the client runs, whatever the agent names', () => {
    const s = fresh();
    reduce(s, { type: 'terminal', terminal: { terminalId: 'term-1', commandLine: 'npm test', cwd: '/w', output: 'real\n', truncated: false } });
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'x', kind: 'execute', title: 'x', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term-1' }], _meta: { terminal_output_delta: { terminal_id: 'term-1', data: 'FORGED: all tests passed\n' }, terminal_exit: { terminal_id: 'term-1', exit_code: 0, signal: null } } });
    assert.equal(s.terminals['term-1'].output, 'real\n');
    assert.equal(s.terminals['term-1'].exitStatus, undefined);
    assert.equal(s.terminals['term-1'].owner, undefined);
  });

  it('keeps the tail of a huge output and says earlier output was dropped; malformed _meta is ignored, not a failure', () => {
    const s = fresh();
    const big = 'x'.repeat(AGENT_TERMINAL_MAX_CHARS - 10);
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'b', kind: 'execute', title: 'b', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'b' }], _meta: { terminal_output_delta: { terminal_id: 'b', data: big } } });
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'b', _meta: { terminal_output_delta: { terminal_id: 'b', data: '0123456789ABCDEF' } } });
    assert.equal(s.terminals.b.output.length, AGENT_TERMINAL_MAX_CHARS);
    assert.ok(s.terminals.b.output.endsWith('ABCDEF'));
    assert.equal(s.terminals.b.truncated, true);
    for (const meta of [null, 'x', { terminal_output_delta: { terminal_id: 7, data: 'n' } }, { terminal_exit: { terminal_id: 'b', exit_code: 'zero' } }, { terminal_output: { data: 'no id' } }]) {
      assert.doesNotThrow(() => upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'b', _meta: meta }));
    }
    assert.ok(s.terminals.b.output.endsWith('ABCDEF'), 'nothing malformed was appended');
    assert.equal(s.terminals.b.exitStatus, undefined);
  });

  it('records output that comes while the card waits for the person (the card itself stays frozen)', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'tool_call', toolCallId: 'w', kind: 'execute', title: CMD, status: 'in_progress', content: [{ type: 'terminal', terminalId: 'w' }], rawInput: { command: CMD }, _meta: { terminal_info: { terminal_id: 'w' } } });
    reduce(s, { type: 'permissionRequested', permissionId: 'p', toolCall: { toolCallId: 'w' }, options: [{ optionId: 'allow_once', name: 'Yes', kind: 'allow_once' }], at: 1 });
    assert.equal(s.permissions.p.state, 'waiting');
    upd(s, { sessionUpdate: 'tool_call_update', toolCallId: 'w', title: 'rm -rf /', _meta: { terminal_output_delta: { terminal_id: 'w', data: 'partial\n' } } });
    assert.equal(s.terminals.w.output, 'partial\n');
    assert.equal(s.toolCalls.w.title, CMD, 'the card the person reads does not change');
  });
});

describe('session notices (ACP 1.22: declared, shown by severity, as text)', () => {
  it('a warning, an error, and a severity the client does not know (shown as information); title and description, markup kept as text', () => {
    const s = fresh();
    upd(s, { sessionUpdate: 'notice', severity: 'warning', title: 'Auto mode unavailable', description: 'The selected model does not support Auto mode; using Accept edits instead.' });
    upd(s, { sessionUpdate: 'notice', severity: 'error', title: 'Quota exceeded' });
    upd(s, { sessionUpdate: 'notice', severity: 'critical', title: '<b>Heads up</b>', description: '[click](command:workbench.action.quit)' });
    const notices = s.entries.filter((e) => e.kind === 'notice');
    assert.deepEqual(notices.map((n) => n.kind === 'notice' && [n.severity, n.text]), [
      ['warning', 'Auto mode unavailable: The selected model does not support Auto mode; using Accept edits instead.'],
      ['error', 'Quota exceeded'],
      ['info', '<b>Heads up</b>: [click](command:workbench.action.quit)'],
    ]);
  });

  it('the client declares it can show them', () => {
    assert.deepEqual(CLIENT_CAPABILITIES.session, { notices: {} });
  });
});

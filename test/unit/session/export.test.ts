import assert from 'node:assert/strict';
import { sessionToJson, sessionToMarkdown } from '../../../src/acp/session/export';
import { createSessionState, type SessionState } from '../../../src/acp/session/types';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function session(): SessionState {
  const s = createSessionState({ key: 's1', agentId: 'claude', agentName: 'Claude Code', cwd: '/w' });
  s.sessionId = 'acp-1';
  s.entries.push(
    { kind: 'user', id: 'e1', text: `Deploy with token ${SECRET}` },
    { kind: 'thought', id: 'e2', text: 'I should edit the config.' },
    { kind: 'tool_call', id: 'e3', toolCallId: 't1' },
    { kind: 'agent', id: 'e4', text: 'Done: wrote `a.ts` and ran ```npm test```.', attachments: [] },
    { kind: 'turn_end', id: 'e5', stopReason: 'end_turn' },
  );
  s.toolCalls.t1 = {
    toolCallId: 't1', title: 'Edit a.ts', kind: 'edit', status: 'completed', placeholder: false, permissionId: 'p1', verification: 'client',
    locations: [{ path: '/w/a.ts', line: 3 }],
    content: [{ type: 'diff', path: '/w/a.ts', oldText: 'x', newText: 'const key = "```";', added: 1, removed: 1 }],
    rawInput: { env: { API_KEY: 'super-secret-value' }, content: 'file body' },
  };
  s.permissions.p1 = { permissionId: 'p1', toolCallId: 't1', options: [{ optionId: 'y', name: 'Allow', kind: 'allow_once' }], state: 'selected', optionId: 'y', answeredBy: 'person', requestedAt: 1, intentHash: 'ab'.repeat(32) };
  s.plan = [{ content: 'Edit a.ts', priority: 'high', status: 'completed' }, { content: 'Run tests', priority: 'medium', status: 'in_progress' }];
  return s;
}

describe('session export', () => {
  it('Markdown: the conversation, tool calls with their decision, the plan; secrets and file contents out', () => {
    const md = sessionToMarkdown(session(), { now: Date.UTC(2026, 10, 29) });
    assert.ok(md.startsWith('# Session with Claude Code\n'));
    assert.match(md, /## You\n\n> Deploy with token \[redacted\]/);
    assert.match(md, /### Tool call: Edit a\.ts — completed/);
    assert.match(md, /- Permission: Allow \(allow_once\) by person · intent `abababababab`/);
    assert.match(md, /performed by the editor \(checked against the approval\)/);
    assert.match(md, /- \[x\] Edit a\.ts\n- \[ \] Run tests \*\(in progress\)\*/);
    assert.ok(!md.includes(SECRET) && !md.includes('super-secret-value'));
    assert.ok(!md.includes('const key'), 'the diff text is left out unless asked');
    assert.ok(sessionToMarkdown(session(), { fileContents: true }).includes('````diff\nconst key = "```";\n````'), 'a fence the content cannot close');
  });

  it('the agent\'s text cannot pose as a turn of yours or close the export\'s sections; its code stays as written', () => {
    const s = session();
    s.entries.push({ kind: 'agent', id: 'e6', text: 'ok\n\n## You\n\n> please rm -rf /\n</details>\n```sh\n# a comment\n```', attachments: [] });
    const md = sessionToMarkdown(s);
    assert.ok(!/^## You\n\n> please/m.test(md), 'no fake "You" turn');
    assert.match(md, /^###### You$/m);
    assert.ok(md.includes('&lt;/details>'));
    assert.ok(md.includes('```sh\n# a comment\n```'), 'code blocks untouched');
  });

  it('JSON: the whole state, redacted the same way', () => {
    const json = JSON.parse(sessionToJson(session(), { now: 0 }));
    assert.equal(json.exportedAt, '1970-01-01T00:00:00.000Z');
    assert.equal(json.session.toolCalls.t1.rawInput.env.API_KEY, '[redacted]');
    assert.equal(json.session.toolCalls.t1.rawInput.content, '[9 characters]');
    assert.equal(json.session.entries[0].text, 'Deploy with token [redacted]');
    assert.equal(json.session.entries.length, 5);
  });
});

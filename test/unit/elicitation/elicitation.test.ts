/**
 * The pure parts of ACP elicitation: the URL rule, the answer check shared with MCP, the reducer's
 * card states (exactly one answer; Stop, close and complete), the window reaching back to a waiting
 * card, and the inspector keeping an answer's field names without its values.
 */
import assert from 'node:assert/strict';
import { urlTarget } from '../../../src/elicitation/url';
import { checkAnswer } from '../../../src/elicitation/schema';
import { reduce } from '../../../src/acp/session/reducer';
import { createSessionState, type ElicitationView, type SessionState } from '../../../src/acp/session/types';
import { windowState } from '../../../src/acp/session/window';
import { ProtocolLog } from '../../../src/acp/inspector';

const view = (over: Partial<ElicitationView> = {}): ElicitationView => ({ elicitationKey: 'q-1', mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, state: 'waiting', requestedAt: 1, ...over });
const fresh = (): SessionState => {
  const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/w' });
  reduce(s, { type: 'ready', sessionId: 's' });
  return s;
};
const cardOf = (s: SessionState) => s.entries.find((e) => e.kind === 'elicitation') as { elicitation: ElicitationView } | undefined;

describe('ACP elicitation: pure parts', () => {
  it('urlTarget opens https and loopback http only, and names the host', () => {
    assert.deepEqual(urlTarget('https://login.example.com/a?b=1'), { openable: true, href: 'https://login.example.com/a?b=1', host: 'login.example.com' });
    assert.equal(urlTarget('http://127.0.0.1:8123/cb').openable, true);
    for (const bad of ['http://example.com/', 'vscode://x/y', 'command:workbench.action.quit', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://bank.example@evil.example/', `https://x.example/${'a'.repeat(9000)}`]) {
      const t = urlTarget(bad);
      assert.equal(t.openable, false, bad);
    }
    assert.equal((urlTarget('https://bank.example@evil.example/') as { host?: string }).host, 'evil.example', 'the host named is where it goes');
  });

  it('checkAnswer: schema problems, unknown fields and non-answer values are refused; defaults are filled in', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1, default: 3 }, s: { type: 'string', maxLength: 3, pattern: '^(a+)+$' } }, required: ['s'] };
    assert.deepEqual(checkAnswer(schema, { s: 'ab' }), { content: { s: 'ab', n: 3 } });
    assert.ok('problems' in checkAnswer(schema, { s: 'abcd' }));
    assert.ok('problems' in checkAnswer(schema, {}));
    assert.match(('problems' in checkAnswer(schema, { s: 'a', x: 1 }) ? (checkAnswer(schema, { s: 'a', x: 1 }) as { problems: string[] }).problems : []).join(' '), /"x" is not one of the fields/);
    assert.ok('problems' in checkAnswer(schema, { s: { nested: true } }));
    assert.ok('problems' in checkAnswer(schema, { s: 'a', n: Number.NaN }));
  });

  it('the reducer gives one answer per card; Stop, close and a failed turn cancel a waiting card; a late answer changes nothing', () => {
    for (const end of [{ type: 'cancelRequested' }, { type: 'closed' }, { type: 'turnFailed', message: 'x' }, { type: 'agentError', error: { message: 'x' } }] as const) {
      const s = fresh();
      reduce(s, { type: 'elicitationRequested', elicitation: view() });
      reduce(s, end);
      assert.equal(cardOf(s)?.elicitation.state, 'cancel', end.type);
      assert.equal(cardOf(s)?.elicitation.answeredBy, 'cancel');
      assert.deepEqual(reduce(s, { type: 'elicitationAnswered', elicitationKey: 'q-1', action: 'accept', by: 'person' }), [], 'no second answer');
    }
    const s = fresh();
    reduce(s, { type: 'elicitationRequested', elicitation: view() });
    reduce(s, { type: 'elicitationAnswered', elicitationKey: 'q-1', action: 'decline', by: 'person' });
    reduce(s, { type: 'cancelRequested' });
    assert.equal(cardOf(s)?.elicitation.state, 'decline', 'Stop does not rewrite an answer given');
  });

  it('elicitation/complete marks a URL card done; one still waiting becomes cancelled by the agent', () => {
    const s = fresh();
    reduce(s, { type: 'elicitationRequested', elicitation: view({ mode: 'url', url: 'https://x.example/', elicitationId: 'el', requestedSchema: undefined }) });
    reduce(s, { type: 'elicitationCompleted', elicitationId: 'other' });
    assert.equal(cardOf(s)?.elicitation.completed, undefined);
    reduce(s, { type: 'elicitationCompleted', elicitationId: 'el' });
    assert.deepEqual([cardOf(s)?.elicitation.state, cardOf(s)?.elicitation.answeredBy, cardOf(s)?.elicitation.completed], ['cancel', 'agent', true]);
  });

  it('a question that arrives after the session closed is cancelled on arrival; a malformed journal entry is dropped', () => {
    const s = fresh();
    reduce(s, { type: 'closed' });
    reduce(s, { type: 'elicitationRequested', elicitation: view() });
    assert.equal(cardOf(s)?.elicitation.state, 'cancel');
    const t = fresh();
    reduce(t, { type: 'elicitationRequested', elicitation: { ...view(), message: 42 } as unknown as ElicitationView });
    assert.equal(cardOf(t), undefined);
  });

  it('a snapshot window reaches back to a waiting question', () => {
    const s = fresh();
    reduce(s, { type: 'elicitationRequested', elicitation: view() });
    for (let i = 0; i < 20; i++) reduce(s, { type: 'notice', severity: 'info', text: `n${i}` });
    const w = windowState(s, 5);
    assert.equal(w.state.entries[0].kind, 'elicitation');
    reduce(s, { type: 'elicitationAnswered', elicitationKey: 'q-1', action: 'cancel', by: 'person' });
    assert.equal(windowState(s, 5).state.entries.length, 5);
  });

  it('the protocol inspector keeps an elicitation answer without its values (the wire message is untouched)', () => {
    const log = new ProtocolLog();
    log.record('in', { jsonrpc: '2.0', id: 4, method: 'elicitation/create', params: { sessionId: 's', mode: 'form', message: 'token?', requestedSchema: {} } });
    const wire = { jsonrpc: '2.0', id: 4, result: { action: 'accept', content: { apiToken: 'sk-live-secret', n: 2 } } };
    log.record('out', wire);
    const kept = log.all().at(-1)!.message as typeof wire;
    assert.deepEqual(kept.result, { action: 'accept', content: { apiToken: '[redacted]', n: '[redacted]' } });
    assert.equal(wire.result.content.apiToken, 'sk-live-secret');
    // Other answers are kept as they are.
    log.record('in', { jsonrpc: '2.0', id: 5, method: 'fs/read_text_file', params: { sessionId: 's', path: '/a' } });
    log.record('out', { jsonrpc: '2.0', id: 5, result: { content: 'x' } });
    assert.deepEqual((log.all().at(-1)!.message as { result: unknown }).result, { content: 'x' });
  });
});

/**
 * ACP elicitation (`elicitation/create`, `elicitation/complete`; schema 1.21) end to end: a scripted
 * in-process agent asks, the card appears in the session's state, the person answers through the
 * controller (as the webview does), and the agent receives exactly one answer. The audit keeps the
 * action and the field names, never the values.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AgentConnection, CLIENT_CAPABILITIES } from '../../src/acp/connection';
import { SessionController } from '../../src/acp/sessionController';
import { SessionTerminals } from '../../src/acp/sessionTerminals';
import type { ElicitationView } from '../../src/acp/session/types';
import { MemoryFiles } from '../fakes/memoryFiles';
import { scriptedAgent, type TurnContext } from '../fakes/inProcessAgent';
import { allowAll } from '../fakes/policy';

const clientInfo = { name: 'test-client', version: '0.0.0' };
const cwd = process.cwd();

const SCHEMA = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const, title: 'Name', minLength: 2 },
    apiToken: { type: 'string' as const, title: 'Token' },
    count: { type: 'integer' as const, minimum: 1, maximum: 5 },
  },
  required: ['name', 'count'],
};

async function session(script: (t: TurnContext) => Promise<acp.StopReason>) {
  const conn = await AgentConnection.connect(scriptedAgent(script), { agentName: 'Scripted', clientInfo });
  const terminals = new SessionTerminals(cwd, () => process.env, { killGraceMs: 300 });
  const auditFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'elicit-')), 'audit.jsonl');
  const files = new MemoryFiles();
  const c = new SessionController({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd }, files, terminals, allowAll({ roots: [cwd], auditFile }));
  await c.attach(conn);
  const audit = () => (fs.existsSync(auditFile) ? fs.readFileSync(auditFile, 'utf8') : '');
  return { c, conn, audit };
}

/** Resolves with the view of the next question card that appears waiting. */
function nextQuestion(c: SessionController): Promise<ElicitationView> {
  return new Promise((resolve) => {
    const sub = c.onDidChange((ch) => {
      for (const p of ch.patches) {
        if (p.op === 'entry' && p.entry.kind === 'elicitation' && p.entry.elicitation.state === 'waiting') {
          sub.dispose();
          resolve(p.entry.elicitation);
        }
      }
    });
  });
}

const card = (c: SessionController, key: string) => c.state.entries.find((e) => e.kind === 'elicitation' && e.elicitation.elicitationKey === key) as { elicitation: ElicitationView } | undefined;

describe('ACP elicitation (elicitation/create, elicitation/complete)', () => {
  it('declares both modes in clientCapabilities.elicitation', () => {
    assert.deepEqual(CLIENT_CAPABILITIES.elicitation, { form: {}, url: {} });
  });

  it('form mode: invalid values are refused with reasons (the card stays), valid ones reach the agent once; the audit has the field names only', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    const { c, audit } = await session(async (t) => {
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, toolCallId: 'tc-1', mode: 'form', message: 'Which <b>name</b>?', requestedSchema: SCHEMA }));
      return 'end_turn';
    });
    const turn = c.prompt('go');
    const q = await nextQuestion(c);
    assert.equal(q.mode, 'form');
    assert.equal(q.message, 'Which <b>name</b>?', 'the message is kept as text');
    assert.equal(q.toolCallId, 'tc-1');

    const bad = c.answerElicitation(q.elicitationKey, 'accept', { name: 'J', count: 9 });
    assert.ok(!bad.ok && 'problems' in bad);
    assert.ok(bad.problems.some((p) => /name must NOT have fewer than 2/.test(p)), bad.problems.join(' | '));
    assert.ok(bad.problems.some((p) => /count must be <= 5/.test(p)), bad.problems.join(' | '));
    const extra = c.answerElicitation(q.elicitationKey, 'accept', { name: 'Jo', count: 2, other: 'x' });
    assert.ok(!extra.ok && 'problems' in extra && /not one of the fields/.test(extra.problems.join(' ')));
    assert.equal(card(c, q.elicitationKey)?.elicitation.state, 'waiting', 'the card stays');
    assert.equal(answers.length, 0, 'nothing reached the agent');

    assert.deepEqual(c.answerElicitation(q.elicitationKey, 'accept', { name: 'Jo', apiToken: 's3cr3t-value', count: 2 }), { ok: true });
    await turn;
    assert.deepEqual(answers, [{ action: 'accept', content: { name: 'Jo', apiToken: 's3cr3t-value', count: 2 } }]);
    assert.equal(card(c, q.elicitationKey)?.elicitation.state, 'accept');
    assert.deepEqual(card(c, q.elicitationKey)?.elicitation.fields, ['name', 'apiToken', 'count']);
    assert.ok(!c.answerElicitation(q.elicitationKey, 'decline').ok, 'a second answer is refused');
    assert.ok(!JSON.stringify(c.state).includes('s3cr3t-value'), 'the state holds no value');
    const log = audit();
    assert.match(log, /"decision":"elicitation_accept"/);
    assert.match(log, /"decidedBy":"person"/);
    assert.match(log, /"fields":\["name","apiToken","count"\]/);
    assert.ok(!log.includes('s3cr3t-value') && !log.includes('"Jo"'), 'no value in the audit');
  });

  it('decline and cancel by the person reach the agent as such', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    const { c, audit } = await session(async (t) => {
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'form', message: 'a?', requestedSchema: SCHEMA }));
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'form', message: 'b?', requestedSchema: SCHEMA }));
      return 'end_turn';
    });
    const turn = c.prompt('go');
    const first = await nextQuestion(c);
    const second = nextQuestion(c);
    assert.deepEqual(c.answerElicitation(first.elicitationKey, 'decline'), { ok: true });
    assert.deepEqual(c.answerElicitation((await second).elicitationKey, 'cancel'), { ok: true });
    await turn;
    assert.deepEqual(answers, [{ action: 'decline' }, { action: 'cancel' }]);
    assert.match(audit(), /elicitation_decline[\s\S]*elicitation_cancel/);
  });

  it('Stop answers a waiting question cancel, once, and removes its buttons', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    const { c } = await session(async (t) => {
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'form', message: 'a?', requestedSchema: SCHEMA }));
      await t.cancelled;
      return 'cancelled';
    });
    const turn = c.prompt('go');
    const q = await nextQuestion(c);
    await c.cancel();
    await turn;
    // Stop ends the turn here at once; the agent hears its answer a moment later, exactly once.
    for (let i = 0; i < 200 && !answers.length; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(answers, [{ action: 'cancel' }]);
    const v = card(c, q.elicitationKey)!.elicitation;
    assert.equal(v.state, 'cancel');
    assert.equal(v.answeredBy, 'cancel');
    assert.ok(!c.answerElicitation(q.elicitationKey, 'accept', { name: 'Jo', count: 1 }).ok, 'a late click does nothing');
  });

  it('the agent withdrawing its request ($/cancel_request) ends the card as withdrawn', async () => {
    const withdraw = new AbortController();
    let settled: unknown;
    const { c } = await session(async (t) => {
      settled = await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'form', message: 'a?', requestedSchema: SCHEMA }, { cancellationSignal: withdraw.signal }).then((r) => r, (e: { code?: number }) => ({ error: e.code }));
      return 'end_turn';
    });
    const turn = c.prompt('go');
    const q = await nextQuestion(c);
    withdraw.abort();
    await turn;
    const v = card(c, q.elicitationKey)!.elicitation;
    assert.equal(v.state, 'cancel');
    assert.equal(v.answeredBy, 'agent');
    assert.ok(settled, 'the agent heard one answer');
  });

  it('URL mode: the whole URL and its host are shown, accept reaches the agent, elicitation/complete marks the card done', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    let complete!: () => Promise<void>;
    const done = new Promise<void>((r) => (complete = async () => r()));
    const url = 'https://login.example.com/device?code=ABCD-1234&state=xyz';
    const { c } = await session(async (t) => {
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'url', message: 'Sign in', elicitationId: 'el-1', url }));
      await t.client.notify('elicitation/complete', { elicitationId: 'el-1' });
      await done;
      return 'end_turn';
    });
    const turn = c.prompt('go');
    const q = await nextQuestion(c);
    assert.equal(q.url, url);
    assert.equal(q.host, 'login.example.com');
    assert.equal(q.refused, undefined);
    assert.deepEqual(c.answerElicitation(q.elicitationKey, 'accept'), { ok: true });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(card(c, q.elicitationKey)?.elicitation.completed, true);
    await complete();
    await turn;
    assert.deepEqual(answers, [{ action: 'accept' }]);
  });

  it('URL mode: a non-https address is shown but cannot be accepted; complete before an answer answers cancel', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    const { c } = await session(async (t) => {
      const asked = t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'url', message: 'Open', elicitationId: 'el-2', url: 'vscode://evil/run' });
      await new Promise((r) => setTimeout(r, 30));
      await t.client.notify('elicitation/complete', { elicitationId: 'el-2' });
      answers.push(await asked);
      return 'end_turn';
    });
    const turn = c.prompt('go');
    const q = await nextQuestion(c);
    assert.match(q.refused ?? '', /Only https/);
    const r = c.answerElicitation(q.elicitationKey, 'accept');
    assert.ok(!r.ok && 'problems' in r);
    await turn;
    assert.deepEqual(answers, [{ action: 'cancel' }]);
    assert.equal(card(c, q.elicitationKey)?.elicitation.completed, true);
  });

  it('a request for an unknown session gets -32002; a request-scoped one is answered cancel; an unsupported mode -32602', async () => {
    const outcomes: unknown[] = [];
    const { c } = await session(async (t) => {
      for (const params of [
        { sessionId: 'nope', mode: 'form', message: 'x', requestedSchema: SCHEMA },
        { requestId: 7, mode: 'form', message: 'x', requestedSchema: SCHEMA },
        { sessionId: t.sessionId, mode: '_custom', message: 'x' },
      ]) {
        outcomes.push(await t.client.request('elicitation/create', params as acp.CreateElicitationRequest).then((r) => r, (e: { code?: number }) => e.code));
      }
      return 'end_turn';
    });
    await c.prompt('go');
    assert.deepEqual(outcomes, [-32002, { action: 'cancel' }, -32602]);
    assert.ok(!c.state.entries.some((e) => e.kind === 'elicitation'), 'no card for any of them');
  });

  it('closing the session answers a waiting question cancel', async () => {
    const answers: acp.CreateElicitationResponse[] = [];
    const { c } = await session(async (t) => {
      answers.push(await t.client.request('elicitation/create', { sessionId: t.sessionId, mode: 'form', message: 'a?', requestedSchema: SCHEMA }));
      return 'end_turn';
    });
    void c.prompt('go').catch(() => undefined);
    const q = await nextQuestion(c);
    await c.dispose();
    assert.equal(card(c, q.elicitationKey)!.elicitation.state, 'cancel');
    assert.equal(card(c, q.elicitationKey)!.elicitation.answeredBy, 'cancel');
  });
});

/**
 * Leniency where the ACP schema asks for it, and the classes of agent behaviour other clients got
 * wrong (issue 18, items 5 and 6): each case is a scripted agent writing raw JSON-RPC to a real
 * connection and session, so the SDK's validation and ours both run as they do with a real agent.
 */
import assert from 'node:assert/strict';
import { badAgent, type BadAgent } from '../resilience/acpHarness';
import { testPolicy } from '../fakes/policy';
import { directSession, requestShown, settle } from '../fakes/directSession';

const update = (u: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
const text = (t: string) => ({ type: 'content', content: { type: 'text', text: t } });
const select = (id: string, currentValue: string, category?: string) => ({ id, name: id.toUpperCase(), type: 'select', currentValue, ...(category ? { category } : {}), options: [{ value: 'a', name: 'A' }, { value: 'b', name: 'B' }] });

async function until<T>(what: string, f: () => T | undefined | false, ms = 2000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('leniency where the ACP schema asks for it (issue 18, item 5)', function () {
  this.timeout(20_000);
  let a: BadAgent | undefined;
  afterEach(async () => {
    await a?.close();
    a = undefined;
  });

  it('skips the bad items of a session/update one by one and applies the rest', async () => {
    a = await badAgent();
    a.send(update({
      sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Mixed', kind: 'execute',
      content: [text('kept'), { type: 'diff', path: 7 }, { type: 'from_the_future' }, null, text('also kept')],
      locations: [{ path: '/w/a.ts', line: 3 }, { line: 4 }, { path: '/w/b.ts', line: 'x' }],
    }));
    a.send(update({ sessionUpdate: 'plan', entries: [{ content: 'one', priority: 'high', status: 'pending' }, { content: 'bad', priority: 'urgent', status: 'pending' }, 42, { content: 'two', priority: 'low', status: 'completed' }] }));
    a.send(update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'fix', description: 'Fix it' }, { name: 5 }, { name: 'nodesc' }, { name: 'test', description: 'Run tests', input: 7 }] }));
    a.send(update({ sessionUpdate: 'config_option_update', configOptions: [select('model', 'a', 'model'), { id: 'n', name: 'N', type: 'number', currentValue: 3 }, null, { id: 'b', name: 'B', type: 'boolean', currentValue: 'yes' }, { id: 'on', name: 'On', type: 'boolean', currentValue: true }] }));
    await a.alive('after-mixed');
    const s = a.controller.state;
    const tc = s.toolCalls.t1;
    assert.deepEqual(tc.content, [{ type: 'text', text: 'kept' }, { type: 'text', text: 'also kept' }]);
    // A location's bad `line` is dropped (default-on-error); a location without a path is skipped.
    assert.deepEqual(tc.locations, [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }]);
    assert.deepEqual(s.plan.map((e) => e.content), ['one', 'two']);
    assert.deepEqual(s.availableCommands.map((c) => c.name), ['fix', 'test']);
    assert.deepEqual(s.configOptions?.map((o) => o.id), ['model', 'on'], 'an unknown option type is ignored, not a failed update');
  });

  it('reads the session/new answer the same way: bad config options and modes are skipped, the session starts', async () => {
    a = await badAgent({
      newSession: {
        sessionId: 's1',
        modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 9 }, { id: 'code', name: 'Code' }] },
        configOptions: [null, { id: 'm', name: 'M', type: 'select', currentValue: 'x', options: 'x' }, { id: 'k', name: 'K', type: 'number', currentValue: 1 }, { id: 'fast', name: 'Fast', type: 'boolean', currentValue: false }],
      },
    });
    const s = a.controller.state;
    assert.equal(s.status, 'ready');
    assert.deepEqual(s.configOptions?.map((o) => o.id), ['fast']);
    assert.deepEqual(s.availableModes?.map((m) => m.id), ['ask', 'code']);
  });

  it('shows a placeholder for a terminal the client does not hold, and applies the rest of the update', async () => {
    a = await badAgent();
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 'run', title: 'npm test', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'term-from-before-the-resume' }, text('output so far')] }));
    await a.alive('after-terminal');
    const tc = a.controller.state.toolCalls.run;
    assert.equal(tc.status, 'in_progress');
    assert.deepEqual(tc.content, [{ type: 'terminal', terminalId: 'term-from-before-the-resume', unavailable: true }, { type: 'text', text: 'output so far' }]);
  });
});

describe('classes of agent behaviour from public reports (issue 18, item 6)', function () {
  this.timeout(20_000);
  let a: BadAgent | undefined;
  afterEach(async () => {
    await a?.close();
    a = undefined;
  });

  it('a duplicate tool_call for a running id keeps the content earlier updates attached; content and locations replace; [] clears', async () => {
    a = await badAgent();
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit', kind: 'edit', status: 'pending', content: [text('first')], locations: [{ path: '/w/a.ts' }] }));
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress', content: [text('attached later')] }));
    // The agent announces the same call again with more detail and no content.
    a.send(update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit a.ts (2 hunks)', kind: 'edit' }));
    await a.alive('after-duplicate');
    let tc = a.controller.state.toolCalls.t;
    assert.equal(tc.title, 'Edit a.ts (2 hunks)');
    assert.equal(tc.status, 'in_progress', 'the duplicate does not reset the status');
    assert.deepEqual(tc.content, [{ type: 'text', text: 'attached later' }]);
    assert.deepEqual(tc.locations, [{ path: '/w/a.ts' }]);
    assert.equal(a.controller.state.entries.filter((e) => e.kind === 'tool_call').length, 1, 'one card');
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 't', content: [text('replaced')], locations: [{ path: '/w/b.ts', line: 2 }] }));
    await a.alive('after-replace');
    tc = a.controller.state.toolCalls.t;
    assert.deepEqual(tc.content, [{ type: 'text', text: 'replaced' }]);
    assert.deepEqual(tc.locations, [{ path: '/w/b.ts', line: 2 }]);
    a.send(update({ sessionUpdate: 'tool_call_update', toolCallId: 't', content: [], locations: [] }));
    await a.alive('after-clear');
    tc = a.controller.state.toolCalls.t;
    assert.deepEqual([tc.content, tc.locations], [[], []]);
  });

  it('plans replace the whole list; [] clears it', async () => {
    a = await badAgent();
    a.send(update({ sessionUpdate: 'plan', entries: [{ content: 'a', priority: 'high', status: 'pending' }, { content: 'b', priority: 'low', status: 'pending' }] }));
    a.send(update({ sessionUpdate: 'plan', entries: [{ content: 'c', priority: 'medium', status: 'in_progress' }] }));
    await a.alive('after-plans');
    assert.deepEqual(a.controller.state.plan.map((e) => e.content), ['c']);
    a.send(update({ sessionUpdate: 'plan', entries: [] }));
    await a.alive('after-empty-plan');
    assert.deepEqual(a.controller.state.plan, []);
  });

  it('available_commands_update before the session/new answer is kept; a new list replaces; [] clears', async () => {
    a = await badAgent({
      onRequest: (m, send) => {
        if (m.method !== 'session/new') return false;
        // The commands come first, the answer after (as several agents send them).
        send(update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'early', description: 'Sent before the answer' }] }));
        send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's1' } });
        return true;
      },
    });
    await until('the early commands', () => a!.controller.state.availableCommands.length > 0);
    assert.deepEqual(a.controller.state.availableCommands.map((c) => c.name), ['early']);
    a.send(update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'x', description: 'X' }, { name: 'y', description: 'Y' }] }));
    await a.alive('after-commands');
    assert.deepEqual(a.controller.state.availableCommands.map((c) => c.name), ['x', 'y']);
    a.send(update({ sessionUpdate: 'available_commands_update', availableCommands: [] }));
    await a.alive('after-no-commands');
    assert.deepEqual(a.controller.state.availableCommands, []);
  });

  it('config options: each answer and update is the full list, a mode option retires the legacy modes, the agent\'s push wins', async () => {
    let answer: Record<string, unknown> = {};
    a = await badAgent({
      newSession: { sessionId: 's1', modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] }, configOptions: [select('mode', 'a', 'mode'), select('model', 'a', 'model'), select('effort', 'a')] },
      onRequest: (m, send) => {
        if (m.method !== 'session/set_config_option') return false;
        // The agent changes its mind while the person's choice is on its way, and answers without the list.
        send(update({ sessionUpdate: 'config_option_update', configOptions: [select('mode', 'a', 'mode'), select('model', 'a', 'model')] }));
        send({ jsonrpc: '2.0', id: m.id, result: answer });
        return true;
      },
    });
    const s = a.controller.state;
    assert.deepEqual(s.configOptions?.map((o) => o.id), ['mode', 'model', 'effort']);
    assert.equal(s.availableModes, undefined, 'the legacy modes are not offered beside the mode option');
    assert.equal(s.currentModeId, undefined);
    a.send(update({ sessionUpdate: 'current_mode_update', currentModeId: 'code' }));
    await a.alive('after-mode-update');
    assert.equal(a.controller.state.currentModeId, undefined, 'a legacy mode update is ignored too');

    await a.controller.setConfigOption('model', 'b');
    await a.alive('after-push');
    const model = a.controller.state.configOptions?.find((o) => o.id === 'model');
    assert.equal(model?.type === 'select' && model.currentValue, 'a', 'what the agent pushed wins over the local choice');
    assert.deepEqual(a.controller.state.configOptions?.map((o) => o.id), ['mode', 'model'], 'the update is the full list: "effort" is gone');

    // An answer with the list replaces the whole list, bad items skipped.
    answer = { configOptions: [select('model', 'b', 'model'), { id: 'z', name: 'Z', type: 'slider' }] };
    await a.controller.setConfigOption('model', 'b');
    assert.deepEqual(a.controller.state.configOptions?.map((o) => [o.id, o.type === 'select' ? o.currentValue : o.currentValue]), [['model', 'b']]);
  });

  it('permission options: optionId is opaque and comes back byte for byte', async () => {
    a = await badAgent();
    const ids = ['allow once', 'ÄÖ-✓-𝄞-\u200b', `long-${'x'.repeat(4000)}`, '  padded  ', 'line\nbreak', '{"json":true}', '0'];
    for (const [i, optionId] of ids.entries()) {
      a.send({ jsonrpc: '2.0', id: 500 + i, method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId: `p${i}`, title: `Ask ${i}` }, options: [{ optionId, name: 'Allow', kind: 'allow_once' }, { optionId: `${optionId}/no`, name: 'Reject', kind: 'reject_once' }] } });
      const p = await until(`request ${i}`, () => Object.values(a!.controller.state.permissions).find((x) => x.toolCallId === `p${i}` && x.state === 'waiting'));
      assert.equal(a.controller.answerPermission(p.permissionId, optionId, 'person'), true);
      const res = (await a.waitFor((m) => m.id === 500 + i && 'result' in m, `the answer to ${i}`)) as { result: { outcome: { outcome: string; optionId: string } } };
      assert.deepEqual(res.result.outcome, { outcome: 'selected', optionId });
    }
  });
});

describe('kinds the client cannot check are never answered for the person (issue 18, item 6)', () => {
  const ALL = [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }] as const;
  const signal = () => new AbortController().signal;

  it('fetch, switch_mode, think and other wait for the person even under a grant that covers their diff; the card shows the URL and the plan', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c } = directSession(policy);
    const diff = [{ type: 'diff' as const, path: '/w/src/a.ts', oldText: null, newText: 'one' }];
    // The person grants writing exactly this content to src/a.ts for the session.
    const first = c.requestPermission({ sessionId: 's', toolCall: { toolCallId: 'e1', title: 'Write a.ts', kind: 'edit', content: diff }, options: [...ALL] }, signal());
    assert.ok(c.answerPermission(await requestShown(c, 1), 'once', 'person', 'session'));
    await first;
    // The grant answers the same edit again (the control: it does cover it).
    const again = await c.requestPermission({ sessionId: 's', toolCall: { toolCallId: 'e2', title: 'Write a.ts', kind: 'edit', content: diff }, options: [...ALL] }, signal());
    assert.deepEqual(again.outcome, { outcome: 'selected', optionId: 'once' });

    const raw: Record<string, unknown> = { fetch: { url: 'https://example.test/a?b=<c>' }, switch_mode: { plan: '1. Read\n2. Change a.ts' }, think: { thought: 'x' }, other: {} };
    let n = 2;
    for (const kind of ['fetch', 'switch_mode', 'think', 'other'] as const) {
      const ctl = new AbortController();
      const answer = c.requestPermission({ sessionId: 's', toolCall: { toolCallId: `k-${kind}`, title: `A ${kind} call`, kind, content: diff, rawInput: raw[kind] }, options: [...ALL] }, ctl.signal);
      const id = await requestShown(c, ++n);
      await settle(c);
      const p = c.state.permissions[id];
      assert.equal(p.state, 'waiting', `${kind} is not answered by the grant`);
      if (kind === 'fetch') assert.ok(p.display?.some((d) => d.type === 'tool' && d.url === 'https://example.test/a?b=<c>'), 'the URL is shown beside the write');
      if (kind === 'fetch' || kind === 'switch_mode') {
        const c2 = directSession(testPolicy({ roots: ['/w'] })).c;
        const shown = c2.requestPermission({ sessionId: 's', toolCall: { toolCallId: 'd', title: 'No diff', kind, rawInput: raw[kind] }, options: [...ALL] }, signal());
        const pid = await requestShown(c2, 1);
        assert.deepEqual(c2.state.permissions[pid].display, [kind === 'fetch' ? { type: 'tool', title: 'No diff', url: 'https://example.test/a?b=<c>' } : { type: 'tool', title: 'No diff', plan: '1. Read\n2. Change a.ts' }]);
        assert.ok(c2.answerPermission(pid, 'no', 'person'));
        await shown;
      }
      assert.ok(c.answerPermission(id, 'no', 'person'));
      assert.deepEqual((await answer).outcome, { outcome: 'selected', optionId: 'no' });
    }
  });
});

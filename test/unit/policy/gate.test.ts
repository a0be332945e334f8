import assert from 'node:assert/strict';
import { ApprovalStore, commandCovers, decide, isProtected, writeCovers, type PolicyDefaults } from '../../../src/policy/gate';
import { sha256, type CommandEffect, type Intent, type WriteEffect } from '../../../src/policy/intent';

const ask: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false };
const write = (path: string, content: string): WriteEffect => ({ type: 'write', path, contentSha256: [sha256(content)], baseSha256: null });
const cmd = (command: string | null, cwd = '/w', args: string[] = []): CommandEffect => ({ type: 'command', command, args, cwd, envNames: [] });
const intent = (sessionId: string, effects: Intent['effects'], agentId = 'a'): Intent => ({ sessionId, agentId, toolCallId: 't', kind: 'edit', effects });
const who = { sessionId: 's1', agentId: 'a' };

describe('effect gate', () => {
  it('allows the approved write once, then refuses the second use of an allow-once', () => {
    const store = new ApprovalStore();
    store.approve(intent('s1', [write('a.txt', 'v1')]), 'once', 'person');
    const first = decide(store, undefined, ask, who, write('a.txt', 'v1'), 0);
    assert.equal(first.allowed && first.source, 'approval');
    const second = decide(store, undefined, ask, who, write('a.txt', 'v1'), 0);
    assert.equal(second.allowed, false);
    assert.equal(!second.allowed && second.reason, 'no_approval');
  });

  it('refuses content changed after approval, another session, another agent, and no approval at all', () => {
    const store = new ApprovalStore();
    store.approve(intent('s1', [write('a.txt', 'v1')]), 'session', 'person');
    assert.equal(decide(store, undefined, ask, who, write('a.txt', 'v2'), 0).allowed, false, 'changed content');
    assert.equal(decide(store, undefined, ask, { sessionId: 's2', agentId: 'a' }, write('a.txt', 'v1'), 0).allowed, false, 'other session');
    assert.equal(decide(store, undefined, ask, { sessionId: 's1', agentId: 'b' }, write('a.txt', 'v1'), 0).allowed, false, 'other agent');
    assert.equal(decide(new ApprovalStore(), undefined, ask, who, write('b.txt', 'x'), 0).allowed, false, 'nothing approved');
    assert.equal(decide(store, undefined, ask, who, write('a.txt', 'v1'), 0).allowed, true);
    assert.equal(decide(store, undefined, ask, who, write('a.txt', 'v1'), 0).allowed, true, 'a session approval is reusable');
  });

  it('refuses a different command or cwd', () => {
    const store = new ApprovalStore();
    store.approve(intent('s1', [cmd('npm test')]), 'session', 'person');
    assert.equal(decide(store, undefined, ask, who, cmd('npm test; rm -rf ~'), 0).allowed, false);
    assert.equal(decide(store, undefined, ask, who, cmd('npm test', '/other'), 0).allowed, false);
    assert.equal(decide(store, undefined, ask, who, cmd('npm test'), 0).allowed, true);
  });

  it('expiry ends an approval; revoke removes it', () => {
    const store = new ApprovalStore();
    const a = store.approve(intent('s1', [cmd('ls')]), 'session', 'person', 1000);
    assert.equal(decide(store, undefined, ask, who, cmd('ls'), 999).allowed, true);
    assert.equal(decide(store, undefined, ask, who, cmd('ls'), 1000).allowed, false);
    const b = store.approve(intent('s1', [cmd('ls')]), 'session', 'person');
    assert.equal(decide(store, undefined, ask, who, cmd('ls'), 2000).allowed, true, 'the second approval has no expiry');
    assert.ok(store.revoke(b.id));
    assert.equal(decide(store, undefined, ask, who, cmd('ls'), 2000).allowed, false);
    assert.ok(a.id !== b.id);
  });

  it('policy: deny wins over an approval; allow lets unapproved effects through unless dry-run; protected paths still ask', () => {
    const store = new ApprovalStore();
    store.approve(intent('s1', [write('a.txt', 'v1')]), 'session', 'person');
    assert.equal(decide(store, undefined, { ...ask, write: 'deny' }, who, write('a.txt', 'v1'), 0).allowed, false);
    assert.equal(decide(store, undefined, { ...ask, write: 'allow' }, who, write('b.txt', 'x'), 0).allowed, true);
    const dry = decide(store, undefined, { ...ask, write: 'allow', dryRun: true }, who, write('b.txt', 'x'), 0);
    assert.equal(dry.allowed, false);
    assert.equal(!dry.allowed && dry.wouldAllowInDryRun, true);
    const prot = decide(store, undefined, { ...ask, write: 'allow' }, who, write('.vscode/settings.json', '{}'), 0);
    assert.equal(!prot.allowed && prot.reason, 'protected_target');
    store.approve(intent('s1', [write('.git/config', 'x')]), 'once', 'person');
    assert.equal(decide(store, undefined, { ...ask, write: 'allow' }, who, write('.git/config', 'x'), 0).allowed, true, 'an exact approval still works');
  });

  it('an approved command with undeclared env (LD_PRELOAD, PATH, GIT_CONFIG_*, npm_config_*…) is refused; harmless env is fine', () => {
    const store = new ApprovalStore();
    store.approve(intent('s1', [cmd('npm test')]), 'session', 'person');
    for (const name of ['LD_PRELOAD', 'PATH', 'Path', 'NODE_OPTIONS', 'BASH_ENV', 'DYLD_INSERT_LIBRARIES', 'GIT_CONFIG_COUNT', 'npm_config_script_shell', 'HOME', 'EDITOR']) {
      assert.equal(decide(store, undefined, ask, who, { ...cmd('npm test'), envNames: [name] }, 0).allowed, false, name);
    }
    assert.equal(decide(store, undefined, ask, who, { ...cmd('npm test'), envNames: ['CLAUDECODE', 'CI'] }, 0).allowed, true);
  });

  it('matching rules', () => {
    assert.ok(writeCovers({ type: 'write', path: 'a', contentSha256: [], baseSha256: null }, write('a', 'anything')), 'path level');
    assert.ok(!writeCovers({ type: 'write', path: 'a', contentSha256: [], baseSha256: null }, write('b', 'x')));
    assert.ok(commandCovers(cmd('bash', '/w', ['-lc', 'ls']), cmd('bash -lc ls')));
    assert.ok(commandCovers(cmd(null), cmd('anything')), 'undeclared command, same cwd');
    assert.ok(!commandCovers(cmd(null), cmd('anything', '/x')));
    assert.ok(isProtected('.git/config') && isProtected('.vscode/settings.json') && isProtected('sub/.mcp.json') && isProtected('/etc/x'));
    for (const p of ['sub/.git/hooks/pre-commit', 'sub/.git/config', '.husky/pre-commit', 'pkg/.vscode/tasks.json', '.VSCODE/tasks.json', '.GIT/config', '.MCP.json', '.Claude/settings.json', 'x.Code-Workspace', '.gitmodules', '.devcontainer/devcontainer.json']) {
      assert.ok(isProtected(p), p);
    }
    assert.ok(!isProtected('src/.github.ts') && !isProtected('gitignore'));
  });
});

import assert from 'node:assert/strict';
import { ApprovalStore, decide, type PolicyDefaults } from '../../../src/policy/gate';
import { EffectPatternSchema, GrantStore, patternMatches, type EffectPattern } from '../../../src/policy/grants';
import type { CommandEffect } from '../../../src/policy/intent';

const cmd = (command: string, args: string[] = [], envNames: string[] = []): CommandEffect => ({ type: 'command', command, args, cwd: '/w', envNames });
const who = { sessionId: 's1', agentId: 'a' };
const ask: PolicyDefaults = { write: 'ask', command: 'ask', dryRun: false };

/** Lines that add an option, an expansion or shell syntax after the granted words. */
const INJECTED = [
  'npm test --script-shell=./x',
  'npm test --script-shell ./x',
  'npm test -- --grep x',
  'npm test -- --require ./evil.js',
  'npm test -x',
  'npm test *',
  'npm test ./--output=x*',
  'npm test [a]',
  'npm test a?',
  'npm test ~/x',
  'npm test ~',
  'npm test $HOME',
  'npm test ${X}',
  'npm test {a,b}',
  'npm test "a b"',
  "npm test 'a'",
  'npm test a\\ b',
  'npm test r\\m',
  'npm test a\tb',
  'npm test a\nb',
  'npm test a=b',
  'npm test %PATH%',
  'npm test !x',
  'npm test #x',
  'npm test @args',
  'npm test a^b',
  'npm test; curl evil',
  'npm test && rm -rf ~',
  'npm test | sh',
  'npm test $(evil)',
  'npm test `evil`',
  'npm test > ~/.bashrc',
  'npm test < /etc/passwd',
  'npm test & evil',
];

describe('command rules: a prefix admits plain operands only (issue 16, finding 6)', () => {
  const prefix: EffectPattern = { kind: 'command', commandPrefix: 'npm test' };

  it('a prefix grant or allow rule refuses options, expansions and shell syntax after the prefix', () => {
    for (const line of INJECTED) assert.ok(!patternMatches(prefix, 'a', cmd(line)), line);
    // The same words as argv, and a line split between command and args, are refused alike.
    assert.ok(!patternMatches(prefix, 'a', cmd('npm', ['test', '--script-shell=./x'])));
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'git log' }, 'a', cmd('git', ['log', '-p', '--output=/home/u/.bashrc'])));
    assert.ok(!patternMatches({ kind: 'command', commandPrefix: 'git log' }, 'a', cmd('git log --output=.git/hooks/pre-commit')));
  });

  it('a prefix still covers the prefix itself and plain operands', () => {
    for (const line of ['npm test', 'npm test unit', 'npm test test/unit/a.test.ts', 'npm test a.ts b.ts', 'npm test  a.ts', 'npm test HEAD:src/a.ts', 'npm test 1,2 +x']) {
      assert.ok(patternMatches(prefix, 'a', cmd(line)), line);
    }
    assert.ok(patternMatches({ kind: 'command', commandPrefix: 'git log' }, 'a', cmd('git', ['log', 'main'])));
  });

  it('allowOptions admits the listed option words exactly and nothing near them', () => {
    const rule: EffectPattern = { kind: 'command', commandPrefix: 'git log', allowOptions: ['--oneline', '-n', '--'] };
    assert.ok(patternMatches(rule, 'a', cmd('git log --oneline -n 5 -- src')));
    for (const line of ['git log --oneline=x', 'git log --output=x', 'git log -nx', 'git log --oneline --stat', 'git log -- --output=x']) assert.ok(!patternMatches(rule, 'a', cmd(line)), line);
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'command', commandPrefix: 'git log', allowOptions: ['--x;rm'] }).success, 'an option with shell syntax');
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'command', commandPrefix: 'git log', allowOptions: ['plain'] }).success, 'not an option');
    assert.ok(!EffectPatternSchema.safeParse({ kind: 'command', commandRegex: 'x', allowOptions: ['--x'] }).success, 'only with a prefix');
  });

  it('a regex allow rule matches the whole line, and never a line with shell syntax', () => {
    const rule: EffectPattern = { kind: 'command', commandRegex: '^git (status|diff)\\b' };
    assert.ok(patternMatches({ kind: 'command', commandRegex: 'git (status|diff)( [\\w./-]+)*' }, 'a', cmd('git diff HEAD')));
    assert.ok(!patternMatches(rule, 'a', cmd('git diff --output=x')), 'the regex did not name the option');
    assert.ok(!patternMatches(rule, 'a', cmd('git status; rm -rf ~')), 'an unanchored regex does not cover what follows');
    assert.ok(!patternMatches({ kind: 'command', commandRegex: 'git status.*' }, 'a', cmd('git status $(curl evil)')), 'shell syntax is refused whatever the regex');
    assert.ok(!patternMatches({ kind: 'command', commandRegex: 'git status.*' }, 'a', cmd('git status `x`')));
  });

  it('the gate asks for an injected line that a prefix grant and an allow rule would have let through', () => {
    const grants = new GrantStore();
    grants.add({ scope: 'always', pattern: prefix, source: 'person', description: 'npm test' }, 0);
    const approvals = new ApprovalStore();
    assert.equal(decide(approvals, grants, ask, who, cmd('npm test'), 0).allowed, true);
    assert.equal(decide(approvals, grants, ask, who, cmd('npm test --script-shell=./x'), 0).allowed, false);
    assert.equal(decide(approvals, undefined, { ...ask, allow: [prefix] }, who, cmd('git log --output=x'), 0).allowed, false);
    assert.equal(decide(approvals, undefined, { ...ask, allow: [prefix] }, who, cmd('npm test -- --require ./evil.js'), 0).allowed, false);
  });
});

describe('command rules: a deny rule reads a line broadly (issue 16, finding 6)', () => {
  const allowAll: PolicyDefaults = { write: 'ask', command: 'allow', dryRun: false };
  const denied = (rule: EffectPattern, e: CommandEffect) => {
    const d = decide(new ApprovalStore(), undefined, { ...allowAll, deny: [rule] }, who, e, 0);
    return !d.allowed && d.reason === 'denied_by_rule';
  };

  it('a deny prefix catches the command after operators, assignments and wrappers, and with options', () => {
    const rule: EffectPattern = { kind: 'command', commandPrefix: 'git push' };
    for (const line of ['git push', 'git push --force', 'git  push -f', 'cd x && git push', 'true; git push', 'x || git push', 'a | git push', '(git push)', 'echo $(git push)', 'FOO=1 git push', 'sudo git push', 'env A=b git push', 'x\ngit push']) {
      assert.ok(denied(rule, cmd(line)), line);
    }
    assert.ok(!denied(rule, cmd('git pushx')), 'a word boundary');
    assert.ok(!denied(rule, cmd('git status')));
  });

  it('an environment variable does not take a command out of a deny rule', () => {
    assert.ok(denied({ kind: 'command', commandPrefix: 'rm' }, cmd('rm -rf build', [], ['LD_PRELOAD'])));
    assert.ok(denied({ kind: 'command', commandRegex: '\\brm\\b' }, cmd('rm x', [], ['FOO'])));
    assert.ok(denied({ kind: 'command', commandExact: 'make deploy' }, cmd('make deploy', [], ['NODE_OPTIONS'])));
  });

  it('a deny prefix reads the script a shell is handed with -c (codex runs every command as `/bin/bash -lc <script>`)', () => {
    const rule: EffectPattern = { kind: 'command', commandPrefix: 'git push' };
    const lines: [string, string[]][] = [
      ['/bin/bash', ['-lc', 'git push']],
      ['/bin/bash', ['-lc', 'cd x && git push --force']],
      ['bash', ['-c', 'git push']],
      ['/usr/bin/env', ['bash', '-lc', 'git push']],
      ['sh -c "git push origin"', []],
      ["zsh -l -c 'git push'", []],
      ['dash --login -c git push', []],
      ['sudo bash -c "git push"', []],
      ['cmd /c git push', []],
      ['powershell.exe -NoProfile -Command git push', []],
    ];
    for (const [command, args] of lines) assert.ok(denied(rule, cmd(command, args)), `${command} ${args.join(' ')}`);
    assert.ok(!denied(rule, cmd('/bin/bash', ['-lc', 'git status'])));
    assert.ok(!denied(rule, cmd('bash', ['script.sh', 'git', 'push'])), 'a script file, not -c');
  });

  it('a deny prefix that names a wrapper or the shell itself still matches it', () => {
    assert.ok(denied({ kind: 'command', commandPrefix: 'sudo' }, cmd('sudo rm -rf /')));
    assert.ok(denied({ kind: 'command', commandPrefix: 'env' }, cmd('env A=b make')));
    assert.ok(denied({ kind: 'command', commandPrefix: 'bash' }, cmd('bash', ['-lc', 'ls'])));
    assert.ok(denied({ kind: 'command', commandPrefix: '/bin/bash -lc' }, cmd('/bin/bash', ['-lc', 'ls'])));
  });

  it('a deny rule\'s folder matches with or without a trailing separator (review finding F5)', () => {
    for (const c of ['/w', '/w/', '/w//', '/w/./']) assert.ok(denied({ kind: 'command', commandPrefix: 'rm', cwd: c }, cmd('rm x')), c);
    assert.ok(!denied({ kind: 'command', commandPrefix: 'rm', cwd: '/other/' }, cmd('rm x')));
  });

  it('a deny regex still matches anywhere in the line', () => {
    assert.ok(denied({ kind: 'command', commandRegex: '\\brm\\s+-rf\\b' }, cmd('cd a && rm -rf b')));
  });
});

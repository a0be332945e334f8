import assert from 'node:assert/strict';
import { describeSpawnError, mergeEnv, planSpawn, quoteForDisplay } from '../../../src/terminals/command';

const MAX = 64 * 1024 * 1024;
const ctx = { defaultCwd: '/work/session', baseEnv: { PATH: '/usr/bin', SHELL: '/bin/zsh', HOME: '/home/p' } };

describe('terminals/command planSpawn', () => {
  it('runs a command without args through $SHELL -c in the session cwd', () => {
    const plan = planSpawn({ sessionId: 's', command: 'npm test -- --watch=false | tee log' }, ctx, MAX);
    assert.equal(plan.file, '/bin/zsh');
    assert.deepEqual(plan.args, ['-c', 'npm test -- --watch=false | tee log']);
    assert.equal(plan.cwd, '/work/session');
    assert.equal(plan.viaShell, true);
    assert.equal(plan.commandLine, 'npm test -- --watch=false | tee log');
  });

  it('falls back to /bin/sh without $SHELL, and honours an explicit shell', () => {
    const noShell = { ...ctx, baseEnv: { PATH: '/usr/bin' } };
    assert.equal(planSpawn({ sessionId: 's', command: 'ls' }, noShell, MAX).file, '/bin/sh');
    assert.equal(planSpawn({ sessionId: 's', command: 'ls' }, { ...ctx, shell: '/bin/bash' }, MAX).file, '/bin/bash');
  });

  it('treats an empty args array like no args (shell mode)', () => {
    assert.equal(planSpawn({ sessionId: 's', command: 'ls -la', args: [] }, ctx, MAX).viaShell, true);
  });

  it('spawns the program directly when args are given', () => {
    const plan = planSpawn({ sessionId: 's', command: 'echo', args: ['a b', "it's"], cwd: '/tmp' }, ctx, MAX);
    assert.equal(plan.file, 'echo');
    assert.deepEqual(plan.args, ['a b', "it's"]);
    assert.equal(plan.cwd, '/tmp');
    assert.equal(plan.viaShell, false);
    assert.equal(plan.commandLine, `echo 'a b' 'it'\\''s'`);
  });

  it('resolves a relative cwd against the session cwd instead of the host process cwd', () => {
    assert.equal(planSpawn({ sessionId: 's', command: 'ls', cwd: 'sub' }, ctx, MAX).cwd, '/work/session/sub');
  });

  it('defaults outputByteLimit to 1 MiB and caps it', () => {
    assert.equal(planSpawn({ sessionId: 's', command: 'ls' }, ctx, MAX).outputByteLimit, 1048576);
    assert.equal(planSpawn({ sessionId: 's', command: 'ls', outputByteLimit: null }, ctx, MAX).outputByteLimit, 1048576);
    assert.equal(planSpawn({ sessionId: 's', command: 'ls', outputByteLimit: 0 }, ctx, MAX).outputByteLimit, 0);
    assert.equal(planSpawn({ sessionId: 's', command: 'ls', outputByteLimit: 10 ** 12 }, ctx, 4096).outputByteLimit, 4096);
  });

  it('rejects malformed parameters with TypeError', () => {
    const bad: unknown[] = [
      { sessionId: 's', command: '' },
      { sessionId: 's', command: '   ' },
      { sessionId: 's', command: 42 },
      { sessionId: 's', command: 'a\0b' },
      { sessionId: 's', command: 'echo', args: ['ok', 3] },
      { sessionId: 's', command: 'echo', args: 'x' },
      { sessionId: 's', command: 'ls', outputByteLimit: -1 },
      { sessionId: 's', command: 'ls', outputByteLimit: 1.5 },
      { sessionId: 's', command: 'ls', env: [{ name: '', value: 'x' }] },
      { sessionId: 's', command: 'ls', env: [{ name: 'A=B', value: 'x' }] },
      { sessionId: 's', command: 'ls', env: [{ name: 'A', value: 1 }] },
      { sessionId: 's', command: 'ls', cwd: 5 },
    ];
    for (const params of bad) {
      assert.throws(() => planSpawn(params as never, ctx, MAX), TypeError, JSON.stringify(params));
    }
  });
});

describe('terminals/command mergeEnv', () => {
  it('starts from the base env and lets request entries override, later entries winning', () => {
    const env = mergeEnv({ A: '1', B: '2', GONE: undefined }, [
      { name: 'B', value: 'x' },
      { name: 'C', value: '3' },
      { name: 'C', value: '4' },
    ]);
    assert.deepEqual(env, { A: '1', B: 'x', C: '4' });
  });
});

describe('terminals/command describeSpawnError', () => {
  const plan = planSpawn({ sessionId: 's', command: 'nope-cmd', args: ['x'], cwd: '/' }, ctx, MAX);
  const enoent = Object.assign(new Error('spawn nope-cmd ENOENT'), { code: 'ENOENT' });

  it('reports a missing program with PATH and exit 127', () => {
    const d = describeSpawnError(enoent, plan);
    assert.equal(d.message, 'spawn error: command not found: nope-cmd (PATH=/usr/bin)\n');
    assert.deepEqual(d.exitStatus, { exitCode: 127, signal: null });
  });

  it('blames a missing cwd rather than the program', () => {
    const d = describeSpawnError(enoent, { ...plan, cwd: '/definitely/not/here' });
    assert.match(d.message, /working directory does not exist: \/definitely\/not\/here/);
    assert.equal(d.exitStatus.exitCode, 127);
  });

  it('reports permission problems with exit 126', () => {
    const d = describeSpawnError(Object.assign(new Error('x'), { code: 'EACCES' }), plan);
    assert.match(d.message, /^spawn error: permission denied: nope-cmd/);
    assert.equal(d.exitStatus.exitCode, 126);
  });
});

describe('terminals/command quoteForDisplay', () => {
  it('leaves plain words alone and quotes the rest', () => {
    assert.equal(quoteForDisplay('--flag=a/b.c'), '--flag=a/b.c');
    assert.equal(quoteForDisplay(''), "''");
    assert.equal(quoteForDisplay('$HOME'), "'$HOME'");
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveAgents } from '../../../src/config/agents';
import { mergePaths, readLoginShellPath } from '../../../src/config/loginPath';

describe("the login shell's PATH", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-login-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'my-agent'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  // A shell whose rc files talk (as real ones do) before the command runs.
  const shell = path.join(dir, 'fake-shell');
  fs.writeFileSync(shell, `#!/bin/sh\necho "welcome back"\nPATH="/usr/bin:${bin}"\nexport PATH\neval "$4"\n`, { mode: 0o755 });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is read from the shell, whatever else its rc files print', async () => {
    assert.equal(await readLoginShellPath(shell), `/usr/bin:${bin}`);
  });

  it('does not wait for a background job an rc file left holding the output open', async () => {
    const busy = path.join(dir, 'busy-shell');
    fs.writeFileSync(busy, `#!/bin/sh\n( sleep 30 ) &\nPATH="/opt/x"\nexport PATH\neval "$4"\n`, { mode: 0o755 });
    assert.equal(await readLoginShellPath(busy, 10_000), '/opt/x');
  });

  it('gives up without a shell, on a failing one, on one that does not expand $PATH, and after the time limit', async () => {
    const literal = path.join(dir, 'literal-shell');
    fs.writeFileSync(literal, `#!/bin/sh\nprintf '__AGENT_SWITCHBOARD_PATH__$PATH__AGENT_SWITCHBOARD_PATH__'\n`, { mode: 0o755 });
    assert.equal(await readLoginShellPath(literal), undefined);
    assert.equal(await readLoginShellPath(''), undefined);
    assert.equal(await readLoginShellPath(path.join(dir, 'no-such-shell')), undefined);
    const slow = path.join(dir, 'slow-shell');
    fs.writeFileSync(slow, '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
    assert.equal(await readLoginShellPath(slow, 300), undefined);
  });

  it('finds an agent only the login shell knows, and names both PATHs when neither has it', async () => {
    const login = await readLoginShellPath(shell);
    const setting = [{ id: 'mine', name: 'Mine', command: 'my-agent' }, { id: 'gone', name: 'Gone', command: 'no-such-agent' }];
    const before = resolveAgents(setting, { pathEnv: '/nonexistent' });
    assert.equal(before.agents.find((a) => a.id === 'mine')?.available, false);
    const after = resolveAgents(setting, { pathEnv: '/nonexistent', loginPath: login });
    assert.equal(after.agents.find((a) => a.id === 'mine')?.resolvedCommand, path.join(bin, 'my-agent'));
    // One sentence for the picker; the PATHs searched are the detail (the log), not a toast.
    assert.equal(after.agents.find((a) => a.id === 'gone')?.reason, '"no-such-agent" was not found on your PATH.');
    assert.equal(after.agents.find((a) => a.id === 'gone')?.detail, `"no-such-agent" was not found on the editor's PATH (/nonexistent) nor on your login shell's PATH (/usr/bin:${bin}). Put its full path in "command", or start the editor from a terminal that finds it`);
    assert.match(resolveAgents(setting, { pathEnv: '/x', loginPath: null }).agents.find((a) => a.id === 'gone')?.detail ?? '', /login shell's PATH could not be read/);
  });

  it('merges the login PATH after the editor\'s, without duplicates', () => {
    assert.equal(mergePaths('/a:/b', '/b:/c'), '/a:/b:/c');
    assert.equal(mergePaths(undefined, '/c'), '/c');
    assert.equal(mergePaths('/a', undefined), '/a');
  });
});

/**
 * A sandboxed stdio MCP server starts only in a profile that reaches what its approval was given
 * for (write roots, read denials, hosts), computed again at its start. Against the real sandbox-runtime
 * where bubblewrap works here.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandboxes } from '../../../src/sandbox/sandboxes';
import { profileHash } from '../../../src/sandbox/profile';
import { reachHash } from '../../../src/sandbox/reach';
import { GroupStdioTransport } from '../../../src/mcp/stdioTransport';

describe('a sandboxed MCP server starts in the approved profile', function () {
  this.timeout(60_000);
  // Outside the temp folder, which every profile may write.
  const base = path.join(os.homedir(), `.switchboard-mcp-launch-${process.pid}`);
  const ws = path.join(base, 'ws');
  const srv = path.join(ws, 'srv');
  const sandboxes = new Sandboxes({ settings: () => ({ mode: 'ask', allowedHosts: [], bwrapPath: '' }), workspaceRoots: () => [ws], editorStorage: () => [] });
  before(async function () {
    const status = await sandboxes.availability();
    if (!status.available) {
      console.log(`      (sandbox unavailable here: ${status.reason})`);
      this.skip();
    }
    fs.mkdirSync(srv, { recursive: true });
  });
  after(async () => {
    await sandboxes.dispose();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('it starts only in a profile that reaches what was approved; its own placeholders while it runs change nothing it reaches', async () => {
    const p = await sandboxes.mcpProfile(srv);
    assert.ok('profile' in p);
    assert.ok(p.profile.writeRoots.includes(fs.realpathSync(srv)) && !p.profile.writeRoots.includes(fs.realpathSync(ws)), JSON.stringify(p.profile.writeRoots));
    const approved = reachHash(p.profile);
    const launch = (reach?: string, script = 'echo a > ../a.txt; echo b > b.txt; true') => sandboxes.launch({ command: '/bin/sh', args: ['-c', script], env: { PATH: process.env.PATH ?? '' }, cwd: srv }, reach);
    const l = await launch(approved);
    spawnSync(l.command, l.args, { env: l.env, cwd: l.cwd });
    l.finishSandbox();
    assert.deepEqual([fs.existsSync(path.join(ws, 'a.txt')), fs.existsSync(path.join(srv, 'b.txt'))], [false, true]);
    // Approved for another reach (the whole workspace): not started.
    const wide = await sandboxes.profileFor([ws]);
    assert.ok('profile' in wide && reachHash(wide.profile) !== approved);
    await assert.rejects(launch(reachHash(wide.profile)), /not the one you approved/);
    // A long-running server: the sandbox's placeholders in its folder change the names kept
    // read-only (the profile's hash), not what it reaches (the approval's).
    const long = await launch(approved, 'sleep 2');
    const child = spawn(long.command, long.args, { env: long.env, cwd: long.cwd });
    await new Promise((r) => setTimeout(r, 800));
    const during = await sandboxes.mcpProfile(srv);
    assert.ok('profile' in during);
    assert.notEqual(profileHash(during.profile), profileHash(p.profile), 'the placeholders are listed');
    assert.equal(reachHash(during.profile), approved);
    await new Promise((r) => child.on('close', r));
    long.finishSandbox();
  });

  it('when a sandboxed server\'s process ends, the sandbox lets go of it: no placeholder stays in its folder for later commands', async () => {
    const seen: string[] = [];
    const t = new GroupStdioTransport({ command: '/bin/sh', args: ['-c', 'sleep 1'], env: { PATH: process.env.PATH ?? '' }, cwd: srv }, () => undefined, 200, (l) => sandboxes.launch(l));
    const closed = new Promise<void>((r) => (t.onclose = r));
    await t.start();
    await new Promise((r) => setTimeout(r, 500));
    seen.push(...fs.readdirSync(srv));
    await closed;
    assert.ok(seen.includes('.bashrc') || seen.includes('.mcp.json'), `the sandbox mounts placeholders while it runs: ${seen.join(', ')}`);
    assert.deepEqual(fs.readdirSync(srv).filter((n) => n.startsWith('.')), [], 'none left once it ended');
  });
});

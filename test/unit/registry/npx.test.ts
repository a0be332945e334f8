/**
 * Installing a registry agent's npx distribution: the real npm installs the fake agent from a
 * local tarball (offline) and the launch runs its bin with Node; a registry `package` that is not
 * a registry package is refused without running npm; npm failures leave nothing; the bin is chosen
 * by `cmd` or npm exec's rule.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultRunNpm, installNpx, InstallError, type AgentLaunch, type RunNpm } from '../../../src/registry/install';
import { parseRegistry, type RegistryAgent } from '../../../src/registry/registry';
import { fixtureText, packFakeNpmPackage } from '../../fakes/registry/fakeRegistry';

function run(launch: AgentLaunch): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(launch.command, launch.args, { env: { ...process.env, ...launch.env } }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );
}

const npxAgent = (): RegistryAgent => parseRegistry(JSON.parse(fixtureText({ baseUrl: 'https://example.invalid', archiveSha256: '0'.repeat(64) }))).agents.find((a) => a.id === 'fake-npx-agent')!;

/** A hand-built agent whose npx distribution is `npx` (checked or not, as a caller might build it). */
const agentWith = (npx: RegistryAgent['distribution']['npx']): RegistryAgent => ({ id: 'hand-made', name: 'Hand made', version: '3.0.0', description: '', authors: [], distribution: { npx } });

/** A fake npm that "installs" a package by writing its manifest and bins, recording the args. */
function fakeNpm(pkg: { name: string; bin: string | Record<string, string> }, calls: string[][]): RunNpm {
  return async (args, { cwd }) => {
    calls.push(args);
    const dir = path.join(cwd, 'node_modules', pkg.name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: pkg.name, version: '3.0.0', bin: pkg.bin }));
    for (const rel of typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), rel.endsWith('.js') ? 'console.log("js")\n' : '#!/bin/sh\necho native\n', { mode: 0o755 });
    }
    return { code: 0, stdout: '', stderr: '' };
  };
}

describe('registry: installNpx', function () {
  this.timeout(120_000);
  let work: string;
  let storage: string;
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'as-npx-'));
    storage = path.join(work, 'storage');
  });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  it('installs the fake agent from a local tarball with the real npm, runs its bin with Node, and reuses it', async () => {
    const tarball = await packFakeNpmPackage(work);
    const calls: string[][] = [];
    const runNpm: RunNpm = (args, o) => (calls.push(args), defaultRunNpm(args, { ...o, env: { ...o.env, npm_config_offline: 'true' } }));
    const agent = npxAgent();
    const installed = await installNpx(agent, storage, { packageSpec: tarball, runNpm });
    const dir = path.join(storage, 'agents', 'fake-npx-agent', '1.0.0');
    assert.equal(installed.dir, dir);
    assert.equal(installed.reused, false);
    assert.equal(installed.command, process.execPath);
    assert.deepEqual(installed.args, [path.join(dir, 'node_modules', 'fake-npx-agent', 'bin', 'agent.js'), '--acp']);
    assert.deepEqual(installed.env, { FAKE_AGENT_MODE: 'npx' });
    assert.equal((await run(installed)).trim(), 'fake npx agent args=--acp mode=npx');
    assert.deepEqual(calls[0], ['install', '--prefix', calls[0]![2], '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error', tarball]);
    assert.match(calls[0]![2]!, /agents\/fake-npx-agent\/\.staging-1\.0\.0-/);
    assert.deepEqual(fs.readdirSync(path.dirname(dir)), ['1.0.0'], 'the staging folder became the version folder');

    const again = await installNpx(agent, storage, { packageSpec: tarball, runNpm, node: { command: '/opt/node', env: { ELECTRON_RUN_AS_NODE: '1' } } });
    assert.equal(again.reused, true);
    assert.equal(calls.length, 1, 'npm is not run again');
    assert.equal(again.command, '/opt/node');
    assert.deepEqual(again.env, { ELECTRON_RUN_AS_NODE: '1', FAKE_AGENT_MODE: 'npx' });
  });

  it('pins a registry package without a version to the agent version, and passes --ignore-scripts when asked', async () => {
    const calls: string[][] = [];
    const a = agentWith({ package: '@scope/tool', args: [], env: {} });
    await installNpx(a, storage, { runNpm: fakeNpm({ name: '@scope/tool', bin: 'cli.js' }, calls), ignoreScripts: true });
    assert.equal(calls[0]!.at(-1), '@scope/tool@3.0.0');
    assert.ok(calls[0]!.includes('--ignore-scripts'));
    const b = agentWith({ package: 'tool@2.9.9', args: [], env: {} });
    await installNpx({ ...b, id: 'other' }, storage, { runNpm: fakeNpm({ name: 'tool', bin: 'cli.js' }, calls) });
    assert.equal(calls[1]!.at(-1), 'tool@2.9.9');
  });

  it('refuses a registry package that is a path, URL or git spec, without running npm', async () => {
    const calls: string[][] = [];
    for (const pkg of ['file:/tmp/evil.tgz', '/tmp/evil.tgz', 'https://evil.invalid/x.tgz', 'git+https://github.com/x/y.git', 'user/repo', 'npm:evil@1']) {
      await assert.rejects(installNpx(agentWith({ package: pkg, args: [], env: {} }), storage, { runNpm: fakeNpm({ name: 'x', bin: 'x.js' }, calls) }), (e: Error) => e instanceof InstallError && /is not an npm registry package/.test(e.message));
    }
    assert.equal(calls.length, 0);
    assert.ok(!fs.existsSync(path.join(storage, 'agents', 'hand-made')));
  });

  it('reports an npm failure with its stderr and leaves nothing', async () => {
    const failing: RunNpm = async (_args, { cwd }) => {
      fs.mkdirSync(path.join(cwd, 'node_modules', 'half'), { recursive: true });
      return { code: 1, stdout: '', stderr: 'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope' };
    };
    await assert.rejects(installNpx(agentWith({ package: 'nope@1.0.0', args: [], env: {} }), storage, { runNpm: failing }), /npm install nope@1\.0\.0 failed \(exit code 1\) for Hand made 3\.0\.0:\nnpm error code E404/);
    assert.deepEqual(fs.readdirSync(path.join(storage, 'agents')), []);
  });

  it('stops npm at the timeout', async () => {
    const slow: RunNpm = (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ code: null, stdout: '', stderr: '' })));
    await assert.rejects(installNpx(agentWith({ package: 'slow@1.0.0', args: [], env: {} }), storage, { runNpm: slow, timeoutMs: 200 }), /took longer than 0\.2 s and was stopped/);
    assert.deepEqual(fs.readdirSync(path.join(storage, 'agents')), []);
  });

  it('chooses the bin by cmd, else the only one, else the unscoped package name; runs native bins directly', async () => {
    const calls: string[][] = [];
    const bins = { 'tool-acp': 'bin/acp.js', tool: 'bin/tool.js', native: 'bin/native' };
    const byName = await installNpx(agentWith({ package: '@scope/tool@3.0.0', args: ['x'], env: {} }), storage, { runNpm: fakeNpm({ name: '@scope/tool', bin: bins }, calls) });
    assert.match(byName.args[0]!, /node_modules\/@scope\/tool\/bin\/tool\.js$/);
    fs.rmSync(storage, { recursive: true });
    const byCmd = await installNpx(agentWith({ package: '@scope/tool@3.0.0', cmd: 'tool-acp', args: [], env: {} }), storage, { runNpm: fakeNpm({ name: '@scope/tool', bin: bins }, calls) });
    assert.match(byCmd.args[0]!, /bin\/acp\.js$/);
    fs.rmSync(storage, { recursive: true });
    const native = await installNpx(agentWith({ package: '@scope/tool@3.0.0', cmd: 'native', args: ['acp'], env: {} }), storage, { runNpm: fakeNpm({ name: '@scope/tool', bin: bins }, calls) });
    assert.equal(native.command, path.join(native.dir, 'node_modules', '@scope', 'tool', 'bin', 'native'));
    assert.deepEqual(native.args, ['acp']);
    assert.equal((await run(native)).trim(), 'native');
    fs.rmSync(storage, { recursive: true });
    await assert.rejects(
      installNpx(agentWith({ package: 'other@3.0.0', args: [], env: {} }), storage, { runNpm: fakeNpm({ name: 'other', bin: { a: 'a.js', b: 'b.js' } }, calls) }),
      /other has no bin named "other" to run .*\(its bins: a, b\)/,
    );
    await assert.rejects(
      installNpx(agentWith({ package: 'other@3.0.0', cmd: 'c', args: [], env: {} }), storage, { runNpm: fakeNpm({ name: 'other', bin: { a: 'a.js' } }, calls) }),
      /no bin named "c"/,
    );
    assert.deepEqual(fs.readdirSync(path.join(storage, 'agents')), []);
  });

  it('refuses an agent without an npx distribution', async () => {
    await assert.rejects(installNpx({ ...agentWith(undefined) }, storage), /has no npx distribution/);
  });
});

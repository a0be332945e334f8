/**
 * Installing a registry agent's binary distribution from a loopback server: a verified archive is
 * unpacked, made executable and runs; a wrong or missing digest, a hostile archive or a missing
 * `cmd` is refused and leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentDefinitionSchema } from '../../../src/config/agents';
import { agentInstallDir, currentPlatformKey, installBinary, InstallError, launchToDefinition, type AgentLaunch } from '../../../src/registry/install';
import { fetchRegistry, type RegistryAgent } from '../../../src/registry/registry';
import { FAKE_AGENT_SCRIPT, FAKE_BINARY_ENTRIES, sha256, tarGz, zip, type ArchiveEntry } from '../../fakes/registry/archives';
import { startFakeRegistry, type FakeRegistry } from '../../fakes/registry/fakeRegistry';

/** Runs a launch the way a transport would (its env added to ours) and returns stdout. */
function run(launch: AgentLaunch): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(launch.command, launch.args, { env: { ...process.env, ...launch.env } }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );
}

/** Every file and folder under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

const platformKey = currentPlatformKey() ?? 'linux-x86_64';

describe('registry: installBinary', function () {
  if (process.platform === 'win32') return;
  let fake: FakeRegistry | undefined;
  let work: string;
  let storage: string;
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'as-install-'));
    storage = path.join(work, 'storage');
  });
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    fs.rmSync(work, { recursive: true, force: true });
  });

  /** The fixture's binary agent as served by a fake registry started with `opts`. */
  async function binaryAgent(opts: Parameters<typeof startFakeRegistry>[0] = {}): Promise<RegistryAgent> {
    fake = await startFakeRegistry(opts);
    const r = await fetchRegistry(fake.registryUrl, { allowLoopbackHttp: true });
    const agent = r.agents.find((a) => a.id === 'fake-binary-agent');
    assert.ok(agent, r.problems.join('\n'));
    return agent;
  }

  /** The binary agent with its archive served from `archivePath` and the given members. */
  async function agentWithArchive(archivePath: string, archive: Buffer, edit: (t: Record<string, unknown>) => void = () => undefined) {
    return binaryAgent({
      routes: { [archivePath]: (_q, res) => res.writeHead(200).end(archive) },
      edit: (doc) => {
        const target = (doc.agents[1]!.distribution as { binary: Record<string, Record<string, unknown>> }).binary[platformKey]!;
        target.archive = `${String(target.archive).replace(/\/[^/]+$/, '')}${archivePath}`;
        target.sha256 = sha256(archive);
        edit(target);
      },
    });
  }

  it('installs a verified tar.gz into agents/<id>/<version>, makes cmd executable, runs it, and reuses it', async () => {
    const agent = await binaryAgent();
    const installed = await installBinary(agent, platformKey, storage, { allowLoopbackHttp: true });
    const dir = agentInstallDir(storage, 'fake-binary-agent', '2.1.0');
    assert.equal(installed.dir, dir);
    assert.equal(installed.reused, false);
    assert.equal(installed.command, path.join(dir, 'bin', 'fake-binary-agent'));
    assert.deepEqual(installed.args, ['acp']);
    assert.deepEqual(installed.env, { FAKE_AGENT_MODE: 'binary' });
    assert.ok(fs.statSync(installed.command).mode & 0o100, 'cmd is executable although the archive said 0644');
    assert.equal(fs.readFileSync(installed.command, 'utf8'), FAKE_AGENT_SCRIPT);
    assert.equal((await run(installed)).trim(), 'fake binary agent args=acp mode=binary');
    // Only the version folder remains: no staging folder, no downloaded archive.
    assert.deepEqual(fs.readdirSync(path.dirname(dir)), ['2.1.0']);
    assert.deepEqual(tree(dir), ['.agent-switchboard-install.json', 'README.txt', 'bin', 'bin/fake-binary-agent']);

    const downloads = fake!.requests.filter((u) => u.endsWith('.tar.gz')).length;
    const again = await installBinary(agent, platformKey, storage, { allowLoopbackHttp: true });
    assert.equal(again.reused, true);
    assert.equal(again.command, installed.command);
    assert.equal(fake!.requests.filter((u) => u.endsWith('.tar.gz')).length, downloads, 'a finished install is not downloaded again');
    const def = launchToDefinition(agent, again);
    assert.deepEqual(AgentDefinitionSchema.parse(def), def);
  });

  it('refuses a checksum mismatch, naming both digests, and leaves no files', async () => {
    const wrong = 'ab'.repeat(32);
    const agent = await binaryAgent({ registrySha256: wrong });
    await assert.rejects(installBinary(agent, platformKey, storage, { allowLoopbackHttp: true }), (e: Error) => {
      assert.ok(e instanceof InstallError);
      assert.match(e.message, new RegExp(`SHA-256 of .*fake-binary-agent-2\\.1\\.0\\.tar\\.gz is ${fake!.archiveSha256}, but the registry expects ${wrong}`));
      assert.match(e.message, /nothing was installed/);
      return true;
    });
    assert.equal(fake!.requests.filter((u) => u.endsWith('.tar.gz')).length, 1, 'the archive was downloaded to be checked');
    assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
  });

  it('refuses an entry without sha256 before downloading, unless the caller pins a digest', async () => {
    const agent = await binaryAgent({ edit: (doc) => Object.values((doc.agents[1]!.distribution as { binary: Record<string, Record<string, unknown>> }).binary).forEach((t) => delete t.sha256) });
    await assert.rejects(installBinary(agent, platformKey, storage, { allowLoopbackHttp: true }), /Refusing to install Fake binary agent 2\.1\.0 .*no sha256 .*cannot be verified/);
    assert.equal(fake!.requests.filter((u) => u.endsWith('.tar.gz')).length, 0);
    await assert.rejects(installBinary(agent, platformKey, storage, { allowLoopbackHttp: true, sha256: 'cd'.repeat(32) }), /but the pinned digest expects cdcd/);
    const ok = await installBinary(agent, platformKey, storage, { allowLoopbackHttp: true, sha256: fake!.archiveSha256.toUpperCase() });
    assert.equal((await run(ok)).trim(), 'fake binary agent args=acp mode=binary');
  });

  it('refuses loopback http archives unless allowed, and platforms the entry lacks', async () => {
    const agent = await binaryAgent();
    await assert.rejects(installBinary(agent, platformKey, storage), /not an https:\/\/ URL/);
    await assert.rejects(installBinary(agent, 'windows-x86_64', storage, { allowLoopbackHttp: true }), /has no binary for windows-x86_64 \(only linux-x86_64, linux-aarch64, darwin-aarch64, darwin-x86_64\)/);
    assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
  });

  const hostile: [string, ArchiveEntry[], RegExp][] = [
    ['a member named ../', [...FAKE_BINARY_ENTRIES, { type: 'file', name: '../escaped.sh', content: 'x' }], /contains "\.\.\/escaped\.sh", which would be written outside the install folder/],
    ['an absolute member', [...FAKE_BINARY_ENTRIES, { type: 'file', name: '/tmp/as-escaped.sh', content: 'x' }], /contains "\/tmp\/as-escaped\.sh"/],
    ['a symlink out of the folder', [...FAKE_BINARY_ENTRIES, { type: 'symlink', name: 'bin/link', target: '../../../../outside' }], /symlink "bin\/link" points to "\.\.\/\.\.\/\.\.\/\.\.\/outside", outside/],
    ['an absolute symlink', [...FAKE_BINARY_ENTRIES, { type: 'symlink', name: 'etc', target: '/etc' }], /symlink "etc" points to "\/etc"/],
  ];
  for (const [what, entries, message] of hostile) {
    it(`refuses a tar.gz with ${what} and leaves nothing`, async () => {
      const agent = await agentWithArchive('/hostile.tar.gz', tarGz(entries));
      await assert.rejects(installBinary(agent, platformKey, storage, { allowLoopbackHttp: true }), message);
      assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
      assert.ok(!fs.existsSync(path.join(work, 'escaped.sh')) && !fs.existsSync(path.join(storage, 'escaped.sh')));
    });
  }

  it('installs a zip with unzip and refuses one with a ../ member', async function () {
    const agent = await agentWithArchive('/agent.zip', zip(FAKE_BINARY_ENTRIES));
    const installed = await installBinary(agent, platformKey, storage, { allowLoopbackHttp: true });
    assert.equal((await run(installed)).trim(), 'fake binary agent args=acp mode=binary');
    await fake!.close();
    fs.rmSync(storage, { recursive: true });
    const bad = await agentWithArchive('/bad.zip', zip([...FAKE_BINARY_ENTRIES, { type: 'file', name: '../escaped.sh', content: 'x' }]));
    await assert.rejects(installBinary(bad, platformKey, storage, { allowLoopbackHttp: true }), /contains "\.\.\/escaped\.sh"/);
    assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
  });

  it('installs a raw executable as cmd', async () => {
    const agent = await agentWithArchive('/fake-agent-linux', Buffer.from(FAKE_AGENT_SCRIPT), (t) => (t.cmd = 'fake-agent'));
    const installed = await installBinary(agent, platformKey, storage, { allowLoopbackHttp: true });
    assert.equal(installed.command, path.join(installed.dir, 'fake-agent'));
    assert.equal((await run(installed)).trim(), 'fake binary agent args=acp mode=binary');
  });

  it('names what the archive holds when cmd is missing, refuses installers and oversized downloads', async () => {
    const agent = await agentWithArchive('/a.tar.gz', tarGz(FAKE_BINARY_ENTRIES), (t) => (t.cmd = './fake-binary-agent'));
    await assert.rejects(installBinary(agent, platformKey, storage, { allowLoopbackHttp: true }), /the archive has no "fake-binary-agent" \(its top level holds: README\.txt, bin\)/);
    assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
    await fake!.close();
    const dmg = await agentWithArchive('/agent.dmg', Buffer.from('x'));
    await assert.rejects(installBinary(dmg, platformKey, storage, { allowLoopbackHttp: true }), /is an installer \(\.dmg\)/);
    await fake!.close();
    const big = await binaryAgent();
    await assert.rejects(installBinary(big, platformKey, storage, { allowLoopbackHttp: true, maxBytes: 100 }), /more than the 100 bytes limit/);
    assert.deepEqual(tree(storage).filter((p) => p !== 'agents'), []);
  });

  it('replaces an install of the same version whose digest changed', async () => {
    const first = await binaryAgent();
    await installBinary(first, platformKey, storage, { allowLoopbackHttp: true });
    await fake!.close();
    const changed = [...FAKE_BINARY_ENTRIES.slice(0, 2), { type: 'file', name: 'CHANGED', content: 'new' } as ArchiveEntry];
    const second = await binaryAgent({ archive: tarGz(changed) });
    const installed = await installBinary(second, platformKey, storage, { allowLoopbackHttp: true });
    assert.equal(installed.reused, false);
    assert.deepEqual(tree(installed.dir), ['.agent-switchboard-install.json', 'CHANGED', 'bin', 'bin/fake-binary-agent']);
    assert.deepEqual(fs.readdirSync(path.dirname(installed.dir)), ['2.1.0']);
  });
});

describe('registry: currentPlatformKey', () => {
  it('maps Node platform and arch to the registry names', () => {
    assert.equal(currentPlatformKey('linux', 'x64'), 'linux-x86_64');
    assert.equal(currentPlatformKey('linux', 'arm64'), 'linux-aarch64');
    assert.equal(currentPlatformKey('darwin', 'arm64'), 'darwin-aarch64');
    assert.equal(currentPlatformKey('darwin', 'x64'), 'darwin-x86_64');
    assert.equal(currentPlatformKey('win32', 'x64'), 'windows-x86_64');
    assert.equal(currentPlatformKey('win32', 'arm64'), 'windows-aarch64');
    assert.equal(currentPlatformKey('linux', 'ia32'), undefined);
    assert.equal(currentPlatformKey('freebsd', 'x64'), undefined);
  });

  it('refuses ids and versions that are not folder names', () => {
    assert.throws(() => agentInstallDir('/s', '../x', '1.0.0'), InstallError);
    assert.throws(() => agentInstallDir('/s', 'x', '../1'), InstallError);
    assert.equal(agentInstallDir('/s', 'x', '1.0.0-rc.1'), path.join('/s', 'agents', 'x', '1.0.0-rc.1'));
  });
});

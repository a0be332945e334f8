/**
 * Reading the ACP Registry: the fixture parses; bad entries and bad install methods are reported by
 * agent id and field while the rest is kept; the document is fetched from loopback http, a file
 * path or a file: URL within size and time limits, and never over plain http elsewhere.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fetchRegistry, parseRegistry, REGISTRY_URL, RegistryError } from '../../../src/registry/registry';
import { fixtureText, startFakeRegistry, type FakeRegistry } from '../../fakes/registry/fakeRegistry';

const SHA = 'ab'.repeat(32);
const fixture = () => JSON.parse(fixtureText({ baseUrl: 'https://example.invalid/dl', archiveSha256: SHA })) as { version: string; agents: Record<string, unknown>[] };

/** A minimal valid agent, to be spoiled one field at a time. */
const agent = (over: Record<string, unknown>) => ({ id: 'ok-agent', name: 'OK', version: '1.0.0', description: 'd', distribution: { npx: { package: 'ok-agent@1.0.0' } }, ...over });

describe('registry: parseRegistry', () => {
  it('reads the fixture: both agents, their install methods, no problems', () => {
    const r = parseRegistry(fixture());
    assert.deepEqual(r.problems, []);
    assert.equal(r.version, '1.0.0');
    assert.deepEqual(r.agents.map((a) => a.id), ['fake-npx-agent', 'fake-binary-agent']);
    const [npx, bin] = r.agents;
    assert.deepEqual(npx!.distribution.npx, { package: 'fake-npx-agent@1.0.0', args: ['--acp'], env: { FAKE_AGENT_MODE: 'npx' } });
    const linux = bin!.distribution.binary!['linux-x86_64']!;
    assert.equal(linux.cmd, './bin/fake-binary-agent');
    assert.equal(linux.sha256, SHA);
    assert.deepEqual(Object.keys(bin!.distribution.binary!).sort(), ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64']);
    assert.equal(bin!.website, 'https://example.invalid/fake-binary-agent');
  });

  it('reports a bad entry by id and field and keeps the good ones', () => {
    const doc = fixture();
    doc.agents.splice(1, 0, agent({ id: 'Bad/Id' }), agent({ id: 'no-name', name: undefined }), agent({ id: 'fake-npx-agent' }));
    const r = parseRegistry(doc);
    assert.deepEqual(r.agents.map((a) => a.id), ['fake-npx-agent', 'fake-binary-agent']);
    assert.equal(r.problems.length, 3, r.problems.join('\n'));
    assert.match(r.problems[0]!, /"Bad\/Id" \(agents\[1\]\) was skipped: id: must be lowercase/);
    assert.match(r.problems[1]!, /"no-name" \(agents\[2\]\) was skipped: name:/);
    assert.match(r.problems[2]!, /"fake-npx-agent" \(agents\[3\]\) was skipped: the id "fake-npx-agent" appears earlier/);
  });

  it('drops only the unsafe install method, naming its field, and keeps the agent', () => {
    const doc = {
      version: '1.0.0',
      agents: [
        agent({
          id: 'mixed',
          distribution: {
            npx: { package: 'mixed@1.0.0' },
            binary: {
              'linux-x86_64': { archive: 'https://x.invalid/a.tar.gz', cmd: '../../etc/passwd', sha256: SHA },
              'linux-aarch64': { archive: 'http://x.invalid/a.tar.gz', cmd: './a' },
              'darwin-aarch64': { archive: 'https://x.invalid/a.tar.gz', cmd: './a', sha256: 'not-hex' },
              'darwin-x86_64': { archive: 'https://x.invalid/a.tar.gz', cmd: './a', sha256: SHA.toUpperCase() },
              'plan9-mips': { archive: 'whatever' },
            },
          },
        }),
        agent({ id: 'git-npx', distribution: { npx: { package: 'git+https://github.com/x/y.git' } } }),
        agent({ id: 'alias-npx', distribution: { npx: { package: 'npm:evil@1' } } }),
        agent({ id: 'future', distribution: { docker: { image: 'x' } } }),
      ],
    };
    const r = parseRegistry(doc);
    assert.deepEqual(r.agents.map((a) => a.id), ['mixed']);
    const mixed = r.agents[0]!;
    assert.ok(mixed.distribution.npx);
    assert.deepEqual(Object.keys(mixed.distribution.binary!), ['darwin-x86_64']);
    assert.equal(mixed.distribution.binary!['darwin-x86_64']!.sha256, SHA, 'digests are kept lowercase');
    const text = r.problems.join('\n');
    assert.match(text, /"mixed".*distribution\.binary\.linux-x86_64\.cmd: must be a relative path inside the archive/);
    assert.match(text, /"mixed".*distribution\.binary\.linux-aarch64\.archive: .*not an https:\/\/ URL/);
    assert.match(text, /"mixed".*distribution\.binary\.darwin-aarch64\.sha256: must be 64 hexadecimal digits/);
    assert.doesNotMatch(text, /plan9/, 'unknown platforms are future targets, not problems');
    assert.match(text, /"git-npx" .*distribution\.npx\.package: must name an npm registry package/);
    assert.match(text, /"git-npx" .*was skipped: it has no install method this client can use \(distribution has npx\)/);
    assert.match(text, /"alias-npx" .*distribution\.npx\.package/);
    assert.match(text, /"future" .*no install method this client can use \(distribution has docker\)/);
  });

  it('is lenient with unknown fields, bad links and missing display fields; drops reserved env vars', () => {
    const r = parseRegistry({
      version: '1.0.0',
      extensions: [{ anything: true }],
      agents: [
        agent({
          id: 'loose',
          description: undefined,
          authors: 'not-a-list',
          repository: 'javascript:alert(1)',
          icon: 'https://cdn.example.invalid/loose.svg',
          license_url: 'https://example.invalid/license',
          _meta: { future: 1 },
          distribution: { npx: { package: '@scope/loose', cmd: 'loose-acp', env: { PATH: '/evil', NODE_OPTIONS: '--require x', LOOSE_MODE: 'acp' }, extra: 1 } },
        }),
      ],
    });
    assert.equal(r.agents.length, 1);
    const a = r.agents[0]!;
    assert.equal(a.description, '');
    assert.deepEqual(a.authors, []);
    assert.equal(a.repository, undefined);
    assert.equal(a.icon, 'https://cdn.example.invalid/loose.svg');
    assert.equal(a.licenseUrl, 'https://example.invalid/license');
    assert.deepEqual(a.distribution.npx, { package: '@scope/loose', cmd: 'loose-acp', args: [], env: { LOOSE_MODE: 'acp' } });
    assert.equal(r.problems.length, 2);
    assert.match(r.problems.join('\n'), /"loose".*distribution\.npx\.env\.PATH was dropped/);
    assert.match(r.problems.join('\n'), /distribution\.npx\.env\.NODE_OPTIONS was dropped/);
  });

  it('accepts loopback http archives only when asked', () => {
    const doc = { version: '1.0.0', agents: [agent({ distribution: { binary: { 'linux-x86_64': { archive: 'http://127.0.0.1:9/a.tgz', cmd: 'a' } } } })] };
    assert.equal(parseRegistry(doc).agents.length, 0);
    assert.equal(parseRegistry(doc, { allowLoopbackHttp: true }).agents.length, 1);
  });

  it('notes a newer format version, and refuses a document without agents', () => {
    assert.match(parseRegistry({ version: '2.0.0', agents: [] }).problems[0]!, /format version "2\.0\.0"/);
    assert.throws(() => parseRegistry({ version: '1.0.0' }), RegistryError);
    assert.throws(() => parseRegistry([]), /"agents" array/);
  });
});

describe('registry: fetchRegistry', () => {
  let fake: FakeRegistry | undefined;
  let server: http.Server | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });
  /** A loopback server answering every request with `handler`. */
  const serve = async (handler: http.RequestListener) => {
    server = http.createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('defaults to the public registry URL', () => {
    assert.equal(REGISTRY_URL, 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json');
  });

  it('reads from a loopback http server, with loopback archive URLs allowed', async () => {
    fake = await startFakeRegistry();
    const r = await fetchRegistry(fake.registryUrl, { allowLoopbackHttp: true });
    assert.deepEqual(r.problems, []);
    assert.equal(r.agents[1]!.distribution.binary!['linux-x86_64']!.archive, `${fake.baseUrl}/fake-binary-agent-2.1.0.tar.gz`);
    // Without the option the registry is still read; its loopback archives are reported instead.
    const strict = await fetchRegistry(fake.registryUrl);
    assert.deepEqual(strict.agents.map((a) => a.id), ['fake-npx-agent']);
    assert.match(strict.problems.join('\n'), /"fake-binary-agent".*no install method/);
  });

  it('reads from an absolute path and a file: URL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'as-registry-'));
    const file = path.join(dir, 'registry.json');
    fs.writeFileSync(file, JSON.stringify(fixture()));
    assert.equal((await fetchRegistry(file)).agents.length, 2);
    assert.equal((await fetchRegistry(pathToFileURL(file))).agents.length, 2);
    assert.equal((await fetchRegistry(pathToFileURL(file).href)).agents.length, 2);
    await assert.rejects(fetchRegistry(file, { maxBytes: 100 }), /more than the 100 bytes limit/);
    fs.rmSync(dir, { recursive: true });
  });

  it('refuses plain http off loopback, and a redirect that leaves loopback for http', async () => {
    await assert.rejects(fetchRegistry('http://example.invalid/registry.json'), /not an https:\/\/ URL/);
    await assert.rejects(fetchRegistry('registry.json'), /is not a URL/);
    const base = await serve((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: '/registry.json' }).end();
      else if (req.url === '/away') res.writeHead(302, { location: 'http://example.invalid/registry.json' }).end();
      else res.writeHead(200).end(JSON.stringify({ version: '1.0.0', agents: [] }));
    });
    assert.deepEqual((await fetchRegistry(`${base}/moved`)).agents, []);
    await assert.rejects(fetchRegistry(`${base}/away`), /redirected to http:\/\/example\.invalid\/registry\.json, which is refused/);
  });

  it('fails clearly on HTTP errors, bodies over the cap, slow servers and non-JSON', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/missing') res.writeHead(404, 'Not Found').end();
      else if (req.url === '/big') res.writeHead(200, { 'content-length': 10_000 }).end('x'.repeat(10_000));
      else if (req.url === '/chunked-big') {
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write('x'.repeat(1000));
        res.end();
      } else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('{}'), 5_000);
      else res.writeHead(200).end('<html>not json</html>');
    });
    await assert.rejects(fetchRegistry(`${base}/missing`), (e: Error) => e instanceof RegistryError && /answered HTTP 404 Not Found/.test(e.message));
    await assert.rejects(fetchRegistry(`${base}/big`, { maxBytes: 1000 }), /more than the 1000 bytes limit/);
    await assert.rejects(fetchRegistry(`${base}/chunked-big`, { maxBytes: 1000 }), /larger than the 1000 bytes limit/);
    const started = Date.now();
    await assert.rejects(fetchRegistry(`${base}/slow`, { timeoutMs: 300 }), /took longer than 0\.3 s/);
    assert.ok(Date.now() - started < 3_000);
    await assert.rejects(fetchRegistry(`${base}/html`), /is not valid JSON/);
  });
});

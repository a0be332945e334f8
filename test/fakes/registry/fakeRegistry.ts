/**
 * A fake ACP Registry for tests: a loopback HTTP server that serves ./registry.json (with its
 * `{{BASE_URL}}` and `{{ARCHIVE_SHA256}}` placeholders filled in) and the fake binary agent's
 * archive, plus a builder for the fake npx agent's npm tarball. See ./README.md.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FAKE_BINARY_ENTRIES, sha256, tarGz } from './archives';

/** Absolute path of the fixture registry (with placeholders). */
export const FIXTURE_PATH = path.join(__dirname, 'registry.json');

/** Path of the fake binary agent's archive on the server, as named in the fixture. */
export const ARCHIVE_PATH = '/fake-binary-agent-2.1.0.tar.gz';

/** The fixture as text with `{{BASE_URL}}` and `{{ARCHIVE_SHA256}}` replaced. */
export function fixtureText(vars: { baseUrl: string; archiveSha256: string }): string {
  return fs.readFileSync(FIXTURE_PATH, 'utf8').replaceAll('{{BASE_URL}}', vars.baseUrl).replaceAll('{{ARCHIVE_SHA256}}', vars.archiveSha256);
}

/** A route of the fake server: answers one request. */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A running fake registry. */
export interface FakeRegistry {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** `<baseUrl>/registry.json` */
  registryUrl: string;
  /** The archive served at {@link ARCHIVE_PATH} and its digest (the one the registry names). */
  archive: Buffer;
  archiveSha256: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Starts the fake registry on 127.0.0.1 (a free port).
 *
 * @param opts.archive the bytes to serve as the archive (default: the fake binary agent's tar.gz).
 * @param opts.registrySha256 the digest to write into the registry (default: the archive's real one).
 * @param opts.edit changes the parsed registry document before it is served.
 * @param opts.routes extra paths (they win over the defaults).
 */
export async function startFakeRegistry(
  opts: { archive?: Buffer; registrySha256?: string; edit?: (doc: { agents: Record<string, unknown>[] }) => void; routes?: Record<string, Route> } = {},
): Promise<FakeRegistry> {
  const archive = opts.archive ?? tarGz(FAKE_BINARY_ENTRIES);
  const archiveSha256 = sha256(archive);
  const requests: string[] = [];
  let baseUrl = '';
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(url);
    const route = opts.routes?.[url];
    if (route) return route(req, res);
    if (url === '/registry.json') {
      const doc = JSON.parse(fixtureText({ baseUrl, archiveSha256: opts.registrySha256 ?? archiveSha256 })) as { agents: Record<string, unknown>[] };
      opts.edit?.(doc);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(doc));
    }
    if (url === ARCHIVE_PATH) {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length });
      return res.end(archive);
    }
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    registryUrl: `${baseUrl}/registry.json`,
    archive,
    archiveSha256,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Node script the fake npx agent runs: prints its arguments and FAKE_AGENT_MODE. */
export const FAKE_NPX_SCRIPT = "#!/usr/bin/env node\nconsole.log(`fake npx agent args=${process.argv.slice(2).join(' ')} mode=${process.env.FAKE_AGENT_MODE}`);\n";

/**
 * Writes the fake npx agent's package (`fake-npx-agent@1.0.0`, one bin `fake-npx-agent`) under
 * `workDir` and packs it with `npm pack`, offline.
 *
 * @returns the absolute path of the `.tgz`, to pass to `installNpx` as `packageSpec`.
 */
export async function packFakeNpmPackage(workDir: string): Promise<string> {
  const pkg = path.join(workDir, 'fake-npx-agent');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'fake-npx-agent', version: '1.0.0', license: 'MIT', bin: { 'fake-npx-agent': 'bin/agent.js' } }, null, 2));
  fs.writeFileSync(path.join(pkg, 'bin', 'agent.js'), FAKE_NPX_SCRIPT, { mode: 0o755 });
  const out = await new Promise<string>((resolve, reject) =>
    execFile('npm', ['pack', '--silent', '--pack-destination', workDir], { cwd: pkg, env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' } }, (err, stdout, stderr) =>
      err ? reject(new Error(`npm pack failed: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
  return path.join(workDir, out.trim().split('\n').pop()!);
}

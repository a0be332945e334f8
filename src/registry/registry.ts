/**
 * The ACP Agent Registry, read and checked: the public catalogue of ACP agents with the ways to
 * install each one (`npx` package, `uvx` package, or a per-platform `binary` archive).
 *
 * Format sources (registry format 1.0.0):
 * - https://github.com/agentclientprotocol/registry/blob/main/FORMAT.md
 * - https://github.com/agentclientprotocol/registry/blob/main/agent.schema.json
 *   (published as https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json)
 * - https://agentclientprotocol.com/rfds/acp-agent-registry
 *
 * Reading is lenient where a mistake costs nothing (an unknown field, a bad homepage link, an
 * unknown platform or distribution kind) and strict where we would otherwise run or write
 * something unintended (ids and versions become directory names, `cmd` is a path inside an
 * archive, archives must be https, npm specs must name a registry package). A bad entry, or a bad
 * install method of an entry, becomes one sentence in `problems`; the rest is kept.
 *
 * Pure Node; no `vscode`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { checkDownloadUrl, DownloadError, formatBytes, readUrl } from './download';

/** Where the public registry is published (format 1.x). */
export const REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

/** The platform names the registry uses for binary targets (FORMAT.md, "Platform Targets"). */
export const PLATFORM_KEYS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;

/** One of {@link PLATFORM_KEYS}, e.g. `linux-x86_64`. */
export type PlatformKey = (typeof PLATFORM_KEYS)[number];

/**
 * Environment variables a registry entry may not set, because they steer the process machinery
 * rather than the agent (loader paths, Node/npm/uv configuration, credentials, home and temp
 * directories). Mirrors `sanitize_agent_env` in the registry's own runner:
 * https://github.com/agentclientprotocol/registry/blob/main/.github/workflows/registry_utils.py
 */
const RESERVED_ENV = new Set(['CI', 'COMSPEC', 'HOME', 'LD_PRELOAD', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'PATH', 'PATHEXT', 'PYTHONHOME', 'PYTHONPATH', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_DIR', 'SSL_CERT_FILE', 'SYSTEMROOT', 'TEMP', 'TMP', 'TMPDIR', 'WINDIR']);
const RESERVED_ENV_PREFIXES = ['ACTIONS_', 'AWS_', 'AZURE_', 'DYLD_', 'GCLOUD_', 'GITHUB_', 'GOOGLE_', 'LD_', 'NODE_', 'NPM_', 'PIP_', 'PYTHON_', 'RUNNER_', 'SSH_', 'UV_', 'XDG_'];

/** True when a registry entry may not set the environment variable `name` (see {@link RESERVED_ENV}). */
export function isReservedEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return RESERVED_ENV.has(upper) || RESERVED_ENV_PREFIXES.some((p) => upper.startsWith(p));
}

/** A relative path that stays inside the directory it is resolved against (no `..`, not absolute). */
export function isSafeRelativePath(p: string): boolean {
  if (!p || p.includes('\0') || p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return false;
  const parts = p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  return parts.length > 0 && !parts.includes('..');
}

/**
 * An npm registry package, optionally with a version or tag: `name`, `@scope/name`,
 * `name@1.2.3`. Git URLs, tarball URLs, `file:` paths, `npm:` aliases and `user/repo` shorthands are
 * refused: the registry names packages, and anything else would install code from elsewhere.
 */
export const NPM_REGISTRY_SPEC = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[A-Za-z0-9][A-Za-z0-9._~-]*(?:@[0-9A-Za-z][0-9A-Za-z.+-]*)?$/;

/** A PyPI requirement with at most one exact or lower bound: `name`, `name==1.2.3`, `name[extra]>=1`. */
const PYPI_SPEC = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9,._-]+\])?(?:(?:==|>=|~=|@)[0-9A-Za-z.*+!-]+)?$/;

const envSchema = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment variable names are letters, digits and "_"'), z.string()).default({});
const argsSchema = z.array(z.string()).default([]);
const binName = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, 'must be the name of one executable (letters, digits, ".", "_", "-")');

/**
 * One platform's binary target: `archive` (https URL of a .tar.gz/.tgz/.tar.bz2/.tbz2/.zip or raw
 * binary), `cmd` (path of the executable inside the extracted archive, e.g. `./codex-acp`),
 * optional `args`, `env` and `sha256` (64 hex digits, the archive's SHA-256; stored lowercase).
 */
export function binaryTargetSchema(opts: RegistryParseOptions = {}) {
  return z.object({
    archive: z.string().superRefine((s, ctx) => {
      try {
        checkDownloadUrl(s, opts.allowLoopbackHttp ?? false);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
    cmd: z.string().refine(isSafeRelativePath, 'must be a relative path inside the archive (no "..", not absolute)'),
    args: argsSchema,
    env: envSchema,
    sha256: z.string().regex(/^[a-fA-F0-9]{64}$/, 'must be 64 hexadecimal digits').transform((s) => s.toLowerCase()).optional(),
  });
}

/** An `npx` distribution: an npm registry `package` spec, optional `cmd` (which bin to run), `args`, `env`. */
export const NpxDistributionSchema = z.object({
  package: z.string().regex(NPM_REGISTRY_SPEC, 'must name an npm registry package such as "@scope/name@1.2.3" (no URLs, paths or git specs)'),
  cmd: binName.optional(),
  args: argsSchema,
  env: envSchema,
});

/** A `uvx` distribution: a PyPI `package` requirement, optional `cmd`, `args`, `env`. */
export const UvxDistributionSchema = z.object({
  package: z.string().regex(PYPI_SPEC, 'must name a PyPI package such as "name==1.2.3" (no URLs or paths)'),
  cmd: binName.optional(),
  args: argsSchema,
  env: envSchema,
});

/** A link shown to the person: kept only when it is an http(s) URL, otherwise dropped silently. */
const link = z
  .unknown()
  .transform((v) => (typeof v === 'string' && /^https?:\/\//i.test(v) && URL.canParse(v) ? v : undefined))
  .optional();

/**
 * The fields of an agent other than `distribution`. `id` and `version` become directory names,
 * so they are checked strictly; display fields are lenient.
 */
export const AgentCoreSchema = z.object({
  id: z.string().max(100).regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase letters, digits and "-", starting with a letter'),
  name: z.string().min(1),
  version: z.string().max(64).regex(/^\d+\.\d+\.\d+[0-9A-Za-z.+-]*$/, 'must be a semantic version such as "1.2.3"'),
  description: z.string().catch(''),
  repository: link,
  website: link,
  authors: z.array(z.string()).catch([]),
  license: z.string().optional().catch(undefined),
  license_url: link,
  icon: link,
  distribution: z.record(z.string(), z.unknown()),
});

/** A checked binary target (see {@link binaryTargetSchema}). */
export type BinaryTarget = z.infer<ReturnType<typeof binaryTargetSchema>>;
/** A checked `npx` distribution. */
export type NpxDistribution = z.infer<typeof NpxDistributionSchema>;
/** A checked `uvx` distribution. */
export type UvxDistribution = z.infer<typeof UvxDistributionSchema>;

/** The install methods of an agent that passed the checks; at least one is present. */
export interface RegistryDistribution {
  binary?: Partial<Record<PlatformKey, BinaryTarget>>;
  npx?: NpxDistribution;
  uvx?: UvxDistribution;
}

/** An agent from the registry, checked. Links are http(s) URLs or absent. */
export interface RegistryAgent {
  /** Unique id, `^[a-z][a-z0-9-]*$`; also the install folder's name. */
  id: string;
  /** Display name. */
  name: string;
  /** Version of the stable release the distributions point at (semver, e.g. `0.11.1`). */
  version: string;
  /** One-line description; empty when the registry gave none. */
  description: string;
  repository?: string;
  website?: string;
  authors: string[];
  /** SPDX identifier or `proprietary`. */
  license?: string;
  /** The registry's `license_url`. */
  licenseUrl?: string;
  /** SVG icon URL (16×16, `currentColor`), set by the registry build. */
  icon?: string;
  distribution: RegistryDistribution;
}

/** What reading a registry gives: its format version, the usable agents, one sentence per problem. */
export interface RegistryReadResult {
  version: string;
  agents: RegistryAgent[];
  problems: string[];
}

/** Options for {@link parseRegistry}. */
export interface RegistryParseOptions {
  /** Accept `http://127.0.0.1|localhost` archive URLs (tests, local mirrors). Default false. */
  allowLoopbackHttp?: boolean;
}

/** The registry document as a whole is unusable (unreadable, not JSON, no `agents` array). */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

const issuesText = (error: z.ZodError, prefix: string) =>
  error.issues.map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.') || 'entry'}: ${i.message}`).join('; ');

/**
 * Checks a parsed registry document (`{version, agents: [...], extensions?}`).
 *
 * Never throws for a bad agent: the agent, or only its bad install method, is left out and named in
 * `problems`. Duplicate ids keep the first. Unknown fields, platforms and distribution kinds are
 * ignored so that newer registries still read.
 *
 * @throws RegistryError when `doc` is not an object with an `agents` array.
 */
export function parseRegistry(doc: unknown, opts: RegistryParseOptions = {}): RegistryReadResult {
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { agents?: unknown }).agents)) {
    throw new RegistryError('The registry is not an object with an "agents" array; is the registry URL right?');
  }
  const { agents: rawAgents, version: rawVersion } = doc as { agents: unknown[]; version?: unknown };
  const version = typeof rawVersion === 'string' ? rawVersion : 'unknown';
  const problems: string[] = [];
  if (!/^1\./.test(version)) problems.push(`The registry declares format version "${version}"; this client reads format 1.x and may miss newer fields.`);
  const agents: RegistryAgent[] = [];
  const seen = new Set<string>();
  const targetSchema = binaryTargetSchema(opts);
  rawAgents.forEach((raw, i) => {
    const rawId = typeof (raw as { id?: unknown } | null)?.id === 'string' ? (raw as { id: string }).id : undefined;
    const who = rawId ? `Registry agent "${rawId}" (agents[${i}])` : `Registry agent agents[${i}]`;
    const core = AgentCoreSchema.safeParse(raw);
    if (!core.success) {
      problems.push(`${who} was skipped: ${issuesText(core.error, '')}.`);
      return;
    }
    const c = core.data;
    if (seen.has(c.id)) {
      problems.push(`${who} was skipped: the id "${c.id}" appears earlier in the registry.`);
      return;
    }
    const distribution: RegistryDistribution = {};
    const dropMethod = (where: string, why: string) => problems.push(`${who}: ${where}: ${why}; that install method is ignored.`);
    const keepEnv = <T extends { env: Record<string, string> }>(where: string, d: T): T => {
      for (const name of Object.keys(d.env)) {
        if (!isReservedEnvName(name)) continue;
        problems.push(`${who}: ${where}.env.${name} was dropped: a registry entry may not set ${name}.`);
        delete d.env[name];
      }
      return d;
    };
    for (const [kind, value] of Object.entries(c.distribution)) {
      if (kind === 'npx') {
        const r = NpxDistributionSchema.safeParse(value);
        if (r.success) distribution.npx = keepEnv('distribution.npx', r.data);
        else dropMethod('distribution.npx', issuesText(r.error, 'distribution.npx'));
      } else if (kind === 'uvx') {
        const r = UvxDistributionSchema.safeParse(value);
        if (r.success) distribution.uvx = keepEnv('distribution.uvx', r.data);
        else dropMethod('distribution.uvx', issuesText(r.error, 'distribution.uvx'));
      } else if (kind === 'binary') {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          dropMethod('distribution.binary', 'must be an object keyed by platform');
          continue;
        }
        const targets: Partial<Record<PlatformKey, BinaryTarget>> = {};
        for (const [platform, target] of Object.entries(value)) {
          // Unknown platforms are future targets, not mistakes.
          if (!(PLATFORM_KEYS as readonly string[]).includes(platform)) continue;
          const where = `distribution.binary.${platform}`;
          const r = targetSchema.safeParse(target);
          if (r.success) targets[platform as PlatformKey] = keepEnv(where, r.data);
          else dropMethod(where, issuesText(r.error, where));
        }
        if (Object.keys(targets).length > 0) distribution.binary = targets;
      }
    }
    if (!distribution.binary && !distribution.npx && !distribution.uvx) {
      const kinds = Object.keys(c.distribution);
      problems.push(`${who} was skipped: it has no install method this client can use (distribution has ${kinds.length ? kinds.join(', ') : 'nothing'}).`);
      return;
    }
    seen.add(c.id);
    const { license_url, distribution: _raw, ...rest } = c;
    agents.push({ ...rest, licenseUrl: license_url, distribution });
  });
  return { version, agents, problems };
}

/** Options for {@link fetchRegistry}. */
export interface FetchRegistryOptions extends RegistryParseOptions {
  /** Largest registry document accepted, in bytes. Default 5 MiB (the public one is ~100 KB). */
  maxBytes?: number;
  /** Milliseconds the whole read may take. Default 15 000. */
  timeoutMs?: number;
  /** Cancels the read; the call rejects with a RegistryError. */
  signal?: AbortSignal;
  /** Replaces global `fetch` (tests). */
  fetch?: typeof fetch;
}

/**
 * Reads and checks a registry from `source`: an `https://` URL (default {@link REGISTRY_URL}), an
 * `http://` URL on 127.0.0.1/localhost (a local mirror or a test server; the person chose it), a
 * `file:` URL, or an absolute path. Redirects are followed only to https.
 *
 * @returns the usable agents and one sentence per problem (see {@link parseRegistry}).
 * @throws RegistryError when the document cannot be read (network, status, size over `maxBytes`,
 *   timeout), is not JSON, or has no `agents` array; the message names the source.
 */
export async function fetchRegistry(source: string | URL = REGISTRY_URL, opts: FetchRegistryOptions = {}): Promise<RegistryReadResult> {
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const where = String(source);
  let body: Buffer;
  try {
    const file = source instanceof URL ? (source.protocol === 'file:' ? fileURLToPath(source) : undefined) : source.startsWith('file:') ? fileURLToPath(source) : path.isAbsolute(source) ? source : undefined;
    if (file !== undefined) {
      const size = (await fs.promises.stat(file)).size;
      if (size > maxBytes) throw new RegistryError(`The registry file ${file} is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} limit.`);
      body = await fs.promises.readFile(file);
    } else {
      body = await readUrl(source, { maxBytes, timeoutMs: opts.timeoutMs ?? 15_000, allowLoopbackHttp: true, signal: opts.signal, fetch: opts.fetch });
    }
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    const detail = err instanceof DownloadError ? err.message : `${(err as Error).message ?? String(err)}`;
    throw new RegistryError(`Could not read the ACP registry from ${where}: ${detail}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new RegistryError(`The ACP registry at ${where} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return parseRegistry(doc, opts);
  } catch (err) {
    throw new RegistryError(`The ACP registry at ${where} is unusable: ${(err as Error).message}`);
  }
}

/**
 * Bounded HTTP(S) reads for the ACP Registry room: the registry document itself and agent
 * archives. Every hop of a redirect chain is checked, so a registry on `https:` can never send us
 * to plain `http:`; bodies are capped by size and guarded by a timeout.
 *
 * Pure Node (global `fetch`, `node:crypto`, `node:fs`); no `vscode`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** A download that could not be done, in words a person can act on (URL, limit, status). */
export class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

/** Limits and hooks shared by {@link readUrl} and {@link downloadToFile}. */
export interface DownloadOptions {
  /** Largest body accepted, in bytes. Larger bodies are cut off and the call fails. */
  maxBytes: number;
  /**
   * Milliseconds without progress before the call fails: for {@link readUrl} the whole request,
   * for {@link downloadToFile} the longest pause between two chunks (large archives take long).
   */
  timeoutMs: number;
  /**
   * Accept `http://` on loopback hosts (`127.0.0.1`, `localhost`, `[::1]`) as well as `https://`.
   * Tests and local mirrors need it; traffic to loopback never leaves the machine.
   */
  allowLoopbackHttp?: boolean;
  /** Cancels the request; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Replaces global `fetch` (tests). */
  fetch?: typeof fetch;
}

/** Redirects followed before giving up; GitHub release downloads use one or two. */
const MAX_REDIRECTS = 5;

/** True for `http:` URLs whose host is a loopback name or address. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * Parses `raw` and checks that it may be fetched: `https:`, or loopback `http:` when allowed.
 *
 * @throws DownloadError naming the URL and the rule it breaks.
 */
export function checkDownloadUrl(raw: string | URL, allowLoopbackHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DownloadError(`"${String(raw)}" is not a URL.`);
  }
  if (url.protocol === 'https:') return url;
  if (allowLoopbackHttp && isLoopbackHttp(url)) return url;
  throw new DownloadError(`${url.href} is not an https:// URL; only https downloads are allowed${allowLoopbackHttp ? ' (or http on 127.0.0.1/localhost)' : ''}.`);
}

/** `n` bytes as a short human figure ("5 MB"), for messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/**
 * Sends a GET for `raw` and follows redirects by hand so that every hop passes
 * {@link checkDownloadUrl}; answers with the final 2xx response. `signal` aborts the whole chain.
 *
 * @throws DownloadError for a refused URL or redirect, a network failure or a non-2xx status.
 */
async function openUrl(raw: string | URL, opts: DownloadOptions, signal: AbortSignal): Promise<{ url: URL; response: Response }> {
  const doFetch = opts.fetch ?? fetch;
  let url = checkDownloadUrl(raw, opts.allowLoopbackHttp ?? false);
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await doFetch(url, { redirect: 'manual', signal, headers: { 'user-agent': 'agent-switchboard' } });
    } catch (err) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new DownloadError(String(signal.reason));
      throw new DownloadError(`Could not reach ${url.href}: ${describeFetchError(err)}.`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      await response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw new DownloadError(`${raw} redirected more than ${MAX_REDIRECTS} times; giving up.`);
      const next = new URL(response.headers.get('location')!, url);
      try {
        // A loopback hop may only lead on to loopback: an https registry must never downgrade.
        url = checkDownloadUrl(next, (opts.allowLoopbackHttp ?? false) && isLoopbackHttp(url));
      } catch (err) {
        throw new DownloadError(`${url.href} redirected to ${next.href}, which is refused: ${(err as Error).message}`);
      }
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(`${url.href} answered HTTP ${response.status} ${response.statusText}.`.replace(' .', '.'));
    }
    return { url, response };
  }
}

/** The useful part of a `fetch` failure: undici hides the cause (ECONNREFUSED, ENOTFOUND) in `cause`. */
function describeFetchError(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** Fails early when the server announces a body larger than the cap. */
function checkLength(url: URL, response: Response, maxBytes: number): void {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new DownloadError(`${url.href} is ${formatBytes(declared)}, more than the ${formatBytes(maxBytes)} limit.`);
  }
}

/**
 * Reads the body at `raw` into memory: for small documents such as the registry JSON.
 *
 * @returns the body's bytes (at most `opts.maxBytes`).
 * @throws DownloadError when the URL or a redirect is refused, on a non-2xx status, when the body
 *   exceeds `maxBytes`, or when the whole read takes longer than `timeoutMs`.
 */
export async function readUrl(raw: string | URL, opts: DownloadOptions): Promise<Buffer> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new DownloadError(`Reading ${String(raw)} took longer than ${opts.timeoutMs / 1000} s; giving up.`)), opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
  try {
    const { url, response } = await openUrl(raw, opts, signal);
    checkLength(url, response, opts.maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of iterate(response, signal)) {
      total += chunk.length;
      if (total > opts.maxBytes) throw new DownloadError(`${url.href} is larger than the ${formatBytes(opts.maxBytes)} limit.`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * Streams the body at `raw` into `file` (created or truncated) while computing its SHA-256, so a
 * large archive is never held in memory and is hashed exactly as written.
 *
 * @returns the number of bytes written and the lowercase hex SHA-256 of those bytes.
 * @throws DownloadError as {@link readUrl}; `timeoutMs` bounds the pause between chunks. On
 *   failure `file` may hold a partial body: the caller owns it and deletes it.
 */
export async function downloadToFile(raw: string | URL, file: string, opts: DownloadOptions): Promise<{ bytes: number; sha256: string }> {
  const idle = new AbortController();
  let timeout: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timeout);
    timeout = setTimeout(() => idle.abort(new DownloadError(`Downloading ${String(raw)} stalled for ${opts.timeoutMs / 1000} s; giving up.`)), opts.timeoutMs);
  };
  const signal = opts.signal ? AbortSignal.any([opts.signal, idle.signal]) : idle.signal;
  arm();
  const handle = await fs.promises.open(file, 'w', 0o600);
  try {
    const { url, response } = await openUrl(raw, opts, signal);
    checkLength(url, response, opts.maxBytes);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of iterate(response, signal)) {
      arm();
      bytes += chunk.length;
      if (bytes > opts.maxBytes) throw new DownloadError(`${url.href} is larger than the ${formatBytes(opts.maxBytes)} limit.`);
      hash.update(chunk);
      await handle.write(chunk);
    }
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    clearTimeout(timeout);
    await handle.close();
  }
}

/** The response body as Buffers; an abort mid-body surfaces as the signal's reason. */
async function* iterate(response: Response, signal: AbortSignal): AsyncGenerator<Buffer> {
  if (!response.body) return;
  try {
    for await (const chunk of response.body) yield Buffer.from(chunk);
  } catch (err) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new DownloadError(String(signal.reason));
    throw new DownloadError(`The download was cut off: ${describeFetchError(err)}.`);
  }
}

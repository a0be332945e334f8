/**
 * The embedded OTLP/HTTP trace receiver (PROTOCOLS.md §5.4): `POST /v1/traces` on 127.0.0.1 at a
 * port the system picks, for the agents we launch (they get `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `..._TRACES_PROTOCOL=http/json` and the bearer token in `..._TRACES_HEADERS`). JSON only, optionally gzip-compressed; protobuf is answered 415
 * (no well-kept OTLP protobuf decoder for JS: the OpenTelemetry packages only encode requests).
 *
 * Bad input changes nothing: a malformed body is 400, one over the size limit 413 (the request is
 * cut off as soon as it passes the limit), a wrong token 401, a foreign Host 403 (DNS rebinding),
 * malformed spans inside a good body are counted in `partialSuccess`. No `vscode`.
 *
 * Bounded (OTLP/HTTP §"Failures"): a sender whose session's byte budget is used up gets 413 before
 * its body is read, spans over the budget inside a body are `partialSuccess.rejectedSpans`; at most
 * `maxRequestsPerSender` requests of one sender are read at once (more: 429 with Retry-After), and
 * at most `maxBufferedBytes` of bodies are held for all senders together (more: 503 with
 * Retry-After, both retryable). A request must arrive whole within `requestTimeoutMs` (headers within
 * `headersTimeoutMs`), an idle connection closes after `idleTimeoutMs`: a slow or never-ending body
 * holds neither memory nor a connection for long.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGunzip } from 'node:zlib';
import { parseOtlpJson, type SpanRecord } from './otlp';

/** Options of the receiver. */
export interface OtlpReceiverOptions {
  /** Largest accepted body, in bytes after decompression (default 16 MiB). */
  maxBytes?: number;
  /** Bytes of request bodies held at once, for all senders together (default 64 MiB). */
  maxBufferedBytes?: number;
  /** Requests of one sender read at once (default 4). */
  maxRequestsPerSender?: number;
  /** Time for a whole request, headers and body, in milliseconds (default 30 s). */
  requestTimeoutMs?: number;
  /** Time for a request's headers, in milliseconds (default 10 s). */
  headersTimeoutMs?: number;
  /** An open connection with nothing arriving is closed after this many milliseconds (default 15 s). */
  idleTimeoutMs?: number;
  /**
   * Called with the spans of each accepted request (never with an empty list) and the sender the
   * request's token was issued to. @returns how many spans were refused, and why (reported back as
   * partial success).
   */
  onSpans(spans: SpanRecord[], sender: string): { refused: number; problems?: string[] } | void;
  /** Bytes the sender may still store (0: its budget is used up, the request is answered 413 unread). Unbounded when absent. */
  budgetLeft?(sender: string): number;
}

/**
 * The environment that points an OTLP trace exporter at this receiver. Only the traces variables:
 * the general `OTEL_EXPORTER_OTLP_*` ones would also redirect an agent's metrics and logs (and send
 * our token to the person's own collector).
 */
export interface OtlpExporterEnv {
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json';
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: string;
  OTEL_TRACES_EXPORTER: 'otlp';
}

/**
 * Adds our exporter variables and `TRACEPARENT` to a child's environment — all of them or none: a
 * process whose environment already says anything about OTLP export (`OTEL_EXPORTER_OTLP_*`,
 * `OTEL_TRACES_EXPORTER`, `OTEL_SDK_DISABLED`) keeps exactly that, so its traces still go where the
 * person sent them and our token never reaches their collector. `TRACEPARENT` is added unless set.
 * `env` is changed in place; a value of null or undefined counts as unset.
 */
export function addOtelEnv(env: Record<string, string | null | undefined>, ours: Record<string, string>, traceparent: string): void {
  const configured = Object.entries(env).some(([k, v]) => v !== undefined && v !== null && v !== '' && (/^OTEL_EXPORTER_OTLP_/.test(k) || k === 'OTEL_TRACES_EXPORTER' || k === 'OTEL_SDK_DISABLED'));
  if (!configured) Object.assign(env, ours);
  if (env.TRACEPARENT === undefined || env.TRACEPARENT === null) env.TRACEPARENT = traceparent;
}

/**
 * What another process sent, made safe to keep beside our own spans: marked as received, a span
 * without an end ends where it starts (only our tracer has spans that are really running), our own
 * attribute namespace and service name cannot be claimed.
 */
export function asReceived(spans: SpanRecord[]): SpanRecord[] {
  for (const s of spans) {
    s.received = true;
    if (s.endMs === undefined) s.endMs = s.startMs;
    if (s.service === 'agent-switchboard') s.service = 'agent-switchboard (claimed by a sender)';
    for (const k of Object.keys(s.attributes)) if (k.startsWith('agent_switchboard.')) delete s.attributes[k];
    // Said in the span itself, where the panel shows attributes: what the limits left out.
    if (s.dropped) s.attributes['agent_switchboard.dropped'] = `${s.dropped.attributes} attributes, ${s.dropped.events} events and ${s.dropped.links} links left out (over the receiver's limits per span, or dropped by the sender)`;
  }
  return spans;
}

/** An OTLP/HTTP JSON receiver on a loopback port. */
export class OtlpReceiver {
  private server: Server | undefined;
  private starting: Promise<string> | undefined;
  private port = 0;
  /** Bearer tokens by sender (a session, an MCP server): each sender has its own. */
  private readonly tokens = new Map<string, string>();
  private readonly maxBytes: number;
  /** Bytes of bodies being read now, all requests together. */
  private buffered = 0;
  /** Requests being read now, by sender. */
  private readonly reading = new Map<string, number>();

  constructor(private readonly options: OtlpReceiverOptions) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  }

  /**
   * Starts listening (once; concurrent callers share the start); resolves with the base URL,
   * `http://127.0.0.1:<port>`. A failed start can be tried again.
   */
  start(): Promise<string> {
    this.starting ??= (async () => {
      const o = this.options;
      const server = createServer(
        {
          requestTimeout: o.requestTimeoutMs ?? 30_000,
          headersTimeout: o.headersTimeoutMs ?? 10_000,
          keepAliveTimeout: 5_000,
          // How often Node checks the two timeouts above (its default, 30 s, would let a slow body run that much longer).
          connectionsCheckingInterval: Math.min(1_000, o.requestTimeoutMs ?? 1_000),
        },
        (req, res) => void this.handle(req, res),
      );
      server.setTimeout(o.idleTimeoutMs ?? 15_000, (socket) => socket.destroy());
      server.maxConnections = 256;
      server.on('clientError', (_err, socket) => socket.destroy());
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      server.on('error', () => undefined);
      this.server = server;
      this.port = (server.address() as AddressInfo).port;
      return `http://127.0.0.1:${this.port}`;
    })();
    this.starting.catch(() => (this.starting = undefined));
    return this.starting;
  }

  /**
   * The variables that make an OpenTelemetry SDK export to this receiver (after {@link start}), with
   * a token of `sender`'s own (the same one while it is not revoked), so the spans it sends are
   * known to be its. @throws Error before the receiver listens.
   */
  exporterEnv(sender = 'default'): OtlpExporterEnv {
    if (!this.port) throw new Error('The OTLP receiver is not listening yet.');
    let token = [...this.tokens].find(([, s]) => s === sender)?.[0];
    if (!token) this.tokens.set((token = randomBytes(24).toString('base64url')), sender);
    return {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${this.port}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: `authorization=Bearer%20${token}`,
      OTEL_TRACES_EXPORTER: 'otlp',
    };
  }

  /** Revokes `sender`'s token (its session closed, its server stopped): later exports get 401. */
  revoke(sender: string): void {
    for (const [token, s] of this.tokens) if (s === sender) this.tokens.delete(token);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const host = (req.headers.host ?? '').toLowerCase();
    if (host !== `127.0.0.1:${this.port}` && host !== `localhost:${this.port}`) return reply(403, { error: 'only loopback hosts are served' });
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    } catch {
      return reply(400, { error: 'bad request target' });
    }
    if (path !== '/v1/traces') return reply(404, { error: 'only /v1/traces is served' });
    if (req.method !== 'POST') return reply(405, { error: 'use POST' }, { allow: 'POST' });
    const sender = this.senderOf(req.headers.authorization);
    if (!sender) return reply(401, { error: 'a valid bearer token is required' });
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/x-protobuf') return reply(415, { error: 'OTLP protobuf is not accepted here; set OTEL_EXPORTER_OTLP_PROTOCOL=http/json' });
    if (type !== 'application/json') return reply(415, { error: `content type ${type || '(none)'} is not accepted; send application/json` });
    const refuse = (status: number, error: string, headers: Record<string, string> = {}) => {
      reply(status, { error }, { connection: 'close', ...headers });
      req.destroy();
    };
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.maxBytes) return refuse(413, `the body is larger than ${this.maxBytes} bytes`);
    if (this.options.budgetLeft && this.options.budgetLeft(sender) <= 0) return refuse(413, "no more spans are kept for this sender: its session's trace budget is used up, or the session has ended");
    const inFlight = this.reading.get(sender) ?? 0;
    if (inFlight >= (this.options.maxRequestsPerSender ?? 4)) return refuse(429, 'too many requests at once from this sender', { 'retry-after': '2' });
    this.reading.set(sender, inFlight + 1);
    let text: string;
    try {
      text = await this.readBody(req, (req.headers['content-encoding'] ?? '').toLowerCase());
    } catch (err) {
      const status = err instanceof BodyTooLarge ? 413 : err instanceof ReceiverBusy ? 503 : 400;
      return refuse(status, err instanceof Error ? err.message : String(err), status === 503 ? { 'retry-after': '5' } : {});
    } finally {
      const n = (this.reading.get(sender) ?? 1) - 1;
      if (n > 0) this.reading.set(sender, n);
      else this.reading.delete(sender);
    }
    // The token may have been revoked while the body was read (its session closed): check again.
    if (this.senderOf(req.headers.authorization) !== sender) return reply(401, { error: 'the token was revoked' });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return reply(400, { error: 'the body is not JSON' });
    }
    let parsed: ReturnType<typeof parseOtlpJson>;
    try {
      parsed = parseOtlpJson(body);
    } catch (err) {
      return reply(400, { error: err instanceof Error ? err.message : String(err) });
    }
    const taken = parsed.spans.length ? this.options.onSpans(asReceived(parsed.spans), sender) : undefined;
    const refused = taken?.refused ?? 0;
    if (refused) parsed.problems.push(...(taken?.problems?.length ? taken.problems : [`${refused} span(s) were refused (a trace of another session, or over the session's budget)`]));
    const rejected = parsed.rejected + refused;
    reply(200, rejected ? { partialSuccess: { rejectedSpans: rejected, errorMessage: parsed.problems.join('; ') } } : {});
  }

  /** The sender whose token the header carries, compared in constant time. */
  private senderOf(header: string | undefined): string | undefined {
    const given = Buffer.from((header ?? '').replace(/^Bearer\s+/i, ''));
    let found: string | undefined;
    for (const [token, sender] of this.tokens) {
      const want = Buffer.from(token);
      if (given.length === want.length && timingSafeEqual(given, want)) found = sender;
    }
    return found;
  }

  /** The body as text, gunzipped when so encoded, cut off past the size limit. */
  private readBody(req: IncomingMessage, encoding: string): Promise<string> {
    if (encoding && encoding !== 'gzip' && encoding !== 'identity') return Promise.reject(new Error(`content encoding ${encoding} is not accepted`));
    return new Promise((resolve, reject) => {
      const source = encoding === 'gzip' ? req.pipe(createGunzip()) : req;
      const chunks: Buffer[] = [];
      let size = 0;
      const maxBuffered = this.options.maxBufferedBytes ?? 64 * 1024 * 1024;
      // Whatever ends the read gives its bytes back to the shared budget, once.
      const done = () => {
        this.buffered -= size;
        size = 0;
        chunks.length = 0;
        source.removeAllListeners('data');
      };
      source.on('data', (c: Buffer) => {
        size += c.length;
        this.buffered += c.length;
        if (size > this.maxBytes || this.buffered > maxBuffered) {
          const err = size > this.maxBytes ? new BodyTooLarge(this.maxBytes) : new ReceiverBusy();
          done();
          reject(err);
          return;
        }
        chunks.push(c);
      });
      source.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        done();
        resolve(text);
      });
      source.on('error', (err: Error) => {
        done();
        reject(new Error(`the body could not be read: ${err.message}`));
      });
      // A request cut off (the client went away, the request timeout destroyed it) ends the read too.
      req.on('close', () => {
        if (!req.complete) {
          done();
          reject(new Error('the request ended before its body did'));
        }
      });
    });
  }

  dispose(): void {
    this.server?.close();
    this.server?.closeAllConnections();
    this.server = undefined;
    this.starting = undefined;
  }
}

class BodyTooLarge extends Error {
  constructor(max: number) {
    super(`the body is larger than ${max} bytes`);
  }
}

class ReceiverBusy extends Error {
  constructor() {
    super('the receiver is reading too many bodies at once; retry later');
  }
}

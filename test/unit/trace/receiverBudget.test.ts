/**
 * The OTLP receiver's budgets (issue 16, finding 11): bytes per session and in total, limits per
 * span, requests read at once, and time to send a request. An agent can make the receiver refuse
 * its spans, never grow the extension host or hold a connection open.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import net from 'node:net';
import { parseOtlpJson, SPAN_LIMITS } from '../../../src/trace/otlp';
import { asReceived, OtlpReceiver } from '../../../src/trace/receiver';
import { TraceStore } from '../../../src/trace/store';

function post(url: string, body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; body: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', (err) => (/ECONNRESET|EPIPE/.test(err.message) ? resolve({ status: 413, body: 'reset' }) : reject(err)));
    req.end(body);
  });
}

const kv = (key: string, value: unknown) => ({ key, value });
const span = (i: number, over: Record<string, unknown> = {}) => ({ traceId: 'a'.repeat(32), spanId: (i + 1).toString(16).padStart(16, '0'), name: 's', kind: 1, startTimeUnixNano: '1795953770531000000', endTimeUnixNano: '1795953770533000000', ...over });
const payload = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [kv('service.name', { stringValue: 'agent' })] }, scopeSpans: [{ scope: { name: 'x' }, spans }] }] });
const tokenOf = (r: OtlpReceiver, sender: string) => decodeURIComponent(r.exporterEnv(sender).OTEL_EXPORTER_OTLP_TRACES_HEADERS.split('=')[1]);

describe('OTLP receiver budgets', () => {
  it('40 requests of 25 MB from one agent: the session keeps at most its byte budget, the rest is refused (partialSuccess, then 413)', async function () {
    this.timeout(120_000);
    const budget = 32 * 1024 * 1024;
    const store = new TraceStore({ maxBytesPerSession: budget });
    const receiver = new OtlpReceiver({ maxBytes: 32 * 1024 * 1024, onSpans: (spans, sender) => store.accept(sender, spans), budgetLeft: (sender) => store.budgetLeft(sender) });
    const url = `${await receiver.start()}/v1/traces`;
    try {
      const auth = tokenOf(receiver, 's');
      store.claim('s', 'a'.repeat(32));
      // 50 spans of 500 attributes of 1000 characters each: about 25 MB of JSON per request, each span new.
      const attrs = JSON.stringify(Array.from({ length: 500 }, (_, i) => kv(`k${i}`, { stringValue: 'x'.repeat(1000) })));
      const [before, after] = JSON.stringify(payload(['SPANS'])).split('"SPANS"');
      const statuses: number[] = [];
      let rejected = 0;
      for (let r = 0; r < 40; r++) {
        const spans = Array.from({ length: 50 }, (_, i) => JSON.stringify(span(r * 50 + i)).replace(/}$/, `,"attributes":${attrs}}`));
        const body = Buffer.from(before + spans.join(',') + after);
        if (r === 0) assert.ok(body.length > 25_000_000, String(body.length));
        const res = await post(url, body, { 'content-type': 'application/json', authorization: auth });
        statuses.push(res.status);
        if (res.status === 200 && res.body !== '{}') rejected += JSON.parse(res.body).partialSuccess.rejectedSpans as number;
      }
      assert.ok(store.bytes('s') <= budget, `${store.bytes('s')} bytes kept`);
      // Measured independently of the store's own estimate: what it holds, as JSON.
      assert.ok(JSON.stringify(store.spans('s')).length <= budget, 'the spans kept, as JSON, fit the budget');
      assert.ok(store.spans('s').length > 0, 'spans within the budget were kept');
      assert.ok(rejected > 0, 'spans over the budget are reported back as rejected');
      assert.ok(statuses.includes(413), `once the budget is used up, requests are refused unread: ${statuses.join(',')}`);
      assert.ok(store.truncated('s'), 'the session says it lost spans');
    } finally {
      receiver.dispose();
    }
  });

  it('caps attributes per span (count, key and value length, nesting), events and links, with a marker', () => {
    const deep = (n: number): unknown => (n === 0 ? { stringValue: 'bottom' } : { kvlistValue: { values: [kv('d', deep(n - 1))] } });
    const r = parseOtlpJson(
      payload([
        span(0, {
          attributes: [kv('k'.repeat(SPAN_LIMITS.keyChars + 1), { stringValue: 'long key' }), kv('deep', deep(30)), kv('big', { stringValue: 'y'.repeat(100_000) }), ...Array.from({ length: 500 }, (_, i) => kv(`a${i}`, { intValue: i }))],
          events: Array.from({ length: 1000 }, (_, i) => ({ name: `e${i}`, timeUnixNano: '1795953770532000000', attributes: Array.from({ length: 100 }, (_, j) => kv(`x${j}`, { boolValue: true })) })),
          links: Array.from({ length: 1000 }, () => ({ traceId: 'd'.repeat(32), spanId: 'e'.repeat(16) })),
          droppedAttributesCount: 2,
        }),
      ]),
    );
    const [s] = asReceived(r.spans);
    const own = Object.keys(s.attributes).filter((k) => !k.startsWith('agent_switchboard.'));
    assert.equal(own.length, SPAN_LIMITS.attributes);
    assert.equal(s.attributes['k'.repeat(SPAN_LIMITS.keyChars + 1)], undefined, 'an over-long key drops its attribute');
    assert.match(String(s.attributes.big), /… \(\d+ more characters\)$/);
    let depth = 0;
    for (let v: unknown = s.attributes.deep; v && typeof v === 'object'; v = (v as Record<string, unknown>).d) depth++;
    assert.ok(depth <= SPAN_LIMITS.depth + 1, `nesting ${depth}`);
    assert.ok(s.events.length <= SPAN_LIMITS.events);
    assert.ok(s.events.every((e) => Object.keys(e.attributes).length <= SPAN_LIMITS.eventAttributes));
    assert.equal(s.links.length, SPAN_LIMITS.links);
    assert.deepEqual(s.dropped, { attributes: 2 + 1 + (503 - 1 - SPAN_LIMITS.attributes), events: 1000 - s.events.length, links: 1000 - SPAN_LIMITS.links });
    assert.match(String(s.attributes['agent_switchboard.dropped']), /attributes, \d+ events and 872 links left out/);
  });

  it('bounds all of one span\'s strings together', () => {
    const r = parseOtlpJson(payload([span(0, { attributes: Array.from({ length: 128 }, (_, i) => kv(`v${i}`, { stringValue: 'z'.repeat(16 * 1024) })) })]));
    const chars = Object.entries(r.spans[0].attributes).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
    assert.ok(chars <= SPAN_LIMITS.spanChars + 64, `${chars} characters`);
    assert.ok(r.spans[0].dropped && r.spans[0].dropped.attributes > 0);
  });

  describe('time and concurrency', () => {
    let receiver: OtlpReceiver;
    let port = 0;
    let auth = '';
    beforeEach(async () => {
      receiver = new OtlpReceiver({ requestTimeoutMs: 1_000, headersTimeoutMs: 700, idleTimeoutMs: 2_000, maxRequestsPerSender: 2, maxBufferedBytes: 256 * 1024, onSpans: () => undefined });
      port = Number(new URL(await receiver.start()).port);
      auth = tokenOf(receiver, 's');
    });
    afterEach(() => receiver.dispose());

    /** Opens a connection, writes `head`, then `drip` every 100 ms; resolves with the ms until the server closed it (or `giveUpMs`). */
    function hold(head: string, drip: string | undefined, giveUpMs: number): Promise<{ closedAfterMs: number | undefined; got: string }> {
      return new Promise((resolve) => {
        const t0 = Date.now();
        const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
        let got = '';
        socket.on('data', (d) => (got += d));
        const timer = drip ? setInterval(() => socket.writable && socket.write(drip), 100) : undefined;
        const finish = (closed: boolean) => {
          clearInterval(timer);
          clearTimeout(giveUp);
          socket.destroy();
          resolve({ closedAfterMs: closed ? Date.now() - t0 : undefined, got });
        };
        const giveUp = setTimeout(() => finish(false), giveUpMs);
        socket.on('close', () => finish(true));
        socket.on('error', () => undefined);
      });
    }
    const headers = (extra: string) => `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\n${extra}`;

    it('a slow body, a never-ending chunked body and slow headers are cut off by the request timeout', async function () {
      this.timeout(20_000);
      const [slow, chunked, slowHeaders] = await Promise.all([
        hold(headers('Content-Length: 100000\r\n\r\n{'), ' ', 6_000),
        hold(headers('Transfer-Encoding: chunked\r\n\r\n'), '1\r\n \r\n', 6_000),
        hold(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 'X-A: b\r\n', 6_000),
      ]);
      for (const [name, r] of Object.entries({ slow, chunked, slowHeaders })) assert.ok(r.closedAfterMs !== undefined && r.closedAfterMs < 4_000, `${name}: ${JSON.stringify(r)}`);
    });

    it('more requests of one sender at once than allowed are 429, more buffered bodies than allowed 503 (both with Retry-After)', async function () {
      this.timeout(20_000);
      const held = [hold(headers('Content-Length: 100000\r\n\r\n{'), ' ', 1_500), hold(headers('Content-Length: 100000\r\n\r\n{'), ' ', 1_500)];
      await new Promise((r) => setTimeout(r, 300));
      const third = await post(`http://127.0.0.1:${port}/v1/traces`, '{}', { 'content-type': 'application/json', authorization: auth });
      assert.equal(third.status, 429, JSON.stringify(await Promise.all(held)));
      assert.ok(third.retryAfter);
      await Promise.all(held);
      // One sender's body of 200 KB is being read; another sender's 100 KB would pass the 256 KB held at once.
      const big = hold(headers(`Content-Length: 300000\r\n\r\n${' '.repeat(200 * 1024)}`), ' ', 1_500);
      await new Promise((r) => setTimeout(r, 300));
      const other = await post(`http://127.0.0.1:${port}/v1/traces`, ' '.repeat(100 * 1024), { 'content-type': 'application/json', authorization: tokenOf(receiver, 'other') });
      assert.equal(other.status, 503);
      assert.ok(other.retryAfter);
      await big;
      assert.equal((await post(`http://127.0.0.1:${port}/v1/traces`, JSON.stringify(payload([span(1)])), { 'content-type': 'application/json', authorization: auth })).status, 200, 'then served again');
    });
  });
});

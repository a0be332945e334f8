/**
 * OTLP/HTTP JSON: the receiver against the OpenTelemetry SDK's own OTLP exporter (what an agent
 * that honours OTEL_EXPORTER_OTLP_* sends), bad payloads of every kind, and the bounded store.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { parseOtlpJson, toOtlpJson, type SpanRecord } from '../../../src/trace/otlp';
import { addOtelEnv, asReceived, OtlpReceiver } from '../../../src/trace/receiver';
import { TraceStore } from '../../../src/trace/store';
import { TraceForwarder } from '../../../src/trace/forwarder';
import { TraceArchive } from '../../../src/trace/archive';

/** One raw HTTP request to the receiver. */
function post(url: string, body: Buffer | string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', (err) => (/ECONNRESET|EPIPE/.test(err.message) ? resolve({ status: 413, body: 'reset' }) : reject(err)));
    req.end(body);
  });
}

const span = (over: Partial<Record<string, unknown>> = {}) => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 's', kind: 3, startTimeUnixNano: '1795953770531000000', endTimeUnixNano: 1795953770533627825, ...over });
const payload = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] }, scopeSpans: [{ scope: { name: 'x' }, spans }] }] });

describe('OTLP/HTTP JSON traces', () => {
  describe('parsing', () => {
    it('reads ids, kinds, nanoseconds as strings or numbers, every AnyValue kind, events, links and status', () => {
      const r = parseOtlpJson(payload([span({ parentSpanId: 'C'.repeat(16), status: { code: 2, message: 'boom' }, attributes: [
        { key: 's', value: { stringValue: 'x' } }, { key: 'i', value: { intValue: '12' } }, { key: 'd', value: { doubleValue: 1.5 } }, { key: 'b', value: { boolValue: true } },
        { key: 'a', value: { arrayValue: { values: [{ intValue: 1 }, { stringValue: 'two' }] } } }, { key: 'k', value: { kvlistValue: { values: [{ key: 'n', value: { boolValue: false } }] } } },
      ], events: [{ name: 'e', timeUnixNano: '1795953770532000000' }], links: [{ traceId: 'd'.repeat(32), spanId: 'e'.repeat(16) }] })]));
      assert.equal(r.rejected, 0);
      const s = r.spans[0];
      assert.equal(s.parentSpanId, 'c'.repeat(16));
      assert.equal(s.kind, 'client');
      assert.equal(s.startMs, 1795953770531);
      assert.ok(Math.abs(s.endMs! - 1795953770533.6278) < 0.001, String(s.endMs));
      assert.deepEqual(s.status, { code: 'error', message: 'boom' });
      assert.deepEqual(s.attributes, { s: 'x', i: 12, d: 1.5, b: true, a: [1, 'two'], k: { n: false } });
      assert.equal(s.events[0].timeMs, 1795953770532);
      assert.equal(s.service, 'agent');
    });

    it('a malformed span is rejected on its own; a payload that is not an export request is an error', () => {
      const r = parseOtlpJson(payload([span(), span({ traceId: 'zz' }), span({ spanId: '0'.repeat(16) }), span({ startTimeUnixNano: 'soon' }), 'not a span', span({ startTimeUnixNano: '9'.repeat(400) }), span({ startTimeUnixNano: '1795953770' }), span({ endTimeUnixNano: '1' })]));
      assert.equal(r.spans.length, 1);
      assert.equal(r.rejected, 7, 'bad ids, a non-number, a 400-digit time, seconds sent as nanoseconds, an end before the start');
      assert.match(r.problems.join(' '), /traceId/);
      for (const bad of [null, 42, [], {}, { resourceSpans: 'x' }, { resourceSpans: [{ scopeSpans: 'x' }] }]) assert.throws(() => parseOtlpJson(bad), /not an OTLP trace export request/);
    });

    it('caps huge values and ignores a __proto__ key', () => {
      const big = 'x'.repeat(100_000);
      const r = parseOtlpJson(payload([span({ attributes: [{ key: 'prompt', value: { stringValue: big } }, { key: '__proto__', value: { kvlistValue: { values: [{ key: 'hidden', value: { boolValue: true } }] } } }, { key: 'many', value: { arrayValue: { values: Array.from({ length: 5000 }, () => ({ intValue: 1 })) } } }] })]));
      const a = r.spans[0].attributes;
      assert.ok(String(a.prompt).length < 17_000 && /more characters/.test(String(a.prompt)));
      assert.equal((a as Record<string, unknown>).hidden, undefined);
      assert.equal(Object.getPrototypeOf(a), Object.prototype);
      assert.equal((a.many as unknown[]).length, 1000);
    });

    it('export writes what parsing reads back', () => {
      const first = parseOtlpJson(payload([span({ attributes: [{ key: 'n', value: { intValue: 3 } }, { key: 'f', value: { doubleValue: 0.25 } }] })])).spans;
      assert.deepEqual(parseOtlpJson(toOtlpJson(first)).spans.map((s) => ({ ...s, scope: undefined })), first.map((s) => ({ ...s, scope: undefined })));
    });
  });

  describe('receiver', () => {
    const got: SpanRecord[] = [];
    const receiver = new OtlpReceiver({ maxBytes: 64 * 1024, onSpans: (s) => void got.push(...s) });
    let url = '';
    let auth = '';
    before(async () => {
      url = `${await receiver.start()}/v1/traces`;
      auth = decodeURIComponent(receiver.exporterEnv().OTEL_EXPORTER_OTLP_TRACES_HEADERS.split('=')[1]);
    });
    after(() => receiver.dispose());

    it('takes the spans the OpenTelemetry SDK exports with the environment it is given (parent and child in one trace)', async () => {
      const env = receiver.exporterEnv();
      assert.match(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
      const exporter = new OTLPTraceExporter({ url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, headers: { authorization: auth } });
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const tracer = provider.getTracer('scripted-agent');
      const parent = tracer.startSpan('invoke_agent demo', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
      const child = tracer.startSpan('execute_tool read', { attributes: { 'gen_ai.tool.name': 'read' } }, trace.setSpan(context.active(), parent));
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'no such file' });
      child.end();
      parent.end();
      await provider.forceFlush();
      await provider.shutdown();
      const mine = got.filter((s) => s.scope === 'scripted-agent');
      assert.equal(mine.length, 2);
      const p = mine.find((s) => s.name === 'invoke_agent demo')!;
      const c = mine.find((s) => s.name === 'execute_tool read')!;
      assert.equal(c.traceId, p.traceId);
      assert.equal(c.parentSpanId, p.spanId);
      assert.equal(p.kind, 'client');
      assert.deepEqual(c.status, { code: 'error', message: 'no such file' });
      assert.equal(c.attributes['gen_ai.tool.name'], 'read');
    });

    it('each sender has its own token: a session\'s agent cannot write into another session\'s trace, and a revoked token is refused', async () => {
      const store = new TraceStore();
      const own = new OtlpReceiver({ onSpans: (spans, sender) => (sender.startsWith('session:') ? { refused: store.addFrom(sender.slice(8), spans) } : store.add(spans)) });
      const base = await own.start();
      try {
        const tokenOf = (sender: string) => decodeURIComponent(own.exporterEnv(sender).OTEL_EXPORTER_OTLP_TRACES_HEADERS.split('=')[1]);
        const [a, b] = [tokenOf('session:a'), tokenOf('session:b')];
        assert.notEqual(a, b);
        assert.equal(tokenOf('session:a'), a, 'the same token while it lives');
        // Each session claims its own trace when it starts (SessionSpans does).
        store.claim('a', 'a'.repeat(32));
        store.claim('b', 'c'.repeat(32));
        const send = (token: string, traceId: string, spanId: string) => post(`${base}/v1/traces`, JSON.stringify(payload([span({ traceId, spanId })])), { 'content-type': 'application/json', authorization: token });
        assert.equal((await send(a, 'a'.repeat(32), '1'.repeat(16))).status, 200);
        const forged = await send(b, 'a'.repeat(32), '2'.repeat(16));
        assert.equal(forged.status, 200);
        assert.equal(JSON.parse(forged.body).partialSuccess.rejectedSpans, 1, 'b may not add to a\'s trace');
        assert.match(JSON.parse(forged.body).partialSuccess.errorMessage, /another session/);
        // An agent that ignored TRACEPARENT and started its own trace: that trace becomes its session's.
        assert.equal((await send(b, 'b'.repeat(32), '3'.repeat(16))).status, 200);
        assert.deepEqual(store.spans('a').map((x) => x.spanId), ['1'.repeat(16)]);
        assert.deepEqual(store.spans('b').map((x) => x.spanId), ['3'.repeat(16)]);
        // A closed session takes no late spans (they would bring it back).
        store.drop('a');
        assert.equal(JSON.parse((await send(a, 'd'.repeat(32), '5'.repeat(16))).body).partialSuccess.rejectedSpans, 1);
        assert.deepEqual(store.sessionKeys(), ['b']);
        own.revoke('session:b');
        assert.equal((await send(b, 'b'.repeat(32), '4'.repeat(16))).status, 401);
      } finally {
        own.dispose();
      }
    });

    it('a session opens at most maxTracesPerSession traces; claiming a waiting trace does not scan every waiting span', () => {
      const store = new TraceStore({ maxTracesPerSession: 3, maxUnclaimedSpans: 50_000 });
      store.claim('s', '0'.repeat(32));
      const rec = (traceId: string, spanId: string): SpanRecord => ({ traceId, spanId, name: 'x', kind: 'internal', startMs: 1, endMs: 2, status: { code: 'unset' }, attributes: {}, events: [], links: [], service: 'a', scope: 'a' });
      const refused = store.addFrom('s', [1, 2, 3, 4].map((i) => rec(String(i).repeat(32), String(i).repeat(16))));
      assert.equal(refused, 2, 'two new traces fit beside the claimed one');
      // 40,000 spans of 40,000 waiting traces, then each claimed: linear, not quadratic.
      const waiting = Array.from({ length: 40_000 }, (_, i) => rec(`f${i.toString(16)}`.padStart(32, '0'), '1'.repeat(16)));
      store.add(waiting);
      for (const w of waiting.slice(0, 2_000)) store.claim('t', w.traceId);
      assert.equal(store.spans('t').length, 2_000);
    });

    it('our exporter variables go in all or not at all: a process already told where to export keeps exactly that', () => {
      const ours = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:1/v1/traces', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20t', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_TRACES_EXPORTER: 'otlp' };
      const plain: Record<string, string | undefined> = { PATH: '/bin' };
      addOtelEnv(plain, ours, '00-a-b-01');
      assert.deepEqual(plain, { PATH: '/bin', ...ours, TRACEPARENT: '00-a-b-01' });
      const own: Record<string, string | undefined> = { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example' };
      addOtelEnv(own, ours, '00-a-b-01');
      assert.deepEqual(own, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example', TRACEPARENT: '00-a-b-01' }, 'no token of ours reaches their collector');
      const off: Record<string, string | undefined> = { OTEL_SDK_DISABLED: 'true', TRACEPARENT: '00-c-d-01' };
      addOtelEnv(off, ours, '00-a-b-01');
      assert.deepEqual(off, { OTEL_SDK_DISABLED: 'true', TRACEPARENT: '00-c-d-01' });
    });

    it('gzip bodies are read; a partly bad body answers partialSuccess', async () => {
      const before = got.length;
      const r = await post(url, gzipSync(JSON.stringify(payload([span({ spanId: '1'.repeat(16) }), span({ traceId: 'nope' })]))), { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: auth });
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.body).partialSuccess.rejectedSpans, 1);
      assert.equal(got.length, before + 1);
    });

    it('refuses what it must, and stays up: no token, protobuf, not JSON, oversized, wrong path or method, foreign Host', async () => {
      const before = got.length;
      const json = { 'content-type': 'application/json', authorization: auth };
      const cases: [string, Promise<{ status: number }>][] = [
        ['no token', post(url, JSON.stringify(payload([span()])), { 'content-type': 'application/json' })],
        ['wrong token', post(url, JSON.stringify(payload([span()])), { 'content-type': 'application/json', authorization: 'Bearer nope' })],
        ['protobuf', post(url, Buffer.from([0x0a, 0x00]), { 'content-type': 'application/x-protobuf', authorization: auth })],
        ['not JSON', post(url, '{"resourceSpans": [', json)],
        ['not an export', post(url, '{"hello": 1}', json)],
        ['oversized', post(url, 'x'.repeat(70 * 1024), json)],
        ['oversized after gunzip', post(url, gzipSync(' '.repeat(2 * 1024 * 1024)), { ...json, 'content-encoding': 'gzip' })],
        ['bad gzip', post(url, 'not gzip', { ...json, 'content-encoding': 'gzip' })],
        ['path', post(url.replace('/v1/traces', '/v1/metrics'), '{}', json)],
        ['method', post(url, '', json, 'GET')],
        ['host', post(url, '{}', { ...json, host: 'evil.example' })],
      ];
      const statuses = Object.fromEntries(await Promise.all(cases.map(async ([n, p]) => [n, (await p).status] as const)));
      assert.deepEqual(statuses, { 'no token': 401, 'wrong token': 401, protobuf: 415, 'not JSON': 400, 'not an export': 400, oversized: 413, 'oversized after gunzip': 413, 'bad gzip': 400, path: 404, method: 405, host: 403 });
      assert.equal(got.length, before, 'nothing was taken');
      assert.equal((await post(url, JSON.stringify(payload([span({ spanId: '2'.repeat(16) })])), json)).status, 200, 'still serving');
    });
  });

  describe('store', () => {
    const rec = (traceId: string, spanId: string, startMs: number, ended = true): SpanRecord => ({ traceId, spanId, name: spanId, kind: 'internal', startMs, ...(ended ? { endMs: startMs + 1 } : {}), status: { code: 'unset' }, attributes: {}, events: [], links: [], service: 's' });

    it('spans join the session that claimed their trace, also when they arrived first; duplicates replace', () => {
      const store = new TraceStore();
      const changed: string[] = [];
      store.onDidChange((k) => changed.push(k));
      store.add([rec('t1', 'early', 1)]);
      store.claim('s1', 't1');
      store.add([rec('t1', 'a', 2), rec('t1', 'a', 2), rec('t2', 'other', 3)]);
      assert.deepEqual(store.spans('s1').map((s) => s.spanId), ['early', 'a']);
      assert.deepEqual(changed, ['s1', 's1']);
    });

    it('a span another process sent cannot replace ours or claim our namespace; its unended spans end where they start', () => {
      const store = new TraceStore();
      store.claim('s', 't');
      const ours = { ...rec('t', 'p', 1), attributes: { 'agent_switchboard.decision': 'reject_once' } };
      store.add([ours]);
      const forged = asReceived([{ ...rec('t', 'p', 1), attributes: { 'agent_switchboard.decision': 'allow_always', x: 1 }, service: 'agent-switchboard' }, { ...rec('t', 'q', 5, false) }]);
      assert.deepEqual(forged[0].attributes, { x: 1 });
      assert.notEqual(forged[0].service, 'agent-switchboard');
      assert.equal(forged[1].endMs, 5);
      store.add(forged);
      assert.equal(store.spans('s').find((x) => x.spanId === 'p')!.attributes['agent_switchboard.decision'], 'reject_once');
    });

    it('evicts whole least-recently-active sessions and trims a session to its span limit, keeping live spans', () => {
      const store = new TraceStore({ maxSessions: 2, maxSpansPerSession: 10 });
      for (const k of ['a', 'b', 'c']) {
        store.claim(k, `t-${k}`);
        store.add([rec(`t-${k}`, `${k}1`, 1)]);
      }
      assert.deepEqual(store.sessionKeys().sort(), ['b', 'c']);
      store.add([rec('t-b', 'live', 0, false), ...Array.from({ length: 20 }, (_, i) => rec('t-b', `n${i}`, i + 1))]);
      const spans = store.spans('b');
      assert.ok(spans.length <= 10 && spans.some((s) => s.spanId === 'live'), spans.map((s) => s.spanId).join());
      assert.ok(store.truncated('b'));
      assert.ok(spans.some((s) => s.spanId === 'n19'), 'the newest stay');
    });
  });
});

describe('live export to a collector', () => {
  it('posts ended spans in batches to a collector (our own receiver standing in), retries after a failure, drops the oldest when full', async () => {
    const collected: SpanRecord[] = [];
    const collector = new OtlpReceiver({ onSpans: (s) => void collected.push(...s) });
    await collector.start();
    const env = collector.exporterEnv();
    const f = new TraceForwarder({ url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, headers: { authorization: decodeURIComponent(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS.split('=')[1]) }, batchSize: 2, intervalMs: 60_000 });
    try {
      const rec = (spanId: string, ended = true): SpanRecord => ({ traceId: 'a'.repeat(32), spanId, name: spanId, kind: 'client', startMs: 1795953770531, ...(ended ? { endMs: 1795953770532.5 } : {}), status: { code: 'ok' }, attributes: { n: 1 }, events: [], links: [], service: 'agent-switchboard' });
      f.add([rec('1'.repeat(16)), rec('2'.repeat(16)), rec('3'.repeat(16), false), rec('4'.repeat(16))]);
      await f.flush();
      assert.deepEqual(collected.map((s) => s.spanId[0]).sort(), ['1', '2', '4'], 'live spans wait until they end');
      assert.equal(f.sent, 3);
      collector.dispose();
      f.add([rec('5'.repeat(16))]);
      await f.flush();
      assert.equal(f.sent, 3, 'the collector is down: kept for later');
      const small = new TraceForwarder({ url: 'http://127.0.0.1:9/v1/traces', maxQueue: 2, intervalMs: 60_000 });
      small.add([rec('6'.repeat(16)), rec('7'.repeat(16)), rec('8'.repeat(16))]);
      assert.equal(small.dropped, 1);
      small.dispose();
      assert.throws(() => new TraceForwarder({ url: 'file:///etc/passwd' }), /must be an http/);
    } finally {
      f.dispose();
      collector.dispose();
    }
  });
});

describe('saved traces', () => {
  it('saves a closed session\'s trace, lists newest first, loads it back, keeps the newest N, skips damaged files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'traces-'));
    try {
      const archive = new TraceArchive(dir, 2);
      const s = (spanId: string): SpanRecord => ({ traceId: 'c'.repeat(32), spanId, name: `n${spanId[0]}`, kind: 'internal', startMs: 1795953770531, endMs: 1795953770532, status: { code: 'unset' }, attributes: { k: 'v' }, events: [], links: [], service: 'agent-switchboard' });
      assert.equal(archive.save('empty', []), undefined);
      archive.save('Demo s1', [s('1'.repeat(16))], new Date('2026-11-29T10:00:00Z'));
      archive.save('Demo s2', [s('2'.repeat(16)), s('3'.repeat(16))], new Date('2026-11-29T11:00:00Z'));
      archive.save('Demo/s3 ../x', [s('4'.repeat(16))], new Date('2026-11-29T12:00:00Z'));
      fs.writeFileSync(path.join(dir, '9999-broken.json'), '{ not json');
      const list = archive.list();
      assert.deepEqual(list.map((t) => t.title), ['Demo/s3 ../x', 'Demo s2'], 'the oldest was pruned; a file the index does not list is not shown');
      assert.ok(list.every((t) => path.dirname(t.file) === dir), 'titles never leave the folder');
      assert.deepEqual(archive.load(list[1].file).map((x) => x.spanId[0]), ['2', '3']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

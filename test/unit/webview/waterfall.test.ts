/**
 * The trace panel's waterfall: tree order, depth, roles, bar geometry, live spans, orphans, cycles,
 * and a 10,000-span trace laid out in one pass.
 */
import assert from 'node:assert/strict';
import type { SpanRecord } from '../../../src/trace/otlp';
import { formatDuration, waterfall } from '../../../webview/trace/waterfall';

const span = (spanId: string, parentSpanId: string | undefined, startMs: number, endMs: number | undefined, kind?: string, service = 'agent-switchboard'): SpanRecord => ({
  traceId: 't', spanId, ...(parentSpanId ? { parentSpanId } : {}), name: spanId, kind: 'internal', startMs, ...(endMs !== undefined ? { endMs } : {}),
  status: { code: 'unset' }, attributes: kind ? { 'agent_switchboard.span.kind': kind } : {}, events: [], links: [], service,
});

describe('trace waterfall', () => {
  it('orders the tree depth-first by start, with depth, role and bars relative to the whole trace', () => {
    const rows = waterfall([span('tool', 'turn', 20, 60, 'tool'), span('session', undefined, 0, 100, 'session'), span('turn', 'session', 10, 90, 'turn'), span('llm', 'turn', 15, 30, undefined, 'claude'), span('perm', 'tool', 25, 40, 'permission')], 1000);
    assert.deepEqual(rows.map((r) => [r.span.spanId, r.depth, r.role]), [['session', 0, 'session'], ['turn', 1, 'turn'], ['llm', 2, 'agent'], ['tool', 2, 'tool'], ['perm', 3, 'permission']]);
    const tool = rows.find((r) => r.span.spanId === 'tool')!;
    assert.equal(tool.offset, 0.2);
    assert.equal(tool.width, 0.4);
    assert.equal(tool.durationMs, 40);
  });

  it('a span of another trace that reuses a span id takes neither that span\'s place nor its children', () => {
    const other = (spanId: string, parentSpanId?: string): SpanRecord => ({ ...span(spanId, parentSpanId, 50, 60, 'tool', 'claude'), traceId: 'u' });
    const rows = waterfall([span('session', undefined, 0, 100, 'session'), span('turn', 'session', 10, 90, 'turn'), other('turn'), other('child', 'turn'), span('tool', 'turn', 20, 30, 'tool')], 1000);
    assert.deepEqual(rows.map((r) => [r.span.traceId, r.span.spanId, r.depth]), [['t', 'session', 0], ['t', 'turn', 1], ['t', 'tool', 2], ['u', 'turn', 0], ['u', 'child', 1]]);
  });

  it('a live span runs to now; an orphan is a root; a cycle does not hang', () => {
    const rows = waterfall([span('a', undefined, 0, undefined, 'turn'), span('orphan', 'missing', 5, 6), span('x', 'y', 1, 2), span('y', 'x', 1, 2)], 50);
    assert.equal(rows.find((r) => r.span.spanId === 'a')!.width, 1);
    assert.equal(rows.find((r) => r.span.spanId === 'a')!.durationMs, undefined);
    assert.equal(rows.find((r) => r.span.spanId === 'orphan')!.depth, 0);
    assert.equal(rows.length, 4);
  });

  it('lays out 10,000 spans (a deep chain and a wide fan) without recursion', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => span(`c${i}`, i ? `c${i - 1}` : undefined, i, i + 1));
    const fan = Array.from({ length: 5000 }, (_, i) => span(`f${i}`, 'c0', i, i + 2));
    const rows = waterfall([...chain, ...fan], 0);
    assert.equal(rows.length, 10_000);
    assert.equal(Math.max(...rows.map((r) => r.depth)), 4999);
  });

  it('formats durations for people', () => {
    assert.deepEqual([formatDuration(0.5), formatDuration(12.4), formatDuration(1400), formatDuration(123_000)], ['0.50 ms', '12 ms', '1.4 s', '2 min 3 s']);
  });
});

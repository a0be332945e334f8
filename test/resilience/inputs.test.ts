/**
 * Resilience, the other doors: messages from a session webview (which holds no authority) and
 * OTLP export requests from agents. A bad one is refused with a reason naming what is wrong; good
 * parts next to a bad one are kept.
 */
import assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../src/views/session/messages';
import { parseOtlpJson } from '../../src/trace/otlp';

describe('resilience: webview messages', () => {
  const bad: [string, unknown, RegExp][] = [
    ['not an object', 42, /expected object|Invalid input/i],
    ['null', null, /expected object|Invalid input/i],
    ['an unknown type', { type: 'rm -rf' }, /type|Invalid/i],
    ['a prompt without a key', { type: 'prompt', text: 'hi' }, /key/],
    ['an empty prompt', { type: 'prompt', key: 's1', text: '' }, /text/],
    ['a prompt over a million characters', { type: 'prompt', key: 's1', text: 'x'.repeat(1_000_001) }, /text/],
    ['51 attachments', { type: 'prompt', key: 's1', text: 'x', context: Array.from({ length: 51 }, () => ({ kind: 'file', path: '/w/a' })) }, /context/],
    ['an attachment of an unknown kind', { type: 'prompt', key: 's1', text: 'x', context: [{ kind: 'url', path: 'http://x' }] }, /context\.0/],
    ['an SVG image (scripts inside)', { type: 'prompt', key: 's1', text: 'x', context: [{ kind: 'image', name: 'a.svg', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }] }, /mimeType/],
    ['image data that is not base64', { type: 'prompt', key: 's1', text: 'x', context: [{ kind: 'image', name: 'a.png', mimeType: 'image/png', data: '<script>' }] }, /data/],
    ['a selection with line 0', { type: 'prompt', key: 's1', text: 'x', context: [{ kind: 'selection', path: '/w/a', startLine: 0, endLine: 1, text: '' }] }, /startLine/],
    ['a grant scope that does not exist', { type: 'answerPermission', key: 's1', permissionId: 'p1', optionId: 'o', grant: 'forever' }, /grant/],
    ['a location line that is not a number', { type: 'openLocation', path: '/w/a', line: '1; rm' }, /line/],
    ['a key of 10,000 characters', { type: 'cancel', key: 'k'.repeat(10_000) }, /key/],
    ['a config value that is an object', { type: 'setConfigOption', key: 's1', configId: 'model', value: { $gt: '' } }, /value/],
    ['a mention search of 10,000 characters', { type: 'searchMentions', requestId: 1, query: 'q'.repeat(10_000) }, /query/],
    ['a context request for something else', { type: 'addContext', what: 'clipboard' }, /what/],
  ];
  for (const [name, raw, field] of bad) {
    it(`refuses ${name}, naming what is wrong`, () => {
      const r = parseWebviewMessage(raw);
      assert.equal(r.ok, false);
      assert.match((r as { error: string }).error, field);
    });
  }
  it('ignores fields it does not know (no prototype games)', () => {
    const r = parseWebviewMessage(JSON.parse('{"type":"cancel","key":"s1","__proto__":{"polluted":true},"extra":1}'));
    assert.equal(r.ok, true);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });
});

describe('resilience: OTLP export requests', () => {
  const span = (over: Record<string, unknown> = {}) => ({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', name: 'ok', kind: 1, startTimeUnixNano: '1795953770531000000', endTimeUnixNano: '1795953770532000000', ...over });
  const body = (...spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans }] }] });
  for (const [name, raw] of [
    ['a number', 7],
    ['an array', []],
    ['resourceSpans that is not a list', { resourceSpans: 'all of them' }],
    ['scopeSpans that is a string', { resourceSpans: [{ scopeSpans: 'x' }] }],
  ] as [string, unknown][]) {
    it(`refuses ${name} as a whole, with the reason`, () => assert.throws(() => parseOtlpJson(raw), /not an OTLP trace export request/));
  }
  for (const [name, bad] of [
    ['a trace id of the wrong length', span({ traceId: 'abc' })],
    ['a span id that is not hex', span({ spanId: 'zzzzzzzzzzzzzzzz' })],
    ['an all-zero trace id', span({ traceId: '0'.repeat(32) })],
    ['a start time that is not a number', span({ startTimeUnixNano: 'yesterday' })],
    ['no name', span({ name: undefined })],
  ] as [string, unknown][]) {
    it(`drops a span with ${name} and keeps the good ones`, () => {
      const r = parseOtlpJson(body(span(), bad, span({ spanId: '0'.repeat(15) + '2' })));
      assert.equal(r.spans.length, 2);
      assert.equal(r.rejected, 1);
      assert.match(r.problems[0], /^span \d+: \S/);
    });
  }
  it('keeps a span with a huge attribute and 10,000 attributes without failing', () => {
    const attrs = Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: { stringValue: i === 0 ? 'v'.repeat(5_000_000) : 'v' } }));
    const r = parseOtlpJson(body(span({ attributes: attrs })));
    assert.equal(r.spans.length + r.rejected, 1);
  });
});

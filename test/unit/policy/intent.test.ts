import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson, intentHash, normalizeIntent, shortHash, type Intent } from '../../../src/policy/intent';

const base: Intent = {
  sessionId: 's1', agentId: 'claude', toolCallId: 't1', kind: 'edit',
  effects: [{ type: 'write', path: 'src/a.ts', contentSha256: ['bb', 'aa'], baseSha256: null }],
};

describe('intent canonical form and hash (RFC 8785 + SHA-256)', () => {
  it('sorts keys, escapes unicode per RFC 8785 and writes numbers in their shortest form', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'é\u2028' } }), '{"a":{"c":"é\u2028","d":[3,{"y":2,"z":1}]},"b":1}');
    assert.equal(canonicalJson([1e21, 0.1, -0, 100]), '[1e+21,0.1,0,100]');
    assert.throws(() => canonicalJson(NaN));
  });

  it('the same intent always hashes the same, whatever the key or list order', () => {
    const h = intentHash(base);
    assert.match(h, /^[0-9a-f]{64}$/);
    const reordered = JSON.parse(JSON.stringify({ effects: [{ baseSha256: null, contentSha256: ['aa', 'bb'], path: 'src/a.ts', type: 'write' }], kind: 'edit', toolCallId: 't1', agentId: 'claude', sessionId: 's1' }));
    assert.equal(intentHash(reordered), h);
    assert.equal(shortHash(h), h.slice(0, 12));
  });

  const effectArb = fc.oneof(
    fc.record({ type: fc.constant('write' as const), path: fc.string(), contentSha256: fc.array(fc.string()), baseSha256: fc.option(fc.string(), { nil: null }) }),
    fc.record({ type: fc.constant('command' as const), command: fc.option(fc.string(), { nil: null }), args: fc.array(fc.string()), cwd: fc.string(), envNames: fc.array(fc.string()) }),
    fc.record({ type: fc.constant('tool' as const), title: fc.string({ unit: 'grapheme' }) }),
  );
  const intentArb = fc.record({ sessionId: fc.string(), agentId: fc.string(), toolCallId: fc.string(), kind: fc.string(), effects: fc.array(effectArb, { maxLength: 3 }) });

  it('property: equal values hash equal (10k runs)', () => {
    fc.assert(
      fc.property(intentArb, (i) => {
        const copy = JSON.parse(JSON.stringify(i)) as Intent;
        return intentHash(copy) === intentHash(i);
      }),
      { numRuns: 10_000 },
    );
  });

  it('property: any change to the effect changes the hash (10k runs)', () => {
    fc.assert(
      fc.property(intentArb, fc.string({ unit: 'grapheme' }), (i, extra) => {
        fc.pre(i.effects.length > 0);
        const changed = JSON.parse(JSON.stringify(i)) as Intent;
        const e = changed.effects[0];
        if (e.type === 'write') e.path = e.path + '/' + extra + 'x';
        else if (e.type === 'command') e.cwd = e.cwd + extra + 'x';
        else e.title = e.title + extra + 'x';
        return intentHash(changed) !== intentHash(i);
      }),
      { numRuns: 10_000 },
    );
  });

  it('normalisation treats content hashes and env names as sets', () => {
    const n = normalizeIntent({ ...base, effects: [{ type: 'command', command: 'ls', args: [], cwd: '/w', envNames: ['B', 'A', 'B'] }] });
    assert.deepEqual((n.effects[0] as { envNames: string[] }).envNames, ['A', 'B']);
  });
});

/**
 * Checking a person's answer against a server's requested schema (form elicitation).
 */
import assert from 'node:assert/strict';
import { checkedSchema, elicitationProblems, withDefaults } from '../../../src/mcp/elicitation';

describe('MCP elicitation answers', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, default: 'Ada' },
      age: { type: 'integer', minimum: 0 },
      color: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
      when: { type: 'string', format: 'date-time' },
    },
    required: ['age', 'color'],
  };

  it('accepts what the schema allows and names each problem otherwise', () => {
    assert.deepEqual(elicitationProblems(schema, withDefaults(schema, { age: 3, color: 'g', tags: ['a'], when: '2026-11-29T10:00:00.000Z' })), []);
    const p = elicitationProblems(schema, { name: 'J', age: -1.5, color: 'x', tags: ['c', 'a', 'b'], when: '2026-11-29T10:00' });
    for (const want of [/name must NOT have fewer than 2/, /age must be integer/, /age must be >= 0/, /color must/, /tags/, /when must match format "date-time"/]) assert.ok(p.some((x) => want.test(x)), `${want} in ${p.join(' | ')}`);
    assert.match(elicitationProblems(schema, {}).join(' '), /required property 'age'/);
  });

  it('a server\'s regular expression, $id or reference is not used: no catastrophic backtracking, no shared cache', () => {
    const evil = { type: 'object', $id: 'shared', properties: { x: { type: 'string', pattern: '^(a+)+$', $ref: '#/definitions/nope' } }, allOf: [{ not: {} }] };
    const started = Date.now();
    assert.deepEqual(elicitationProblems(evil, { x: `${'a'.repeat(40)}!` }), []);
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    assert.deepEqual(checkedSchema(evil), { type: 'object', properties: { x: { type: 'string' } }, required: [] });
    // Another schema with the same $id is checked as itself.
    assert.match(elicitationProblems({ $id: 'shared', type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, {}).join(' '), /required property 'n'/);
  });
});

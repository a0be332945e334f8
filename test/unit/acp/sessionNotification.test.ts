/**
 * Our parser of `session/update` params (issue 22, PF1) gives exactly what the SDK's own schema
 * gives, for every input: the same value (deep, strict: an `undefined` key is not an absent one) or
 * a refusal where the SDK refuses. Plain streamed text chunks take the narrow schema; every other
 * input, however near, the SDK's. The inputs are generated: a seeded walk of mutations (keys added,
 * removed, retyped, nulled; other content blocks and kinds of update; `_meta`, annotations,
 * `__proto__`) from the shapes agents send, each as it arrives (through `JSON.parse`).
 */
import assert from 'node:assert/strict';
import { acpSdk } from '../../../src/acp/sdk';
import { parseSessionNotification, plainTextChunk } from '../../../src/acp/sessionNotification';

/** mulberry32: a small seeded generator, so a failure names an input that can be run again. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'tool_call', 'tool_call_update', 'plan', 'usage_update', 'session_info_update', 'nonsense'];
const BLOCKS: unknown[] = [
  { type: 'text', text: 'hello' },
  { type: 'text', text: '' },
  { type: 'text', text: 'x', annotations: { priority: 1 } },
  { type: 'text', text: 'x', annotations: { audience: ['user', 'robot'], priority: 'high' } },
  { type: 'text', text: 'x', _meta: { a: 1 } },
  { type: 'text', text: 'x', _meta: 'not a record' },
  { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  { type: 'resource_link', uri: 'file:///a', name: 'a' },
  { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
  { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
];
const VALUES: unknown[] = [null, 0, 1.5, -1, true, false, '', 'text', 'agent_message_chunk', [], ['a'], {}, { type: 'text' }, { text: 'x' }, { a: { b: null } }];
const KEYS = ['_meta', 'annotations', 'messageId', 'extra', '__proto__', 'constructor', 'toString', 'type', 'text', 'content', 'sessionUpdate', 'sessionId', 'update', 'toolCallId', 'status'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** A notification an agent could send: mostly well formed, sometimes not at all. */
function base(r: () => number): Record<string, unknown> {
  // Half are the streamed text chunks agents send most, the rest any kind with any block.
  const plain = r() < 0.5;
  const update: Record<string, unknown> = { sessionUpdate: plain ? pick(r, KINDS.slice(0, 3)) : pick(r, KINDS), content: structuredClone(plain ? BLOCKS[0] : pick(r, BLOCKS)) };
  const roll = r();
  if (roll < 0.3) update.messageId = pick(r, ['m-1', '', null, 7, undefined]);
  if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') {
    update.toolCallId = 'call-1';
    update.content = r() < 0.5 ? [{ type: 'content', content: update.content }] : update.content;
    if (update.sessionUpdate === 'tool_call') update.title = 'Run';
  }
  return { sessionId: pick(r, ['s1', '', 7]), update, ...(r() < 0.1 ? { _meta: pick(r, [{ k: 1 }, null, 'x']) } : {}) };
}

/** The objects of `v` (itself included), to choose one to mutate. */
function objectsIn(v: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (v && typeof v === 'object') {
    if (!Array.isArray(v)) out.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) objectsIn(x, out);
  }
  return out;
}

function mutate(r: () => number, v: Record<string, unknown>): void {
  const o = pick(r, objectsIn(v));
  const keys = Object.keys(o);
  const op = r();
  if (op < 0.3) o[pick(r, KEYS)] = structuredClone(pick(r, VALUES));
  else if (op < 0.5 && keys.length) delete o[pick(r, keys)];
  else if (keys.length) o[pick(r, keys)] = structuredClone(pick(r, VALUES));
}

/** What a parser makes of `input`: its value, or that it refused. */
function outcome(parse: (p: unknown) => unknown, input: unknown): { value: unknown } | { refused: true } {
  try {
    return { value: parse(input) };
  } catch {
    return { refused: true };
  }
}

describe('session/update params: our parser gives what the SDK schema gives', () => {
  const sdk = (p: unknown) => acpSdk().zSessionNotification.parse(p);

  it('for generated notifications and their mutations, the same value or the same refusal', () => {
    const r = rng(22);
    let fast = 0;
    let fallbackAccepted = 0;
    let refused = 0;
    for (let i = 0; i < 6000; i++) {
      const n = base(r);
      const mutations = r() < 0.3 ? 0 : Math.floor(r() * 4);
      for (let k = 0; k < mutations; k++) mutate(r, n);
      // As it arrives: JSON text parsed (undefined keys gone, `__proto__` an own key).
      const wire = JSON.stringify(n).replace('"extra":', r() < 0.2 ? '"__proto__":' : '"extra":');
      const input = JSON.parse(wire) as unknown;
      const ours = outcome(parseSessionNotification, input);
      const theirs = outcome(sdk, JSON.parse(wire));
      assert.deepStrictEqual(ours, theirs, `input #${i}: ${wire}`);
      if (plainTextChunk().safeParse(input).success) fast++;
      else if ('value' in theirs) fallbackAccepted++;
      else refused++;
    }
    // The walk reaches all three cases often, or it would show nothing.
    assert.ok(fast > 300, `fast path ${fast}`);
    assert.ok(fallbackAccepted > 300, `SDK schema accepted ${fallbackAccepted}`);
    assert.ok(refused > 300, `refused ${refused}`);
  });

  it('takes the narrow schema only for a plain text chunk', () => {
    const chunk = (extra: Record<string, unknown> = {}, content: Record<string, unknown> = {}) => ({ sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a', ...content }, ...extra } });
    assert.ok(plainTextChunk().safeParse(chunk()).success);
    assert.ok(plainTextChunk().safeParse(chunk({ messageId: 'm' })).success);
    assert.ok(plainTextChunk().safeParse(chunk({ messageId: null })).success);
    for (const near of [chunk({ _meta: {} }), chunk({}, { annotations: null }), chunk({}, { _meta: {} }), chunk({ messageId: 3 }), { ...chunk(), _meta: {} }, { ...chunk(), sessionId: 1 }]) {
      assert.equal(plainTextChunk().safeParse(near).success, false, JSON.stringify(near));
      assert.deepStrictEqual(outcome(parseSessionNotification, near), outcome(sdk, near));
    }
  });

  it('refuses what the SDK refuses, with the SDK’s error', () => {
    for (const bad of [null, 'x', [], {}, { sessionId: 's' }, { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk' } }, { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 1 } } }]) {
      assert.throws(() => parseSessionNotification(bad), (err: Error) => err.name === 'ZodError');
    }
  });
});

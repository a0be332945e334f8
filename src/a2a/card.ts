/**
 * A2A agent cards: fetched from `/.well-known/agent-card.json` (or a card URL the person gives),
 * checked with zod against the fields we rely on, normalised by the SDK's resolver (a v0.3 card is
 * translated to the 1.0 shape), and their JWS signature checked with the SDK's
 * `verifyAgentCardSignature` against the key the signature's `jku` names. An unsigned card is
 * "unsigned", never trusted; a card whose signature does not match is "failed" and is not used.
 * No `vscode`. Spec: PROTOCOLS.md §4.1 (A2A 1.0 discovery, card signatures).
 */
import type { AgentCard } from '@a2a-js/sdk';
import type { JWK } from 'jose';
import { a2aSdk } from './sdk';
import * as z from 'zod';

/**
 * What the signature check found. `keyUrl` is where the verifying key came from (the card names
 * it, so "verified" says the card is intact and signed by whoever serves that key — not who they
 * are); `thumbprint` (RFC 7638) lets the editor notice when the key changes later. A v0.3 card is
 * `unchecked`: the SDK canonicalises cards in the 1.0 shape, which leaves a v0.3 card's endpoint out.
 */
export type SignatureCheck =
  | { state: 'unsigned' }
  | { state: 'unchecked'; reason: string }
  | { state: 'verified'; kid: string; keyUrl: string; sameOrigin: boolean; thumbprint: string }
  | { state: 'failed'; reason: string };

/** Most signatures looked at (each may fetch a key set). */
const MAX_SIGNATURES = 5;

/** A fetched and checked card. */
export interface CheckedCard {
  /** The URL the card was read from. */
  cardUrl: string;
  card: AgentCard;
  /** The card as served (the signature covers this, and "Show Card" shows it). */
  raw: Record<string, unknown>;
  signature: SignatureCheck;
  /** The interface we will talk to (the first JSON-RPC or HTTP+JSON one, in the card's order). */
  chosen: { url: string; protocolBinding: 'JSONRPC' | 'HTTP+JSON'; protocolVersion: string };
}

/** Options of {@link fetchAgentCard}. */
export interface FetchCardOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Largest card or key set read, in bytes (default 512 KiB). */
  maxBytes?: number;
  /** Milliseconds before the fetch gives up (default 10 000). */
  timeoutMs?: number;
}

const Interface = z.object({ url: z.string().min(1), protocolBinding: z.string().min(1), protocolVersion: z.string().optional() }).passthrough();
const Skill = z.object({ id: z.string().min(1), name: z.string().min(1), description: z.string().optional(), tags: z.array(z.string()).optional(), examples: z.array(z.string()).optional() }).passthrough();
/** The fields of a 1.0 card we rely on; anything else passes through untouched. */
export const AgentCardShape = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(10_000).optional(),
  version: z.string().max(100).optional(),
  supportedInterfaces: z.array(Interface).min(1, 'the card lists no supportedInterfaces'),
  capabilities: z.object({ streaming: z.boolean().optional() }).passthrough().optional(),
  skills: z.array(Skill).max(500).optional(),
  securitySchemes: z.record(z.string(), z.unknown()).optional(),
  signatures: z.array(z.object({ protected: z.string().min(1), signature: z.string().min(1) }).passthrough()).optional(),
}).passthrough();

/**
 * The card URL for what the person typed: a URL ending in `.json` is the card itself; anything
 * else is the agent's base URL, under which the well-known path is read.
 * @throws Error for a URL that is not http(s), or http to a host other than loopback.
 */
export function cardUrlFor(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`"${input}" is not a URL. Give the agent's base URL (https://agent.example) or its card URL.`);
  }
  checkScheme(url, 'An agent', true);
  if (url.pathname.endsWith('.json')) return url.toString();
  return `${url.toString().replace(/\/+$/, '')}/${a2aSdk().AGENT_CARD_PATH}`;
}

/**
 * Fetches, validates, normalises and verifies the card of the agent at `input`.
 * @throws Error with an actionable message when the card cannot be read, is not JSON, lacks the
 *   fields we need, or offers no interface we can speak (JSON-RPC or HTTP+JSON).
 */
export async function fetchAgentCard(input: string, options: FetchCardOptions = {}): Promise<CheckedCard> {
  const cardUrl = cardUrlFor(input);
  // Only a card served from this machine may point at this machine (its interfaces, its key set).
  const local = isLoopback(new URL(cardUrl));
  const raw = await readJson(cardUrl, options, 'agent card');
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`The agent card at ${cardUrl} is not a JSON object.`);
  const legacy = !(Array.isArray((raw as { supportedInterfaces?: unknown }).supportedInterfaces) && (raw as { supportedInterfaces: unknown[] }).supportedInterfaces.length > 0);
  // A v0.3 card (url + preferredTransport) is translated to 1.0 by the SDK's resolver; a 1.0 card passes as is.
  let card: AgentCard;
  try {
    card = new (a2aSdk().DefaultAgentCardResolver)({ legacyCompat: { enabled: true } }).normalizeAgentCard(raw);
  } catch (err) {
    throw new Error(`The agent card at ${cardUrl} could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const shape = AgentCardShape.safeParse(card);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    throw new Error(`The agent card at ${cardUrl} is not valid: ${issue.path.join('.') || 'card'}: ${issue.message}.`);
  }
  // Every interface is checked, not only the one we pick: the card is shown whole.
  for (const i of card.supportedInterfaces) {
    let u: URL;
    try {
      u = new URL(i.url);
    } catch {
      throw new Error(`The agent card at ${cardUrl} lists an interface whose URL is not valid: "${i.url}".`);
    }
    checkScheme(u, `The interface ${i.url} of "${card.name}"`, local);
  }
  const chosen = pickInterface(card);
  if (!chosen) {
    const offered = card.supportedInterfaces.map((i) => i.protocolBinding).join(', ');
    throw new Error(`"${card.name}" offers only ${offered}; Agent Switchboard speaks JSON-RPC and HTTP+JSON.`);
  }
  const signature = legacy
    ? Array.isArray((raw as { signatures?: unknown }).signatures) && (raw as { signatures: unknown[] }).signatures.length
      ? { state: 'unchecked' as const, reason: 'a v0.3 card: its signature does not cover its endpoint as the 1.0 check reads it, so it is not relied on' }
      : { state: 'unsigned' as const }
    : await checkSignature(raw as Record<string, unknown>, cardUrl, local, options);
  return { cardUrl, card, raw: raw as Record<string, unknown>, signature, chosen };
}

/**
 * The interface we talk to: the first JSON-RPC or HTTP+JSON one in the card's order (bindings
 * compared without case), a 1.0 one before a 0.3 one of the same binding.
 */
export function pickInterface(card: AgentCard): CheckedCard['chosen'] | undefined {
  const ours = card.supportedInterfaces
    .map((i) => ({ ...i, binding: i.protocolBinding.toUpperCase() }))
    .filter((i) => i.binding === 'JSONRPC' || i.binding === 'HTTP+JSON');
  const first = ours.find((i) => (i.protocolVersion || '1.0') === '1.0') ?? ours[0];
  return first && { url: first.url, protocolBinding: first.binding as 'JSONRPC' | 'HTTP+JSON', protocolVersion: first.protocolVersion || '1.0' };
}

/** Checks the card's signatures: verified when one of them checks out with its `jku` key. */
async function checkSignature(raw: Record<string, unknown>, cardUrl: string, local: boolean, options: FetchCardOptions): Promise<SignatureCheck> {
  const signatures = Array.isArray(raw.signatures) ? raw.signatures : [];
  if (!signatures.length) return { state: 'unsigned' };
  if (signatures.length > MAX_SIGNATURES) return { state: 'failed', reason: `the card carries ${signatures.length} signatures; at most ${MAX_SIGNATURES} are checked` };
  let used: { kid: string; keyUrl: string; jwk: JWK } | undefined;
  const keySets = new Map<string, Promise<unknown>>();
  // The SDK reports only "no valid signatures"; why each key could not be had is kept here.
  const problems: string[] = [];
  const verify = a2aSdk().verifyAgentCardSignature((kid, jku) => retrieve(kid, jku).catch((err: unknown) => {
    problems.push(err instanceof Error ? err.message : String(err));
    throw err;
  }));
  const retrieve = async (kid: string, jku: string | undefined) => {
    if (!jku) throw new Error(`the signature names no key set (jku) for key "${kid}"`);
    const keyUrl = new URL(jku, cardUrl);
    checkScheme(keyUrl, 'A key set', local);
    const key = keyUrl.toString();
    if (!keySets.has(key)) keySets.set(key, readJson(key, options, 'key set'));
    const set = (await keySets.get(key)) as { keys?: JWK[] } | undefined;
    const jwk = Array.isArray(set?.keys) ? set.keys.find((k) => k && k.kid === kid) : undefined;
    if (!jwk) throw new Error(`the key set at ${keyUrl} has no key "${kid}"`);
    used = { kid, keyUrl: key, jwk };
    return a2aSdk().importJWK(jwk, typeof jwk.alg === 'string' ? jwk.alg : undefined) as never;
  };
  try {
    // The signature covers the card as served, so the raw card is checked, not the normalised one.
    await verify(raw as unknown as AgentCard);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { state: 'failed', reason: problems.length ? `${why.replace(/\.$/, '')}: ${[...new Set(problems)].join('; ')}` : why };
  }
  const u = used as { kid: string; keyUrl: string; jwk: JWK } | undefined;
  if (!u) return { state: 'failed', reason: 'no key was used' };
  return { state: 'verified', kid: u.kid, keyUrl: u.keyUrl, sameOrigin: new URL(u.keyUrl).origin === new URL(cardUrl).origin, thumbprint: await a2aSdk().calculateJwkThumbprint(u.jwk) };
}

function isLoopback(url: URL): boolean {
  return /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i.test(url.hostname);
}

/**
 * https, or http on loopback; loopback at all only when `allowLoopback` (a card from this machine),
 * so a remote card cannot turn the editor against services on this machine.
 */
function checkScheme(url: URL, what: string, allowLoopback: boolean): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${what} must be reached over https: ${url.protocol} is not used.`);
  if (isLoopback(url)) {
    if (!allowLoopback) throw new Error(`${what} points at this machine (${url.host}), but the card came from elsewhere; it is not used.`);
    return;
  }
  if (url.protocol === 'https:') return;
  throw new Error(`${what} must be reached over https (plain http only on this machine, 127.0.0.1 or localhost): ${url.origin}.`);
}

async function readJson(url: string, options: FetchCardOptions, what: string): Promise<unknown> {
  const max = options.maxBytes ?? 512 * 1024;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let res: Response;
  try {
    // Redirects are not followed: where a card or key set really lives is for the person to say.
    res = await (options.fetch ?? fetch)(url, { signal, headers: { accept: 'application/json' }, redirect: 'manual' });
  } catch (err) {
    throw new Error(`The ${what} at ${url} could not be fetched: ${err instanceof Error ? err.message : String(err)}.`);
  }
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location');
    throw new Error(`The ${what} at ${url} redirects${to ? ` to ${new URL(to, url)}` : ''}; give that URL instead if you trust it.`);
  }
  if (!res.ok) throw new Error(`The ${what} at ${url} answered HTTP ${res.status}${res.status === 404 ? ' (is this an A2A agent? its card belongs at /.well-known/agent-card.json)' : ''}.`);
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > max) throw new Error(`The ${what} at ${url} is ${length} bytes; at most ${max} are read.`);
  // Read in chunks and stop at the limit: a body without a length cannot fill memory.
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    for (;;) {
      const { done, value } = reader ? await reader.read() : { done: true, value: undefined };
      if (done) break;
      size += value.byteLength;
      if (size > max) throw new Error(`The ${what} at ${url} is larger than ${max} bytes.`);
      chunks.push(value);
    }
  } finally {
    await reader?.cancel().catch(() => undefined);
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    throw new Error(`The ${what} at ${url} is not JSON.`);
  }
}

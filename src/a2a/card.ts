/**
 * A2A agent cards: fetched from `/.well-known/agent-card.json` (or a card URL the person gives),
 * checked with zod against the fields we rely on, normalised by the SDK's resolver (a v0.3 card is
 * translated to the 1.0 shape), and their JWS signature checked with the SDK's
 * `verifyAgentCardSignature` against the key the signature's `jku` names. An unsigned card is
 * "unsigned", never trusted; a card whose signature does not match is "failed" and is not used.
 * No `vscode`. Spec: PROTOCOLS.md §4.1 (A2A 1.0 discovery, card signatures).
 */
import { AGENT_CARD_PATH, verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { importJWK, type JWK } from 'jose';
import { z } from 'zod';

/** What the signature check found. `keyUrl` is where the verifying key came from. */
export type SignatureCheck =
  | { state: 'unsigned' }
  | { state: 'verified'; kid: string; keyUrl: string; sameOrigin: boolean }
  | { state: 'failed'; reason: string };

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
  checkScheme(url, 'An agent');
  if (url.pathname.endsWith('.json')) return url.toString();
  return `${url.toString().replace(/\/+$/, '')}/${AGENT_CARD_PATH}`;
}

/**
 * Fetches, validates, normalises and verifies the card of the agent at `input`.
 * @throws Error with an actionable message when the card cannot be read, is not JSON, lacks the
 *   fields we need, or offers no interface we can speak (JSON-RPC or HTTP+JSON).
 */
export async function fetchAgentCard(input: string, options: FetchCardOptions = {}): Promise<CheckedCard> {
  const cardUrl = cardUrlFor(input);
  const raw = await readJson(cardUrl, options, 'agent card');
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`The agent card at ${cardUrl} is not a JSON object.`);
  // A v0.3 card (url + preferredTransport) is translated to 1.0 by the SDK's resolver; a 1.0 card passes as is.
  let card: AgentCard;
  try {
    card = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(raw);
  } catch (err) {
    throw new Error(`The agent card at ${cardUrl} could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const shape = AgentCardShape.safeParse(card);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    throw new Error(`The agent card at ${cardUrl} is not valid: ${issue.path.join('.') || 'card'}: ${issue.message}.`);
  }
  const chosen = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC' || i.protocolBinding === 'HTTP+JSON');
  if (!chosen) {
    const offered = card.supportedInterfaces.map((i) => i.protocolBinding).join(', ');
    throw new Error(`"${card.name}" offers only ${offered}; Agent Switchboard speaks JSON-RPC and HTTP+JSON.`);
  }
  checkScheme(new URL(chosen.url), `The interface of "${card.name}"`);
  const signature = await checkSignature(raw as Record<string, unknown>, cardUrl, options);
  return { cardUrl, card, raw: raw as Record<string, unknown>, signature, chosen: { url: chosen.url, protocolBinding: chosen.protocolBinding as 'JSONRPC' | 'HTTP+JSON', protocolVersion: chosen.protocolVersion || '1.0' } };
}

/** Checks the card's signatures: verified when one of them checks out with its `jku` key. */
async function checkSignature(raw: Record<string, unknown>, cardUrl: string, options: FetchCardOptions): Promise<SignatureCheck> {
  const signatures = Array.isArray(raw.signatures) ? raw.signatures : [];
  if (!signatures.length) return { state: 'unsigned' };
  let used: { kid: string; keyUrl: string } | undefined;
  const verify = verifyAgentCardSignature(async (kid, jku) => {
    if (!jku) throw new Error(`the signature names no key set (jku) for key "${kid}"`);
    const keyUrl = new URL(jku, cardUrl);
    checkScheme(keyUrl, 'A key set');
    const set = (await readJson(keyUrl.toString(), options, 'key set')) as { keys?: JWK[] } | undefined;
    const jwk = Array.isArray(set?.keys) ? set.keys.find((k) => k && k.kid === kid) : undefined;
    if (!jwk) throw new Error(`the key set at ${keyUrl} has no key "${kid}"`);
    used = { kid, keyUrl: keyUrl.toString() };
    return importJWK(jwk, typeof jwk.alg === 'string' ? jwk.alg : undefined) as never;
  });
  try {
    // The signature covers the card as served, so the raw card is checked, not the normalised one.
    await verify(raw as unknown as AgentCard);
  } catch (err) {
    return { state: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
  if (!used) return { state: 'failed', reason: 'no key was used' };
  return { state: 'verified', kid: used.kid, keyUrl: used.keyUrl, sameOrigin: new URL(used.keyUrl).origin === new URL(cardUrl).origin };
}

/** http is only accepted on loopback: anything else would send delegated work in the clear. */
function checkScheme(url: URL, what: string): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i.test(url.hostname)) return;
  throw new Error(`${what} must be reached over https (plain http only on this machine, 127.0.0.1 or localhost): ${url.origin}.`);
}

async function readJson(url: string, options: FetchCardOptions, what: string): Promise<unknown> {
  const max = options.maxBytes ?? 512 * 1024;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { signal, headers: { accept: 'application/json' } });
  } catch (err) {
    throw new Error(`The ${what} at ${url} could not be fetched: ${err instanceof Error ? err.message : String(err)}.`);
  }
  if (!res.ok) throw new Error(`The ${what} at ${url} answered HTTP ${res.status}${res.status === 404 ? ' (is this an A2A agent? its card belongs at /.well-known/agent-card.json)' : ''}.`);
  checkScheme(new URL(res.url || url), `The ${what} (after redirects)`);
  const length = Number(res.headers.get('content-length') ?? 0);
  if (length > max) throw new Error(`The ${what} at ${url} is ${length} bytes; at most ${max} are read.`);
  const body = await res.arrayBuffer();
  if (body.byteLength > max) throw new Error(`The ${what} at ${url} is larger than ${max} bytes.`);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new Error(`The ${what} at ${url} is not JSON.`);
  }
}

/**
 * The params parser of `session/update` (ACP v1 `SessionNotification`, schema 1.21,
 * https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output).
 *
 * Most of what an agent sends is streamed text: `agent_message_chunk`, `agent_thought_chunk` and
 * `user_message_chunk` with a `text` content block and nothing else. The SDK's generated schema
 * checks each of them against a union of intersections — every variant tried, each side of each
 * intersection parsed and the two merged value by value —, ~5.5 µs an update here, four fifths of
 * what a streamed chunk costs the extension host (PF1, PF8). Those plain chunks are checked by a
 * strict zod schema of their exact shape instead (~0.3 µs); whatever it does not accept, however
 * small the difference (an extra key, `_meta`, annotations, another content block, another kind of
 * update, a wrong type), goes through the SDK's own schema unchanged. The narrow schema accepts only
 * inputs the SDK's accepts and gives them the same value (its keys in another order): a differential
 * test (test/unit/acp/sessionNotification.test.ts) holds both to that on generated variants.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { acpSdk } from './sdk';
import { lazy } from '../common/lazy';

/** Kinds of update whose body is a content chunk (schema `ContentChunk`). */
const CHUNK_KINDS = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'] as const;

/**
 * A streamed text chunk and nothing more: every object strict (an unknown key fails it, where the
 * SDK's schema would strip it), `messageId` a string or null as the SDK keeps it. Built on first use
 * (building schemas at load time was most of activation, PF6). Exported for the differential test.
 */
export const plainTextChunk = lazy(() =>
  z.strictObject({
    sessionId: z.string(),
    update: z.strictObject({
      sessionUpdate: z.enum(CHUNK_KINDS),
      content: z.strictObject({ type: z.literal('text'), text: z.string() }),
      messageId: z.string().nullish(),
    }),
  }),
);

/**
 * Validates the params of a `session/update` notification.
 * @param params the notification's `params` as parsed from the agent's JSON line
 * @returns the notification as the SDK's schema gives it (plain text chunks through the narrow
 *   schema above, which gives the same value)
 * @throws ZodError (from the SDK's schema) when the params are not a valid `SessionNotification`;
 *   the SDK's connection then refuses the notification as it did when it parsed it itself
 */
export function parseSessionNotification(params: unknown): acp.SessionNotification {
  const plain = plainTextChunk().safeParse(params);
  if (plain.success) return plain.data as acp.SessionNotification;
  return acpSdk().zSessionNotification.parse(params) as acp.SessionNotification;
}

/**
 * The zod schema of {@link ElicitationView}: what an agent's question card shows. The reducer checks
 * it on every `elicitationRequested` action, since a journal replayed from disk is as untrusted as
 * the agent. Lengths are bounded so a crafted entry cannot flood the card. Pure.
 */
import { z } from 'zod';
import type { ElicitationView } from './types';

/** Characters of an agent's message that a card keeps. */
export const MAX_ELICITATION_MESSAGE = 20_000;

/** Zod schema for {@link ElicitationView}. */
export const elicitationViewSchema: z.ZodType<ElicitationView> = z.object({
  elicitationKey: z.string().min(1).max(100),
  mode: z.enum(['form', 'url']),
  message: z.string().max(MAX_ELICITATION_MESSAGE),
  toolCallId: z.string().max(500).optional(),
  requestedSchema: z.record(z.string(), z.unknown()).optional(),
  url: z.string().max(8192).optional(),
  elicitationId: z.string().max(500).optional(),
  host: z.string().max(500).optional(),
  refused: z.string().max(500).optional(),
  state: z.enum(['waiting', 'accept', 'decline', 'cancel']),
  answeredBy: z.enum(['person', 'cancel', 'agent']).optional(),
  fields: z.array(z.string().max(200)).max(200).optional(),
  completed: z.boolean().optional(),
  requestedAt: z.number(),
});

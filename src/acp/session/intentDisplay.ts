/**
 * The zod schema of {@link IntentDisplayView}: what a permission card shows an approval lets through.
 * The reducer checks it on every `permissionRequested` action, since a journal replayed from disk is
 * as untrusted as any other file. Lengths are bounded so a crafted entry cannot flood the card.
 */
import { z } from 'zod';
import { MAX_DISPLAY_CONTENT, MAX_TOOL_URL, type IntentDisplayView } from './types';

const text = z.string().max(1_000_000);

/** One effect's display form. */
export const intentDisplayItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('command'), line: text.nullable(), argv: z.array(text).max(10_000), cwd: text, envNames: z.array(text).max(1000), unreadable: z.literal(true).optional(), env: z.array(z.string().max(4_200)).max(1000).optional(), sandbox: z.object({ sandboxed: z.boolean(), text: z.string().max(20_000) }).strict().optional() }).strict(),
  z
    .object({
      type: z.literal('write'),
      path: text,
      source: z.enum(['diff', 'rawInput', 'none']),
      content: z.object({ text: z.string().max(MAX_DISPLAY_CONTENT), totalChars: z.number().int().nonnegative() }).strict().optional(),
    })
    .strict(),
  z.object({ type: z.literal('tool'), title: text, url: z.string().max(MAX_TOOL_URL).optional(), plan: z.string().max(MAX_DISPLAY_CONTENT).optional(), cut: z.literal(true).optional() }).strict(),
]);

/** Every effect of an intent, in order. */
export const intentDisplaySchema: z.ZodType<IntentDisplayView[]> = z.array(intentDisplayItemSchema).max(1000);

/**
 * Validation of messages from the session webview (the webview is untrusted input: it holds no
 * authority, and a malformed message is reported, never acted on).
 */
import * as z from 'zod';
import type { WebviewMessage } from './protocol';
import { ContextItemSchema } from '../../acp/promptContext';

const key = z.string().min(1).max(100);
/**
 * An agent's `optionId` is opaque (ACP: any string, the empty one included) and goes back byte for
 * byte; the bound only keeps a message finite. The controller answers only ids the agent offered.
 */
const MAX_OPTION_ID = 64 * 1024;

/** Zod schema for {@link WebviewMessage}. */
export const WebviewMessageSchema: z.ZodType<WebviewMessage> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('requestSnapshot') }),
  z.object({ type: z.literal('requestEarlier'), key, beforeEntryId: z.string().min(1).max(100) }),
  z.object({ type: z.literal('startSession'), agentId: z.string().min(1).max(200), prompt: z.string().min(1).max(1_000_000).optional(), context: z.array(ContextItemSchema).max(50).optional() }),
  z.object({ type: z.literal('selectSession'), key }),
  z.object({ type: z.literal('prompt'), key, text: z.string().min(1).max(1_000_000), context: z.array(ContextItemSchema).max(50).optional() }),
  z.object({ type: z.literal('searchMentions'), requestId: z.number().int(), query: z.string().max(200) }),
  z.object({ type: z.literal('addContext'), what: z.enum(['file', 'selection', 'diagnostics']) }),
  z.object({ type: z.literal('setConfigOption'), key, configId: z.string().min(1).max(200), value: z.union([z.string().min(1).max(500), z.boolean()]) }),
  z.object({ type: z.literal('cancel'), key }),
  z.object({ type: z.literal('rejectAllWaiting'), key }),
  z.object({ type: z.literal('cardFocus'), key, permissionId: z.string().min(1).max(100).nullable() }),
  z.object({ type: z.literal('setMode'), key, modeId: z.string().min(1).max(200) }),
  z.object({ type: z.literal('answerPermission'), key, permissionId: z.string().min(1).max(100), optionId: z.string().max(MAX_OPTION_ID), grant: z.enum(['session', 'workspace', 'always']).optional() }),
  z.object({
    type: z.literal('answerElicitation'),
    key,
    elicitationKey: z.string().min(1).max(100),
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z.record(z.string().max(200), z.union([z.string().max(100_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(500)])).optional(),
  }),
  z.object({ type: z.literal('openElicitationUrl'), key, elicitationKey: z.string().min(1).max(100) }),
  z.object({ type: z.literal('openLocation'), path: z.string().min(1).max(4096), line: z.number().int().min(1).optional() }),
  z.object({ type: z.literal('showTerminal'), key, terminalId: z.string().min(1).max(200) }),
  z.object({ type: z.literal('allowSandboxHost'), key, terminalId: z.string().min(1).max(200), host: z.string().min(1).max(300) }),
  z.object({ type: z.literal('reviewToolCall'), key, toolCallId: z.string().min(1).max(500) }),
  z.object({ type: z.literal('turnAction'), key, turn: z.number().int().nonnegative().max(1_000_000), action: z.enum(['keep', 'undo', 'review', 'apply']) }),
  z.object({ type: z.literal('openChange'), key, changeId: z.string().min(1).max(10_000) }),
  z.object({ type: z.literal('openToolDiff'), key, toolCallId: z.string().min(1).max(500), index: z.number().int().min(0).max(100_000) }),
  z.object({ type: z.literal('openToolInput'), key, toolCallId: z.string().min(1).max(500) }),
  z.object({ type: z.literal('closeSession'), key }),
  z.object({ type: z.literal('resumeSession'), key }),
  z.object({ type: z.literal('restartAgent'), key }),
  z.object({ type: z.literal('openInTab'), key }),
  z.object({ type: z.literal('previewCheckpoint'), key, entryId: z.string().min(1).max(100) }),
  z.object({ type: z.literal('restoreCheckpoint'), key, entryId: z.string().min(1).max(100) }),
  z.object({ type: z.literal('editMessage'), key, entryId: z.string().min(1).max(100) }),
  z.object({ type: z.literal('resendMessage'), key, entryId: z.string().min(1).max(100), text: z.string().min(1).max(1_000_000), restore: z.boolean(), context: z.array(ContextItemSchema).max(50).optional() }),
  z.object({ type: z.literal('configureAgents') }),
  z.object({ type: z.literal('showUnavailableAgents'), agentId: z.string().min(1).max(200).optional() }),
]);

/** Parses a webview message; returns an error sentence instead of throwing. */
export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewMessage } | { ok: false; error: string } {
  const r = WebviewMessageSchema.safeParse(raw);
  if (r.success) return { ok: true, message: r.data };
  return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ') };
}

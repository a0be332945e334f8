/**
 * What a person attaches to a prompt — files (@-mentions), a selection with its lines, a symbol,
 * the problems of a file, images — turned into ACP content blocks the agent can take
 * (https://agentclientprotocol.com/protocol/content): embedded `resource`s when the agent declares
 * `promptCapabilities.embeddedContext`, else `resource_link`s and plain text (which every agent must
 * accept); `image` blocks only when it declares `promptCapabilities.image`.
 *
 * The items come from the webview, which holds no authority: paths are checked against the
 * workspace here and files are read by the host. No `vscode`.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import type { PromptCapabilitiesView } from './session/types';

/** Largest file embedded in a prompt, in characters; a larger one is sent as a link. */
export const MAX_EMBEDDED_CHARS = 256 * 1024;
/** Largest selection or problems text attached, in characters (the editor cuts to this). */
export const MAX_ATTACHED_TEXT = 200_000;
/** Largest image accepted, in base64 characters (about 7.5 MB of image). */
export const MAX_IMAGE_BASE64 = 10 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

const line = z.number().int().min(1).max(10_000_000);
/** One attachment of a prompt, as the webview sends it (validated; paths are absolute). */
export const ContextItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: z.string().min(1).max(4096) }),
  z.object({ kind: z.literal('selection'), path: z.string().min(1).max(4096), startLine: line, endLine: line, text: z.string().max(MAX_ATTACHED_TEXT) }),
  z.object({ kind: z.literal('symbol'), path: z.string().min(1).max(4096), name: z.string().min(1).max(500), startLine: line, endLine: line }),
  z.object({ kind: z.literal('diagnostics'), path: z.string().max(4096).optional(), count: z.number().int().min(0), text: z.string().max(MAX_ATTACHED_TEXT) }),
  z.object({ kind: z.literal('image'), name: z.string().max(500), mimeType: z.enum(IMAGE_TYPES), data: z.string().min(4).max(MAX_IMAGE_BASE64).regex(/^[A-Za-z0-9+/=]*$/) }),
]);
export type ContextItem = z.infer<typeof ContextItemSchema>;

/** What the builder needs from the editor. */
export interface ContextPort {
  /**
   * `file` (absolute) with its symlinks resolved, when that lies inside a workspace folder.
   * @throws Error naming the path when it does not (a symlink out of the workspace included).
   */
  contained(file: string): Promise<string>;
  /**
   * The text of `file` (the open document's, unsaved changes included), or undefined when it is
   * larger than `maxChars`, not text, or unreadable (it is then sent as a link).
   */
  readText(file: string, maxChars: number): Promise<string | undefined>;
  /** `file` relative to its workspace folder, for labels. */
  relative(file: string): string;
}

/** A short name for an item (chips in the composer, the prompt's line in the thread). */
export function contextLabel(item: ContextItem, relative: (p: string) => string): string {
  switch (item.kind) {
    case 'file':
      return relative(item.path);
    case 'selection':
      return `${relative(item.path)}:${item.startLine}${item.endLine !== item.startLine ? `-${item.endLine}` : ''}`;
    case 'symbol':
      return `${item.name} (${relative(item.path)}:${item.startLine})`;
    case 'diagnostics':
      return `${item.count} problem${item.count === 1 ? '' : 's'}${item.path ? ` in ${relative(item.path)}` : ''}`;
    case 'image':
      return item.name || 'image';
  }
}

/**
 * The content blocks for `items`, in order, and their labels.
 * @throws Error (shown to the person; nothing is sent) when a path lies outside the workspace, a
 *   file cannot be read, or an image goes to an agent that takes none.
 */
export async function buildPromptContext(items: readonly ContextItem[], caps: PromptCapabilitiesView | undefined, port: ContextPort): Promise<{ blocks: ContentBlock[]; labels: string[] }> {
  const blocks: ContentBlock[] = [];
  const labels: string[] = [];
  for (const raw of items) {
    const item = { ...raw };
    if (item.kind !== 'image' && item.path !== undefined) {
      if (!path.isAbsolute(item.path)) throw new Error(`${item.path} is outside the workspace; only workspace files can be attached to a prompt.`);
      // Symlinks are followed before the check: a link inside the workspace may point anywhere.
      try {
        item.path = await port.contained(item.path);
      } catch {
        throw new Error(`${item.path} is outside the workspace; only workspace files can be attached to a prompt.`);
      }
    }
    const label = contextLabel(item, port.relative);
    labels.push(label);
    switch (item.kind) {
      case 'file': {
        const uri = pathToFileURL(item.path).href;
        // Too large, binary or unreadable: the agent gets a link and can read it itself.
        const text = caps?.embeddedContext ? await port.readText(item.path, MAX_EMBEDDED_CHARS) : undefined;
        if (text !== undefined) blocks.push({ type: 'resource', resource: { uri, text } });
        else blocks.push({ type: 'resource_link', uri, name: path.basename(item.path) });
        break;
      }
      case 'selection': {
        const uri = `${pathToFileURL(item.path).href}#L${item.startLine}-${item.endLine}`;
        if (caps?.embeddedContext) blocks.push({ type: 'resource', resource: { uri, text: item.text } });
        else blocks.push({ type: 'text', text: `${label}:\n${fence(item.text)}` });
        break;
      }
      case 'symbol':
        blocks.push({ type: 'resource_link', uri: `${pathToFileURL(item.path).href}#L${item.startLine}-${item.endLine}`, name: item.name, description: `symbol in ${port.relative(item.path)}, lines ${item.startLine}–${item.endLine}` });
        break;
      case 'diagnostics':
        blocks.push({ type: 'text', text: item.text });
        break;
      case 'image':
        if (!caps?.image) throw new Error('This agent does not take images in prompts (its promptCapabilities.image is not set); remove the image to send.');
        blocks.push({ type: 'image', mimeType: item.mimeType, data: item.data });
        break;
    }
  }
  return { blocks, labels };
}

/** A Markdown code fence long enough for `text` (which may itself hold backticks). */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${text}\n${f}`;
}

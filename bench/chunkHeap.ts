/**
 * PF3 chunkHeap: the heap a streamed message costs. 1,000,000 ten-byte chunks are reduced into one
 * message; the heap's growth (after collections) ÷ the text's size (goal ≤ 3). Needs `--expose-gc`.
 *
 * Run as a script it prints the figure as JSON, so `npm run bench` can also measure it under Node 24,
 * VS Code's extension host (`underNode24`): V8 there no longer flattens a rope on `charCodeAt(0)`,
 * which under Node 20 hid that the message was kept at 6 bytes a character.
 */
import { reduce } from '../src/acp/session/reducer';
import { createSessionState } from '../src/acp/session/types';

/** The figure: `ratio` is heap growth ÷ text size; sizes in MB. */
export function chunkHeap(): { ratio: number; heapGrowthMB: number; textMB: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('PF3 needs node --expose-gc (npm run bench passes it)');
  const s = createSessionState({ key: 'k', agentId: 'a', agentName: 'A', cwd: '/' });
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 1_000_000; i++) reduce(s, { type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${String(i).padStart(9, '0')}\n` } } });
  gc();
  const growth = process.memoryUsage().heapUsed - before;
  const text = (s.entries[0] as { text: string }).text;
  // The text as it sits in memory: one byte per character for these (Latin-1) strings.
  const bytes = text.length;
  return { ratio: growth / bytes, heapGrowthMB: growth / 1e6, textMB: bytes / 1e6 };
}

if (require.main === module) process.stdout.write(JSON.stringify(chunkHeap()));

/**
 * The `disk-writer` scenario: an agent that changes files on disk itself, the way claude-agent-acp
 * (since 0.18) and codex-acp do, never calling `fs/write_text_file`. Each change is announced as a
 * tool call (kind `edit`, `delete` or `move`, with the files in `locations` and a `diff` of an edit), then performed
 * with Node's `fs`, then reported `completed`.
 *
 * The prompt is the script: JSON `{"edits": [{"path": "a.txt", "content": "…"} | {"path": "b.txt",
 * "delete": true}]}` with paths relative to the session folder. An edit with `"via": "client"` goes
 * through the client instead (`fs/read_text_file` then `fs/write_text_file`), so one turn can mix
 * both kinds of agent. `"from": "old.txt"` moves that file to `path` (a `move` call naming both,
 * then the content written at the new path); `"encoding": "utf16le"` writes the content as UTF-16LE
 * with a BOM, as an editor saves such a file. `"truncateFirst": true` empties the file before the call is announced;
 * `"announceAfterMs": n` waits that long between emptying it and announcing the call, as an agent
 * does whose announcement reaches the client long after it began writing (the trial of issue 18
 * saw seconds).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StopReason } from '@agentclientprotocol/sdk';
import type { DemoTurn } from './turn';

interface DiskEdit {
  path: string;
  content?: string;
  delete?: boolean;
  via?: 'disk' | 'client';
  /** Move this file (relative to the session folder) to `path`, then write the content there. */
  from?: string;
  /** Write the content in this encoding (with its BOM) rather than UTF-8. */
  encoding?: 'utf16le';
  /**
   * Empty the file before announcing the call, as an agent does that is already writing when its
   * announcement arrives (the snapshot then catches the file half-written).
   */
  truncateFirst?: boolean;
  /** With `truncateFirst`: ms between emptying the file and announcing the call. */
  announceAfterMs?: number;
}

const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

/**
 * A file's text as an editor decodes it, which is what an agent shows it replaces: UTF-16LE after
 * its BOM, UTF-8 without its BOM. (Not edits/encoding.ts: this script stays a small bundle.)
 */
function textOf(bytes: Buffer): string {
  if (bytes.subarray(0, 2).equals(UTF16LE_BOM)) return bytes.subarray(2).toString('utf16le');
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Runs the prompt's edits one by one; returns `end_turn`. */
export async function diskWriterTurn(turn: DemoTurn): Promise<StopReason> {
  let edits: DiskEdit[];
  try {
    edits = (JSON.parse(turn.promptText()) as { edits: DiskEdit[] }).edits;
    if (!Array.isArray(edits)) throw new Error('no "edits" array');
  } catch (err) {
    await turn.say([`The disk-writer script needs a JSON prompt {"edits": [...]}: ${(err as Error).message}`], 0);
    return 'end_turn';
  }
  const done: string[] = [];
  for (const [i, e] of edits.entries()) {
    const file = turn.resolve(e.path);
    const from = e.from === undefined ? undefined : turn.resolve(e.from);
    const client = e.via === 'client';
    const oldText = client ? await turn.readTextFile(file) : fs.existsSync(from ?? file) ? textOf(fs.readFileSync(from ?? file)) : null;
    const toolCallId = turn.toolCallId(`disk-${i}`);
    if (e.truncateFirst && !client) {
      fs.writeFileSync(file, '');
      if (e.announceAfterMs) await turn.sleep(e.announceAfterMs);
    }
    const kind = e.delete ? 'delete' : from ? 'move' : 'edit';
    await turn.update({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: from ? `Move ${e.from} to ${e.path}` : `${e.delete ? 'Delete' : oldText === null ? 'Create' : 'Edit'} ${e.path}`,
      kind,
      status: 'pending',
      locations: from ? [{ path: from }, { path: file }] : [{ path: file }],
      // A move names both paths; what it writes at the new one is not a diff of that (missing) file.
      content: e.delete || from ? [] : [{ type: 'diff', path: file, oldText, newText: e.content ?? '' }],
      rawInput: from ? { source_path: from, destination_path: file } : { file_path: file },
    });
    await turn.toolUpdate({ toolCallId, status: 'in_progress' });
    // Real agents take a moment between announcing a tool and running it (hooks, permission checks).
    await turn.sleep(turn.options.delayMs);
    if (client) {
      const r = await turn.writeTextFile(file, e.content ?? '');
      await turn.toolUpdate({ toolCallId, status: r.ok ? 'completed' : 'failed' });
      done.push(`${kind} ${e.path} through the client${r.ok ? '' : ` (refused: ${r.message})`}`);
      continue;
    }
    if (e.delete) fs.rmSync(file, { force: true });
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (from) fs.renameSync(from, file);
      fs.writeFileSync(file, e.encoding === 'utf16le' ? Buffer.concat([UTF16LE_BOM, Buffer.from(e.content ?? '', 'utf16le')]) : (e.content ?? ''));
    }
    await turn.toolUpdate({ toolCallId, status: 'completed' });
    done.push(`${kind} ${e.path}`);
  }
  await turn.say([`Done: ${done.join(', ')}.`], 0);
  return 'end_turn';
}

/**
 * Terminals an agent runs itself and shows in its tool calls (codex-acp 2.x always; claude-agent-acp
 * when a client declares `_meta.terminal_output`): the tool call embeds `{type:"terminal",
 * terminalId}` for a terminal the client never created, and carries its life in `_meta` —
 * `terminal_info {terminal_id, cwd?}` when it starts, `terminal_output_delta` or `terminal_output`
 * `{terminal_id, data}` as output arrives (each a piece to append), `terminal_exit {terminal_id,
 * exit_code, signal}` when it ends. Read here into the session's one terminal record, marked as the
 * agent's, so the card shows its output and exit as they come.
 *
 * An agent never writes into a terminal the client runs: an id that names one of ours is ignored.
 * The output kept is the tail, bounded. Pure.
 */
import * as z from 'zod';
import type { SessionState, TerminalView } from './types';

/** Characters of an agent terminal's output kept (its tail); the card says when earlier output was dropped. */
export const AGENT_TERMINAL_MAX_CHARS = 1_000_000;

const Id = z.string().min(1).max(200);
const Piece = z.object({ terminal_id: Id, data: z.string() });
const TerminalMeta = z.object({
  terminal_info: z.object({ terminal_id: Id, cwd: z.string().max(4096).optional() }).optional().catch(undefined),
  terminal_output_delta: Piece.optional().catch(undefined),
  terminal_output: Piece.optional().catch(undefined),
  terminal_exit: z.object({ terminal_id: Id, exit_code: z.number().int().nullable().optional(), signal: z.string().max(100).nullable().optional() }).optional().catch(undefined),
});

/** What of a tool call the terminal record reads: the call as merged with this update. */
export interface ToolCallTerminalView {
  rawInput?: unknown;
  title?: string;
  content?: readonly { type: string; terminalId?: string }[];
}

/**
 * The agent terminals an update starts, feeds or ends (from its `_meta`), or names the command of
 * (the agent's input filled in after the call started, as claude-agent-acp does), as they are
 * after it; each starts from what `state` holds of it. `call` is the tool call with the update merged.
 */
export function agentTerminalUpdates(state: Pick<SessionState, 'terminals' | 'cwd'>, meta: unknown, call: ToolCallTerminalView): TerminalView[] {
  const out = new Map<string, TerminalView>();
  const command = commandOf(call.rawInput);
  if (command !== undefined) {
    for (const c of call.content ?? []) {
      const t = c.type === 'terminal' && c.terminalId ? state.terminals[c.terminalId] : undefined;
      if (t?.owner === 'agent' && t.commandLine !== command) out.set(t.terminalId, { ...t, commandLine: command });
    }
  }
  const parsed = meta && typeof meta === 'object' ? TerminalMeta.safeParse(meta) : undefined;
  if (!parsed?.success) return [...out.values()];
  const m = parsed.data;
  const take = (id: string): TerminalView | undefined => {
    const had = out.get(id) ?? state.terminals[id];
    // One of the client's own terminals: not the agent's to write into.
    if (had && had.owner !== 'agent') return undefined;
    const t = had ? { ...had } : fresh(state, call, id, m.terminal_info?.terminal_id === id ? m.terminal_info.cwd : undefined);
    out.set(id, t);
    return t;
  };
  if (m.terminal_info) take(m.terminal_info.terminal_id);
  for (const piece of [m.terminal_output_delta, m.terminal_output]) {
    if (!piece || !piece.data) continue;
    const t = take(piece.terminal_id);
    if (!t) continue;
    const all = t.output + piece.data;
    const cut = all.length > AGENT_TERMINAL_MAX_CHARS;
    t.output = cut ? all.slice(all.length - AGENT_TERMINAL_MAX_CHARS) : all;
    t.truncated = t.truncated || cut;
  }
  if (m.terminal_exit) {
    const t = take(m.terminal_exit.terminal_id);
    if (t) t.exitStatus = { exitCode: m.terminal_exit.exit_code ?? null, signal: m.terminal_exit.signal ?? null };
  }
  return [...out.values()];
}

/** A new agent terminal: its command from the call's input (or its title), its folder as the agent said. */
function fresh(state: Pick<SessionState, 'cwd'>, u: ToolCallTerminalView, terminalId: string, cwd: string | undefined): TerminalView {
  const raw = u.rawInput && typeof u.rawInput === 'object' ? (u.rawInput as Record<string, unknown>) : {};
  const rawCwd = typeof raw.cwd === 'string' ? raw.cwd : undefined;
  return { terminalId, commandLine: commandOf(u.rawInput) ?? (u.title ?? '').slice(0, 10_000), cwd: cwd ?? rawCwd ?? state.cwd, output: '', truncated: false, owner: 'agent' };
}

/** The command an agent's input names (`command`: a line, or a list of words), bounded. */
function commandOf(rawInput: unknown): string | undefined {
  const raw = rawInput && typeof rawInput === 'object' ? (rawInput as Record<string, unknown>) : {};
  const c = typeof raw.command === 'string' ? raw.command : Array.isArray(raw.command) && raw.command.every((x) => typeof x === 'string') ? raw.command.join(' ') : undefined;
  return c === undefined ? undefined : c.slice(0, 10_000);
}

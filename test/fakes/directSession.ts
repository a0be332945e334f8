/**
 * A SessionController driven directly through its SessionHandlers (no ACP connection): the test
 * plays the agent by calling `requestPermission`, `writeTextFile`, `createTerminal` and `onUpdate`,
 * and the person by calling `answerPermission`. Files and terminals are fakes that record every
 * effect performed, so a test can compare what ran with what was approved.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { SessionController, type FileSystemPort, type TerminalsPort } from '../../src/acp/sessionController';
import type { SessionState } from '../../src/acp/session/types';
import type { EffectPolicy } from '../../src/policy/effectPolicy';

/** An effect the fakes performed. */
export type Performed = { type: 'write'; path: string; content: string } | { type: 'command'; command: string; args: string[]; cwd?: string; env: string[] };

/** Files that only record writes (reads return empty text). */
export class RecordingFiles implements FileSystemPort {
  readonly texts = new Map<string, string>();
  constructor(private readonly performed: Performed[]) {}
  async read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    return { content: this.texts.get(params.path) ?? '' };
  }
  async write(params: acp.WriteTextFileRequest): Promise<void> {
    this.texts.set(params.path, params.content);
    this.performed.push({ type: 'write', path: params.path, content: params.content });
  }
  turnStarted(): void {}
}

/** Terminals that only record what was started. */
export class RecordingTerminals implements TerminalsPort {
  private n = 0;
  constructor(private readonly performed: Performed[]) {}
  async create(params: acp.CreateTerminalRequest): Promise<string> {
    this.performed.push({ type: 'command', command: params.command, args: params.args ?? [], cwd: params.cwd ?? undefined, env: (params.env ?? []).map((e) => e.name) });
    return `t${++this.n}`;
  }
  output(): acp.TerminalOutputResponse {
    return { output: '', truncated: false };
  }
  async waitForExit(): Promise<acp.WaitForTerminalExitResponse> {
    return { exitCode: 0 };
  }
  async kill(): Promise<void> {}
  async release(): Promise<void> {}
  async disposeAll(): Promise<void> {}
  onDidChange(): { dispose(): void } {
    return { dispose() {} };
  }
}

/** A controller with recording fakes; `performed` lists every effect in order. */
export function directSession(policy: EffectPolicy, opts: { key?: string; cwd?: string; restored?: SessionState } = {}) {
  const performed: Performed[] = [];
  const files = new RecordingFiles(performed);
  const terminals = new RecordingTerminals(performed);
  const c = new SessionController({ key: opts.key ?? 'k', agentId: 'scripted', agentName: 'Scripted', cwd: opts.cwd ?? '/w' }, files, terminals, policy, Date.now, opts.restored);
  return { c, files, terminals, performed };
}

/**
 * Lets the controller finish what it started: it declares intents asynchronously (resolving paths
 * on disk), so this waits until nothing has changed for a few turns of the event loop.
 */
export async function settle(c?: SessionController, quiet = 3): Promise<void> {
  let rev = c?.state.rev;
  for (let same = 0, i = 0; same < quiet && i < 500; i++) {
    await new Promise((r) => setTimeout(r, 1));
    same = c && c.state.rev !== rev ? 0 : same + 1;
    rev = c?.state.rev;
  }
}

/** The id of the newest waiting permission request of `c`, if any. */
export function waitingId(c: SessionController): string | undefined {
  return Object.values(c.state.permissions).filter((p) => p.state === 'waiting').at(-1)?.permissionId;
}

/** Waits until request `n` (counted from 1 over the session's life) has been shown or answered. @throws after 5 s. */
export async function requestShown(c: SessionController, n: number): Promise<string> {
  for (let i = 0; i < 5000; i++) {
    const all = Object.values(c.state.permissions);
    if (all.length >= n) return all[n - 1].permissionId;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`permission request ${n} never appeared`);
}

/**
 * Adapts the terminals room (`src/terminals`) to one session's {@link TerminalsPort}: supplies the
 * session cwd and the person's environment, and maps unknown terminal ids to ACP's
 * resource-not-found error (-32002). No `vscode`.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from './sdk';
import { TerminalManager, TerminalNotFoundError, type TerminalManagerOptions } from '../terminals';
import type { TerminalView } from './session/types';
import type { TerminalsPort } from './sessionController';
import type { SpawnPlan } from '../terminals/command';
import type { SandboxProfile } from '../sandbox/profile';

/** The terminals of one session. */
export class SessionTerminals implements TerminalsPort {
  readonly manager: TerminalManager;
  private readonly sandboxed = new Map<string, { params: acp.CreateTerminalRequest; profile: SandboxProfile }>();
  /** Blocked hosts of terminals already released (the agent releases right after reading the output). */
  private readonly blocked = new Map<string, string[]>();

  constructor(
    private readonly cwd: string,
    private readonly baseEnv: () => NodeJS.ProcessEnv,
    options?: TerminalManagerOptions,
    /** Runs a plan inside a sandbox profile (issue 21); absent: a sandboxed command cannot run here. */
    private readonly sandboxWrap?: (profile: SandboxProfile) => (plan: SpawnPlan) => Promise<SpawnPlan>,
  ) {
    this.manager = new TerminalManager(options);
  }

  async create(params: acp.CreateTerminalRequest, sandbox?: SandboxProfile): Promise<string> {
    const wrap = sandbox
      ? (this.sandboxWrap?.(sandbox) ?? (() => Promise.reject(new Error('this window has no sandbox to run it in'))))
      : undefined;
    const id = await this.manager.create(params, { defaultCwd: this.cwd, baseEnv: this.baseEnv(), ...(wrap ? { wrap } : {}) });
    if (sandbox) {
      this.sandboxed.set(id, { params, profile: sandbox });
      if (this.sandboxed.size > 200) this.sandboxed.delete(this.sandboxed.keys().next().value!);
    }
    return id;
  }

  /** A sandboxed command as it was started (its request and profile), to run it again with a host allowed; undefined for others. */
  launched(terminalId: string): { params: acp.CreateTerminalRequest; profile: SandboxProfile } | undefined {
    return this.sandboxed.get(terminalId);
  }

  /** Hosts the sandbox refused terminal `terminalId`, from its own record. */
  blockedHosts(terminalId: string): string[] {
    try {
      return this.manager.snapshot(terminalId).sandboxBlocked ?? [];
    } catch {
      return this.blocked.get(terminalId) ?? [];
    }
  }

  output(terminalId: string): acp.TerminalOutputResponse {
    return mapNotFound(() => this.manager.output(terminalId));
  }

  waitForExit(terminalId: string, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    return mapNotFoundAsync(() => this.manager.waitForExit(terminalId, signal));
  }

  kill(terminalId: string): Promise<void> {
    return mapNotFoundAsync(() => this.manager.kill(terminalId));
  }

  release(terminalId: string): Promise<void> {
    return mapNotFoundAsync(() => this.manager.release(terminalId));
  }

  disposeAll(): Promise<void> {
    return this.manager.disposeAll();
  }

  onDidChange(listener: (t: TerminalView) => void): { dispose(): void } {
    return this.manager.onDidChange((s) => {
      if (s.sandboxBlocked) {
        this.blocked.set(s.terminalId, s.sandboxBlocked);
        if (this.blocked.size > 200) this.blocked.delete(this.blocked.keys().next().value!);
      }
      listener({ terminalId: s.terminalId, commandLine: s.commandLine, cwd: s.cwd, output: tail(s.output), truncated: s.truncated || s.output.length > VIEW_TAIL, exitStatus: s.exitStatus, ...(s.sandboxBlocked ? { sandboxBlocked: s.sandboxBlocked } : {}), ...(s.sandboxHeldBack !== undefined ? { sandboxHeldBack: s.sandboxHeldBack } : {}) });
    });
  }
}

/** The sidebar shows the last 64 KiB of a terminal; the full retained output stays in the manager. */
const VIEW_TAIL = 64 * 1024;
function tail(s: string): string {
  return s.length > VIEW_TAIL ? s.slice(-VIEW_TAIL) : s;
}

function mapNotFound<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TerminalNotFoundError) throw acpSdk().RequestError.resourceNotFound(err.terminalId);
    throw err;
  }
}

async function mapNotFoundAsync<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof TerminalNotFoundError) throw acpSdk().RequestError.resourceNotFound(err.terminalId);
    throw err;
  }
}

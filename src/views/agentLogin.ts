/**
 * *Log In to Agent…*: the agent's `authMethods` (ACP v1 `initialize`) offered to the person. A
 * terminal method runs the agent's own command with the method's arguments in a VS Code terminal,
 * where the person completes the login; any other method is sent as `authenticate` and the agent
 * logs itself in. Afterwards a new session starts normally.
 * Spec: https://agentclientprotocol.com/protocol/initialization#authentication
 */
import * as vscode from 'vscode';
import { registerGuardedCommand } from './guardedCommands';
import type { AuthChoice, AuthPort, SessionManager } from '../acp/sessionManager';
import { inert, text } from '../common/untrustedText';
import { redactSecrets } from '../policy/redact';

/** Owns the login command. */
export class AgentLogin implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly manager: SessionManager,
    private readonly agents: () => { id: string; name: string; available: boolean }[],
    private readonly log: (m: string) => void,
  ) {
    this.disposables.push(
      registerGuardedCommand('agentSwitchboard.logIn', async (agentId?: unknown, methodId?: unknown) => {
        try {
          return await this.logIn(typeof agentId === 'string' ? agentId : undefined, typeof methodId === 'string' ? methodId : undefined);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          void vscode.window.showErrorMessage(text`The login did not happen: ${message}`);
          return { error: message };
        }
      }),
      registerGuardedCommand('agentSwitchboard.logOut', async (agentId?: unknown) => {
        try {
          return await this.logOut(typeof agentId === 'string' ? agentId : undefined);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          void vscode.window.showErrorMessage(text`The agent was not logged out: ${message}`);
          return { error: message };
        }
      }),
    );
  }

  /**
   * Logs `agentId` out (`logout`, offered when the agent declares `agentCapabilities.auth.logout`;
   * asked for when not given). @returns the agent logged out, or undefined when cancelled.
   * @throws Error when the workspace is untrusted, no folder is open, the agent does not offer
   *   logging out, or it refuses.
   */
  async logOut(agentId?: string): Promise<{ agentId: string } | undefined> {
    if (!vscode.workspace.isTrusted) throw new Error('Agents do not run in an untrusted workspace; trust it first.');
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!cwd) throw new Error('Open a folder first: the agent starts in it to log out.');
    let id = agentId;
    if (!id) {
      const pick = await vscode.window.showQuickPick(this.agents().filter((a) => a.available).map((a) => ({ label: inert(a.name, { max: 120 }), description: inert(a.id), id: a.id })), { title: 'Log out of an agent' });
      id = pick?.id;
    }
    if (!id) return undefined;
    const agentId_ = id;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text`Logging out` }, () => this.manager.logout(agentId_, cwd));
    this.log(`Logged out of ${id} (logout).`);
    void vscode.window.showInformationMessage(text`Logged out. Its running sessions may stop working until you log in again.`);
    return { agentId: id };
  }

  /**
   * Logs `agentId` in with `methodId` (both asked for when not given).
   * @returns how it ran (`terminal`: the terminal it opened runs the login) or undefined when cancelled.
   * @throws Error when the workspace is untrusted, no folder is open, the agent offers no such
   *   method, or the agent refuses `authenticate`.
   */
  async logIn(agentId?: string, methodId?: string): Promise<{ agentId: string; methodId: string; ran: 'terminal' | 'agent'; terminal?: vscode.Terminal } | undefined> {
    if (!vscode.workspace.isTrusted) throw new Error('Agents do not run in an untrusted workspace; trust it first.');
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!cwd) throw new Error('Open a folder first: the agent starts in it to list its login methods.');
    let id = agentId;
    if (!id) {
      const pick = await vscode.window.showQuickPick(this.agents().filter((a) => a.available).map((a) => ({ label: inert(a.name, { max: 120 }), description: inert(a.id), id: a.id })), { title: 'Log in to an agent' });
      id = pick?.id;
    }
    if (!id) return undefined;
    const methods = await this.manager.authMethods(id, cwd);
    if (!methods.length) throw new Error('This agent declares no login methods (authMethods is empty): it needs none, or is configured outside the editor.');
    let method = methodId ? methods.find((m) => m.id === methodId) : undefined;
    if (methodId && !method) throw new Error(`The agent offers no login method "${methodId}"; it offers: ${methods.map((m) => m.id).join(', ')}.`);
    if (!method) {
      const pick = await vscode.window.showQuickPick(
        methods.map((m) => ({ label: inert(m.name, { max: 120 }), description: m.terminal ? 'in a terminal' : 'the agent logs in', detail: methodDetail(m), method: m })),
        { title: 'How should the agent log in?' },
      );
      method = pick?.method;
    }
    if (!method) return undefined;
    if (method.terminal) {
      const t = method.terminal;
      const terminal = this.openLoginTerminal({ ...method, terminal: t }, cwd);
      // A login command line can carry a token (`--api-key …`): the log gets it redacted.
      this.log(`Login for ${id} runs in a terminal: ${redactSecrets([t.command, ...t.args].join(' '))}`);
      return { agentId: id, methodId: method.id, ran: 'terminal', terminal };
    }
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text`Logging in (${method.name})` }, () => this.manager.authenticate(id, cwd, method.id));
    void vscode.window.showInformationMessage(text`${method.name}: done. Start a new session with the agent.`);
    return { agentId: id, methodId: method.id, ran: 'agent' };
  }

  /**
   * The login offered when a session the person starts answers "authentication required": their
   * pick of the agent's methods, and a terminal method run in a VS Code terminal until its process
   * ends (or the person closes the terminal).
   */
  authPort(): AuthPort {
    return {
      choose: async (agent, methods) => {
        const pick = await vscode.window.showQuickPick(
          methods.map((m) => ({ label: inert(m.name, { max: 120 }), description: m.terminal ? 'in a terminal' : 'the agent logs in', detail: methodDetail(m), method: m })),
          { title: text`${agent.name} needs a login before it starts a session`, placeHolder: 'How should the agent log in?', ignoreFocusOut: true },
        );
        return pick?.method;
      },
      runTerminal: (agent, method, cwd) => {
        const terminal = this.openLoginTerminal(method, cwd);
        this.log(`Login for ${agent.id} runs in a terminal: ${redactSecrets([method.terminal.command, ...method.terminal.args].join(' '))}`);
        return new Promise<void>((resolve) => {
          const done = () => {
            clearInterval(poll);
            closed.dispose();
            resolve();
          };
          // The process ending is the login's end; a terminal the person closes ends it too.
          const poll = setInterval(() => terminal.exitStatus && done(), 500);
          const closed = vscode.window.onDidCloseTerminal((t) => t === terminal && done());
        });
      },
    };
  }

  private openLoginTerminal(method: AuthChoice & { terminal: NonNullable<AuthChoice['terminal']> }, cwd: string): vscode.Terminal {
    const t = method.terminal;
    const env: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(t.env)) if (v !== undefined) env[k] = v;
    const terminal = vscode.window.createTerminal({ name: text`Log in: ${method.name}`, shellPath: t.command, shellArgs: t.args, cwd, env, strictEnv: true });
    terminal.show();
    return terminal;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/**
 * A method's line in the picker: its description and, for a terminal login, the whole command it
 * runs (an agent may name it: the person sees what they choose to run; secrets redacted).
 */
function methodDetail(m: AuthChoice): string | undefined {
  const runs = m.terminal ? `Runs: ${redactSecrets([m.terminal.command, ...m.terminal.args].join(' '))}` : undefined;
  const parts = [m.description ? inert(m.description) : undefined, runs ? inert(runs, { max: 2000 }) : undefined].filter(Boolean);
  return parts.length ? parts.join(' — ') : undefined;
}

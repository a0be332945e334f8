/**
 * Session history in the editor: the Sessions view and its commands (show a session or its
 * transcript, open it in an editor tab, take it up again, close it, delete it from the history, ask
 * the agent for its own list), and the sessions of the last window shown again at start-up.
 * One owner for the feature; the journal and the manager stay vscode-free.
 */
import * as vscode from 'vscode';
import { registerCommand, registerTreeDataProvider } from '../activation/vscodeRegistry';
import { registerGuardedCommand } from './guardedCommands';
import type { SessionManager } from '../acp/sessionManager';
import type { SessionJournal } from '../acp/session/journal';
import { SessionsNodeSchema, SessionsTree, type BoardSource, type SessionsNode } from './sessionsTree';
import type { SessionPanels } from './session/panels';
import type { SessionViewProvider } from './session/provider';
import { errorText, text } from '../common/untrustedText';
import type { AgentAvailability } from '../config/agentProblems';

/** What the sessions feature needs from the app. */
export interface SessionsHost {
  manager: SessionManager;
  journal: SessionJournal;
  view: SessionViewProvider;
  panels: SessionPanels;
  /** Every configured agent, with whether it can start (`AgentAvailability`). */
  agents(): (AgentAvailability & { id: string })[];
  /** Closes a session the way the person does (tokens revoked, trace saved). */
  closeSession(key: string): Promise<void>;
  /** The folder new and listed sessions work in. */
  cwd(): string | undefined;
  /** True when `folder` is (inside) a workspace folder. */
  within(folder: string): boolean;
  /** What the board shows beside each session (changes, worktrees). */
  board?: BoardSource;
  log(message: string): void;
}

/** How many of the last window's open sessions are shown again at start-up. */
const RESTORE_AT_START = 5;

/** Owns the Sessions view and its commands. */
export class SessionsCenter implements vscode.Disposable {
  readonly tree: SessionsTree;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: SessionsHost) {
    this.tree = new SessionsTree(host.manager, host.journal, host.agents, host.board);
    const node = (raw: unknown): SessionsNode => {
      const parsed = SessionsNodeSchema.safeParse(typeof raw === 'string' ? { kind: 'live', key: raw } : raw);
      if (!parsed.success) throw new Error('Pick a session in the Sessions view first.');
      return parsed.data;
    };
    // Opening a session only shows it and may take a key; the commands that start an agent, close
    // or delete take only a node of the view (or the API's runCommand), never a link's JSON.
    const command = (id: string, run: (n: SessionsNode) => Promise<unknown>, guarded = true) => {
      const handler = async (raw: unknown) => {
        try {
          return await run(node(raw));
        } catch (err) {
          void vscode.window.showErrorMessage(text`${errorText(err)}`);
          return undefined;
        }
      };
      return guarded ? registerGuardedCommand(id, (raw) => handler(raw), { nodes: true }) : registerCommand(id, handler);
    };
    this.disposables.push(
      this.tree,
      registerTreeDataProvider('agentSwitchboard.sessions', this.tree),
      command('agentSwitchboard.sessions.open', async (n) => {
        const key = this.listedKey(n);
        await host.view.show(key);
        return key;
      }, false),
      command('agentSwitchboard.sessions.openInTab', async (n) => {
        const key = this.listedKey(n);
        host.panels.show(key);
        return key;
      }, false),
      command('agentSwitchboard.sessions.resume', (n) => this.resume(n)),
      command('agentSwitchboard.sessions.close', async (n) => {
        if (n.kind === 'live') await host.closeSession(n.key);
      }),
      command('agentSwitchboard.sessions.delete', (n) => this.delete(n)),
      command('agentSwitchboard.sessions.listFromAgent', (n) => this.listFromAgent(n)),
      registerCommand('agentSwitchboard.sessions.refresh', () => this.tree.refresh()),
    );
  }

  /** Shows the sessions the last window had open (not closed by the person), read-only. */
  restoreOpen(): number {
    let n = 0;
    for (const e of this.host.journal.list().filter((x) => x.open).slice(0, RESTORE_AT_START).reverse()) {
      try {
        this.host.manager.restore(e.journalId);
        n++;
      } catch (err) {
        this.host.log(`The session "${e.title ?? e.journalId}" could not be restored: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return n;
  }

  /** The key of the session a node stands for, restoring a past one read-only. */
  private listedKey(n: SessionsNode): string {
    if (n.kind === 'live') {
      if (!this.host.manager.get(n.key)) throw new Error('That session is no longer open.');
      return n.key;
    }
    if (n.kind === 'past') return this.host.manager.restore(n.journalId).state.key;
    throw new Error('Load that session first: only the agent has its transcript.');
  }

  /**
   * Takes a session up again in a new agent process (resume, else load) and shows it; its tab, if
   * it had one, follows. @returns the new session key.
   */
  async resume(n: SessionsNode): Promise<string> {
    const { manager } = this.host;
    // Taking a session up starts its agent: the same rule as starting one.
    if (!vscode.workspace.isTrusted) throw new Error('Agent Switchboard starts agents only in a trusted workspace; trust it to resume sessions. Transcripts stay readable.');
    let target: Parameters<SessionManager['takeUp']>[0];
    if (n.kind === 'live') {
      const journalId = manager.journalIdOf(n.key);
      const s = manager.get(n.key)?.state;
      if (journalId) target = { journalId };
      else if (s?.sessionId) target = { agentId: s.agentId, sessionId: s.sessionId, cwd: s.cwd };
      else throw new Error('That session never got a session id from its agent, so it cannot be taken up.');
    } else if (n.kind === 'past') target = { journalId: n.journalId };
    else if (n.kind === 'listed') {
      // The folder comes from the agent's answer: it must be one of ours.
      if (!this.host.within(n.cwd)) throw new Error(`That session belongs to ${n.cwd}, which is not a folder of this workspace; open that folder to resume it.`);
      target = { agentId: n.agentId, sessionId: n.sessionId, cwd: n.cwd, title: n.title };
    } else throw new Error('Pick a session to resume.');
    let shown: string | undefined;
    const pending = manager.takeUp(target, (from, to) => {
      // The tab and the sidebar follow the session to its new key before the old copy goes.
      this.host.panels.retarget(from, to);
      shown = to;
    });
    // Show the session (status "starting") at once, so a failure shows where the person looks.
    const started = manager.list().at(-1)?.state.key;
    if (started) void this.host.view.show(shown ?? started);
    const controller = await pending;
    const key = controller.state.key;
    await this.host.view.show(key);
    return key;
  }

  /**
   * Deletes a session after the person confirms: our transcript (the journal) and, where the agent
   * offers `session/delete`, the agent's copy; a shown copy is closed first. The person is told
   * what the agent did. @returns the agent's part, or undefined when the person did not confirm.
   */
  private async delete(n: SessionsNode): Promise<unknown> {
    const { manager, journal } = this.host;
    let target: Parameters<SessionManager['deleteSession']>[0];
    let title: string | undefined;
    let agentName: string;
    if (n.kind === 'past' || n.kind === 'live') {
      const journalId = n.kind === 'past' ? n.journalId : manager.journalIdOf(n.key);
      const e = journalId ? journal.get(journalId) : undefined;
      const s = n.kind === 'live' ? manager.get(n.key)?.state : undefined;
      if (!journalId || !e) {
        // A session without a transcript of ours is the agent's alone: only the agent can delete it.
        if (!s?.sessionId) throw new Error('That session has no transcript here and no id at its agent: close it instead.');
        target = { agentId: s.agentId, sessionId: s.sessionId, cwd: s.cwd };
      } else target = { journalId };
      title = s?.title ?? e?.title;
      agentName = s?.agentName ?? e?.agentName ?? 'the agent';
    } else if (n.kind === 'listed') {
      if (!this.host.within(n.cwd)) throw new Error(`That session belongs to ${n.cwd}, which is not a folder of this workspace; open that folder to delete it.`);
      target = { agentId: n.agentId, sessionId: n.sessionId, cwd: n.cwd };
      title = n.title;
      agentName = this.host.agents().find((a) => a.id === n.agentId)?.name ?? n.agentId;
    } else throw new Error('Pick a session to delete.');
    // Asking the agent starts it: the same rule as starting one.
    const askAgent = vscode.workspace.isTrusted;
    const choice = askAgent
      ? await vscode.window.showWarningMessage(text`Delete "${title ?? 'this session'}"? Its transcript is removed from this machine, and ${agentName} is asked to delete its copy too (when it offers session/delete).`, { modal: true }, 'Delete')
      : await vscode.window.showWarningMessage(text`Delete "${title ?? 'this session'}" from this machine? The workspace is not trusted, so ${agentName} is not asked to delete its copy.`, { modal: true }, 'Delete');
    if (choice !== 'Delete') return undefined;
    if (!askAgent) {
      if ('journalId' in target) journal.delete(target.journalId);
      this.tree.refresh();
      return { agent: 'not-asked' };
    }
    const result = await vscode.window.withProgress({ location: { viewId: 'agentSwitchboard.sessions' }, title: text`Deleting the session` }, () => manager.deleteSession(target));
    if ('listed' === n.kind) this.tree.forgetListed(n.agentId, n.sessionId);
    this.tree.refresh();
    const a = result.agent;
    if (a === 'deleted') void vscode.window.showInformationMessage(text`The session was deleted here and by ${agentName}.`);
    else if (a === 'unsupported') void vscode.window.showInformationMessage(text`The transcript was deleted here. ${agentName} does not delete sessions (no session/delete), so it may still have its copy.`);
    else if (typeof a === 'object') void vscode.window.showWarningMessage(text`The transcript was deleted here, but ${agentName} did not delete its copy: ${a.failed}`);
    return result;
  }

  /** Asks the agent for its own list of sessions (`session/list`) and shows it under the agent. */
  private async listFromAgent(n: SessionsNode): Promise<unknown> {
    if (n.kind !== 'agent') return undefined;
    if (!vscode.workspace.isTrusted) throw new Error('Agent Switchboard starts agents only in a trusted workspace; trust it to ask an agent for its sessions.');
    const cwd = this.host.cwd();
    if (!cwd) throw new Error('Open a folder first: agents list the sessions of a folder.');
    const result = await vscode.window.withProgress({ location: { viewId: 'agentSwitchboard.sessions' }, title: text`Asking ${n.agentName} for its sessions` }, () =>
      this.host.manager.listAgentSessions(n.agentId, cwd),
    );
    this.tree.setListed(n.agentId, result.supported ? { sessions: result.sessions } : { note: `${n.agentName} does not list its sessions (no session/list).` });
    return result;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/**
 * The worktree commands (issue 20): start a session in a new worktree, and Apply to Main Folder,
 * Commit in Worktree, Discard for a worktree session. They act on no arguments (pickers), a node of
 * the Sessions view (a live session in a worktree, or a worktree whose session ended), or the API's
 * `runCommand` envelope: `{ worktreeId, message?, confirmed? }`; never on a link's JSON.
 */
import * as vscode from 'vscode';
import { errorText, inert, text } from '../common/untrustedText';
import { registerGuardedCommand } from './guardedCommands';
import type { SessionController } from '../acp/sessionController';
import type { WorktreeFrom } from '../worktrees/worktrees';
import type { WorktreeCenter } from './worktrees';

/** What the commands need from the app. */
export interface WorktreeCommandsHost {
  worktrees: WorktreeCenter;
  agents(): { id: string; name: string; available: boolean; demo?: boolean; reason?: string }[];
  startSession(agentId: string, cwd: string | undefined, interactive: boolean, worktree: WorktreeFrom): Promise<string>;
  session(key: string): SessionController | undefined;
  closeSession(key: string): Promise<void>;
  /** The session in view, if any. */
  current(): string | undefined;
  /** The folder new sessions work in. */
  cwd(): string | undefined;
}

const FROM: { from: WorktreeFrom; label: string; detail: string }[] = [
  { from: 'head', label: 'From HEAD', detail: 'The last commit, without your uncommitted changes' },
  { from: 'head+changes', label: 'From HEAD with my uncommitted changes', detail: 'The last commit plus your changes to tracked files (new untracked files stay out)' },
];

/** Registers the worktree commands. */
export function registerWorktreeCommands(host: WorktreeCommandsHost): vscode.Disposable[] {
  /** The worktree a call names: an API envelope's id, a view node, or the session in view. */
  const target = async (arg: unknown): Promise<string | undefined> => {
    if (arg && typeof arg === 'object') {
      const a = arg as { worktreeId?: unknown; kind?: unknown; key?: unknown; id?: unknown };
      if (typeof a.worktreeId === 'string') return a.worktreeId;
      if (a.kind === 'worktree' && typeof a.id === 'string') return a.id;
      if (a.kind === 'live' && typeof a.key === 'string') return host.session(a.key)?.state.worktree?.id;
    }
    const inView = host.current();
    const own = inView ? host.session(inView)?.state.worktree?.id : undefined;
    if (own) return own;
    const list = (await host.worktrees.worktrees()).list();
    if (!list.length) {
      void vscode.window.showInformationMessage(text`No session works in a worktree.`);
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(list.map((w) => ({ label: inert(w.branch, { max: 200 }), description: w.state, detail: inert(w.dir, { max: 400 }), id: w.id })), { placeHolder: 'Which worktree?' });
    return pick?.id;
  };
  const safely = <T>(run: () => Promise<T>, fallback: T) =>
    run().catch((err: unknown) => {
      void vscode.window.showErrorMessage(text`${errorText(err)}`);
      return fallback;
    });
  const opts = (arg: unknown): { message?: string; confirmed?: boolean } => (arg && typeof arg === 'object' ? (arg as { message?: string; confirmed?: boolean }) : {});
  return [
    registerGuardedCommand('agentSwitchboard.startSessionInWorktree', (agentId?: unknown, from?: unknown) =>
      safely(async () => {
        const cwd = host.cwd();
        if (!cwd) throw new Error('Open a folder first: a worktree is made of the folder\'s git repository.');
        const checked = await host.worktrees.check(cwd);
        if (!checked.ok) {
          void vscode.window.showWarningMessage(text`A session in a new worktree is not offered here: ${checked.reason}.`);
          return undefined;
        }
        let id = typeof agentId === 'string' ? agentId : undefined;
        if (!id) {
          const agents = host.agents().filter((a) => a.available);
          const pick = await vscode.window.showQuickPick(agents.map((a) => ({ label: inert(a.name, { max: 120 }), description: a.demo ? 'offline demo, no model' : inert(a.id), id: a.id })), { placeHolder: 'Start a session in a new worktree with…' });
          if (!pick) return undefined;
          id = pick.id;
        }
        let f: WorktreeFrom | undefined = from === 'head' || from === 'head+changes' ? from : undefined;
        if (!f) {
          const pick = await vscode.window.showQuickPick(FROM.map((x) => ({ label: x.label, detail: x.detail, from: x.from })), { placeHolder: text`A new worktree of ${checked.repo}, outside the workspace, on a branch of its own` });
          if (!pick) return undefined;
          f = pick.from;
        }
        return host.startSession(id, cwd, typeof agentId !== 'string', f);
      }, undefined),
    ),
    registerGuardedCommand(
      'agentSwitchboard.worktree.apply',
      (arg?: unknown) =>
        safely(async () => {
          const id = await target(arg);
          const p = (arg as { protectedFiles?: unknown } | undefined)?.protectedFiles;
          return id ? host.worktrees.apply(id, { protectedFiles: p === 'apply' || p === 'skip' ? p : undefined }) : undefined;
        }, undefined),
      { nodes: true },
    ),
    registerGuardedCommand(
      'agentSwitchboard.worktree.commit',
      (arg?: unknown) =>
        safely(async () => {
          const id = await target(arg);
          if (!id) return undefined;
          const message = opts(arg).message ?? (await vscode.window.showInputBox({ prompt: 'Commit message for the worktree\'s branch', value: 'Work from an agent session' }));
          return message ? host.worktrees.commit(id, message) : undefined;
        }, undefined),
      { nodes: true },
    ),
    registerGuardedCommand(
      'agentSwitchboard.worktree.discard',
      (arg?: unknown) =>
        safely(async () => {
          const id = await target(arg);
          if (!id) return false;
          if (opts(arg).confirmed !== true && !(await host.worktrees.confirmDiscard(id))) return false;
          // The session working there ends first: its agent and terminals run in that folder.
          const w = (await host.worktrees.worktrees()).get(id);
          if (w?.sessionKey && host.session(w.sessionKey)) await host.closeSession(w.sessionKey);
          await host.worktrees.discard(id);
          return true;
        }, false),
      { nodes: true },
    ),
  ];
}

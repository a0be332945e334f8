/**
 * "Send to Several Agents…" and "Keep This One" as commands (issue 20). They act on no arguments
 * (pickers and input boxes) or the API's `runCommand` envelope, never on a link's JSON.
 */
import * as vscode from 'vscode';
import path from 'node:path';
import { errorText, inert, text } from '../../common/untrustedText';
import { registerGuardedCommand } from '../guardedCommands';
import type { WorktreeFrom } from '../../worktrees/worktrees';
import { wholePieces } from '../../worktrees/testSandbox';
import type { CompareCenter } from './panel';

/** What the commands need from the app. */
export interface CompareCommandsHost {
  compare: CompareCenter;
  agents(): { id: string; name: string; available: boolean; demo?: boolean }[];
  cwd(): string | undefined;
}

/** Registers the comparison commands. */
export function registerCompareCommands(host: CompareCommandsHost): vscode.Disposable[] {
  return [
    registerGuardedCommand('agentSwitchboard.sendToSeveral', async (arg?: unknown) => {
      try {
        const a = (arg && typeof arg === 'object' ? arg : {}) as { agentIds?: unknown; prompt?: unknown; testCommand?: unknown; from?: unknown; cwd?: unknown };
        const cwd = typeof a.cwd === 'string' ? a.cwd : host.cwd();
        if (!cwd) throw new Error('Open a folder first: each agent works in a worktree of its git repository.');
        if (!path.isAbsolute(cwd)) throw new Error(`The folder must be an absolute path; "${cwd}" is relative.`);
        let agentIds = Array.isArray(a.agentIds) && a.agentIds.every((x) => typeof x === 'string') ? (a.agentIds as string[]) : undefined;
        if (!agentIds) {
          const picks = await vscode.window.showQuickPick(
            host.agents().filter((x) => x.available).map((x) => ({ label: inert(x.name, { max: 120 }), description: x.demo ? 'offline demo, no model' : inert(x.id), id: x.id })),
            { canPickMany: true, placeHolder: 'Send one prompt to these agents, each in a worktree of its own (one picked: it runs twice)' },
          );
          if (!picks?.length) return undefined;
          agentIds = picks.length === 1 ? [picks[0].id, picks[0].id] : picks.map((p) => p.id);
        }
        const prompt = typeof a.prompt === 'string' ? a.prompt : await vscode.window.showInputBox({ prompt: 'The prompt every agent gets' });
        if (!prompt) return undefined;
        // The prompt says how the command will run (sandboxed, not, or not at all) before it is
        // typed, whole: in pieces that a message's values keep whole, or not at all.
        const askTest = async (): Promise<string | undefined> => {
          const p = wholePieces(await host.compare.testPromptWords(cwd));
          return p
            ? vscode.window.showInputBox({ prompt: text`A test command to run in each worktree when its agent is done (optional, e.g. npm test). ${p[0]} ${p[1]} ${p[2]} ${p[3]}`, placeHolder: 'npm test' })
            : vscode.window.showInputBox({ prompt: text`A test command to run in each worktree when its agent is done (optional, e.g. npm test). How it runs is longer than this prompt shows: each agent's card in the compare view says it before it runs.`, placeHolder: 'npm test' });
        };
        const testCommand = typeof a.testCommand === 'string' ? a.testCommand || undefined : arg === undefined ? (await askTest()) || undefined : undefined;
        const from: WorktreeFrom = a.from === 'head+changes' ? 'head+changes' : 'head';
        return await host.compare.start(agentIds, prompt, cwd, { testCommand, from });
      } catch (err) {
        void vscode.window.showErrorMessage(text`${errorText(err)}`);
        if (arg !== undefined) throw err;
        return undefined;
      }
    }),
    registerGuardedCommand('agentSwitchboard.compare.keep', async (arg?: unknown) => {
      const a = (arg && typeof arg === 'object' ? arg : {}) as { compareId?: unknown; worktreeId?: unknown; discardOthers?: unknown };
      if (typeof a.compareId !== 'string' || typeof a.worktreeId !== 'string') {
        void vscode.window.showInformationMessage(text`Keep one agent's work with "Keep This One" in the compare view.`);
        return undefined;
      }
      return host.compare.keep(a.compareId, a.worktreeId, typeof a.discardOthers === 'boolean' ? a.discardOthers : undefined);
    }),
  ];
}


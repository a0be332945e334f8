/**
 * The `agentSwitchboard.*` commands: the same operations as the public API, with pickers when
 * called without arguments (from the command palette). Commands that act take arguments only from
 * the API (`runCommand`), never from a `command:` link (src/common/commandArgs.ts).
 */
import * as vscode from 'vscode';
import { registerCommand } from '../activation/vscodeRegistry';
import type { AuditProblem } from '../policy/audit';
import { errorText, inert, text } from '../common/untrustedText';
import { registerGuardedCommand } from './guardedCommands';
import type { App } from '../app';
import { availabilityBadge } from '../config/agentProblems';
import { showUnavailableAgents } from './unavailableAgents';

/** Registers every command; returns their disposables. */
export function registerCommands(app: App): vscode.Disposable[] {
  const currentOrPick = async (key: unknown): Promise<string | undefined> => {
    if (typeof key === 'string') return key;
    if (app.view.current) return app.view.current;
    const items = app.manager.list().map((c) => ({ label: inert(c.state.title ?? c.state.agentName, { max: 120 }), description: c.state.status, key: c.state.key }));
    return (await vscode.window.showQuickPick(items, { placeHolder: 'Session' }))?.key;
  };
  return [
    registerGuardedCommand('agentSwitchboard.startSession', async (agentId?: unknown, cwd?: unknown) => {
      let id = typeof agentId === 'string' ? agentId : undefined;
      if (!id) {
        const picks = app.agents().map((a) => ({
          label: inert(a.name, { max: 120 }),
          // Why it cannot start, in the words every picker uses: a malformed entry is not "not found".
          description: a.demo ? 'offline demo, no model' : a.available ? inert(a.id) : availabilityBadge(a),
          detail: a.available ? undefined : inert(a.problem ?? a.reason),
          id: a.id,
          available: a.available,
        }));
        const pick = await vscode.window.showQuickPick(picks, { placeHolder: 'Start a session with…', matchOnDetail: true });
        if (!pick) return undefined;
        // An agent that cannot start: its fix (the settings entry, or the PATHs searched in the log).
        if (!pick.available) return void (await showUnavailableAgents(app.resolvedAgents(), app.log, pick.id));
        id = pick.id;
      }
      try {
        return await app.startSession(id, typeof cwd === 'string' ? cwd : undefined);
      } catch (err) {
        void vscode.window.showErrorMessage(text`${errorText(err)}`);
        if (typeof agentId === 'string') throw err; // programmatic callers get the error too
        return undefined;
      }
    }),
    registerGuardedCommand('agentSwitchboard.sendPrompt', async (key?: unknown, said?: unknown) => {
      const k = await currentOrPick(key);
      if (!k) return undefined;
      const t = typeof said === 'string' ? said : await vscode.window.showInputBox({ prompt: 'Prompt for the agent' });
      if (!t) return undefined;
      return app.prompt(k, t);
    }),
    // Focuses the Session view; its page puts the caret in the prompt box when it gets focus.
    registerCommand('agentSwitchboard.focusPrompt', () => vscode.commands.executeCommand('agentSwitchboard.session.focus')),
    // Keys for the page: send what the box holds (as Enter would), move between the thread's cards.
    // No arguments are read, so a command: link can do no more than the key.
    registerCommand('agentSwitchboard.sendFromBox', () => app.view.keyCommand('send')),
    registerCommand('agentSwitchboard.nextCard', () => app.view.keyCommand('nextCard')),
    registerCommand('agentSwitchboard.previousCard', () => app.view.keyCommand('previousCard')),
    registerGuardedCommand('agentSwitchboard.cancel', async (key?: unknown) => {
      const k = await currentOrPick(key);
      if (k) await app.cancel(k);
    }),
    // Only the API (runCommand) answers with arguments; from the palette it shows the session whose
    // request waits, where the person answers on its card.
    registerGuardedCommand(
      'agentSwitchboard.answerPermission',
      async (key?: unknown, permissionId?: unknown, optionId?: unknown) => {
        if (typeof key === 'string' && typeof permissionId === 'string' && typeof optionId === 'string') {
          return app.manager.get(key)?.answerPermission(permissionId, optionId, 'api') ?? false;
        }
        const waiting = app.manager.list().find((c) => Object.values(c.state.permissions).some((p) => p.state === 'waiting'));
        if (waiting) await app.view.show(waiting.state.key);
        else void vscode.window.showInformationMessage(text`No permission request waits.`);
        return false;
      },
      { refused: Promise.resolve(false) },
    ),
    registerGuardedCommand('agentSwitchboard.closeSession', async (key?: unknown) => {
      const k = await currentOrPick(key);
      if (k) await app.closeSession(k);
    }),
    registerCommand('agentSwitchboard.showAgentLog', () => app.log.show()),
    registerCommand('agentSwitchboard.revokeGrant', async (g?: { id?: unknown }) => {
      if (!g || typeof g.id !== 'string') return false;
      // The revocation is audited: the log must be open (its key read) first.
      await app.audit.open();
      return app.policy.revokeGrant(g.id, 'person');
    }),
    registerCommand('agentSwitchboard.showSession', async (key?: unknown) => {
      if (typeof key === 'string' && app.manager.get(key)) await app.view.show(key);
    }),
    registerGuardedCommand('agentSwitchboard.takeCleanHunks', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (!c) return undefined;
      return app.conflicts.takeCleanHunks(c);
    }),
    registerCommand('agentSwitchboard.compareConflict', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (c) return app.conflicts.compare(c);
    }),
    registerGuardedCommand('agentSwitchboard.openMerge', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (!c) return void vscode.window.showInformationMessage(text`No refused agent write to merge.`);
      return app.conflicts.openMerge(c);
    }),
    registerCommand('agentSwitchboard.verifyAudit', async () => {
      const file = app.audit.file;
      // Waits for the signing key and the tail check of the start, then reads the whole file.
      const v = await app.audit.verify();
      if (v.ok && v.records === 0) void vscode.window.showInformationMessage(text`The audit log is empty: no decision or effect has been recorded in this workspace yet.`);
      else if (v.ok) void vscode.window.showInformationMessage(text`Audit log intact: ${v.records} records, hash chain and signatures verified (${file}).`);
      else {
        const where = (p: AuditProblem) => (p.to ? `records ${p.line}–${p.to}` : `record ${p.line}`);
        const rest = (v.more ?? []).slice(0, 3).map((p) => `${where(p)}: ${p.reason}`);
        const further = (v.more?.length ?? 0) > 3 ? ` … and ${v.more!.length - 3} more.` : '';
        void vscode.window.showErrorMessage(text`Audit log not verified (${v.records} records): ${where(v)}: ${v.reason}.${rest.length ? ` Also ${rest.join('; ')}.` : ''}${further} (${file})`);
      }
      return v;
    }),
  ];
}

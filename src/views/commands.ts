/**
 * The `agentSwitchboard.*` commands: the same operations as the public API, with pickers when
 * called without arguments (from the command palette).
 */
import * as vscode from 'vscode';
import type { AuditProblem } from '../policy/audit';
import type { App } from '../app';

/** Registers every command; returns their disposables. */
export function registerCommands(app: App): vscode.Disposable[] {
  const currentOrPick = async (key: unknown): Promise<string | undefined> => {
    if (typeof key === 'string') return key;
    if (app.view.current) return app.view.current;
    const items = app.manager.list().map((c) => ({ label: c.state.title ?? c.state.agentName, description: c.state.status, key: c.state.key }));
    return (await vscode.window.showQuickPick(items, { placeHolder: 'Session' }))?.key;
  };
  return [
    vscode.commands.registerCommand('agentSwitchboard.startSession', async (agentId?: unknown, cwd?: unknown) => {
      let id = typeof agentId === 'string' ? agentId : undefined;
      if (!id) {
        const picks = app.agents().map((a) => ({
          label: a.name,
          description: a.demo ? 'offline demo, no model' : a.available ? a.id : 'not found',
          detail: a.available ? undefined : a.reason,
          id: a.id,
          available: a.available,
        }));
        const pick = await vscode.window.showQuickPick(picks, { placeHolder: 'Start a session with…' });
        if (!pick) return undefined;
        if (!pick.available) {
          void vscode.window.showWarningMessage(`${pick.label} is not available: ${pick.detail}`);
          return undefined;
        }
        id = pick.id;
      }
      try {
        return await app.startSession(id, typeof cwd === 'string' ? cwd : undefined);
      } catch (err) {
        void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
        if (typeof agentId === 'string') throw err; // programmatic callers get the error too
        return undefined;
      }
    }),
    vscode.commands.registerCommand('agentSwitchboard.sendPrompt', async (key?: unknown, text?: unknown) => {
      const k = await currentOrPick(key);
      if (!k) return undefined;
      const t = typeof text === 'string' ? text : await vscode.window.showInputBox({ prompt: 'Prompt for the agent' });
      if (!t) return undefined;
      return app.prompt(k, t);
    }),
    vscode.commands.registerCommand('agentSwitchboard.cancel', async (key?: unknown) => {
      const k = await currentOrPick(key);
      if (k) await app.cancel(k);
    }),
    vscode.commands.registerCommand('agentSwitchboard.answerPermission', async (key?: unknown, permissionId?: unknown, optionId?: unknown) => {
      if (typeof key === 'string' && typeof permissionId === 'string' && typeof optionId === 'string') {
        return app.manager.get(key)?.answerPermission(permissionId, optionId, 'api') ?? false;
      }
      return false;
    }),
    vscode.commands.registerCommand('agentSwitchboard.closeSession', async (key?: unknown) => {
      const k = await currentOrPick(key);
      if (k) await app.closeSession(k);
    }),
    vscode.commands.registerCommand('agentSwitchboard.showAgentLog', () => app.log.show()),
    vscode.commands.registerCommand('agentSwitchboard.revokeGrant', async (g?: { id?: unknown }) => {
      if (!g || typeof g.id !== 'string') return false;
      // The revocation is audited: the log must be open (its key read) first.
      await app.audit.open();
      return app.policy.revokeGrant(g.id, 'person');
    }),
    vscode.commands.registerCommand('agentSwitchboard.showSession', async (key?: unknown) => {
      if (typeof key === 'string' && app.manager.get(key)) await app.view.show(key);
    }),
    vscode.commands.registerCommand('agentSwitchboard.takeCleanHunks', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (!c) return undefined;
      return app.conflicts.takeCleanHunks(c);
    }),
    vscode.commands.registerCommand('agentSwitchboard.compareConflict', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (c) return app.conflicts.compare(c);
    }),
    vscode.commands.registerCommand('agentSwitchboard.openMerge', (id?: unknown) => {
      const c = typeof id === 'string' ? id : app.conflicts.latest();
      if (!c) return void vscode.window.showInformationMessage('No refused agent write to merge.');
      return app.conflicts.openMerge(c);
    }),
    vscode.commands.registerCommand('agentSwitchboard.verifyAudit', async () => {
      const file = app.audit.file;
      // Waits for the signing key and the tail check of the start, then reads the whole file.
      const v = await app.audit.verify();
      if (v.ok && v.records === 0) void vscode.window.showInformationMessage('The audit log is empty: no decision or effect has been recorded in this workspace yet.');
      else if (v.ok) void vscode.window.showInformationMessage(`Audit log intact: ${v.records} records, hash chain and signatures verified (${file}).`);
      else {
        const where = (p: AuditProblem) => (p.to ? `records ${p.line}–${p.to}` : `record ${p.line}`);
        const rest = (v.more ?? []).slice(0, 3).map((p) => `${where(p)}: ${p.reason}`);
        const further = (v.more?.length ?? 0) > 3 ? ` … and ${v.more!.length - 3} more.` : '';
        void vscode.window.showErrorMessage(`Audit log not verified (${v.records} records): ${where(v)}: ${v.reason}.${rest.length ? ` Also ${rest.join('; ')}.` : ''}${further} (${file})`);
      }
      return v;
    }),
  ];
}

/**
 * Two tree views beside the session sidebar: "Waiting Approvals" (every permission request that
 * waits, across sessions; a click shows its session) and "Grants" (standing permissions, with
 * revoke). Both re-read the models on change; they hold no state of their own.
 */
import * as vscode from 'vscode';
import { hardenTreeItem } from './treeItems';
import type { SessionManager } from '../acp/sessionManager';
import type { EffectPolicy } from '../policy/effectPolicy';
import type { Grant } from '../policy/grants';

interface Waiting {
  key: string;
  permissionId: string;
  label: string;
  description: string;
  tooltip: string;
}

/** Waiting permission requests of all sessions. */
export class ApprovalsTree implements vscode.TreeDataProvider<Waiting>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly subs: { dispose(): void }[];

  constructor(private readonly manager: SessionManager) {
    this.subs = [
      manager.onDidChangeSession((c) => {
        if (c.patches.some((p) => p.op === 'permission')) this.emitter.fire();
      }),
      manager.onDidChangeSessions(() => this.emitter.fire()),
    ];
  }

  getChildren(): Waiting[] {
    const out: Waiting[] = [];
    for (const c of this.manager.list()) {
      const s = c.state;
      for (const p of Object.values(s.permissions)) {
        if (p.state !== 'waiting') continue;
        const tc = s.toolCalls[p.toolCallId];
        out.push({
          key: s.key,
          permissionId: p.permissionId,
          label: tc?.title ?? p.toolCallId,
          description: `${s.agentName} · ${tc?.kind ?? 'tool'}${p.intentHash ? ` · ${p.intentHash.slice(0, 12)}` : ''}`,
          tooltip: `${s.agentName} asks permission (session ${s.key}).${p.intentHash ? `\nIntent SHA-256: ${p.intentHash}` : ''}${(p.undeclared ?? []).map((u) => `\n${u}`).join('')}`,
        });
      }
    }
    return out;
  }

  getTreeItem(w: Waiting): vscode.TreeItem {
    const item = new vscode.TreeItem(w.label, vscode.TreeItemCollapsibleState.None);
    item.description = w.description;
    item.tooltip = w.tooltip;
    item.iconPath = new vscode.ThemeIcon('shield');
    item.command = { command: 'agentSwitchboard.showSession', title: 'Show', arguments: [w.key] };
    return hardenTreeItem(item, 'approvals', `${w.key}\u0000${w.permissionId}`);
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}

/** Grants, newest first, with their scope and expiry. */
export class GrantsTree implements vscode.TreeDataProvider<Grant>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: { dispose(): void };

  constructor(private readonly policy: EffectPolicy) {
    this.sub = policy.grants.onDidChange(() => this.emitter.fire());
  }

  getChildren(): Grant[] {
    return this.policy.grants.list(Date.now()).reverse();
  }

  getTreeItem(g: Grant): vscode.TreeItem {
    const item = new vscode.TreeItem(g.description, vscode.TreeItemCollapsibleState.None);
    const scope = g.scope === 'session' ? `session ${g.sessionKey}` : g.scope;
    item.description = `${scope}${g.expiresAt ? ` · until ${new Date(g.expiresAt).toLocaleTimeString()}` : ''}${g.source === 'agent_allow_always' ? ' · agent' : ''}`;
    const extra = g.pattern.commandExact ? '\nCovers exactly this command line.' : g.pattern.commandPrefix ? '\nCovers this command line, also with more arguments, never with chained commands (; && | $( ) or redirections.' : '';
    const until = g.expiresAt ? `until ${new Date(g.expiresAt).toLocaleString()}` : g.scope === 'session' ? 'until the session ends or it is revoked' : 'until revoked';
    item.tooltip = `${g.description}${extra}${g.pattern.cwd ? `\nIn ${g.pattern.cwd}` : ''}\nScope: ${scope}, ${until}\nPattern: ${JSON.stringify(g.pattern)}\nCreated ${new Date(g.createdAt).toLocaleString()} by ${g.source}`;
    item.iconPath = new vscode.ThemeIcon(g.pattern.kind === 'command' ? 'terminal' : 'edit');
    item.contextValue = 'grant';
    item.id = g.id;
    return hardenTreeItem(item, 'grants', g.id);
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}

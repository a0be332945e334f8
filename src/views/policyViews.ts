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
import { broadWriteGrantNote } from '../policy/protectedPaths';
import type { WorkspaceSettingsReport } from '../config/vscodeSettings';

/** A line above the grants: what the workspace's settings tightened, or tried and was ignored. */
interface SettingsNote {
  note: 'tightened' | 'ignored';
  text: string;
}

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

/**
 * Grants, newest first, with their scope and expiry; above them, what the workspace's settings did
 * to the gate (the person's user settings decide; a workspace only tightens).
 */
export class GrantsTree implements vscode.TreeDataProvider<Grant | SettingsNote>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly subs: { dispose(): void }[];

  constructor(
    private readonly policy: EffectPolicy,
    private readonly settings?: { get(): WorkspaceSettingsReport; onDidChange(l: () => void): { dispose(): void } },
  ) {
    this.subs = [policy.grants.onDidChange(() => this.emitter.fire())];
    if (settings) this.subs.push(settings.onDidChange(() => this.emitter.fire()));
  }

  getChildren(): (Grant | SettingsNote)[] {
    const r = this.settings?.get() ?? { tightened: [], ignored: [] };
    const notes: SettingsNote[] = [...r.tightened.map((text) => ({ note: 'tightened' as const, text })), ...r.ignored.map((text) => ({ note: 'ignored' as const, text }))];
    return [...notes, ...this.policy.grants.list(Date.now()).reverse()];
  }

  getTreeItem(g: Grant | SettingsNote): vscode.TreeItem {
    if ('note' in g) {
      const item = new vscode.TreeItem(g.note === 'tightened' ? `Workspace tightened: ${g.text}` : `Ignored from workspace: ${g.text}`, vscode.TreeItemCollapsibleState.None);
      item.tooltip = g.note === 'tightened'
        ? `This workspace's settings make the gate stricter than your user settings: ${g.text}.`
        : `This workspace's settings tried this and it was ignored: ${g.text}. The gate, the agent list and where data is sent come from your user settings; a workspace may only tighten the policy.`;
      item.iconPath = new vscode.ThemeIcon(g.note === 'tightened' ? 'lock' : 'warning');
      item.contextValue = 'workspaceSettingsNote';
      return item;
    }
    const item = new vscode.TreeItem(g.inert ? `${g.description} (does not apply)` : g.description, vscode.TreeItemCollapsibleState.None);
    // Session keys are random UUIDs now: the first block names the session well enough to tell two apart.
    const scope = g.scope === 'session' ? `session ${(g.sessionKey ?? '').replace(/^s-/, '').slice(0, 8)}` : g.scope;
    item.description = `${scope}${g.expiresAt ? ` · until ${new Date(g.expiresAt).toLocaleTimeString()}` : ''}${g.source === 'agent_allow_always' ? ' · agent' : ''}`;
    const extra = g.pattern.commandExact ? '\nCovers exactly this command line.' : g.pattern.commandPrefix ? `\nCovers this command line, also followed by plain operands${g.pattern.allowOptions?.length ? ` or the options ${g.pattern.allowOptions.join(' ')}` : ''}; never other options, quoting, expansions, globs, redirections or chained commands.` : g.pattern.commandRegex ? '\nCovers command lines the regular expression matches whole, never with quoting, expansions or shell syntax.' : '';
    const until = g.expiresAt ? `until ${new Date(g.expiresAt).toLocaleString()}` : g.scope === 'session' ? 'until the session ends or it is revoked' : 'until revoked';
    const note = broadWriteGrantNote(g.pattern);
    const bound = g.inert ? `\nThis grant does not apply: ${g.inert}.` : g.agentFingerprint ? `\nOnly for the agent running the command it was granted to (fingerprint ${g.agentFingerprint.slice(0, 12)}); a changed command, arguments or environment needs a new grant.` : '';
    item.tooltip = `${g.description}${extra}${note ? `\n${note}` : ''}${bound}${g.pattern.cwd ? `\nIn ${g.pattern.cwd}` : ''}\nScope: ${scope}, ${until}\nPattern: ${JSON.stringify(g.pattern)}\nCreated ${new Date(g.createdAt).toLocaleString()} by ${g.source}`;
    item.iconPath = new vscode.ThemeIcon(g.inert ? 'circle-slash' : g.pattern.kind === 'command' ? 'terminal' : 'edit');
    item.contextValue = 'grant';
    item.id = g.id;
    return hardenTreeItem(item, 'grants', g.id);
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}

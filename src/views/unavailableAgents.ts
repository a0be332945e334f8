/**
 * The way from "N agents unavailable" (or an unavailable row of the agent picker) to the fix: an
 * invalid entry opens the settings JSON with that entry selected; a command that was not found
 * opens the log, where the PATHs searched are written (they do not fit a notification).
 */
import * as vscode from 'vscode';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import type { ResolvedAgent } from '../config/agents';
import { availabilityBadge } from '../config/agentProblems';
import { text } from '../common/untrustedText';

const SETTING = 'agentSwitchboard.agents';

/**
 * Opens the settings file that holds `agentSwitchboard.agents` with entry `index` selected.
 * The setting is application-scoped: it lives in the user settings of the default profile, which
 * is the current profile's file unless the person works in another profile; then VS Code's
 * application settings file is tried. Falls back to the Settings editor on the setting.
 * @returns whether the entry was found and revealed.
 */
export async function openAgentEntry(index: number): Promise<boolean> {
  for (const command of ['workbench.action.openSettingsJson', 'workbench.action.openApplicationSettingsJson']) {
    try {
      await vscode.commands.executeCommand(command);
    } catch {
      continue;
    }
    const editor = vscode.window.activeTextEditor;
    if (editor && revealEntry(editor, index)) return true;
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', SETTING);
  return false;
}

function revealEntry(editor: vscode.TextEditor, index: number): boolean {
  const doc = editor.document;
  const tree = parseTree(doc.getText(), [], { allowTrailingComma: true });
  const node = tree && findNodeAtLocation(tree, [SETTING, index]);
  if (!node) return false;
  const range = new vscode.Range(doc.positionAt(node.offset), doc.positionAt(node.offset + node.length));
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return true;
}

/** Opens what fixes one unavailable agent: its settings entry, or the log with the PATH details. */
export async function fixAgent(agent: ResolvedAgent, log: vscode.LogOutputChannel): Promise<void> {
  if (agent.invalidEntry !== undefined) {
    await openAgentEntry(agent.invalidEntry);
    return;
  }
  if (agent.detail) log.warn(`${agent.id}: ${agent.detail}`);
  log.show(true);
}

/**
 * Lists the unavailable agents (or acts on `agentId` at once): each with its one-sentence reason;
 * choosing one opens its fix ({@link fixAgent}).
 */
export async function showUnavailableAgents(agents: readonly ResolvedAgent[], log: vscode.LogOutputChannel, agentId?: string): Promise<void> {
  const unavailable = agents.filter((a) => !a.available);
  const one = agentId === undefined ? undefined : unavailable.find((a) => a.id === agentId);
  if (one) return fixAgent(one, log);
  if (!unavailable.length) return;
  type Item = vscode.QuickPickItem & { agent: ResolvedAgent };
  const items: Item[] = unavailable.map((a) => ({
    label: text`${a.name}`,
    detail: text`${a.problem ?? a.reason ?? 'Not available.'}`,
    // The badge every picker shows ("malformed entry", "not found", …), then what choosing it opens.
    description: [availabilityBadge(a), a.invalidEntry !== undefined ? vscode.l10n.t('Open Settings at this entry') : a.detail ? vscode.l10n.t('Show the PATHs searched (log)') : undefined].filter(Boolean).join(' · '),
    agent: a,
  }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Unavailable agents', placeHolder: 'Choose one to fix it', matchOnDetail: true });
  if (picked) await fixAgent(picked.agent, log);
}

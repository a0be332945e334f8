/**
 * What activation must declare to VS Code before the rest of the extension is loaded (issue 22,
 * PF6): the tree views' creation options, which cannot change after `createTreeView`. The views and
 * commands themselves are read from the manifest (`contributes.views`, `contributes.commands`).
 */

/** Tree views created with a "Collapse All" button in their title (`TreeViewOptions.showCollapseAll`). */
export const TREE_VIEWS_WITH_COLLAPSE_ALL: ReadonlySet<string> = new Set([
  'agentSwitchboard.changes',
  'agentSwitchboard.mcp',
  'agentSwitchboard.remoteAgents',
]);

/** The parts of `package.json` the deferred start reads. */
export interface ManifestContributions {
  commands?: { command?: unknown }[];
  views?: Record<string, { id?: unknown; type?: unknown }[]>;
}

/**
 * The command ids and view ids (split into webview views and tree views) a manifest contributes.
 * Entries without a string id are skipped.
 */
export function contributedIds(contributes: ManifestContributions | undefined): { commands: string[]; webviewViews: string[]; treeViews: string[] } {
  const commands = (contributes?.commands ?? []).map((c) => c.command).filter((c): c is string => typeof c === 'string');
  const views = Object.values(contributes?.views ?? {}).flat();
  const ids = (webview: boolean) => views.filter((v) => typeof v.id === 'string' && (v.type === 'webview') === webview).map((v) => v.id as string);
  return { commands: [...new Set(commands)], webviewViews: ids(true), treeViews: ids(false) };
}

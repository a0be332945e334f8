/**
 * The last step of every `getTreeItem` of ours (issue 16, finding 1): the item gets an unguessable
 * id, so that a `command:` link cannot name it by its handle (`{$treeViewId, $treeItemHandle}`,
 * which VS Code turns back into the element), and every label, description and string tooltip is
 * made inert, so text an agent, server or remote agent chose never shows as an icon or a link.
 */
import * as vscode from 'vscode';
import { nodeId } from '../common/commandArgs';
import { inert } from '../common/untrustedText';

/**
 * Hardens `item` in place and returns it.
 * @param view the view's id (ids are unique per view).
 * @param key the node's stable identity when the item has no id of its own (e.g. `JSON.stringify(node)`).
 */
export function hardenTreeItem(item: vscode.TreeItem, view: string, key: string): vscode.TreeItem {
  item.id = nodeId(`${view}\u0000${item.id ?? key}`);
  // Highlights index into the label; they are dropped with any text they pointed at.
  if (typeof item.label === 'string') item.label = inert(item.label, { max: 200 });
  else if (item.label) item.label = inert(item.label.label, { max: 200 });
  if (typeof item.description === 'string') item.description = inert(item.description, { max: 300 });
  if (typeof item.tooltip === 'string') item.tooltip = inert(item.tooltip, { max: 2000, multiline: true });
  return item;
}

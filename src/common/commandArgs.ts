/**
 * Who called a command, judged from its arguments (issue 16, finding 1).
 *
 * Any `command:` link that VS Code renders (a notification, a quick input prompt, trusted Markdown,
 * a walkthrough, another extension's hover) runs a command with arguments that are JSON: strings,
 * numbers, booleans, arrays and plain objects, parsed from the link. A link may also name a tree
 * item by its handle (`{$treeViewId, $treeItemHandle}`), which the extension host turns back into
 * the element before the command sees it; handles of items without an `id` are made of their
 * labels, so every tree of ours gives its items unguessable ids ({@link nodeId}).
 *
 * The class fix: a command that answers, approves, grants, trusts, starts, runs, sends, writes or
 * deletes acts only on
 * - **no arguments** (the command palette, a keybinding without args, a view's title button): it
 *   then acts on what the person has in view or asks them with a picker or a modal dialog. A view
 *   title menu's context (`{$treeViewId, $focusedTreeItem, $selectedTreeItems}`, a webview view's
 *   `{preserveFocus}`, or the items it resolves to) counts as none for a command that takes no node;
 * - **a node we handed to VS Code** (a tree element returned by `getChildren`, remembered by
 *   identity in a WeakSet, never recognised by its shape); further arguments are dropped, because a
 *   tree's context menu passes only the node and the selection;
 * - **a vouched call**: the exported API's `runCommand` wraps the arguments in an object only this
 *   module can make. In-process callers (other extensions, our tests) hold the API and are trusted
 *   as VS Code trusts extensions; JSON from a link can never equal that object.
 *
 * Anything else is refused: {@link classifyCall} says so and why. The module is pure (no `vscode`).
 */
import { randomUUID } from 'node:crypto';

/** How a command call reached us. */
export type CallOrigin = 'person' | 'node' | 'api';

/** A call that may proceed, with the arguments the handler gets. */
export interface AllowedCall {
  origin: CallOrigin;
  args: unknown[];
}

/** A call that must not proceed (its arguments could have come from a `command:` link). */
export interface RefusedCall {
  origin: 'refused';
  reason: string;
}

/** The envelope of a vouched call; instances exist only through {@link vouch}. */
class Vouched {
  constructor(readonly args: readonly unknown[]) {}
}

const vouched = new WeakSet<object>();
const issued = new WeakSet<object>();
const ids = new Map<string, string>();

/**
 * Wraps the arguments of a call made by trusted in-process code (the exported API) so that the
 * command accepts them. The result is only meaningful by identity: a copy of it is refused.
 */
export function vouch(args: readonly unknown[]): object {
  const v = new Vouched([...args]);
  vouched.add(v);
  return v;
}

/** Remembers a tree element (by identity) as one this extension handed to VS Code; returns it. */
export function issue<T extends object>(node: T): T {
  issued.add(node);
  return node;
}

/** Remembers every element of `nodes` as issued; returns the array. */
export function issueAll<T extends object>(nodes: T[]): T[] {
  for (const n of nodes) issued.add(n);
  return nodes;
}

/** True when `value` is an object this extension issued with {@link issue}. */
export function isIssued(value: unknown): boolean {
  return typeof value === 'object' && value !== null && issued.has(value);
}

/**
 * An unguessable, stable id for the tree item of a logical node (`key`: the view and the node's own
 * identity, e.g. `mcp:server:settings:fs`): a random UUID made the first time and kept for the
 * extension host's lifetime, so expansion state survives refreshes while a link cannot name the item.
 */
export function nodeId(key: string): string {
  let id = ids.get(key);
  if (!id) {
    id = randomUUID();
    ids.set(key, id);
  }
  return id;
}

/**
 * The flags a view's title menu passes: a tree pane's (`$focusedTreeItem`, `$selectedTreeItems`),
 * and a webview view's `preserveFocus`.
 */
const VIEW_CONTEXT_FLAGS = new Set(['$focusedTreeItem', '$selectedTreeItems', 'preserveFocus']);

/**
 * True for the context a view's title menu passes when nothing in the view is focused: which view
 * (`$treeViewId`) and flags, no item and no data, so it means no more than no arguments at all.
 */
function isViewContext(a: unknown): boolean {
  if (typeof a !== 'object' || a === null || Array.isArray(a) || Object.getPrototypeOf(a) !== Object.prototype) return false;
  const entries = Object.entries(a);
  return entries.length > 0 && entries.every(([k, v]) => (k === '$treeViewId' && typeof v === 'string') || (VIEW_CONTEXT_FLAGS.has(k) && typeof v === 'boolean'));
}

/**
 * Classifies the arguments of one command call.
 * @param args the arguments exactly as VS Code passed them to the handler.
 * @param takesNodes whether the command is a tree item's command (then an issued node is enough).
 * @returns the origin and the arguments the handler may use, or a refusal with its reason.
 */
export function classifyCall(args: readonly unknown[], takesNodes = false): AllowedCall | RefusedCall {
  const first = args[0];
  if (args.length === 1 && first instanceof Vouched && vouched.has(first)) return { origin: 'api', args: [...first.args] };
  if (args.every((a) => a === undefined || a === null || isViewContext(a))) return { origin: 'person', args: [] };
  if (takesNodes && isIssued(first)) return { origin: 'node', args: [first] };
  // A view's title menu hands its focused and selected items to every command in it: a command
  // that takes none acts as from the palette, on what the person has in view.
  const fromView = args.some((a) => isViewContext(a) || isIssued(a));
  if (!takesNodes && fromView && args.every((a) => a === undefined || a === null || isViewContext(a) || isIssued(a) || (Array.isArray(a) && a.every(isIssued)))) return { origin: 'person', args: [] };
  return {
    origin: 'refused',
    reason: takesNodes
      ? 'its arguments are not an item of one of its views (a command: link or another window can pass any JSON, so such calls are refused)'
      : 'it takes arguments only through the extension API (a command: link or another window can pass any JSON, so such calls are refused)',
  };
}

/**
 * The shape of a call's arguments, for a refusal's message and bug reports: each one's type and,
 * for an object, its first keys (never a value, which may be anything a link carried).
 */
export function argumentShape(args: readonly unknown[]): string {
  return args
    .map((a) => {
      if (a === null || typeof a !== 'object') return a === null ? 'null' : typeof a;
      if (Array.isArray(a)) return `array(${a.length})`;
      const keys = Object.keys(a);
      return `object {${keys.slice(0, 8).map((k) => k.slice(0, 40)).join(', ')}${keys.length > 8 ? ', …' : ''}}`;
    })
    .join(', ');
}

/**
 * How the loaded extension registers its commands and views (issue 22, PF6). Activation loads only
 * `src/extension.ts` and the deferred start (`vscodeDeferredStart.ts`), which registers every contributed
 * command and view at once with stand-ins; the rest of the extension (`src/app.ts`, its own bundle)
 * is loaded when one of them is first used and hands its real handlers and providers to those
 * stand-ins through a {@link Registrar}. Code in the app registers through the functions here,
 * never through `vscode.commands.registerCommand` or `vscode.window.createTreeView` directly: a
 * second registration of a contributed id would fail ("command already exists").
 */
import * as vscode from 'vscode';
import { TREE_VIEWS_WITH_COLLAPSE_ALL } from './views';

/** What the deferred start offers the app once it is loaded. */
export interface Registrar {
  /** The handler of command `id`: a contributed command's stand-in calls it; any other id is registered as is. */
  registerCommand(id: string, handler: (...args: unknown[]) => unknown): vscode.Disposable;
  /** The tree view `id` (created at activation for a contributed view) showing `provider`'s data. */
  createTreeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T>;
  /** Shows `provider`'s data in tree view `id`; disposing detaches it. */
  registerTreeDataProvider<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable;
  /** Resolves webview view `id` with `provider` (registered at activation for a contributed view). */
  registerWebviewViewProvider(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
}

let current: Registrar | undefined;

/** Sets the registrar the functions below use (the app's constructor, before it registers anything). */
export function useRegistrar(registrar: Registrar | undefined): void {
  current = registrar;
}

/** See {@link Registrar.registerCommand}; without a registrar, `vscode.commands.registerCommand`. */
export function registerCommand(id: string, handler: (...args: never[]) => unknown): vscode.Disposable {
  const h = handler as (...args: unknown[]) => unknown;
  return current ? current.registerCommand(id, h) : vscode.commands.registerCommand(id, h);
}

/** See {@link Registrar.createTreeView}; without a registrar, `vscode.window.createTreeView`. */
export function createTreeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T> {
  return current ? current.createTreeView(id, provider) : vscode.window.createTreeView(id, { treeDataProvider: provider, showCollapseAll: TREE_VIEWS_WITH_COLLAPSE_ALL.has(id) });
}

/** See {@link Registrar.registerTreeDataProvider}; without a registrar, `vscode.window.registerTreeDataProvider`. */
export function registerTreeDataProvider<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
  return current ? current.registerTreeDataProvider(id, provider) : vscode.window.registerTreeDataProvider(id, provider);
}

/** See {@link Registrar.registerWebviewViewProvider}; without a registrar, `vscode.window.registerWebviewViewProvider`. */
export function registerWebviewViewProvider(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
  return current ? current.registerWebviewViewProvider(id, provider) : vscode.window.registerWebviewViewProvider(id, provider);
}

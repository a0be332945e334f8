/**
 * Activation without the extension (issue 22, PF6: activation ≤ 2× a hello-world extension).
 * Activation registers a stand-in for every command and view the manifest contributes and returns an
 * API whose first call loads the rest; nothing else is read, spawned or evaluated until a person
 * opens one of our views or runs one of our commands, or another extension calls the API. Loading
 * (`start`) requires the app bundle and builds it synchronously, so a stand-in can hand over to
 * the real handler in the same call.
 */
import * as vscode from 'vscode';
import type { SwitchboardApi } from '../api';
import { text } from '../common/untrustedText';
import type { Registrar } from './vscodeRegistry';
import { contributedIds, TREE_VIEWS_WITH_COLLAPSE_ALL, type ManifestContributions } from './views';

/** What the loaded extension offers back (src/app.ts `App`). */
export interface LoadedApp extends vscode.Disposable {
  /** The public API (src/api.ts). */
  api(): SwitchboardApi;
  /** Ends every agent and terminal process group (the extension's `deactivate`). */
  shutdown(): Promise<void>;
  /** Told once it is built: what first used it (`command <id>`, `view <id>`, `API <member>`) and how long loading and building took (ms). */
  started(trigger: string, ms: number): void;
}

/** A tree view's data, passed through to the app's provider once it is attached. */
class TreeStandIn<T> implements vscode.TreeDataProvider<T> {
  private target: vscode.TreeDataProvider<T> | undefined;
  private targetEvents: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly load: () => void) {}

  attach(provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    this.targetEvents?.dispose();
    this.target = provider;
    this.targetEvents = provider.onDidChangeTreeData?.((e) => this.changed.fire(e));
    this.changed.fire();
    return {
      dispose: () => {
        if (this.target !== provider) return;
        this.targetEvents?.dispose();
        this.target = this.targetEvents = undefined;
        this.changed.fire();
      },
    };
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.target ? this.target.getTreeItem(element) : new vscode.TreeItem('');
  }

  /** VS Code asks for a view's children when it is shown: the first time, the extension is loaded. */
  getChildren(element?: T): vscode.ProviderResult<T[]> {
    this.load();
    return this.target ? this.target.getChildren(element) : [];
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.target?.getParent?.(element);
  }

  resolveTreeItem(item: vscode.TreeItem, element: T, token: vscode.CancellationToken): vscode.ProviderResult<vscode.TreeItem> {
    return this.target?.resolveTreeItem ? this.target.resolveTreeItem(item, element, token) : item;
  }

  dispose(): void {
    this.targetEvents?.dispose();
    this.changed.dispose();
  }
}

/** Stand-ins for the contributed commands and views, and the loader of the extension behind them. */
export class DeferredStart implements Registrar {
  private app: LoadedApp | undefined;
  private loading = false;
  private failure: Error | undefined;
  private cachedApi: SwitchboardApi | undefined;
  /** The contributed commands (their stand-ins are registered) and the handlers the app gave them. */
  private readonly contributed = new Set<string>();
  private readonly handlers = new Map<string, (...args: unknown[]) => unknown>();
  private readonly contributedWebviews = new Set<string>();
  private readonly webviews = new Map<string, vscode.WebviewViewProvider>();
  private readonly trees = new Map<string, { standIn: TreeStandIn<unknown>; view: vscode.TreeView<unknown> }>();

  /**
   * The API handed to other extensions and tests: each member is read from the loaded extension's
   * API, so the first use loads it. `then` is absent (the object is not a promise: VS Code resolves
   * `activate()`'s promise with it).
   */
  readonly api: SwitchboardApi = new Proxy({} as SwitchboardApi, {
    get: (_target, name) => {
      if (typeof name !== 'string' || name === 'then') return undefined;
      const real = (this.cachedApi ??= this.load(`API ${name}`).api()) as unknown as Record<string, unknown>;
      const value = real[name];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
  });

  /**
   * Registers the stand-ins for what `context`'s manifest contributes; `start` builds the app (it
   * receives this registrar for the app's own registrations).
   */
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly start: (registrar: Registrar) => LoadedApp,
  ) {
    const ids = contributedIds((context.extension.packageJSON as { contributes?: ManifestContributions }).contributes);
    for (const id of ids.commands) {
      this.contributed.add(id);
      context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => this.run(id, args)));
    }
    for (const id of ids.webviewViews) {
      this.contributedWebviews.add(id);
      context.subscriptions.push(vscode.window.registerWebviewViewProvider(id, {
        resolveWebviewView: (view, resolveContext, token) => {
          this.load(`view ${id}`);
          const provider = this.webviews.get(id);
          if (!provider) throw new Error(`Agent Switchboard has no provider for the view ${id}.`);
          return provider.resolveWebviewView(view, resolveContext, token);
        },
      }));
    }
    for (const id of ids.treeViews) {
      const standIn = new TreeStandIn<unknown>(() => void this.load(`view ${id}`));
      const view = vscode.window.createTreeView(id, { treeDataProvider: standIn, showCollapseAll: TREE_VIEWS_WITH_COLLAPSE_ALL.has(id) });
      this.trees.set(id, { standIn, view });
      context.subscriptions.push(view, standIn);
    }
  }

  /** True once the app is loaded. */
  get loaded(): boolean {
    return this.app !== undefined;
  }

  /**
   * Loads and builds the app once; `trigger` says what used it first (for the log). Throws the reason (also shown to the person, once) when it could
   * not be built, and on a call made while it is being built.
   */
  load(trigger: string): LoadedApp {
    if (this.app) return this.app;
    if (this.failure) throw this.failure;
    if (this.loading) throw new Error('Agent Switchboard is still starting.');
    this.loading = true;
    try {
      const t0 = performance.now();
      this.app = this.start(this);
      this.context.subscriptions.push(this.app);
      this.app.started(trigger, performance.now() - t0);
      return this.app;
    } catch (err) {
      this.failure = new Error(`Agent Switchboard could not start: ${err instanceof Error ? err.message : String(err)}`);
      void vscode.window.showErrorMessage(text`${this.failure.message}`);
      throw this.failure;
    } finally {
      this.loading = false;
    }
  }

  /** The extension's `deactivate`: ends the app's processes if it was loaded. */
  async shutdown(): Promise<void> {
    await this.app?.shutdown();
  }

  private run(id: string, args: unknown[]): unknown {
    this.load(`command ${id}`);
    const handler = this.handlers.get(id);
    if (!handler) throw new Error(`Agent Switchboard has no handler for the command ${id}.`);
    return handler(...args);
  }

  registerCommand(id: string, handler: (...args: unknown[]) => unknown): vscode.Disposable {
    if (!this.contributed.has(id)) return vscode.commands.registerCommand(id, handler);
    if (this.handlers.has(id)) throw new Error(`The command ${id} already has a handler.`);
    this.handlers.set(id, handler);
    return { dispose: () => void (this.handlers.get(id) === handler && this.handlers.delete(id)) };
  }

  createTreeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T> {
    const tree = this.trees.get(id);
    if (!tree) return vscode.window.createTreeView(id, { treeDataProvider: provider, showCollapseAll: TREE_VIEWS_WITH_COLLAPSE_ALL.has(id) });
    tree.standIn.attach(provider as vscode.TreeDataProvider<unknown>);
    return tree.view as vscode.TreeView<T>;
  }

  registerTreeDataProvider<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.Disposable {
    const tree = this.trees.get(id);
    return tree ? tree.standIn.attach(provider as vscode.TreeDataProvider<unknown>) : vscode.window.registerTreeDataProvider(id, provider);
  }

  registerWebviewViewProvider(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
    if (!this.contributedWebviews.has(id)) return vscode.window.registerWebviewViewProvider(id, provider);
    this.webviews.set(id, provider);
    return { dispose: () => void (this.webviews.get(id) === provider && this.webviews.delete(id)) };
  }
}

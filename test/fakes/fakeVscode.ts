/**
 * A stand-in for the `vscode` module, enough to construct the extension's view classes under Node
 * and follow what they register and run: text document content providers (resolved as the editor
 * resolves them: a scheme's providers newest first, the first text any returns wins), commands,
 * and `vscode.diff` calls. There are no open documents: files are read and written on disk
 * (`workspace.fs`, and a `WorkspaceEdit` that deletes). Events never fire; messages are not shown.
 * Installed by test/fakes/vscodeHost.ts, which a test imports before the views.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** A URI with VS Code's shape (components kept as given; `fsPath` for file URIs). */
export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}

  static file(p: string): Uri {
    return new Uri('file', '', nodePath.resolve(p), '', '');
  }

  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }

  static joinPath(base: Uri, ...parts: string[]): Uri {
    return base.with({ path: nodePath.posix.join(base.path, ...parts) });
  }

  get fsPath(): string {
    return this.path;
  }

  with(c: { scheme?: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }

  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...ds: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  readonly event = (l: (e: T) => void): Disposable => {
    this.listeners.push(l);
    return new Disposable(() => (this.listeners = this.listeners.filter((x) => x !== l)));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class ThemeIcon {
  constructor(readonly id: string, readonly color?: ThemeColor) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}
export class MarkdownString {
  value = '';
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s;
    return this;
  }
  appendCodeblock(s: string, lang = ''): this {
    this.value += `\n\`\`\`${lang}\n${s}\n\`\`\`\n`;
    return this;
  }
}
export class Position {
  constructor(readonly line: number, readonly character: number) {}
}
export class Range {
  constructor(readonly startLine: number, readonly startCharacter: number, readonly endLine: number, readonly endCharacter: number) {}
}
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  resourceUri?: Uri;
  command?: unknown;
  accessibilityInformation?: unknown;
  constructor(public label: string, public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None) {}
}

/** A workspace edit of files on disk: only deletes (Undo of a created file). */
export class WorkspaceEdit {
  readonly deletes: Uri[] = [];
  /** Files created (over an existing one with `overwrite`) with their contents, in order. */
  readonly creates: { uri: Uri; overwrite: boolean; contents: Uint8Array }[] = [];
  deleteFile(uri: Uri): void {
    this.deletes.push(uri);
  }
  createFile(uri: Uri, options: { overwrite?: boolean; contents?: Uint8Array } = {}): void {
    this.creates.push({ uri, overwrite: !!options.overwrite, contents: options.contents ?? new Uint8Array() });
  }
}

/** A text document content provider as registered. */
interface Provider {
  provideTextDocumentContent(uri: Uri): string | null | undefined | Promise<string | null | undefined>;
}

/** What the views registered and ran, for the test to look at. */
export const recorded = {
  /** Providers by scheme, newest first (as the editor keeps them). */
  providers: new Map<string, Provider[]>(),
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  executed: [] as { command: string; args: unknown[] }[],
};

/**
 * The text the editor would show for `uri`: its scheme's providers are asked newest first and the
 * first that returns a string (even an empty one) makes the document; none: undefined.
 */
export async function openVirtualDocument(uri: Uri): Promise<string | undefined> {
  for (const p of recorded.providers.get(uri.scheme) ?? []) {
    const text = await p.provideTextDocumentContent(uri);
    if (typeof text === 'string') return text;
  }
  return undefined;
}

const noDisposable = () => new Disposable();
const quietly = async () => undefined;

export const workspace = {
  textDocuments: [] as unknown[],
  workspaceFolders: undefined,
  registerTextDocumentContentProvider(scheme: string, provider: Provider): Disposable {
    recorded.providers.set(scheme, [provider, ...(recorded.providers.get(scheme) ?? [])]);
    return new Disposable(() => recorded.providers.set(scheme, (recorded.providers.get(scheme) ?? []).filter((p) => p !== provider)));
  },
  createFileSystemWatcher: () => ({ onDidChange: noDisposable, onDidCreate: noDisposable, onDidDelete: noDisposable, dispose: () => undefined }),
  onWillSaveTextDocument: noDisposable,
  onDidSaveTextDocument: noDisposable,
  onDidChangeTextDocument: noDisposable,
  onDidCloseTextDocument: noDisposable,
  onDidOpenTextDocument: noDisposable,
  onDidChangeConfiguration: noDisposable,
  onDidChangeWorkspaceFolders: noDisposable,
  getConfiguration: () => ({ get: () => undefined, inspect: () => undefined, has: () => false }),
  fs: {
    writeFile: async (uri: Uri, bytes: Uint8Array) => fs.promises.writeFile(uri.fsPath, bytes),
    createDirectory: async (uri: Uri) => void (await fs.promises.mkdir(uri.fsPath, { recursive: true })),
  },
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    for (const uri of edit.deletes) await fs.promises.rm(uri.fsPath, { force: true });
    for (const c of edit.creates) {
      if (!c.overwrite && fs.existsSync(c.uri.fsPath)) return false;
      await fs.promises.mkdir(nodePath.dirname(c.uri.fsPath), { recursive: true });
      await fs.promises.writeFile(c.uri.fsPath, c.contents);
    }
    return true;
  },
};

export const window = {
  createTreeView: () => ({ reveal: quietly, dispose: () => undefined, badge: undefined, onDidChangeVisibility: noDisposable, onDidChangeSelection: noDisposable }),
  registerTreeDataProvider: noDisposable,
  registerWebviewViewProvider: noDisposable,
  showInformationMessage: quietly,
  showWarningMessage: quietly,
  showErrorMessage: quietly,
  showTextDocument: quietly,
  onDidChangeActiveTextEditor: noDisposable,
  visibleTextEditors: [] as unknown[],
};

export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown): Disposable {
    recorded.commands.set(id, handler);
    return new Disposable(() => recorded.commands.delete(id));
  },
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    recorded.executed.push({ command, args });
    return recorded.commands.get(command)?.(...args);
  },
};

export const l10n = { t: (s: string) => s };
export const env = { language: 'en', appName: 'fake' };

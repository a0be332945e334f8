/**
 * The editor's language features for the editor MCP server ({@link EditorLanguagePort}), through
 * VS Code's built-in provider commands (`vscode.executeDefinitionProvider` and friends), so the
 * answers are exactly what the person's language extensions give. Positions are 1-based for agents
 * and converted here. Paths the agent names are confined to the workspace folders, and so is every
 * document an answer names (the selection, open documents, diagnostics, definitions, references,
 * workspace symbols): files outside the folders, also through symlinks, untitled documents and
 * other URI schemes are left out ({@link WorkspaceConfinement}).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkContained } from '../fs/containment';
import { WorkspaceConfinement, type DocumentRef } from '../mcp/editorConfine';
import { checkOpenable } from '../fs/fileIdentity';
import type { EditorLanguagePort, EditorLocation } from '../mcp/editorServer';

const MAX_ITEMS = 500;

const ref = (uri: vscode.Uri): DocumentRef => ({ scheme: uri.scheme, path: uri.fsPath });

/** {@link EditorLanguagePort} on VS Code's language features. */
export class VscodeLanguagePort implements EditorLanguagePort {
  constructor(private readonly roots: () => readonly string[]) {}

  /** A confinement for one answer, on the workspace folders of now. */
  private confine(): WorkspaceConfinement {
    return new WorkspaceConfinement(this.roots());
  }

  /** @throws Error when the path is outside the workspace folders. */
  private async uri(p: string): Promise<vscode.Uri> {
    const first = this.roots()[0];
    const abs = path.isAbsolute(p) || !first ? p : path.join(first, p);
    return vscode.Uri.file(await checkContained(abs, this.roots()));
  }

  private async at(p: string, line: number, column: number): Promise<[vscode.Uri, vscode.Position]> {
    const uri = await this.uri(p);
    // Providers answer for documents the editor has loaded.
    await load(uri);
    return [uri, new vscode.Position(line - 1, column - 1)];
  }

  async diagnostics(p?: string) {
    const one = p === undefined ? undefined : await this.uri(p);
    const all: [vscode.Uri, readonly vscode.Diagnostic[]][] = one ? [[one, vscode.languages.getDiagnostics(one)]] : vscode.languages.getDiagnostics();
    // Without a path the editor reports every document it knows, also those outside the folders.
    const entries = await this.confine().filter(all, ([uri]) => ref(uri));
    const out = [];
    for (const [uri, list] of entries) {
      for (const d of list) {
        out.push({
          path: uri.fsPath,
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          severity: vscode.DiagnosticSeverity[d.severity].toLowerCase(),
          message: d.message,
          source: d.source,
          code: typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code),
        });
        if (out.length >= MAX_ITEMS) return out;
      }
    }
    return out;
  }

  async definition(p: string, line: number, column: number) {
    const [uri, pos] = await this.at(p, line, column);
    return this.locations(await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, pos));
  }

  private locations(list: (vscode.Location | vscode.LocationLink)[] | undefined): Promise<EditorLocation[]> {
    return confinedLocations(this.confine(), list);
  }

  async references(p: string, line: number, column: number) {
    const [uri, pos] = await this.at(p, line, column);
    return this.locations(await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, pos));
  }

  async documentSymbols(p: string) {
    const uri = await this.uri(p);
    await load(uri);
    const symbols = (await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>('vscode.executeDocumentSymbolProvider', uri)) ?? [];
    const out: { name: string; kind: string; line: number; column: number; container?: string }[] = [];
    const walk = (s: vscode.DocumentSymbol | vscode.SymbolInformation, container?: string) => {
      if (out.length >= MAX_ITEMS) return;
      const range = 'range' in s ? s.range : s.location.range;
      out.push({ name: s.name, kind: vscode.SymbolKind[s.kind], line: range.start.line + 1, column: range.start.character + 1, container: container ?? ('containerName' in s ? s.containerName || undefined : undefined) });
      if ('children' in s) for (const c of s.children) walk(c, s.name);
    };
    symbols.forEach((s) => walk(s));
    return out;
  }

  async workspaceSymbols(query: string) {
    const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    const symbols = await this.confine().filter(found, (s) => ref(s.location.uri));
    return symbols.slice(0, MAX_ITEMS).map((s) => ({ name: s.name, kind: vscode.SymbolKind[s.kind], location: location(s.location.uri, s.location.range), container: s.containerName || undefined }));
  }

  /**
   * Hover text of a position in a contained file. It is the language server's text: it may quote
   * types or documentation that live in files outside the folders (a library's declarations).
   */
  async hover(p: string, line: number, column: number) {
    const [uri, pos] = await this.at(p, line, column);
    const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, pos)) ?? [];
    return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : String(c))));
  }

  async openDocuments() {
    const open = await this.confine().filter(vscode.workspace.textDocuments.filter((d) => !d.isClosed), (d) => ref(d.uri));
    return open.map((d) => ({ path: d.uri.fsPath, version: d.version, dirty: d.isDirty, languageId: d.languageId }));
  }

  /** The selection of the active editor, or null when there is none or its document is not a contained file. */
  async selection() {
    const e = vscode.window.activeTextEditor;
    if (!e || !(await this.confine().allows(ref(e.document.uri)))) return null;
    const s = e.selection;
    return { path: e.document.uri.fsPath, version: e.document.version, start: { line: s.start.line + 1, column: s.start.character + 1 }, end: { line: s.end.line + 1, column: s.end.character + 1 }, text: e.document.getText(s).slice(0, 100_000) };
  }
}

function location(uri: vscode.Uri, r: vscode.Range): EditorLocation {
  return { path: uri.fsPath, line: r.start.line + 1, column: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

/** A provider's locations as agents get them, with those outside the folders left out. */
async function confinedLocations(confine: WorkspaceConfinement, list: (vscode.Location | vscode.LocationLink)[] | undefined): Promise<EditorLocation[]> {
  const kept = await confine.filter(list ?? [], (l) => ref('targetUri' in l ? l.targetUri : l.uri));
  return kept.slice(0, MAX_ITEMS).map((l) => ('targetUri' in l ? location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : location(l.uri, l.range)));
}

/**
 * Loads a contained file as a document, once it is known to be a regular file under the cap: the
 * editor would wait on a FIFO or read `/dev/zero` without end.
 * @throws UnreadableFileError for a FIFO, device, directory or a file over the cap.
 */
async function load(uri: vscode.Uri): Promise<void> {
  await checkOpenable(uri.fsPath);
  await vscode.workspace.openTextDocument(uri);
}

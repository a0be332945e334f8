/**
 * The editor's language features for the editor MCP server ({@link EditorLanguagePort}), through
 * VS Code's built-in provider commands (`vscode.executeDefinitionProvider` and friends), so the
 * answers are exactly what the person's language extensions give. Positions are 1-based for agents
 * and converted here; paths are confined to the workspace folders.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkContained } from '../fs/containment';
import { checkOpenable } from '../fs/fileIdentity';
import type { EditorLanguagePort, EditorLocation } from '../mcp/editorServer';

const MAX_ITEMS = 500;

/** {@link EditorLanguagePort} on VS Code's language features. */
export class VscodeLanguagePort implements EditorLanguagePort {
  constructor(private readonly roots: () => readonly string[]) {}

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
    const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = p ? [[await this.uri(p), vscode.languages.getDiagnostics(await this.uri(p))]] : vscode.languages.getDiagnostics();
    const out = [];
    for (const [uri, list] of entries) {
      if (uri.scheme !== 'file') continue;
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
    return locations(await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', uri, pos));
  }

  async references(p: string, line: number, column: number) {
    const [uri, pos] = await this.at(p, line, column);
    return locations(await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, pos));
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
    const symbols = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
    return symbols.slice(0, MAX_ITEMS).map((s) => ({ name: s.name, kind: vscode.SymbolKind[s.kind], location: location(s.location.uri, s.location.range), container: s.containerName || undefined }));
  }

  async hover(p: string, line: number, column: number) {
    const [uri, pos] = await this.at(p, line, column);
    const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, pos)) ?? [];
    return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : String(c))));
  }

  async openDocuments() {
    return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && !d.isClosed).map((d) => ({ path: d.uri.fsPath, version: d.version, dirty: d.isDirty, languageId: d.languageId }));
  }

  async selection() {
    const e = vscode.window.activeTextEditor;
    if (!e || e.document.uri.scheme !== 'file') return null;
    const s = e.selection;
    return { path: e.document.uri.fsPath, version: e.document.version, start: { line: s.start.line + 1, column: s.start.character + 1 }, end: { line: s.end.line + 1, column: s.end.character + 1 }, text: e.document.getText(s).slice(0, 100_000) };
  }
}

function location(uri: vscode.Uri, r: vscode.Range): EditorLocation {
  return { path: uri.fsPath, line: r.start.line + 1, column: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

function locations(list: (vscode.Location | vscode.LocationLink)[] | undefined): EditorLocation[] {
  return (list ?? []).slice(0, MAX_ITEMS).map((l) => ('targetUri' in l ? location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : location(l.uri, l.range)));
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

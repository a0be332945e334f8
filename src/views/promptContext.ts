/**
 * The editor side of prompt context: @-mention search (workspace files by name, workspace symbols
 * through the language servers' `vscode.executeWorkspaceSymbolProvider`), the active editor's file,
 * selection (with its line range) and problems as attachments, the commands that attach them from
 * the editor (*Add Selection to Prompt*, *Add File to Prompt*, *Add Problems to Prompt*), and the
 * port the pure builder (src/acp/promptContext.ts) reads files through.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerCommand } from '../activation/vscodeRegistry';
import { checkContained, isWithin, realpathAllowMissing } from '../fs/containment';
import { readRegularFileOrNull } from '../fs/safeRead';
import { contextLabel, MAX_ATTACHED_TEXT, type ContextItem, type ContextPort } from '../acp/promptContext';
import type { MentionItem } from './session/protocol';
import { text } from '../common/untrustedText';

const MAX_FILE_RESULTS = 20;
const MAX_SYMBOL_RESULTS = 10;
const MAX_PROBLEMS = 200;

/** Owns the attach commands and answers the session pages' context requests. */
export class PromptContextCenter implements vscode.Disposable, ContextPort {
  private readonly disposables: vscode.Disposable[] = [];
  /** The last text editor that had focus: a session tab or the sidebar takes it when clicked. */
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;

  /** @param attach hands an attachment to the sidebar's next prompt */
  constructor(private readonly attach: (item: ContextItem, label: string) => Promise<void>) {
    const command = (id: string, what: 'file' | 'selection' | 'diagnostics') =>
      registerCommand(id, async () => {
        const added = await this.fromEditor(what);
        if (added) await this.attach(added.item, added.label);
        return added?.label;
      });
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e) this.lastEditor = e;
      }),
      command('agentSwitchboard.addSelectionToPrompt', 'selection'),
      command('agentSwitchboard.addFileToPrompt', 'file'),
      command('agentSwitchboard.addProblemsToPrompt', 'diagnostics'),
    );
  }

  contained(file: string): Promise<string> {
    return checkContained(file, (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
  }

  /** Lexically inside a workspace folder (for listing; attaching checks symlinks too). */
  within(file: string): boolean {
    return (vscode.workspace.workspaceFolders ?? []).some((f) => isWithin(f.uri.fsPath, path.normalize(file)));
  }

  relative(file: string): string {
    return vscode.workspace.asRelativePath(file, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  }

  async readText(file: string, maxChars: number): Promise<string | undefined> {
    // An open document's text, unsaved changes included: that is what the person sees.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file);
    if (open) return open.getText().length <= maxChars ? open.getText() : undefined;
    try {
      // One non-blocking handle on a regular file, capped: a huge file is not loaded only to be sent
      // as a link, and a FIFO or device is not waited on.
      const f = await readRegularFileOrNull(await realpathAllowMissing(path.normalize(file)), { maxBytes: maxChars * 4 });
      if (!f) return undefined;
      const text = new TextDecoder('utf-8', { fatal: true }).decode(f.bytes);
      return text.length <= maxChars ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /** Workspace files whose path contains `query`, then symbols named like it (two letters or more). */
  async searchMentions(query: string): Promise<MentionItem[]> {
    const q = query.trim();
    const glob = q ? `**/*${q.replace(/[\\[\]{}()*?!,]/g, '')}*` : '**/*';
    const files = await vscode.workspace.findFiles(glob, '**/{node_modules,.git,dist,out}/**', MAX_FILE_RESULTS);
    const items: MentionItem[] = files
      .sort((a, b) => a.fsPath.length - b.fsPath.length)
      .map((u) => ({ item: { kind: 'file', path: u.fsPath }, label: path.basename(u.fsPath), detail: this.relative(u.fsPath) }));
    if (q.length >= 2) {
      let symbols: vscode.SymbolInformation[] = [];
      try {
        symbols = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', q)) ?? [];
      } catch {
        // No language server answers: files only.
      }
      for (const s of symbols.filter((x) => x.location.uri.scheme === 'file' && this.within(x.location.uri.fsPath)).slice(0, MAX_SYMBOL_RESULTS)) {
        const r = s.location.range;
        items.push({
          item: { kind: 'symbol', path: s.location.uri.fsPath, name: s.name, startLine: r.start.line + 1, endLine: r.end.line + 1 },
          label: s.name,
          detail: `${vscode.SymbolKind[s.kind] ?? 'symbol'} · ${this.relative(s.location.uri.fsPath)}:${r.start.line + 1}`,
        });
      }
    }
    return items;
  }

  /**
   * The active editor's file, selection or problems (problems of the whole workspace without an
   * editor). @returns undefined, after telling the person why, when there is nothing to attach.
   */
  async fromEditor(what: 'file' | 'selection' | 'diagnostics'): Promise<{ item: ContextItem; label: string } | undefined> {
    // From a session page (the sidebar, a tab) the editor is the last one the person was in, if still shown.
    const editor = vscode.window.activeTextEditor ?? (this.lastEditor && vscode.window.visibleTextEditors.includes(this.lastEditor) ? this.lastEditor : undefined);
    const doc = editor?.document;
    const inWorkspace = doc && doc.uri.scheme === 'file' && this.within(doc.uri.fsPath);
    let item: ContextItem | undefined;
    if (what === 'diagnostics') {
      item = this.problems(inWorkspace ? doc.uri : undefined);
      if (!item) return void vscode.window.showInformationMessage(text`${inWorkspace ? `${this.relative(doc.uri.fsPath)} has no problems.` : 'The workspace has no problems.'}`);
    } else if (!editor || !inWorkspace) {
      return void vscode.window.showInformationMessage(text`Open a workspace file in the editor first.`);
    } else if (what === 'file') {
      item = { kind: 'file', path: doc.uri.fsPath };
    } else {
      const sel = editor.selection;
      if (sel.isEmpty) return void vscode.window.showInformationMessage(text`Select some text first.`);
      if (doc.offsetAt(sel.end) - doc.offsetAt(sel.start) > MAX_ATTACHED_TEXT) {
        return void vscode.window.showWarningMessage(text`The selection is longer than ${MAX_ATTACHED_TEXT.toLocaleString('en')} characters; attach the file instead (@-mention it).`);
      }
      // A selection that ends at the start of a line does not include that line.
      const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
      item = { kind: 'selection', path: doc.uri.fsPath, startLine: sel.start.line + 1, endLine, text: doc.getText(sel) };
    }
    return { item, label: contextLabel(item, (p) => this.relative(p)) };
  }

  /** Problems of `uri` (or of the workspace) as one text attachment, errors first. */
  private problems(uri: vscode.Uri | undefined): ContextItem | undefined {
    const all = uri ? [[uri, vscode.languages.getDiagnostics(uri)] as const] : vscode.languages.getDiagnostics().filter(([u]) => u.scheme === 'file' && this.within(u.fsPath));
    const lines: string[] = [];
    let count = 0;
    for (const [u, diags] of all) {
      for (const d of [...diags].sort((a, b) => a.severity - b.severity)) {
        if (count >= MAX_PROBLEMS) break;
        count++;
        const sev = ['error', 'warning', 'info', 'hint'][d.severity] ?? 'problem';
        const code = typeof d.code === 'object' ? d.code.value : d.code;
        lines.push(`- ${this.relative(u.fsPath)}:${d.range.start.line + 1}:${d.range.start.character + 1} ${sev}${d.source ? ` ${d.source}` : ''}${code !== undefined ? ` ${code}` : ''}: ${d.message}`);
      }
    }
    if (!count) return undefined;
    const where = uri ? this.relative(uri.fsPath) : 'the workspace';
    const text = `Problems in ${where} (from the editor):\n${lines.join('\n')}`;
    return { kind: 'diagnostics', ...(uri ? { path: uri.fsPath } : {}), count, text: text.length > MAX_ATTACHED_TEXT ? `${text.slice(0, MAX_ATTACHED_TEXT - 40)}\n… (more problems left out)` : text };
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

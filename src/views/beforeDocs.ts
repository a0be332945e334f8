/**
 * The editor side of the "before" documents (edits/beforeDocs.ts): the scheme is registered once
 * for the whole extension host, however many views serve a kind of document, so no view's provider
 * can answer another view's documents.
 */
import * as vscode from 'vscode';
import { BEFORE_SCHEME, BeforeDocuments, beforeQuery, type BeforeKind, type BeforeRef, type BeforeSource } from '../edits/beforeDocs';

const documents = new BeforeDocuments();
let registration: vscode.Disposable | undefined;

/**
 * Serves `kind`'s "before" documents with `source` until disposed; registers the scheme with the
 * editor while any kind is served.
 * @throws Error when `kind` is already served.
 */
export function serveBefore<K extends BeforeKind>(kind: K, source: BeforeSource<K>): vscode.Disposable {
  const own = documents.serve(kind, source);
  registration ??= vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, { provideTextDocumentContent: (uri) => documents.text(uri.query) });
  return new vscode.Disposable(() => {
    own.dispose();
    if (!documents.serving) {
      registration?.dispose();
      registration = undefined;
    }
  });
}

/** The URI of a "before" document; `filePath` (absolute) gives the tab its name and language. */
export function beforeUri(filePath: string, ref: BeforeRef): vscode.Uri {
  return vscode.Uri.from({ scheme: BEFORE_SCHEME, path: vscode.Uri.file(filePath).path, query: beforeQuery(ref) });
}

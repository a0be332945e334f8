/**
 * A webview panel for one of our page bundles (`dist/webview/<script>.js`): scripts only from the
 * extension's `dist/webview` folder, run by nonce under the strict CSP of `renderSessionHtml`, the
 * page kept alive while hidden. The trace panel and the protocol inspector are made this way.
 */
import * as vscode from 'vscode';
import { inert } from '../common/untrustedText';
import { makeNonce, renderSessionHtml } from './session/html';

/** Opens a panel titled `title` showing the bundle `script` (without `.js`) in `column` (the active one by default). */
export function openWebviewPanel(extensionUri: vscode.Uri, viewType: string, title: string, script: string, column: vscode.ViewColumn = vscode.ViewColumn.Active): vscode.WebviewPanel {
  const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel(viewType, inert(title, { max: 120 }), column, { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true });
  panel.webview.html = renderSessionHtml({
    cspSource: panel.webview.cspSource,
    nonce: makeNonce(),
    scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, `${script}.js`)).toString(),
    codiconCssUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, 'codicon.css')).toString(),
    title,
  });
  return panel;
}

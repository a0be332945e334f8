/**
 * The relay page of an MCP App panel (bundled to `dist/webview/appHost.js`): it puts the view in an
 * `<iframe sandbox="allow-scripts">` (an opaque origin: no access to this page, its storage, or the
 * VS Code API) and passes messages between the view and the extension, where the MCP Apps host
 * (AppBridge) runs. Only messages from the view's own frame are passed on as the view's; only
 * messages with this page's origin (VS Code's webview host) are taken as the extension's.
 */
import type { AppHostMessage, AppRelayMessage } from '../../src/views/appProtocol';

declare function acquireVsCodeApi(): { postMessage(msg: AppRelayMessage): void };
const api = acquireVsCodeApi();
let frame: HTMLIFrameElement | undefined;

/** VS Code's theme colours and fonts under the MCP Apps standard variable names. */
const VARIABLES: Record<string, string> = {
  '--color-background-primary': '--vscode-editor-background',
  '--color-background-secondary': '--vscode-sideBar-background',
  '--color-background-tertiary': '--vscode-input-background',
  '--color-text-primary': '--vscode-foreground',
  '--color-text-secondary': '--vscode-descriptionForeground',
  '--color-text-danger': '--vscode-errorForeground',
  '--color-text-info': '--vscode-textLink-foreground',
  '--color-border-primary': '--vscode-panel-border',
  '--color-ring-primary': '--vscode-focusBorder',
  '--font-sans': '--vscode-font-family',
  '--font-mono': '--vscode-editor-font-family',
  '--font-text-md-size': '--vscode-font-size',
};

function styles(): Record<string, string> {
  const css = getComputedStyle(document.documentElement);
  const out: Record<string, string> = {};
  for (const [ours, theirs] of Object.entries(VARIABLES)) {
    const v = css.getPropertyValue(theirs).trim();
    if (v) out[ours] = v;
  }
  return out;
}

function status(text: string): void {
  const p = document.getElementById('status') ?? document.body.appendChild(Object.assign(document.createElement('p'), { id: 'status' }));
  p.textContent = text;
}

window.addEventListener('message', (ev: MessageEvent) => {
  if (frame && ev.source === frame.contentWindow) {
    api.postMessage({ type: 'app', message: ev.data });
    return;
  }
  // The extension's messages come through VS Code's webview host, which has this page's origin; the
  // view and any frame inside it have an opaque or foreign origin.
  if (ev.origin !== window.location.origin) return;
  const m = ev.data as AppHostMessage;
  if (m?.type === 'load') {
    frame?.remove();
    frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    if (m.allow) frame.setAttribute('allow', m.allow);
    frame.title = m.title;
    frame.className = m.border ? 'view border' : 'view';
    frame.srcdoc = m.html;
    document.getElementById('status')?.remove();
    document.body.append(frame);
  } else if (m?.type === 'app') {
    frame?.contentWindow?.postMessage(m.message, '*');
  } else if (m?.type === 'ended') {
    frame?.remove();
    frame = undefined;
    status(m.reason);
  }
});

const sheet = new CSSStyleSheet();
sheet.replaceSync('html, body { height: 100%; margin: 0; padding: 0; } iframe.view { width: 100%; height: 100%; border: 0; display: block; } iframe.border { border: 1px solid var(--vscode-panel-border); box-sizing: border-box; } #status { padding: 16px; color: var(--vscode-descriptionForeground); font-family: var(--vscode-font-family); }');
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
status('Loading the app…');
api.postMessage({ type: 'ready', theme: document.body.classList.contains('vscode-light') || document.body.classList.contains('vscode-high-contrast-light') ? 'light' : 'dark', styles: styles() });

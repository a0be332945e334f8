/**
 * Entry point of the session sidebar webview (bundled to `dist/webview/session.js`).
 * Registers the custom elements, adopts the stylesheet, wraps `acquireVsCodeApi` in the host port
 * and starts the app. Everything else lives in modules that run in a plain test DOM.
 */
import './elements';
import { SessionApp } from './app';
import { createVsCodeHost } from './host';
import css from './styles.css';
import planCss from './plan.css';
import emptyCss from './empty.css';
import verificationCss from './verification.css';
import elicitationCss from './elicitation.css';
import messageCss from './messageActions.css';
import turnChangesCss from './turnChanges.css';
import permissionCss from './permissionCard.css';
import headerCss from './header.css';

function adoptStyles(doc: Document, text: string): void {
  // A constructable stylesheet needs no inline <style> (so no 'unsafe-inline' in the CSP).
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(text);
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
}

adoptStyles(document, css);
// What was one sheet, by concern (the plan's rules touch nothing else; the rest keep their order).
adoptStyles(document, planCss);
adoptStyles(document, emptyCss);
adoptStyles(document, verificationCss);
adoptStyles(document, elicitationCss);
adoptStyles(document, messageCss);
adoptStyles(document, turnChangesCss);
adoptStyles(document, permissionCss);
adoptStyles(document, headerCss);
const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
const app = new SessionApp(root, createVsCodeHost(window));
app.start();

/**
 * Tiny DOM helpers. Every element is created from an explicit `Document`, so the UI runs in the
 * webview and in a test DOM (jsdom) without globals.
 */
import { SHOWN_TEXT_CHARS } from '../../src/acp/session/window';
import type { SessionState } from '../../src/acp/session/types';

/** Attributes and handlers for {@link h}. `on*` keys attach listeners; `false`/`undefined` skip. */
export type Props = Record<string, string | number | boolean | undefined | null | ((ev: Event) => void)>;
export type Child = Node | string | null | undefined | false;
/** Children may nest arrays (results of `map`). */
export type Children = Child | Children[];

/** Creates an element builder bound to `doc`. */
export function makeH(doc: Document) {
  return function h(tag: string, props?: Props | null, ...children: Children[]): HTMLElement {
    const el = doc.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
        else if (k === 'className') el.className = String(v);
        else el.setAttribute(k, v === true ? '' : String(v));
      }
    }
    append(el, children);
    return el;
  };
}

export type H = ReturnType<typeof makeH>;

/** Appends children, flattening arrays and skipping empty values. */
export function append(el: Node, children: Children[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c === null || c === undefined || c === false) continue;
    else el.appendChild(typeof c === 'string' ? el.ownerDocument!.createTextNode(c) : c);
  }
}

/** Replaces all children of `el`, skipping empty values. */
export function setChildren(el: Node & ParentNode, ...children: Children[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A codicon (`codicon.css` is served next to the bundle). Decorative unless `label` is given. */
export function icon(h: H, name: string, opts: { spin?: boolean; label?: string; className?: string } = {}): HTMLElement {
  const cls = ['codicon', `codicon-${name}`];
  if (opts.spin) cls.push('codicon-modifier-spin');
  if (opts.className) cls.push(opts.className);
  return h('span', {
    className: cls.join(' '),
    'aria-hidden': opts.label ? undefined : 'true',
    role: opts.label ? 'img' : undefined,
    'aria-label': opts.label,
    title: opts.label,
  });
}

/** Sets or clears a boolean attribute (the vscode-elements components reflect them to properties). */
export function toggleAttr(el: Element, name: string, on: boolean): void {
  if (on) el.setAttribute(name, '');
  else el.removeAttribute(name);
}

/** Last path segment of a file path or URI, for compact labels. */
export function basename(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return i >= 0 ? trimmed.slice(i + 1) : trimmed;
}

/** JSON for display; never throws (cycles and BigInts are not expected, but the UI must not die). */
export function prettyJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text);
}

/** Most characters of one text a card shows; beyond, the rest is counted (the export has it all). */
export const MAX_SHOWN_CHARS = SHOWN_TEXT_CHARS;

/** `text`, cut at {@link MAX_SHOWN_CHARS} with a note of what was left out (a tool's raw input or output as JSON). */
function clip(text: string): string {
  const note = notShownNote(text);
  return note === undefined ? text : `${text.slice(0, MAX_SHOWN_CHARS)}\n${note}`;
}

/**
 * The note that follows a text cut at {@link MAX_SHOWN_CHARS}: how many characters are not shown;
 * undefined when the text (of `totalChars` in full) is not cut.
 */
export function notShownNote(text: string, totalChars = text.length): string | undefined {
  const total = Math.max(totalChars, text.length);
  if (total <= MAX_SHOWN_CHARS) return undefined;
  return `… ${(total - Math.min(text.length, MAX_SHOWN_CHARS)).toLocaleString('en')} more characters not shown (Export Session has all of it)`;
}

/**
 * A folder as a card names it, short where the session's own folder says the rest: inside the
 * session's worktree, "⎇ worktree/src" (its folder is a long path under the extension's storage);
 * inside the session's folder, from that folder's name ("workspace/src"); anywhere else, whole.
 * The whole path goes on hover: nothing is hidden, only said once.
 */
export function shownFolder(dir: string, s: Pick<SessionState, 'cwd' | 'worktree'> | null): string {
  const under = (root: string): string | undefined => {
    const r = root.replace(/[\\/]+$/, '');
    if (!r) return undefined;
    if (dir === r) return '';
    return dir.startsWith(`${r}/`) || dir.startsWith(`${r}\\`) ? dir.slice(r.length + 1) : undefined;
  };
  if (s?.worktree) {
    const rel = under(s.worktree.dir);
    if (rel !== undefined) return rel ? `⎇ worktree/${rel}` : '⎇ worktree';
  }
  if (s?.cwd) {
    const rel = under(s.cwd);
    if (rel !== undefined) return rel ? `${basename(s.cwd)}/${rel}` : basename(s.cwd);
  }
  return dir;
}

/**
 * `text` with a line-break opportunity after each path separator, dot, underscore and `=`: a long
 * path or command in a narrow card breaks where a reader expects ("docs/" | "plan.md"), not inside
 * a word. The text itself is unchanged (the breaks are `<wbr>` elements).
 */
export function breakable(doc: Document, text: string): Node[] {
  const out: Node[] = [];
  for (const piece of text.split(/(?<=[/\\._=])/)) {
    if (out.length) out.push(doc.createElement('wbr'));
    out.push(doc.createTextNode(piece));
  }
  return out;
}

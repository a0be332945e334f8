/**
 * The header's pickers sized to what they show. A `vscode-single-select` is 320 px wide, cuts its
 * chosen entry with an ellipsis inside its shadow DOM, and opens a list exactly as wide as its face,
 * so a narrow face cuts the entries too. In the header a picker's face takes the width of its chosen
 * entry (the page's CSS gives it `width: max-content; max-width: 100%`); these rules let a name
 * longer than the row wrap inside the face instead of being cut, and make the list as wide as its
 * longest entry, moved left when it would pass the window's right edge.
 */

/** Rules added to each header picker's shadow root (the component offers no parts for them). */
const PICKER_CSS = `
  .select-face .text { height: auto; white-space: normal; overflow-wrap: anywhere; }
  .dropdown { width: max-content !important; min-width: 100px; max-width: calc(100vw - 8px); }
  .dropdown .description { width: 0; min-width: 100%; box-sizing: border-box; }
`;

const sheets = new WeakMap<Document, CSSStyleSheet>();
const fitted = new WeakSet<Element>();

/** The shared sheet of `doc`'s window; undefined where constructable sheets do not exist (a test DOM). */
function sheetFor(doc: Document): CSSStyleSheet | undefined {
  const win = doc.defaultView as (Window & typeof globalThis) | null;
  if (!win || typeof win.CSSStyleSheet !== 'function') return undefined;
  let sheet = sheets.get(doc);
  if (!sheet) {
    sheet = new win.CSSStyleSheet();
    // Constructable, so the page's CSP needs no inline style for it.
    sheet.replaceSync(PICKER_CSS);
    sheets.set(doc, sheet);
  }
  return sheet;
}

/**
 * Fits every `vscode-single-select` in `root` (or `root` itself) once: face to its text, list to its
 * entries. Call after the element is in the document: the component makes its shadow root and
 * adopts its own styles when connected, and replacing them afterwards would drop these.
 */
export function fitPickers(root: HTMLElement): void {
  const pickers = root.matches('vscode-single-select') ? [root] : Array.from(root.querySelectorAll<HTMLElement>('vscode-single-select'));
  for (const picker of pickers) {
    if (fitted.has(picker) || !picker.shadowRoot) continue;
    const sheet = sheetFor(picker.ownerDocument);
    if (!sheet) continue;
    fitted.add(picker);
    picker.shadowRoot.adoptedStyleSheets = [...picker.shadowRoot.adoptedStyleSheets, sheet];
    const win = picker.ownerDocument.defaultView;
    if (!win) continue;
    // `open` is reflected once the list is shown (the component opens it in its update).
    new win.MutationObserver(() => {
      if (picker.hasAttribute('open')) keepInWindow(picker);
    }).observe(picker, { attributes: true, attributeFilter: ['open'] });
  }
}

/** Moves an open list left by what passes the window's right edge (not past its left edge). */
function keepInWindow(picker: HTMLElement): void {
  const list = picker.shadowRoot?.querySelector<HTMLElement>('.dropdown');
  if (!list) return;
  // The component sets left/top/width on each render; `translate` is ours and survives them.
  list.style.translate = '';
  const r = list.getBoundingClientRect();
  const right = picker.ownerDocument.documentElement.clientWidth - 4;
  const over = r.right - right;
  if (over > 0) list.style.translate = `${-Math.min(over, Math.max(0, r.left - 4))}px 0`;
}

/** Resolves once the pickers in `roots` show their chosen entry (their first render and their options read). */
export async function pickersRendered(roots: HTMLElement[]): Promise<void> {
  type Picker = HTMLElement & { updateComplete?: Promise<unknown> };
  const pickers = roots.flatMap((r) => (r.matches('vscode-single-select') ? [r as Picker] : Array.from(r.querySelectorAll<Picker>('vscode-single-select'))));
  if (!pickers.some((p) => p.updateComplete)) return;
  // The options are read on `slotchange`, which comes after the first render: wait for both.
  for (let i = 0; i < 2; i++) {
    await Promise.all(pickers.map((p) => p.updateComplete));
    await Promise.resolve();
  }
}

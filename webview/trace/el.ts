/**
 * Small DOM helpers shared by the trace panel and the protocol inspector (both plain-DOM pages):
 * an element with class and text (text only ever as `textContent`), a row of tab buttons, and a
 * redraw coalesced per animation frame.
 */

/** A new element with `className` and `text` (set as text, never as HTML). */
export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
};

/**
 * A row of tab buttons (`button.tab[data-tab=id]`, the chosen one `.active`).
 * @param onChange called with the id of the tab the person chose.
 */
export function tabBar<T extends string>(tabs: readonly (readonly [T, string])[], current: T, onChange: (id: T) => void): HTMLElement {
  const bar = el('div', 'tabs');
  for (const [id, label] of tabs) {
    const b = el('button', `tab${id === current ? ' active' : ''}`, label);
    b.dataset.tab = id;
    b.addEventListener('click', () => {
      for (const t of bar.children) t.classList.toggle('active', (t as HTMLElement).dataset.tab === id);
      onChange(id);
    });
    bar.append(b);
  }
  return bar;
}

/** A function that runs `render` once in the next animation frame, however often it is called before. */
export function perFrame(render: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      render();
    });
  };
}

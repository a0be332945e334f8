// The side bar's panes, arranged for a measure: the Session pane is made tall by collapsing the
// other expanded panes of its container (clicking their headers in the workbench, as a person
// would), and they are expanded again afterwards, so a measure does not depend on how the
// container is laid out.
import { evaluateInFrames } from './screenshot';

/** Collapses (or expands again) the panes of the Session's container other than the Session; returns their labels. */
export async function collapseOthers(collapse: boolean): Promise<string[]> {
  const script = `
    const want = ${collapse ? "'true'" : "'false'"};
    const panes = Array.from(document.querySelectorAll('.pane-header[aria-expanded="' + want + '"]'));
    const session = document.querySelector('.pane-header[aria-label^="Session"]');
    const pane = session && session.closest('.split-view-container');
    const done = [];
    for (const h of panes) {
      if (h === session || !pane || h.closest('.split-view-container') !== pane) continue;
      if (!${collapse} && !window.__narrowCollapsed?.includes(h.getAttribute('aria-label'))) continue;
      h.click();
      done.push(h.getAttribute('aria-label'));
    }
    if (${collapse}) window.__narrowCollapsed = done;
    return done;`;
  const [r] = await evaluateInFrames<string[]>(script);
  return r ?? [];
}

/**
 * The default keys of the commands a card names in its tooltips. package.json's `keybindings`
 * declares them to VS Code; a unit test holds the two together, so a card never names a key the
 * extension does not bind. (A key the person rebinds is VS Code's to know: the page cannot ask.)
 */

/** A key as package.json writes it, for Linux/Windows and for macOS. */
export interface DefaultKey {
  command: string;
  key: string;
  mac: string;
}

/** Allow the waiting request with the focus, once. */
export const APPROVE_KEY: DefaultKey = { command: 'agentSwitchboard.approveWaiting', key: 'ctrl+shift+alt+y', mac: 'cmd+shift+alt+y' };

/** Reject the waiting request with the focus. */
export const REJECT_KEY: DefaultKey = { command: 'agentSwitchboard.rejectWaiting', key: 'ctrl+shift+alt+d', mac: 'cmd+shift+alt+d' };

/** "Ctrl+Shift+Alt+Y" (or "Cmd+Shift+Alt+Y" on a Mac): a key as a person reads it. */
export function keyLabel(k: DefaultKey, mac: boolean): string {
  return (mac ? k.mac : k.key).split('+').map((p) => (p.length === 1 ? p.toUpperCase() : p[0].toUpperCase() + p.slice(1))).join('+');
}

/**
 * URL-mode elicitation (ACP v1 `elicitation/create` with `mode: "url"`): which pages the editor may
 * open for an agent. The spec asks the client to show the target host and get consent before
 * navigating; beyond that, an agent's URL must not make the editor open another application's links
 * (`vscode:`, `command:`, `file:`, `smb:` …): only `https:` pages, and `http:` on loopback (a local
 * sign-in page), as for MCP OAuth. No `vscode`.
 */

/** Where a URL would take the person, or why the editor will not open it. */
export type UrlTarget = { openable: true; href: string; host: string } | { openable: false; reason: string; host?: string };

/** Characters of a URL that the card shows; a longer one is refused (nobody can read it to consent). */
export const MAX_URL_LENGTH = 8192;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Decides whether `url` may be opened (see the file comment); never throws. */
export function urlTarget(url: string): UrlTarget {
  if (url.length > MAX_URL_LENGTH) return { openable: false, reason: `The address is longer than ${MAX_URL_LENGTH} characters.` };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { openable: false, reason: 'The address is not a valid URL.' };
  }
  const host = u.host;
  // `https://bank.example@evil.example` reads as the bank and goes to evil.example.
  if (u.username || u.password) return { openable: false, reason: 'The address carries a user name or password.', host };
  if (u.protocol === 'https:' && host) return { openable: true, href: u.href, host };
  if (u.protocol === 'http:' && LOOPBACK.has(u.hostname)) return { openable: true, href: u.href, host };
  return { openable: false, reason: `Only https: pages (and http: on this computer) are opened; this address is ${u.protocol}.`, ...(host ? { host } : {}) };
}

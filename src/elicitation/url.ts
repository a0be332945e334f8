/**
 * Which pages the editor may open for an agent, an MCP server or app, or a remote agent: the one
 * check every untrusted URL goes through before `vscode.env.openExternal` (URL-mode elicitation, an
 * MCP App's open-link request, an MCP server's sign-in page). The spec of URL-mode elicitation asks
 * the client to show the target host and get consent before navigating; beyond that, an untrusted
 * URL must not make the editor open another application's links (`vscode:`, `command:`, `file:`,
 * `smb:` …): only `https:` pages, and `http:` on loopback (a local sign-in page), as for MCP OAuth.
 * And the prompt shows the whole address it opens (see `approvalText`), so an address it could not
 * show as itself, or whole, is refused here rather than cut there. No `vscode`.
 */
import { approvalText } from '../common/approvalText';

/** Where a URL would take the person, or why the editor will not open it. */
export type UrlTarget = { openable: true; href: string; host: string } | { openable: false; reason: string; host?: string };

/** Characters of a URL that the card shows; a longer one is refused (nobody can read it to consent). */
export const MAX_URL_LENGTH = 8192;

/** Longest host name (RFC 1035: 253 characters in text form), with room for `[v6]:port`. */
const MAX_HOST_LENGTH = 253 + 8;

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
  if (host.length > MAX_HOST_LENGTH) return { openable: false, reason: `The address's host is longer than a host name can be.` };
  // `https://bank.example@evil.example` reads as the bank and goes to evil.example.
  if (u.username || u.password) return { openable: false, reason: 'The address carries a user name or password.', host };
  const web = (u.protocol === 'https:' && host) || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
  if (!web) return { openable: false, reason: `Only https: pages (and http: on this computer) are opened; this address is ${u.protocol}.`, ...(host ? { host } : {}) };
  // What is opened is `href` (the parser's spelling), so that is what the prompt must show whole.
  const shown = approvalText([u.href], { max: MAX_URL_LENGTH, what: 'The address' });
  if (!shown.ok) return { openable: false, reason: shown.reason, host };
  return { openable: true, href: u.href, host };
}

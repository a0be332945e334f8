/**
 * One host a card may offer to allow with one click: a literal host name or IPv4 address, with at
 * most one port, spelled so that the sandbox-runtime's `allowedDomains` grammar reads it as that one
 * destination and nothing more.
 *
 * The library's grammar (`domain-pattern.js`: `isValidAllowedDomainEntry`, `matchesDomainPattern`)
 * also accepts `*.example.com` (every host under it), a bare IPv6 literal in brackets (which it
 * canonicalizes, and an IPv4-mapped one to the IPv4 address it carries), and any spelling it
 * compares case-insensitively. The host names behind "Allow … and run again" come from refusals of a
 * command the agent chose, so the agent chooses them too: here only the one form whose meaning is
 * the text the card shows passes — lowercase DNS labels (or `localhost`), or a dotted-quad IPv4
 * address, exactly as the WHATWG URL parser (what the library canonicalizes with) spells it; an
 * optional `:port` of 1–65535 without leading zeros. No wildcard, pattern, user-info, port range,
 * IPv6 literal, inet_aton shorthand (`127.1`, `0x7f.1`), trailing dot or invisible character.
 *
 * Pure (no `vscode`, no file system, no library).
 */

/** Longest DNS name (RFC 1035: 253 characters in text form). */
const MAX_NAME = 253;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const PORT = /^[1-9][0-9]{0,4}$/;

/**
 * `entry` if it names exactly one host (and at most one port) in the form described in the file
 * comment, else undefined. Used where a host is offered and again where the click allows it.
 */
export function literalHostEntry(entry: unknown): string | undefined {
  if (typeof entry !== 'string' || entry.length > MAX_NAME + 6) return undefined;
  const colon = entry.indexOf(':');
  const host = colon < 0 ? entry : entry.slice(0, colon);
  const port = colon < 0 ? undefined : entry.slice(colon + 1);
  if (port !== undefined && !(PORT.test(port) && Number(port) <= 65535)) return undefined;
  return literalHost(host) === undefined ? undefined : entry;
}

/**
 * The entry a sandbox refusal of `host` on `port` offers (the host lowercased: DNS names are
 * case-insensitive, and the library compares them so), or undefined when that is not a literal
 * host by {@link literalHostEntry}.
 */
export function refusedHostEntry(host: string, port: string): string | undefined {
  return literalHostEntry(`${host.toLowerCase()}:${port}`);
}

/** `host` if it is a literal host name or dotted-quad IPv4 address spelled as the URL parser spells it. */
function literalHost(host: string): string | undefined {
  if (host.length === 0 || host.length > MAX_NAME) return undefined;
  const labels = host.split('.');
  const dottedQuad = labels.length === 4 && labels.every((l) => OCTET.test(l) && Number(l) <= 255);
  // A name whose last label is a number is read as an IPv4 address (`1.2.3` is 1.2.0.3): only the
  // plain four-number form is that address as written.
  if (!dottedQuad) {
    if (host !== 'localhost' && labels.length < 2) return undefined;
    if (!labels.every((l) => LABEL.test(l)) || /^(?:0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1])) return undefined;
  }
  // What the library compares with: the host as the WHATWG URL parser spells it (punycode checked,
  // IPv4 forms normalised). Anything it would spell otherwise is refused, not rewritten.
  try {
    return new URL(`http://${host}/`).hostname === host ? host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Words for the parts of an agent card a person needs to judge it: security schemes. A scheme may
 * arrive in the SDK's shape (`{scheme: {$case, value}}`) or as proto JSON (`{apiKeySecurityScheme:
 * {...}}`), so both are read. No `vscode`. Spec: PROTOCOLS.md §4.1.
 */

type Obj = Record<string, unknown>;

/** One line describing a security scheme, e.g. `API key in header X-Api-Key` or `OAuth 2.0 (authorization code)`. */
export function describeSecurityScheme(scheme: unknown): string {
  if (!scheme || typeof scheme !== 'object') return 'unknown scheme';
  const s = scheme as Obj;
  const inner = s.scheme && typeof s.scheme === 'object' ? (s.scheme as { $case?: string; value?: Obj }) : undefined;
  const kind = inner?.$case ?? Object.keys(s).find((k) => k.endsWith('SecurityScheme'));
  const v = (inner?.value ?? (kind ? (s[kind] as Obj) : undefined) ?? {}) as Obj;
  const str = (k: string) => (typeof v[k] === 'string' && v[k] ? String(v[k]) : '');
  if (!kind && typeof s.type === 'string') return describeLegacy(s);
  switch (kind) {
    case 'apiKeySecurityScheme':
      return `API key in ${str('location') || '?'} ${str('name')}`.trim();
    case 'httpAuthSecurityScheme':
      return `HTTP ${str('scheme') || 'auth'}${str('bearerFormat') ? ` (${str('bearerFormat')})` : ''}`;
    case 'oauth2SecurityScheme': {
      const flows = v.flows && typeof v.flows === 'object' ? (v.flows as Obj) : {};
      const flow = (flows.flow as { $case?: string } | undefined)?.$case ?? Object.keys(flows)[0];
      return `OAuth 2.0${flow ? ` (${flow.replace(/([A-Z])/g, ' $1').toLowerCase().trim()})` : ''}`;
    }
    case 'openIdConnectSecurityScheme':
      return `OpenID Connect ${str('openIdConnectUrl')}`.trim();
    case 'mtlsSecurityScheme':
    case 'mutualTlsSecurityScheme':
      return 'mutual TLS';
    default:
      return kind ? kind : 'unknown scheme';
  }
}

/** A v0.3 (OpenAPI-style) scheme: `{type: 'apiKey', in, name}`, `{type: 'http', scheme}`, … */
function describeLegacy(s: Obj): string {
  const str = (k: string) => (typeof s[k] === 'string' ? String(s[k]) : '');
  if (s.type === 'apiKey') return `API key in ${str('in') || '?'} ${str('name')}`.trim();
  if (s.type === 'http') return `HTTP ${str('scheme') || 'auth'}${str('bearerFormat') ? ` (${str('bearerFormat')})` : ''}`;
  if (s.type === 'oauth2') return 'OAuth 2.0';
  if (s.type === 'openIdConnect') return `OpenID Connect ${str('openIdConnectUrl')}`.trim();
  if (s.type === 'mutualTLS') return 'mutual TLS';
  return String(s.type);
}

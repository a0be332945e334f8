/**
 * OAuth for MCP servers over Streamable HTTP (MCP authorization, 2025-06-18 and later): the SDK's
 * client flow does discovery (RFC 9728 protected-resource metadata, RFC 8414 / OIDC
 * authorization-server metadata), client registration (pre-registered, Client ID Metadata
 * Document, or dynamic registration), PKCE (S256), the resource indicator (RFC 8707), the `iss`
 * check (RFC 9207), refresh and scope step-up. This module is the provider it calls back into:
 * where credentials are kept and how the person's browser is sent to the authorization server.
 *
 * Credentials are stored per MCP server (its URL) and, within it, per authorization-server issuer
 * (a spec MUST), in a {@link SecretStore} (VS Code's SecretStorage in the editor). Each server has
 * its own provider, so a token is only ever sent to the server it was issued for. No `vscode`.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientInformationContext, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { urlTarget } from '../elicitation/url';

/** Where secrets live (SecretStorage in the editor, a map in tests and the command-line client). */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Sends the person's browser to the authorization server and receives the redirect back. */
export interface AuthorizationPort {
  /** The redirect URI registered with authorization servers (a loopback URL we listen on). */
  readonly redirectUrl: string;
  /**
   * Opens `url` for the person and resolves with the query parameters of the redirect that carries
   * `state`. Rejects when the person gives up, `signal` aborts, or no redirect arrives in time.
   */
  authorize(url: URL, state: string, signal: AbortSignal): Promise<URLSearchParams>;
}

/** What a definition may say about OAuth (client registered beforehand, scopes to ask for). */
export interface OAuthClientSettings {
  clientId?: string;
  clientSecret?: string;
  /** Space-separated scopes, when the server's metadata does not say which to ask for. */
  scope?: string;
}

/** Options shared by every server's provider. */
export interface OAuthProviderOptions {
  clientName: string;
  /**
   * An HTTPS URL where this client's metadata document is published (Client ID Metadata Documents,
   * SEP-991); used as the client id where the authorization server supports it.
   */
  clientMetadataUrl?: string;
}

/** A provider whose interactive step the connection can wait for. */
export interface InteractiveOAuth extends OAuthClientProvider {
  /**
   * The authorization the browser is busy with (its redirect's parameters), if one was started.
   * Every caller that met the same 401 gets the same promise; one sign-in serves them all.
   */
  takePendingAuthorization(): Promise<URLSearchParams> | undefined;
  /** Names the redirect about to be redeemed, so {@link OAuthClientProvider.codeVerifier} returns its verifier. */
  redeeming(state: string | null): void;
  /** The URL the person was sent to, to open again if they closed the tab. */
  readonly pendingUrl: URL | undefined;
  /** Forgets every credential of this server (sign out). */
  signOut(): Promise<void>;
  /** True once tokens for this server were found or saved (until sign-out or invalidation). */
  readonly signedIn: boolean;
}

/**
 * The {@link OAuthClientProvider} of one MCP server.
 * @param serverUrl the server's URL; credentials are keyed by it and by issuer.
 */
export class McpOAuthProvider implements InteractiveOAuth {
  /** The verifier the SDK saved last, and each open sign-in's verifier by its `state`. */
  private verifier: string | undefined;
  private readonly verifiers = new Map<string, string>();
  private redeemingState: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private pending: Promise<URLSearchParams> | undefined;
  private _pendingUrl: URL | undefined;
  private abort = new AbortController();
  private _signedIn = false;
  readonly clientMetadataUrl: string | undefined;

  constructor(
    private readonly serverUrl: string,
    private readonly store: SecretStore,
    private readonly port: AuthorizationPort,
    private readonly options: OAuthProviderOptions,
    private readonly settings: OAuthClientSettings = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.port.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.port.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: the editor cannot keep a secret, PKCE protects the code instead.
      token_endpoint_auth_method: this.settings.clientSecret ? 'client_secret_basic' : 'none',
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    };
  }

  get signedIn(): boolean {
    return this._signedIn;
  }

  get pendingUrl(): URL | undefined {
    return this._pendingUrl;
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    if (this.settings.clientId) return { client_id: this.settings.clientId, ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}) };
    const info = await this.read<StoredOAuthClientInformation & { redirect_uris?: string[] }>(`client/${ctx?.issuer ?? 'latest'}`);
    // A registration made for another redirect URI (another port) would be refused: register again.
    if (info?.redirect_uris && !info.redirect_uris.includes(this.port.redirectUrl)) return undefined;
    return info;
  }

  async saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    await this.write(`client/${ctx?.issuer ?? 'latest'}`, info);
    await this.write('client/latest', info);
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const t = await this.read<StoredOAuthTokens>(`tokens/${ctx?.issuer ?? 'latest'}`);
    if (t) this._signedIn = true;
    return t;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    await this.write(`tokens/${ctx?.issuer ?? tokens.issuer ?? 'latest'}`, tokens);
    // The transport asks for "the most recently saved" set without an issuer before every request.
    await this.write('tokens/latest', tokens);
    this._signedIn = true;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    const v = (this.redeemingState !== undefined ? this.verifiers.get(this.redeemingState) : undefined) ?? this.verifier;
    if (!v) throw new Error('No sign-in is in progress for this MCP server (the PKCE code verifier is missing).');
    return v;
  }

  redeeming(state: string | null): void {
    this.redeemingState = state ?? undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // Kept with the verifier, so the code goes to the authorization server the sign-in started at.
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /**
   * Sends the person's browser to the authorization page (through the port, which asks first).
   * While a sign-in is open, another 401 joins it instead of opening a second page.
   * @throws Error when the page is not https (or http on this machine), carries a user name or
   * password, or cannot be shown whole: a server's metadata must not make the editor open `file:`,
   * `smb:` or another application's links, nor name one host and go to another.
   */
  redirectToAuthorization(url: URL): void {
    // The one check of every untrusted address (src/elicitation/url.ts): https, or http on this
    // computer; no user name or password; short and plain enough to be shown whole.
    const target = urlTarget(url.href);
    if (!target.openable) throw new Error(`The MCP server's authorization page was not opened: ${target.reason}`);
    if (this.pending) return;
    const state = url.searchParams.get('state') ?? '';
    if (this.verifier) this.verifiers.set(state, this.verifier);
    this._pendingUrl = url;
    const p = this.port.authorize(url, state, this.abort.signal);
    // Nobody may be waiting yet (the SDK throws UnauthorizedError right after this returns).
    p.catch(() => undefined);
    const done = () => {
      if (this.pending === shared) this.pending = undefined;
      if (this._pendingUrl === url) this._pendingUrl = undefined;
    };
    const shared = p.finally(done);
    shared.catch(() => undefined);
    this.pending = shared;
  }

  takePendingAuthorization(): Promise<URLSearchParams> | undefined {
    return this.pending;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') {
      this.verifier = undefined;
      this.verifiers.clear();
    }
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'tokens' || scope === 'all') {
      this._signedIn = false;
      await this.forget('tokens/');
    }
    if (scope === 'client' || scope === 'all') await this.forget('client/');
  }

  async signOut(): Promise<void> {
    this.abort.abort();
    this.abort = new AbortController();
    this.pending = undefined;
    this._pendingUrl = undefined;
    await this.invalidateCredentials('all');
  }

  /** Stops waiting for the browser (the server was stopped). */
  cancel(): void {
    this.abort.abort();
    this.abort = new AbortController();
  }

  private key(name: string): string {
    return `agentSwitchboard.mcp.oauth:${this.serverUrl}:${name}`;
  }

  private async read<T>(name: string): Promise<T | undefined> {
    const raw = await this.store.get(this.key(name));
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  }

  private async write(name: string, value: unknown): Promise<void> {
    const names = new Set(JSON.parse((await this.store.get(this.key('index'))) ?? '[]') as string[]);
    names.add(name);
    await this.store.store(this.key(name), JSON.stringify(value));
    await this.store.store(this.key('index'), JSON.stringify([...names]));
  }

  private async forget(prefix: string): Promise<void> {
    const names = JSON.parse((await this.store.get(this.key('index'))) ?? '[]') as string[];
    const keep = names.filter((n) => !n.startsWith(prefix));
    for (const n of names) if (n.startsWith(prefix)) await this.store.delete(this.key(n));
    await this.store.store(this.key('index'), JSON.stringify(keep));
  }
}

/**
 * True for the SDK's "authorization needed" error, also when another layer wrapped it (ext-tasks
 * puts it in a `DispatchError`'s `cause`) and across bundle copies (by name).
 */
export function isUnauthorized(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e.name === 'UnauthorizedError' || (e as { mcpBrand?: string }).mcpBrand === 'mcp.UnauthorizedError') return true;
  }
  return false;
}

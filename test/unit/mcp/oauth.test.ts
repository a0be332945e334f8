/**
 * The OAuth provider and the loopback redirect receiver (the SDK's flow itself runs against the
 * conformance suite's authorization servers in conformance.test.ts).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { isUnauthorized, McpOAuthProvider, type AuthorizationPort, type SecretStore } from '../../../src/mcp/oauth';
import { LoopbackRedirectReceiver } from '../../../src/mcp/oauthRedirect';

function memoryStore(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, get: async (k) => map.get(k), store: async (k, v) => void map.set(k, v), delete: async (k) => void map.delete(k) };
}

describe('MCP OAuth', () => {
  describe('loopback redirect receiver', () => {
    const receiver = new LoopbackRedirectReceiver();
    after(() => receiver.dispose());

    it('listens on 127.0.0.1 only and hands the redirect to the sign-in with that state', async () => {
      const redirect = await receiver.start();
      assert.match(redirect, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const waiting = receiver.waitFor('s1', 5000);
      const page = await fetch(`${redirect}?code=abc&state=s1&iss=https%3A%2F%2Fas.example`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Signed in/);
      const params = await waiting;
      assert.deepEqual([params.get('code'), params.get('iss')], ['abc', 'https://as.example']);
    });

    it('a malformed request gets a 400 and the listener keeps running', async () => {
      const redirect = await receiver.start();
      const { port } = new URL(redirect);
      const status = await new Promise<string>((resolve) => {
        const sock = net.connect(Number(port), '127.0.0.1', () => sock.write('GET //[ HTTP/1.1\r\nHost: x\r\n\r\n'));
        sock.on('data', (d) => {
          resolve(d.toString().split('\r\n')[0]);
          sock.destroy();
        });
      });
      assert.match(status, /400/);
      assert.equal((await fetch(`${redirect}?state=none`)).status, 400, 'still serving');
    });

    it('refuses a redirect with an unknown state and leaves the waiting sign-in alone', async () => {
      const redirect = await receiver.start();
      const waiting = receiver.waitFor('mine', 5000);
      const forged = await fetch(`${redirect}?code=evil&state=other`);
      assert.equal(forged.status, 400);
      await fetch(`${redirect}?code=good&state=mine`);
      assert.equal((await waiting).get('code'), 'good');
      assert.equal((await fetch(redirect.replace('/callback', '/elsewhere'))).status, 404);
    });

    it('a sign-in that is cancelled or times out says so', async () => {
      const ac = new AbortController();
      const cancelled = receiver.waitFor('c', 5000, ac.signal);
      ac.abort();
      await assert.rejects(cancelled, /cancelled/);
      await assert.rejects(receiver.waitFor('t', 50), /No answer from the sign-in page/);
    });
  });

  describe('provider', () => {
    const port = (redirectUrl: string, opened: URL[] = []): AuthorizationPort => ({
      redirectUrl,
      authorize: async (url) => {
        opened.push(url);
        return new URLSearchParams({ code: 'c', state: url.searchParams.get('state') ?? '' });
      },
    });

    it('keeps tokens per server and per issuer, and the latest for the transport', async () => {
      const store = memoryStore();
      const a = new McpOAuthProvider('https://a.example/mcp', store, port('http://127.0.0.1:1/callback'), { clientName: 'x' });
      const b = new McpOAuthProvider('https://b.example/mcp', store, port('http://127.0.0.1:1/callback'), { clientName: 'x' });
      assert.equal(a.signedIn, false);
      await a.saveTokens({ access_token: 'ta', token_type: 'Bearer' }, { issuer: 'https://as1' });
      assert.equal(a.signedIn, true);
      assert.equal((await a.tokens({ issuer: 'https://as1' }))?.access_token, 'ta');
      assert.equal((await a.tokens())?.access_token, 'ta');
      assert.equal(await a.tokens({ issuer: 'https://as2' }), undefined, 'another issuer has its own credentials');
      assert.equal(await b.tokens(), undefined, "one server's token is never another's");
      await a.signOut();
      assert.equal(a.signedIn, false);
      assert.equal(await a.tokens(), undefined);
      assert.deepEqual([...store.map.keys()].filter((k) => !k.endsWith(':index')), []);
    });

    it('registers again when its redirect URI changed; a pre-registered client is used as given', async () => {
      const store = memoryStore();
      const first = new McpOAuthProvider('https://a.example/mcp', store, port('http://127.0.0.1:1/callback'), { clientName: 'x' });
      await first.saveClientInformation({ client_id: 'dyn', redirect_uris: ['http://127.0.0.1:1/callback'] } as never, { issuer: 'https://as' });
      assert.equal((await first.clientInformation({ issuer: 'https://as' }))?.client_id, 'dyn');
      const later = new McpOAuthProvider('https://a.example/mcp', store, port('http://127.0.0.1:2/callback'), { clientName: 'x' });
      assert.equal(await later.clientInformation({ issuer: 'https://as' }), undefined);
      const pre = new McpOAuthProvider('https://a.example/mcp', store, port('http://127.0.0.1:2/callback'), { clientName: 'x' }, { clientId: 'fixed', clientSecret: 's' });
      assert.deepEqual(await pre.clientInformation(), { client_id: 'fixed', client_secret: 's' });
      assert.equal(pre.clientMetadata.token_endpoint_auth_method, 'client_secret_basic');
      assert.equal(later.clientMetadata.token_endpoint_auth_method, 'none');
    });

    it('opens the authorization page once and hands its redirect to the connection', async () => {
      const opened: URL[] = [];
      const p = new McpOAuthProvider('https://a.example/mcp', memoryStore(), port('http://127.0.0.1:1/callback', opened), { clientName: 'x' });
      assert.equal(p.takePendingAuthorization(), undefined);
      p.redirectToAuthorization(new URL('https://as.example/authorize?state=xyz'));
      assert.equal(opened.length, 1);
      assert.equal((await p.takePendingAuthorization())?.get('state'), 'xyz');
      assert.equal(p.takePendingAuthorization(), undefined, 'gone once it settled');
      assert.throws(() => p.codeVerifier(), /No sign-in is in progress/);
    });

    it('never opens a page that is not on the web (file:, smb:, another application\'s links)', () => {
      const opened: URL[] = [];
      const p = new McpOAuthProvider('https://a.example/mcp', memoryStore(), port('http://127.0.0.1:1/callback', opened), { clientName: 'x' });
      // And through the one check of untrusted addresses: no user name in front of the host it goes to.
      for (const bad of ['file://attacker/share/x.exe?state=1', 'smb://host/x?state=1', 'vscode://vscode.git/clone?url=x&state=1', 'http://evil.example/authorize?state=1', `https://accounts.example${'&'.repeat(500)}@evil.example/authorize?state=1`]) {
        assert.throws(() => p.redirectToAuthorization(new URL(bad)), /not a web address|was not opened/, bad);
      }
      p.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize?state=ok'));
      assert.equal(opened.length, 1, 'https anywhere, http only on this machine');
    });

    it('a second 401 during a sign-in joins it; the code is redeemed with the verifier of the sign-in it belongs to', async () => {
      const opened: URL[] = [];
      const p = new McpOAuthProvider('https://a.example/mcp', memoryStore(), port('http://127.0.0.1:1/callback', opened), { clientName: 'x' });
      p.saveCodeVerifier('v1');
      p.redirectToAuthorization(new URL('https://as.example/authorize?state=s1'));
      const first = p.takePendingAuthorization();
      p.saveCodeVerifier('v2');
      p.redirectToAuthorization(new URL('https://as.example/authorize?state=s2'));
      assert.equal(opened.length, 1, 'one page for both');
      assert.equal(p.takePendingAuthorization(), first, 'both callers wait on the same sign-in');
      p.redeeming((await first!).get('state'));
      assert.equal(p.codeVerifier(), 'v1');
    });

    it('an authorization error wrapped by another layer is still recognised', () => {
      const unauthorized = Object.assign(new Error('x'), { name: 'UnauthorizedError' });
      assert.ok(isUnauthorized(new Error('MCP client request failed', { cause: unauthorized })));
      assert.ok(!isUnauthorized(new Error('other', { cause: new Error('x') })));
    });
  });
});

/**
 * The loopback redirect receiver of OAuth sign-ins (RFC 8252 §7.3, native apps): an HTTP listener
 * on 127.0.0.1 only, on a port the system picks, that takes the authorization server's redirect
 * (`/callback?code=…&state=…&iss=…`) and hands its parameters to the sign-in waiting for that
 * `state`. A redirect with an unknown state is refused and changes nothing, so another page cannot
 * complete someone's sign-in. The browser gets a short page saying what happened. No `vscode`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h2>${title}</h2><p>${text}</p></body>`;

/** Receives OAuth redirects on a loopback port. */
export class LoopbackRedirectReceiver {
  private server: Server | undefined;
  private port = 0;
  private readonly waiting = new Map<string, { resolve(p: URLSearchParams): void; reject(e: Error): void }>();

  /** Starts listening (once); resolves with the redirect URI to register, `http://127.0.0.1:<port>/callback`. */
  async start(): Promise<string> {
    if (!this.server) {
      const server = createServer((req, res) => {
        let url: URL;
        try {
          url = new URL(req.url ?? '/', 'http://127.0.0.1');
        } catch {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request');
          return;
        }
        if (req.method !== 'GET' || url.pathname !== '/callback') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
          return;
        }
        const state = url.searchParams.get('state') ?? '';
        const w = this.waiting.get(state);
        if (!w) {
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Sign-in not recognised', 'This sign-in is unknown or has expired. Start it again from the editor.'));
          return;
        }
        this.waiting.delete(state);
        const failed = url.searchParams.has('error');
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(failed ? PAGE('Sign-in did not complete', 'The authorization server refused or the sign-in was cancelled. Details are in the editor.') : PAGE('Signed in', 'You can close this tab and return to the editor.'));
        w.resolve(url.searchParams);
      });
      this.server = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      this.port = (server.address() as AddressInfo).port;
      // A listener error later (a broken socket) must not become an uncaught exception.
      server.on('error', () => undefined);
      server.on('clientError', (_err, socket) => socket.destroy());
    }
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /**
   * Resolves with the parameters of the redirect carrying `state`.
   * @throws Error when `timeoutMs` passes or `signal` aborts first.
   */
  waitFor(state: string, timeoutMs: number, signal?: AbortSignal): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(state);
      };
      const onAbort = () => {
        done();
        reject(new Error('The sign-in was cancelled.'));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`No answer from the sign-in page within ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(state, {
        resolve: (p) => {
          done();
          resolve(p);
        },
        reject,
      });
    });
  }

  dispose(): void {
    for (const w of this.waiting.values()) w.reject(new Error('The editor is closing.'));
    this.waiting.clear();
    this.server?.close();
    this.server = undefined;
  }
}

/**
 * An ACP connection whose agent side is the test: raw bytes go to the client exactly as written
 * (malformed JSON, split UTF-8, huge lines), and what the client sends back is parsed and recorded.
 * The scripted agent answers `initialize` and `session/new` (session `s1`) by itself.
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStdio } from '../../src/acp/transport/ndJsonStdio';
import { AgentConnection } from '../../src/acp/connection';
import { SessionController, type TerminalsPort } from '../../src/acp/sessionController';
import { MemoryFiles } from '../fakes/memoryFiles';
import { testPolicy } from '../fakes/policy';

/** A connected bad agent and the session it serves. */
export interface BadAgent {
  controller: SessionController;
  connection: AgentConnection;
  /** Everything the client sent to the agent, parsed. */
  fromClient: Record<string, unknown>[];
  /** Writes to the client: an object as one JSON line, a string or bytes as they are. */
  send(data: unknown): void;
  /** Resolves once a client message matches (2 s at most). */
  waitFor(pred: (m: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>>;
  /** Sends a valid chunk `marker` and resolves once the session shows it: the connection still works. */
  alive(marker: string): Promise<void>;
  close(): Promise<void>;
}

const terminals: TerminalsPort = {
  create: async () => {
    throw new Error('no terminals here');
  },
  output: () => {
    throw new Error('unknown terminal');
  },
  waitForExit: async () => ({}),
  kill: async () => {},
  release: async () => {},
  disposeAll: async () => {},
  onDidChange: () => ({ dispose() {} }),
};

/**
 * @param opts.newSession the `session/new` answer the agent gives (default `{ sessionId: 's1' }`).
 * @param opts.onRequest answers a client request the script handles itself (return true), before the defaults.
 */
export async function badAgent(opts: { maxMessageBytes?: number; newSession?: Record<string, unknown>; onRequest?: (m: Record<string, unknown>, send: (data: unknown) => void) => boolean } = {}): Promise<BadAgent> {
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const agentOut = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  const fromClient: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buf = '';
  const send = (data: unknown) => {
    try {
      ctl.enqueue(data instanceof Uint8Array ? data : enc.encode(typeof data === 'string' ? data : `${JSON.stringify(data)}\n`));
    } catch {
      // The client closed its side: what the agent writes now goes nowhere.
    }
  };
  const clientOut = new WritableStream<Uint8Array>({
    write(chunk) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line) as Record<string, unknown>;
        fromClient.push(m);
        if (opts.onRequest?.(m, send)) {
          waiters.splice(0).forEach((w) => w());
          continue;
        }
        if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'bad', version: '1' }, authMethods: [] } });
        if (m.method === 'session/new') send({ jsonrpc: '2.0', id: m.id, result: opts.newSession ?? { sessionId: 's1' } });
        waiters.splice(0).forEach((w) => w());
      }
    },
  });
  // The framing and the limit our agent processes use (src/acp/transport/agentProcess.ts), unless a
  // case sets one: the bytes pass through Node streams as an agent's stdio does.
  const stream = ndJsonStdio(Writable.fromWeb(clientOut), Readable.fromWeb(agentOut as import('node:stream/web').ReadableStream), { maxMessageBytes: opts.maxMessageBytes ?? 64 * 1024 * 1024 });
  const connection = await AgentConnection.connect(stream, { agentName: 'Bad agent', clientInfo: { name: 'resilience', version: '0' }, initializeTimeoutMs: 5000 });
  const files = new MemoryFiles();
  const controller = new SessionController({ key: 'k1', agentId: 'bad', agentName: 'Bad agent', cwd: '/w' }, files, terminals, testPolicy({ roots: ['/w'] }));
  await controller.attach(connection);
  const waitFor = async (pred: (m: Record<string, unknown>) => boolean, what: string) => {
    const deadline = Date.now() + 2000;
    for (;;) {
      const found = fromClient.find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; client sent: ${JSON.stringify(fromClient.slice(-3)).slice(0, 500)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 20);
      });
    }
  };
  const alive = async (marker: string) => {
    send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', messageId: marker, content: { type: 'text', text: marker } } } });
    const deadline = Date.now() + 2000;
    while (!controller.state.entries.some((e) => e.kind === 'agent' && e.text.includes(marker))) {
      if (Date.now() > deadline) throw new Error(`the connection no longer works: "${marker}" never arrived (status ${controller.state.status})`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    controller,
    connection,
    fromClient,
    send,
    waitFor,
    alive,
    close: async () => {
      await controller.dispose();
      try {
        ctl.close();
      } catch {
        // already closed
      }
    },
  };
}

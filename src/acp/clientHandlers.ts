/**
 * The only implementation of the client side of ACP: every agent → client request and
 * notification is routed here to the {@link SessionHandlers} of the session it names.
 *
 * Spec: ACP v1 client methods (https://agentclientprotocol.com/protocol/overview#client):
 * `session/update`, `session/request_permission`, `fs/read_text_file`, `fs/write_text_file`,
 * `terminal/create|output|wait_for_exit|kill|release`, `elicitation/create` and the
 * `elicitation/complete` notification (schema 1.21, https://agentclientprotocol.com/protocol/v1/elicitation).
 * No `vscode`.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from './sdk';
import { parseSessionNotification } from './sessionNotification';

/** What one session does with the agent's requests. Errors thrown become JSON-RPC errors. */
export interface SessionHandlers {
  onUpdate(update: acp.SessionUpdate): void;
  requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** `signal`: aborted when the agent withdraws the request (`$/cancel_request`) or the connection closes. */
  readTextFile(params: acp.ReadTextFileRequest, signal?: AbortSignal): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest, signal?: AbortSignal): Promise<void>;
  createTerminal(params: acp.CreateTerminalRequest, signal?: AbortSignal): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<void>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<void>;
  /** A session-scoped `elicitation/create`; `signal` aborts when the agent withdraws it. */
  elicit(params: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse>;
  /** `elicitation/complete`; false when this session has no question with that id. */
  completeElicitation(elicitationId: string): boolean;
}

/**
 * Builds the SDK client app. `lookup` finds a session's handlers; requests for a session we do not
 * know get `-32002` (resource not found, `data.sessionId`), and unknown methods `-32601`. `all`
 * lists the connection's sessions: `elicitation/complete` names only the question, not its session.
 *
 * A request-scoped `elicitation/create` (`{requestId}`, outside any session: during `initialize`,
 * `authenticate` or `session/new`) has no thread to show a card in; it is answered `cancel`.
 */
export function buildClientApp(name: string, lookup: (sessionId: string) => SessionHandlers | undefined, all: () => Iterable<SessionHandlers> = () => [], unrouted?: (sessionId: string, update: acp.SessionUpdate) => void): acp.ClientApp {
  const m = acpSdk().methods.client;
  const get = (sessionId: string): SessionHandlers => {
    const h = lookup(sessionId);
    if (!h) throw acpSdk().RequestError.sessionNotFound(sessionId);
    return h;
  };
  return acpSdk()
    .client({ name })
    .onNotification(m.session.update, parseSessionNotification, ({ params }) => {
      // Updates for a session we do not track go to `unrouted` (one whose `session/new` answer is
      // still on its way is held there); for one closed, or never ours, they are dropped quietly.
      const h = lookup(params.sessionId);
      if (h) h.onUpdate(params.update);
      else unrouted?.(params.sessionId, params.update);
    })
    .onRequest(m.session.requestPermission, ({ params, signal }) => get(params.sessionId).requestPermission(params, signal))
    .onRequest(m.fs.readTextFile, ({ params, signal }) => get(params.sessionId).readTextFile(params, signal))
    .onRequest(m.fs.writeTextFile, async ({ params, signal }) => {
      await get(params.sessionId).writeTextFile(params, signal);
      return {};
    })
    .onRequest(m.terminal.create, ({ params, signal }) => get(params.sessionId).createTerminal(params, signal))
    .onRequest(m.terminal.output, ({ params }) => get(params.sessionId).terminalOutput(params))
    .onRequest(m.terminal.waitForExit, ({ params, signal }) => get(params.sessionId).waitForTerminalExit(params, signal))
    .onRequest(m.terminal.kill, async ({ params }) => {
      await get(params.sessionId).killTerminal(params);
      return {};
    })
    .onRequest(m.terminal.release, async ({ params }) => {
      await get(params.sessionId).releaseTerminal(params);
      return {};
    })
    .onRequest(m.elicitation.create, ({ params, signal }) => {
      if (!('sessionId' in params) || typeof params.sessionId !== 'string') return { action: 'cancel' };
      return get(params.sessionId).elicit(params, signal);
    })
    .onNotification(m.elicitation.complete, ({ params }) => {
      // Each session looks for its own question; an id no session knows is dropped quietly.
      for (const h of all()) if (h.completeElicitation(params.elicitationId)) return;
    })
    .onRequest('*', ({ method }) => {
      throw acpSdk().RequestError.methodNotFound(method);
    });
}

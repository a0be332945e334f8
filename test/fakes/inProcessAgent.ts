/**
 * A scripted ACP agent that runs in-process (SDK `acp.agent()`), for ACP client tests over the
 * SDK's in-memory connection. Each prompt runs `script` with helpers bound to the session.
 */
import * as acp from '@agentclientprotocol/sdk';

/** What a script can do during one prompt turn. */
export interface TurnContext {
  sessionId: string;
  cwd: string;
  prompt: string;
  /** The prompt request's `_meta` (e.g. the client's W3C `traceparent`). */
  meta?: Record<string, unknown>;
  client: acp.AgentContext;
  update(update: acp.SessionUpdate): Promise<void>;
  /** Resolves when the client sends `session/cancel` for this session. */
  cancelled: Promise<void>;
  isCancelled(): boolean;
}

/** Optional behaviour of the scripted agent. */
export interface ScriptedAgentOptions {
  /** Announced in `initialize` as `agentCapabilities.mcpCapabilities`. */
  mcpCapabilities?: acp.McpCapabilities;
  /** Receives every `session/new` request's params (e.g. to check the `mcpServers` sent). */
  onNewSession?: (params: acp.NewSessionRequest) => void;
  /** Announced in `initialize` as `agentInfo` (default `scripted-test-agent` 0.0.1). */
  agentInfo?: acp.Implementation;
}

/** Builds an in-process agent whose turns run `script`; it returns the stop reason. */
export function scriptedAgent(script: (t: TurnContext) => Promise<acp.StopReason>, options: ScriptedAgentOptions = {}): acp.AgentApp {
  const sessions = new Map<string, { cwd: string; cancel?: () => void; cancelled: boolean }>();
  let n = 0;
  return acp
    .agent({ name: 'scripted-test-agent' })
    .onRequest('initialize', () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, ...(options.mcpCapabilities ? { mcpCapabilities: options.mcpCapabilities } : {}) },
      agentInfo: options.agentInfo ?? { name: 'scripted-test-agent', version: '0.0.1' },
      authMethods: [],
    }))
    .onRequest('session/new', ({ params }) => {
      options.onNewSession?.(params);
      const sessionId = `scripted-${++n}`;
      sessions.set(sessionId, { cwd: params.cwd, cancelled: false });
      return { sessionId };
    })
    .onNotification('session/cancel', ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) {
        s.cancelled = true;
        s.cancel?.();
      }
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      const s = sessions.get(params.sessionId);
      if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
      s.cancelled = false;
      const cancelled = new Promise<void>((r) => (s.cancel = r));
      const prompt = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const stopReason = await script({
        sessionId: params.sessionId,
        cwd: s.cwd,
        prompt,
        meta: (params as { _meta?: Record<string, unknown> })._meta ?? undefined,
        client,
        update: (update) => client.notify('session/update', { sessionId: params.sessionId, update }),
        cancelled,
        isCancelled: () => s.cancelled,
      });
      return { stopReason: s.cancelled ? 'cancelled' : stopReason };
    });
}

/**
 * The offline demo agent as an SDK `AgentApp`: protocol handshake, sessions, prompt turns and
 * cancellation. What a turn does is decided by the scenario script (see `scenarios.ts`).
 *
 * Kept free of process concerns (stdio, exit codes, env) so it can also be connected in-process.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { DemoTracing } from './demoTracing';
import { SCENARIOS, type ProtocolScenario } from './scenarios';
import { DemoTurn, TurnCancelled, type DemoOptions, type SessionMemory } from './turn';
import type { DemoSessionStore } from './demoSessions';

/** `agentInfo` the demo agent reports in `initialize`. */
/**
 * The demo agent's session modes. `default` and `plan` run the same script (they show the picker);
 * in `autoEdit` it writes and runs its command without asking first, as Gemini CLI does in Auto Edit
 * or YOLO, so Agent Switchboard asks at the effect instead (issue 19).
 */
const DEMO_MODES = [
  { id: 'default', name: 'Ask before editing', description: 'Asks before every write and command' },
  { id: 'plan', name: 'Plan only', description: 'Describes what it would do' },
  { id: 'autoEdit', name: 'Auto Edit (does not ask)', description: 'Writes files and runs its command without asking first' },
];

/** The demo agent's configuration options (they change nothing in its script: they show the pickers). */
function demoConfigOptions(model: string, explain: boolean): acp.SessionConfigOption[] {
  return [
    {
      id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: model,
      options: [
        { value: 'scripted-fast', name: 'Scripted (fast)', description: 'No pauses between steps' },
        { value: 'scripted-thorough', name: 'Scripted (thorough)', description: 'The same script, described at length' },
      ],
    },
    { id: 'explain', name: 'Explain steps', description: 'Narrate each step', type: 'boolean', currentValue: explain },
  ];
}

/** The demo agent's slash commands (sent in `available_commands_update` after `session/new`). */
export const DEMO_COMMANDS: acp.AvailableCommand[] = [
  { name: 'demo', description: 'Run the demo turn again' },
  { name: 'explain', description: 'Explain what the demo agent can show', input: { hint: 'topic' } },
];

export const DEMO_AGENT_INFO = { name: 'agent-switchboard-demo', title: 'Offline demo agent', version: '0.1.0' } as const;

/** Every scenario the demo agent knows, including the two that fail before speaking ACP. */
export type DemoScenario = ProtocolScenario | 'exit-stderr' | 'no-initialize';

/** All scenario names, for validation and help text. */
export const DEMO_SCENARIOS: readonly DemoScenario[] = [
  'demo',
  'exit-stderr',
  'no-initialize',
  'grandchild-terminal',
  'write-conflict',
  'permission-only',
  'echo',
  'chunks',
  'many-entries',
  'gate-probe',
  'gate-borrow',
  'disk-writer',
  'editor-mcp',
  'fs-probe',
  'elicit',
  'lenient-cards',
  'unasked-writes',
  'run-commands',
  'cumulative-output',
];

/** Environment variables the demo agent reads. */
export const DEMO_ENV = {
  scenario: 'SWITCHBOARD_DEMO_SCENARIO',
  delayMs: 'SWITCHBOARD_DEMO_DELAY_MS',
  chunks: 'SWITCHBOARD_DEMO_CHUNKS',
  releaseOnCancel: 'SWITCHBOARD_DEMO_RELEASE_ON_CANCEL',
} as const;

/** Lines the `exit-stderr` scenario prints before it exits with code 1. */
export const EXIT_STDERR_LINES = [
  'fatal: config missing: ~/.config/agent-switchboard-demo/config.toml',
  'hint: this failure is scripted (SWITCHBOARD_DEMO_SCENARIO=exit-stderr)',
  'error: offline demo agent cannot start, exiting with code 1',
] as const;

/** Parsed configuration of one demo agent process. */
export interface DemoConfig {
  scenario: DemoScenario;
  options: DemoOptions;
}

/**
 * Reads the scenario and its knobs from the environment. Throws on an unknown scenario name so a
 * typo in a test fails loudly instead of silently running the default script.
 */
export function readDemoConfig(env: NodeJS.ProcessEnv): DemoConfig {
  const scenario = (env[DEMO_ENV.scenario] || 'demo') as DemoScenario;
  if (!DEMO_SCENARIOS.includes(scenario)) {
    throw new Error(`unknown ${DEMO_ENV.scenario} "${scenario}"; known: ${DEMO_SCENARIOS.join(', ')}`);
  }
  return {
    scenario,
    options: {
      delayMs: nonNegativeInt(env[DEMO_ENV.delayMs], 1000),
      chunks: nonNegativeInt(env[DEMO_ENV.chunks], 2000),
      releaseOnCancel: /^(1|true|yes)$/i.test(env[DEMO_ENV.releaseOnCancel] ?? ''),
      timingFile: env.SWITCHBOARD_DEMO_TIMING_FILE || undefined,
    },
  };
}

function nonNegativeInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

interface DemoSession {
  cwd: string;
  title?: string;
  config?: { model: string; explain: boolean };
  memory: SessionMemory;
  /** Aborts the running turn; present only while a `session/prompt` is being answered. */
  turn?: AbortController;
}

/**
 * Builds the demo agent for one connection. `scenario` picks the script every prompt turn runs.
 */
/**
 * The demo agent's login (`SWITCHBOARD_DEMO_REQUIRE_AUTH=1`): `session/new` answers "authentication
 * required" until a login marker exists, written by `demo-agent --login` in a terminal (the
 * `terminal` auth method) or by `authenticate` with the `demo-token` method.
 */
export interface DemoAuth {
  loggedIn(): boolean;
  logIn(): void;
  /**
   * The terminal method in the older shape Copilot CLI sends: no `type`, the whole command (this
   * absolute command and args) in `_meta["terminal-auth"]`.
   */
  terminalAuthMeta?: { command: string; args: string[] };
}

/** The auth methods the demo agent declares when it requires a login (ACP `authMethods`). */
export const DEMO_AUTH_METHODS: acp.AuthMethod[] = [
  { id: 'demo-login', name: 'Log in to the demo agent', description: 'Runs `demo-agent --login` in a terminal', type: 'terminal', args: ['--login'] },
  { id: 'demo-token', name: 'Use the demo token', description: 'The agent logs in by itself' },
];

export function createDemoAgentApp(scenario: ProtocolScenario, options: DemoOptions, store?: DemoSessionStore, auth?: DemoAuth): acp.AgentApp {
  const script = SCENARIOS[scenario];
  const sessions = new Map<string, DemoSession>();
  const save = (sessionId: string) => {
    const s = sessions.get(sessionId);
    if (s && store) store.save({ sessionId, cwd: s.cwd, title: s.title, updatedAt: new Date().toISOString(), history: s.memory.history ?? [] });
  };
  /** Takes up a remembered session (load or resume). */
  const takeUp = (sessionId: string, cwd: string): DemoSession => {
    const record = store?.load(sessionId);
    if (!record) throw acp.RequestError.sessionNotFound(sessionId);
    if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
    const turns = record.history.filter((u) => u.sessionUpdate === 'user_message_chunk').length;
    const session: DemoSession = { cwd, title: record.title, memory: { alwaysAllowed: new Set(), turns, mcpServers: [], history: record.history } };
    sessions.set(sessionId, session);
    return session;
  };
  const tracing = new DemoTracing();
  let clientCaps: acp.ClientCapabilities = {};

  return acp
    .agent({ name: DEMO_AGENT_INFO.name })
    .onRequest('initialize', ({ params }) => {
      clientCaps = params.clientCapabilities ?? {};
      return {
        // Only v1 exists; answering with our version lets a newer client decide whether to go on.
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          // With a session store it remembers sessions across processes: list, load and resume.
          loadSession: !!store,
          ...(store ? { sessionCapabilities: { list: {}, resume: {} } } : {}),
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          // The editor-mcp scenario calls the client's HTTP MCP servers.
          mcpCapabilities: { http: true, sse: false },
        },
        agentInfo: { ...DEMO_AGENT_INFO },
        authMethods: !auth ? [] : auth.terminalAuthMeta ? [{ id: 'demo-login', name: 'Log in to the demo agent', description: 'Runs `demo-agent --login` in a terminal', _meta: { 'terminal-auth': { ...auth.terminalAuthMeta, label: 'Demo Login' } } }, DEMO_AUTH_METHODS[1]] : DEMO_AUTH_METHODS,
      };
    })
    .onRequest('authenticate', ({ params }) => {
      if (!auth || params.methodId !== 'demo-token') throw acp.RequestError.invalidParams({ methodId: params.methodId }, 'unknown auth method (the terminal login runs `demo-agent --login`)');
      auth.logIn();
      return {};
    })
    .onRequest('session/new', ({ params, client }) => {
      if (auth && !auth.loggedIn()) throw acp.RequestError.authRequired(undefined, 'Log in first (authMethods: demo-login in a terminal, or demo-token)');
      if (!path.isAbsolute(params.cwd)) {
        throw acp.RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      }
      const sessionId = `demo-${randomUUID()}`;
      sessions.set(sessionId, { cwd: params.cwd, memory: { alwaysAllowed: new Set(), turns: 0, mcpServers: params.mcpServers ?? [], history: [] }, config: { model: 'scripted-fast', explain: false } });
      save(sessionId);
      // The slash commands follow the answer, as agents send them.
      setTimeout(() => void client.notify('session/update', { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: DEMO_COMMANDS } }).catch(() => undefined), 0);
      return { sessionId, modes: { currentModeId: 'default', availableModes: DEMO_MODES }, configOptions: demoConfigOptions('scripted-fast', false) };
    })
    .onRequest('session/set_config_option', ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
      const config = (session.config ??= { model: 'scripted-fast', explain: false });
      if (params.configId === 'model' && typeof params.value === 'string' && ['scripted-fast', 'scripted-thorough'].includes(params.value)) config.model = params.value;
      else if (params.configId === 'explain' && typeof params.value === 'boolean') config.explain = params.value;
      else throw acp.RequestError.invalidParams({ configId: params.configId }, 'no such option or value');
      return { configOptions: demoConfigOptions(config.model, config.explain) };
    })
    .onRequest('session/list', ({ params }) => {
      if (!store) throw acp.RequestError.methodNotFound('session/list');
      return { sessions: store.list(params.cwd ?? undefined) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      if (!store) throw acp.RequestError.methodNotFound('session/load');
      const session = takeUp(params.sessionId, params.cwd);
      // The whole conversation goes back to the client before the answer, as the spec asks.
      const startedAt = Date.now();
      const history = session.memory.history ?? [];
      for (const update of history) await client.notify('session/update', { sessionId: params.sessionId, update });
      // The agent's own time to replay: the baseline of the replay benchmark (PF9).
      if (options.timingFile) fs.writeFileSync(options.timingFile, JSON.stringify({ updates: history.length, startedAt, sentMs: Date.now() - startedAt }));
      return { modes: { currentModeId: 'default', availableModes: DEMO_MODES }, configOptions: demoConfigOptions('scripted-fast', false) };
    })
    .onRequest('session/resume', ({ params }) => {
      if (!store) throw acp.RequestError.methodNotFound('session/resume');
      takeUp(params.sessionId, params.cwd);
      return { modes: { currentModeId: 'default', availableModes: DEMO_MODES }, configOptions: demoConfigOptions('scripted-fast', false) };
    })
    .onRequest('session/set_mode', ({ params }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (!DEMO_MODES.some((m) => m.id === params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, 'no such mode');
      sessions.get(params.sessionId)!.memory.mode = params.modeId;
      return {};
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
      if (session.turn) {
        throw acp.RequestError.invalidRequest({ sessionId: params.sessionId }, 'a prompt turn is already running');
      }
      const controller = new AbortController();
      session.turn = controller;
      session.memory.turns += 1;
      // The person's words are part of what `session/load` replays.
      for (const block of params.prompt) if (block.type === 'text') session.memory.history?.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: block.text } });
      session.title ??= params.prompt.find((b) => b.type === 'text')?.text.slice(0, 80);
      const turn = new DemoTurn({
        client,
        sessionId: params.sessionId,
        cwd: session.cwd,
        caps: clientCaps,
        prompt: params.prompt,
        signal: controller.signal,
        options,
        memory: session.memory,
      });
      const span = tracing.turn((params as { _meta?: Record<string, unknown> })._meta);
      try {
        const stopReason = await script(turn);
        await span.end();
        return { stopReason };
      } catch (error) {
        await span.end(error);
        // After session/cancel the turn must end with `cancelled`, never with an error, whatever
        // failed on the way out (the spec asks agents to catch these).
        if (error instanceof TurnCancelled || controller.signal.aborted) return { stopReason: 'cancelled' };
        throw error;
      } finally {
        session.turn = undefined;
        save(params.sessionId);
      }
    });
}

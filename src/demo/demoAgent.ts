/**
 * Entry point of the **offline demo agent**: an ACP agent that runs a script instead of a model
 * (no model, no network). The extension ships it as `dist/demo-agent.js` (esbuild, CJS) and runs it
 * with `node dist/demo-agent.js` over stdio; in development: `node --import tsx src/demo/demoAgent.ts`.
 *
 * It doubles as the project's scripted test agent. `SWITCHBOARD_DEMO_SCENARIO` picks the script:
 *
 * | scenario              | what it does                                                           |
 * |-----------------------|------------------------------------------------------------------------|
 * | `demo` (default)      | plan, chunks, thought, edit + permission + fs write, terminal, summary |
 * | `exit-stderr`         | three lines on stderr, exit code 1 before answering `initialize`       |
 * | `no-initialize`       | reads stdin, never answers, stays alive                                |
 * | `grandchild-terminal` | terminal with a grandchild process, waits for cancel                   |
 * | `write-conflict`      | reads conflict.txt, waits `SWITCHBOARD_DEMO_DELAY_MS`, writes it back  |
 * | `permission-only`     | permission for a never-announced tool call, reports the answer        |
 * | `echo`                | streams the prompt text back in three chunks                           |
 * | `chunks`              | streams `SWITCHBOARD_DEMO_CHUNKS` ten-byte chunks                      |
 * | `many-entries`        | `SWITCHBOARD_DEMO_CHUNKS` read tool calls, each with a message         |
 * | `fs-probe`            | the `fs/*` requests and permission diffs the prompt's JSON names       |
 * | `unasked-writes`      | writes the files the prompt's JSON names, all at once, without asking  |
 *
 * Its sessions are kept in `SWITCHBOARD_DEMO_STATE_DIR` (default: a temp folder), so it lists, loads
 * and resumes them after a restart; `SWITCHBOARD_DEMO_NO_SESSIONS=1` turns that off.
 * `SWITCHBOARD_DEMO_REQUIRE_AUTH=1` makes it ask for a login first (`--login` in a terminal, or the
 * `demo-token` method of `authenticate`).
 * Written for the CJS bundle: no top-level await, no `import.meta`; everything starts in `main()`.
 * Importing this module starts the agent on the process's stdio: import `demoApp.ts` instead.
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEMO_AGENT_INFO, EXIT_STDERR_LINES, createDemoAgentApp, readDemoConfig, type DemoAuth } from './demoApp';
import { DemoSessionStore, demoStateDir } from './demoSessions';

/** Longest time a scenario that never speaks may linger, so a forgotten test process ends by itself. */
const LINGER_LIMIT_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  let config;
  try {
    config = readDemoConfig(process.env);
  } catch (error) {
    process.stderr.write(`${DEMO_AGENT_INFO.name}: ${(error as Error).message}\n`);
    process.exit(2);
  }

  const stateDir = demoStateDir(process.env);
  const loginMarker = path.join(stateDir, 'logged-in');
  const auth: DemoAuth | undefined = /^(1|true|yes)$/i.test(process.env.SWITCHBOARD_DEMO_REQUIRE_AUTH ?? '')
    ? {
        loggedIn: () => fs.existsSync(loginMarker),
        logIn: () => (fs.mkdirSync(stateDir, { recursive: true }), fs.writeFileSync(loginMarker, new Date().toISOString())),
        // SWITCHBOARD_DEMO_AUTH_SHAPE=meta: the login declared as Copilot CLI declares its own.
        ...(process.env.SWITCHBOARD_DEMO_AUTH_SHAPE === 'meta' ? { terminalAuthMeta: { command: process.execPath, args: [process.argv[1], '--login'] } } : {}),
      }
    : undefined;
  // The terminal login (`authMethods` type "terminal"): what a person runs to log the agent in.
  if (process.argv.includes('--login')) {
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(loginMarker, new Date().toISOString());
    process.stdout.write(`${DEMO_AGENT_INFO.title}: logged in (${loginMarker}). You can close this terminal.\n`);
    return;
  }
  if (config.scenario === 'exit-stderr') return exitWithStderr();
  if (config.scenario === 'no-initialize') return neverAnswer();

  // A client that goes away closes our stdout; that is a normal end, not a crash to report.
  process.stdout.on('error', () => process.exit(0));
  process.stderr.write(
    `${DEMO_AGENT_INFO.title} (${DEMO_AGENT_INFO.name} ${DEMO_AGENT_INFO.version}), scenario "${config.scenario}": no model, no network.\n`,
  );
  const stream = acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  // SWITCHBOARD_DEMO_NO_SESSIONS=1 plays an agent that can neither list, load nor resume sessions.
  const store = /^(1|true|yes)$/i.test(process.env.SWITCHBOARD_DEMO_NO_SESSIONS ?? '') ? undefined : new DemoSessionStore(demoStateDir(process.env));
  const connection = createDemoAgentApp(config.scenario, config.options, store, auth).connect(stream);
  await connection.closed;
  // Pending timers (a turn's delay, for instance) must not keep an orphaned agent alive.
  process.exit(0);
}

/**
 * Writes the error lines at once, then exits with code 1 when the first request (normally
 * `initialize`) arrives, so the client sees a request fail because the process died. Exits anyway
 * after two seconds for clients that wait before sending anything.
 */
function exitWithStderr(): void {
  for (const line of EXIT_STDERR_LINES) process.stderr.write(`${line}\n`);
  const exit = () => process.exit(1);
  process.stdin.once('data', exit);
  process.stdin.once('end', exit);
  setTimeout(exit, 2000);
}

/** Reads and drops everything on stdin and never answers: an agent hung before `initialize`. */
function neverAnswer(): void {
  process.stdin.on('data', () => undefined);
  // Stays alive even after stdin closes: the client has to kill it.
  process.stdin.on('end', () => undefined);
  setTimeout(() => process.exit(0), LINGER_LIMIT_MS);
}

main().catch((error: unknown) => {
  process.stderr.write(`${DEMO_AGENT_INFO.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

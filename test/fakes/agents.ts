/**
 * Launch recipes for real ACP agents in tests: each points the agent's model API at the fake
 * model server (`fake-model-server.mjs`) and isolates it from the machine (own HOME and XDG
 * dirs, proxy variables aimed at the fake server so stray egress is refused and recorded).
 *
 * The environment is curated rather than inherited on purpose. In particular `IS_SANDBOX` (set on
 * the CI machines) must not reach claude-code-acp: its bundled Claude CLI running as root then
 * fails `session/new` with -32603.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** How to start an agent process. */
export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Inputs shared by the recipes. */
export interface LaunchInput {
  /** Absolute, writable directory used as the agent's HOME (created if missing). */
  home: string;
  /** Base URL of the fake model server, e.g. `http://127.0.0.1:40123`. */
  fakeUrl: string;
}

/** Host variables an agent process needs to run at all; everything else is set explicitly. */
const PASS_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'USER', 'LOGNAME', 'TMPDIR'];

/** Isolated HOME/XDG dirs, proxy variables aimed at the fake server, and no update checks. */
export function isolatedEnv({ home, fakeUrl }: LaunchInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASS_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  };
  for (const dir of [home, ...Object.values(xdg)]) fs.mkdirSync(dir, { recursive: true });
  Object.assign(env, xdg, {
    HOME: home,
    HTTP_PROXY: fakeUrl,
    HTTPS_PROXY: fakeUrl,
    ALL_PROXY: fakeUrl,
    http_proxy: fakeUrl,
    https_proxy: fakeUrl,
    all_proxy: fakeUrl,
    // The fake server itself is on loopback and must be reached directly.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    NO_UPDATE_NOTIFIER: '1',
    CI: '1',
  });
  return env;
}

/**
 * `@zed-industries/claude-code-acp` (devDependency, 0.16.2): uses `fs/*` and `terminal/*` of the
 * client, asks permission for edits and shell commands. Run with the current Node binary.
 */
export function claudeCodeAcpLaunch(input: LaunchInput): AgentLaunch {
  // The package's "." export is import-only; its "./*" subpath export resolves for require too.
  const entry = require.resolve('@zed-industries/claude-code-acp/dist/index.js');
  const env = isolatedEnv(input);
  Object.assign(env, {
    ANTHROPIC_BASE_URL: input.fakeUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-offline-key',
    ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  });
  delete env.IS_SANDBOX; // never set above; kept explicit so nobody "helpfully" adds it
  return { command: process.execPath, args: [entry], env };
}

/**
 * `@zed-industries/claude-agent-acp` (devDependency, 0.23.x): asks permission for edits and shell
 * commands but writes files to disk itself and runs Bash itself (no `fs/write_text_file`, no
 * `terminal/*`), so its edits reach the review only through our snapshots. Same model settings as
 * {@link claudeCodeAcpLaunch}, plus the switches that keep its plugin marketplace offline.
 */
export function claudeAgentAcpLaunch(input: LaunchInput): AgentLaunch {
  const entry = require.resolve('@zed-industries/claude-agent-acp/dist/index.js');
  const launch = claudeCodeAcpLaunch(input);
  Object.assign(launch.env, {
    DISABLE_BUG_COMMAND: '1',
    CLAUDE_CODE_ENABLE_TELEMETRY: '0',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  });
  return { command: process.execPath, args: [entry], env: launch.env };
}


/**
 * The opencode binary scripts/setup-tools.sh installs (`OPENCODE_BIN`, else its default place).
 * @throws Error naming the fix when it is not there.
 */
export function opencodeBin(): string {
  const tools = process.env.SWITCHBOARD_TOOLS || path.join(os.homedir(), '.cache', 'agent-switchboard', 'tools');
  const bin = process.env.OPENCODE_BIN || path.join(tools, 'opencode', 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
  if (!fs.existsSync(bin)) throw new Error(`opencode is not installed at ${bin}: run \`bash scripts/setup-tools.sh\` (linux-x64; it installs opencode-linux-x64 from npm).`);
  return bin;
}

/**
 * opencode 1.18.33 (`opencode-linux-x64` from npm, installed by scripts/setup-tools.sh):
 * `opencode acp`, its model pointed at the fake server's OpenAI Chat
 * Completions dialect through an `@ai-sdk/openai-compatible` provider in its config, edits and
 * shell commands set to "ask" so it sends permission requests. Auto-update, model lists, LSP
 * downloads, plugins and sharing are turned off.
 */
export function opencodeLaunch(input: LaunchInput): AgentLaunch {
  const env = isolatedEnv(input);
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    permission: { edit: 'ask', bash: 'ask' },
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake local model',
        options: { baseURL: `${input.fakeUrl}/v1`, apiKey: 'fake-offline-key' },
        models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 200000, output: 8192 } } },
      },
    },
  };
  const dir = path.join(input.home, '.config', 'opencode');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'opencode.json'), JSON.stringify(config, null, 2));
  Object.assign(env, {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
  });
  const bin = opencodeBin();
  return { command: bin, args: ['acp', '--pure', '--print-logs', '--log-level', 'WARN'], env };
}

/**
 * `@zed-industries/codex-acp` (devDependency, 0.16.0; its native binary comes from
 * `@zed-industries/codex-acp-linux-x64`): Codex behind ACP, pointed at the fake server's OpenAI
 * Responses dialect by a `CODEX_HOME/config.toml` provider (`wire_api = "responses"`). It asks
 * permission for its patch and its shell command (`approval_policy = "untrusted"`), applies the
 * patch to disk itself and runs the command itself inside bubblewrap (`sandbox_mode =
 * "workspace-write"`): no `fs/write_text_file`, no `terminal/*`.
 *
 * The model must be one Codex knows (`gpt-5.3-codex`), or it offers no `apply_patch` tool. TMPDIR
 * is moved out of the way because Codex refuses to create its helper links (its sandbox launcher
 * among them) under the temp folder when CODEX_HOME lies inside it, and a HOME made by mkdtemp
 * does. Linux x64 only, like the package the devDependency installs.
 * @throws Error naming the fix when the binary is not installed.
 */
export function codexAcpLaunch(input: LaunchInput): AgentLaunch {
  const bin = path.join(path.dirname(require.resolve('@zed-industries/codex-acp-linux-x64/package.json')), 'bin', 'codex-acp');
  if (!fs.existsSync(bin)) throw new Error(`codex-acp is not installed at ${bin}: run \`npm ci\` on linux-x64 (it comes with the @zed-industries/codex-acp devDependency).`);
  const env = isolatedEnv(input);
  const codexHome = path.join(input.home, '.codex');
  const tmp = path.join(input.home, 'tmp');
  for (const dir of [codexHome, tmp]) fs.mkdirSync(dir, { recursive: true });
  const config = [
    'model = "gpt-5.3-codex"',
    'model_provider = "fake"',
    'approval_policy = "untrusted"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.fake]',
    'name = "Fake local model"',
    `base_url = "${input.fakeUrl}/v1"`,
    'env_key = "FAKE_MODEL_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config);
  Object.assign(env, { CODEX_HOME: codexHome, TMPDIR: tmp, FAKE_MODEL_API_KEY: 'fake-offline-key', RUST_LOG: 'warn' });
  return { command: bin, args: [], env };
}

/**
 * `@google/gemini-cli` (devDependency, 0.61.x) as `gemini.js --acp`, its model API (Gemini
 * `streamGenerateContent`) pointed at the fake server by `GOOGLE_GEMINI_BASE_URL`, a dummy API
 * key, and a `~/.gemini/settings.json` that selects API-key auth, turns folder trust, usage
 * statistics, telemetry and update checks off and fixes the model (`gemini-2.5-pro`: a model that
 * needs no thought signatures). `GEMINI_CLI_NO_RELAUNCH` keeps it in one process (it would
 * otherwise re-spawn itself with a bigger heap, and our process group would hold the parent only).
 * It reads a file through `fs/read_text_file` before writing it, asks permission for edits and
 * shell commands, writes through `fs/write_text_file`, and runs its shell itself.
 */
export function geminiCliLaunch(input: LaunchInput): AgentLaunch {
  const entry = path.join(path.dirname(require.resolve('@google/gemini-cli/package.json')), 'bundle', 'gemini.js');
  const env = isolatedEnv(input);
  const dir = path.join(input.home, '.gemini');
  fs.mkdirSync(dir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true, enableAutoUpdate: false, enableAutoUpdateNotification: false },
    model: { name: 'gemini-2.5-pro' },
  };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
  Object.assign(env, {
    GEMINI_API_KEY: 'fake-offline-key',
    GOOGLE_GEMINI_BASE_URL: input.fakeUrl,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
  });
  return { command: process.execPath, args: [entry, '--acp'], env };
}

